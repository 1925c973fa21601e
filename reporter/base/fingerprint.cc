#include "reporter/base/fingerprint.h"

#include "reporter/base/sha256.h"

namespace vprof::reporter {

std::string Fingerprint(const JsonNode& value) {
  return "sha256:" + Sha256Hex(CanonicalJson(value));
}

}  // namespace vprof::reporter
