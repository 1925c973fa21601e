#include "reporter/summary/projection_text.h"

#include "reporter/base/units.h"

namespace vprof::reporter {

std::string ProjectionText(const CandidateReport& candidate, bool with_change) {
  if (candidate.projected_saving_ns) {
    std::string text = "saves " + FormatDurationNs(*candidate.projected_saving_ns) + " per step";
    if (candidate.projected_share) text += " (" + FormatPercent(*candidate.projected_share) + ")";
    text += ", projected";
    if (with_change && !candidate.projection.empty()) text += " with " + candidate.projection;
    return text;
  }
  if (!candidate.projection_withheld.empty()) {
    return "saving not projected: " + candidate.projection_withheld;
  }
  return "";
}

std::string ReplayCheckText(const ReplayCheck& check) {
  if (check.steps == 0) return "no full step replayed: " + check.withheld;
  std::string text = "the replay of " + std::to_string(check.steps) + " full step" +
                     (check.steps == 1 ? "" : "s") + " reproduces the measured step within " +
                     FormatPercent(check.error) + " (measured " +
                     FormatDurationNs(check.measured_ns) + ", replayed " +
                     FormatDurationNs(check.replayed_ns) + " per step)";
  std::string assumed;
  const auto add = [&](uint64_t count, const std::string& what) {
    if (count > 0) assumed += (assumed.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  };
  add(check.assumed_waits, "stream waits");
  add(check.assumed_syncs, "host synchronizations");
  if (!assumed.empty()) text += "; assumed from timing, not recorded: " + assumed;
  if (check.unexplained_starts > 0) {
    text += "; " + std::to_string(check.unexplained_starts) +
            " starts no recorded edge explains, replayed after what ended last before them (" +
            FormatDurationNs(check.unexplained_ns) + ")";
  }
  if (check.collectives_apart > 0) {
    text += "; " + std::to_string(check.collectives_apart) +
            " collectives whose members' steps were not all kept, replayed as measured";
  }
  if (!check.withheld.empty()) text += "; projections withheld: " + check.withheld;
  return text;
}

}  // namespace vprof::reporter
