#include "reporter/trace/trace_names.h"

#include "common/utf8_repair.h"

namespace vprof::reporter {

std::string TraceName(std::string_view name) {
  if (name.size() <= kMaxNameBytes) return std::string(name);
  static constexpr std::string_view kCutMark = "…";
  std::string cut(name.substr(0, Utf8Cut(name, kMaxNameBytes - kCutMark.size())));
  cut += kCutMark;
  return cut;
}

}  // namespace vprof::reporter
