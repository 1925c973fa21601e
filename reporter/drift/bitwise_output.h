// `vprof diff --bitwise`: the comparison of two runs' collective fingerprints
// (bitwise_diff.h) as text for people or as JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "reporter/drift/bitwise_diff.h"

namespace vprof::reporter {

void WriteBitwiseText(const BitwiseDiff& diff, std::ostream& out);
void WriteBitwiseJson(const BitwiseDiff& diff, std::ostream& out);

// Reads both run directories and writes the comparison. Returns the exit
// status: 0 compared, 1 not written, 2 not comparable (named on `err`), 3
// compared but some trace was cut.
int RunBitwiseDiff(const std::string& dir_a, const std::string& dir_b, bool json, std::ostream& out,
                   std::ostream& err);

}  // namespace vprof::reporter
