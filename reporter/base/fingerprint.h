// Fingerprints of what a run requested and what it ran: equal exactly when the
// JSON values are, whatever order their keys were written in.
#pragma once

#include <string>

#include "reporter/base/json_node.h"

namespace vprof::reporter {

// "sha256:" and the lowercase hex SHA-256 of CanonicalJson(value).
std::string Fingerprint(const JsonNode& value);

}  // namespace vprof::reporter
