#include "reporter/base/valid_utf8.h"

#include <cstdint>
#include <limits>

#include "common/utf8_repair.h"

namespace vprof::reporter {

std::string ValidUtf8(std::string_view text) {
  const Utf8Fit fit = FitUtf8(text, std::numeric_limits<size_t>::max());
  if (fit.unchanged) return std::string(text);
  std::string repaired(fit.bytes, '\0');
  Utf8Repair(text, fit, reinterpret_cast<uint8_t*>(repaired.data()));
  return repaired;
}

}  // namespace vprof::reporter
