// The replays of a run: every full step whose work each rank kept
// (step_store.h's kReplaySteps) as a graph, run once as measured to check the
// model against the measured step times, and then with any change to project
// what it would buy. The projection is withheld, with the reason, where the
// unchanged replay is off by more than kReplayMaxError.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reporter/replay/replay_change.h"
#include "reporter/replay/replay_graph.h"

namespace vprof::reporter {

inline constexpr double kReplayMaxError = 0.05;

struct Projection {
  int64_t step_ns = 0;      // the changed steps' mean, replayed
  int64_t saving_ns = 0;    // the unchanged replay's mean less that
  double saving_share = 0;  // of the unchanged replay's mean
  // The kept steps the change could be replayed on (a rank running like
  // another needs their pieces to line up), of check().steps, as indexes
  // into StepsReport::full_steps.
  std::vector<uint32_t> full_steps;
  std::vector<std::pair<std::string, int64_t>> critical_path;  // per step, most first
};

class StepReplays {
 public:
  // `jobs`: the threads that build and replay the steps' graphs, one step a
  // thread at a time (the replays are the same for any number).
  explicit StepReplays(const StepsReport& steps, unsigned jobs = 1);

  const ReplayCheck& check() const { return check_; }
  // The mean over the steps the change replays on; none with the reason in
  // `why_not` (the check's, or the change replays on fewer than half of them).
  std::optional<Projection> Project(const ReplayChange& change, std::string& why_not) const;

 private:
  const StepsReport& steps_;
  const unsigned jobs_;
  std::vector<ReplayGraph> graphs_;
  std::vector<int64_t> unchanged_ns_;  // each graph's replayed step, unchanged
  ReplayCheck check_;
};

// The rank other than `rank` whose measured steps' mean window is the
// median of theirs: what a straggler is compared with.
std::optional<uint32_t> MedianRankBut(const StepsReport& steps, uint32_t rank);

}  // namespace vprof::reporter
