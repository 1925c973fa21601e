#include "reporter/drift/alignment_check.h"

#include <sstream>

#include "reporter/drift/bitwise_diff.h"

namespace vprof::reporter {

std::optional<std::string> AlignmentViolation(const std::string& run_directory,
                                              const RunContract::Alignment& declared) {
  const std::string claim =
      "the run is declared " + declared.profile + " against " + declared.reference + ", but ";
  RunFingerprints reference, run;
  std::ostringstream why;
  int status = 0;
  if (!LoadRunFingerprints(declared.reference, &reference, why, &status) ||
      !LoadRunFingerprints(run_directory, &run, why, &status)) {
    std::string text = why.str();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return claim + "the runs cannot be compared: " + text;
  }
  BitwiseDiff diff;
  std::string error;
  if (!CompareFingerprints(reference, run, &diff, &error)) {
    return claim + "the runs cannot be compared: " + error;
  }
  const std::optional<DriftClass> forbidden = ForbiddenAxis(declared.profile, diff.axes);
  if (!forbidden) return std::nullopt;
  const DriftCall& at = diff.axis_first.at(*forbidden);
  return claim + "its collectives differ by " + DriftClassName(*forbidden) + " (the pair is " +
         diff.profile + "): first at " + at.function + " seq " + std::to_string(at.seq) +
         " on communicator " + at.comm_label;
}

}  // namespace vprof::reporter
