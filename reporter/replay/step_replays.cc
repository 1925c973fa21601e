#include "reporter/replay/step_replays.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "reporter/base/parallel_for.h"
#include "reporter/base/units.h"
#include "reporter/replay/replay_engine.h"
#include "reporter/steps/step_store.h"

namespace vprof::reporter {

StepReplays::StepReplays(const StepsReport& steps, unsigned jobs) : steps_(steps), jobs_(jobs) {
  std::vector<std::optional<ReplayGraph>> built(steps.full_steps.size());
  std::vector<std::optional<ReplayOutcome>> outcomes(built.size());
  ParallelFor(jobs, built.size(), [&](size_t i) {
    built[i] = BuildReplayGraph(steps, i);
    if (built[i]) outcomes[i] = Replay(*built[i], steps, {});
  });
  std::vector<std::optional<ReplayOutcome>> unchanged_outcomes;
  for (size_t i = 0; i < built.size(); ++i) {
    if (!built[i]) continue;
    graphs_.push_back(std::move(*built[i]));
    unchanged_outcomes.push_back(std::move(outcomes[i]));
  }
  check_.steps = static_cast<uint32_t>(graphs_.size());
  if (graphs_.empty()) {
    check_.withheld = "no full step kept its work for the replay (the first " +
                      std::to_string(kReplaySteps) +
                      " measured steps of each rank are kept, within a budget of pieces of work)";
    return;
  }
  double error = 0;
  int64_t measured = 0, unchanged = 0;
  for (size_t g = 0; g < graphs_.size(); ++g) {
    const ReplayGraph& graph = graphs_[g];
    const std::optional<ReplayOutcome>& outcome = unchanged_outcomes[g];
    if (!outcome) {
      check_.withheld = "step " + std::to_string(StepNumber(steps, graph.step)) +
                        "'s assumed edges contradict each other (a cycle)";
      return;
    }
    unchanged_ns_.push_back(outcome->step_ns);
    unchanged += outcome->step_ns;
    measured += graph.measured_ns;
    error += std::fabs(static_cast<double>(outcome->step_ns - graph.measured_ns)) /
             static_cast<double>(std::max<int64_t>(1, graph.measured_ns));
    check_.assumed_waits += graph.assumed_waits;
    check_.assumed_syncs += graph.assumed_syncs;
    check_.unexplained_starts += graph.unexplained_starts;
    check_.unexplained_ns += graph.unexplained_ns;
    check_.collectives_apart += graph.collectives_apart;
  }
  const auto n = static_cast<int64_t>(graphs_.size());
  check_.measured_ns = measured / n;
  check_.replayed_ns = unchanged / n;
  check_.error = error / static_cast<double>(n);
  if (check_.error > kReplayMaxError) {
    char text[128];
    std::snprintf(text, sizeof text, "the unchanged replay is off the measured steps by %.1f%%",
                  check_.error * 100);
    check_.withheld = std::string(text) + ", more than the " + FormatPercent(kReplayMaxError) +
                      " a projection may rest on";
  }
}

std::optional<Projection> StepReplays::Project(const ReplayChange& change,
                                               std::string& why_not) const {
  if (!check_.withheld.empty()) {
    why_not = check_.withheld;
    return std::nullopt;
  }
  Projection projection;
  std::map<std::string, int64_t> path;
  int64_t unchanged = 0;
  std::string first_apart;
  std::vector<std::optional<ReplayOutcome>> outcomes(graphs_.size());
  ParallelFor(jobs_, graphs_.size(),
              [&](size_t g) { outcomes[g] = Replay(graphs_[g], steps_, change); });
  for (size_t g = 0; g < graphs_.size(); ++g) {
    const ReplayGraph& graph = graphs_[g];
    const std::optional<ReplayOutcome>& outcome = outcomes[g];
    if (!outcome) {
      if (first_apart.empty()) first_apart = std::to_string(StepNumber(steps_, graph.step));
      continue;
    }
    projection.full_steps.push_back(graph.full_step);
    unchanged += unchanged_ns_[g];
    projection.step_ns += outcome->step_ns;
    for (const auto& [what, ns] : outcome->critical_path) path[what] += ns;
  }
  if (2 * projection.full_steps.size() < graphs_.size()) {
    why_not = "the change replays on " + std::to_string(projection.full_steps.size()) + " of the " +
              std::to_string(graphs_.size()) + " kept steps (step " + first_apart +
              ": ranks whose work does not line up piece by piece, or a cycle)";
    return std::nullopt;
  }
  const auto n = static_cast<int64_t>(projection.full_steps.size());
  projection.step_ns /= n;
  unchanged /= n;
  projection.saving_ns = unchanged - projection.step_ns;
  projection.saving_share = static_cast<double>(projection.saving_ns) /
                            static_cast<double>(std::max<int64_t>(1, unchanged));
  for (const auto& [what, ns] : path) projection.critical_path.emplace_back(what, ns / n);
  std::stable_sort(projection.critical_path.begin(), projection.critical_path.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return projection;
}

std::optional<uint32_t> MedianRankBut(const StepsReport& steps, uint32_t rank) {
  std::vector<std::pair<int64_t, uint32_t>> windows;
  for (uint32_t r = 0; r < steps.ranks.size(); ++r) {
    const RankStepsReport& each = steps.ranks[r];
    if (r == rank || each.steps.empty()) continue;
    windows.emplace_back(each.total.window_ns / static_cast<int64_t>(each.steps.size()), r);
  }
  if (windows.empty()) return std::nullopt;
  std::sort(windows.begin(), windows.end());
  return windows[windows.size() / 2].second;
}

}  // namespace vprof::reporter
