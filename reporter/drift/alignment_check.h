// The run contract's declared alignment (`"alignment": {"profile": "A1",
// "reference": DIR}`) held against the evidence under --strict: the run's
// collective fingerprints compared with the reference run's, and the classes
// of difference they show checked against what the profile allows.
#pragma once

#include <optional>
#include <string>

#include "reporter/consistency/run_contract.h"

namespace vprof::reporter {

// Empty when the run keeps to its declared profile; otherwise one line
// naming the profile, the reference, the forbidden class and the first call
// where it shows, or why the runs could not be compared (no evidence fails,
// as every strict check does).
std::optional<std::string> AlignmentViolation(const std::string& run_directory,
                                              const RunContract::Alignment& declared);

}  // namespace vprof::reporter
