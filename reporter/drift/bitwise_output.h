// `vprof diff --bitwise`: the comparison of two runs' collective fingerprints
// (bitwise_diff.h), and why they drifted (why_drifted.h), as text for people
// or as JSON.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reporter/drift/bitwise_diff.h"
#include "reporter/drift/why_drifted.h"

namespace vprof::reporter {

// `why`: the GPU work before the first difference (ExplainDrift), when there
// is one.
void WriteBitwiseText(const BitwiseDiff& diff, const std::optional<WhyDrifted>& why,
                      std::ostream& out);
void WriteBitwiseJson(const BitwiseDiff& diff, const std::optional<WhyDrifted>& why,
                      std::ostream& out);

// Reads both run directories and writes the comparison. Returns the exit
// status: 0 compared, 1 not written, 2 not comparable (named on `err`), 3
// compared but some trace was cut.
int RunBitwiseDiff(const std::string& dir_a, const std::string& dir_b, bool json, std::ostream& out,
                   std::ostream& err);

}  // namespace vprof::reporter
