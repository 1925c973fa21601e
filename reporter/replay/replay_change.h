// A change to replay a measured step with: which pieces of GPU work run
// faster (or not at all), which host gaps close, which rank runs like
// another. What `vprof whatif` asks and what each candidate's projection
// stands for are both one of these.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// What a rule of a change looks at: one piece of work of one rank, and the
// names its RankStepsReport gives.
struct WorkOf {
  const ReplayWork& work;
  const RankStepsReport& rank;
  const std::string& name() const { return rank.replay_names[work.name]; }
  const std::string& phase() const { return rank.phase_names[work.phase]; }
};

using WorkPredicate = std::function<bool(const WorkOf&)>;

struct ReplayChange {
  std::string description;  // "kernels matching gemm* 2x faster"
  // Pieces whose time is divided by `factor` (a collective: its transfer);
  // factor 0 removes them (they take no time, and nothing waits on them).
  struct Faster {
    WorkPredicate applies;
    double factor = 1;
  };
  std::vector<Faster> faster;
  // Pieces launched as soon as what they wait for on the GPU is done, not
  // when their host got to them: work overlapped as far as its dependencies
  // allow (gradient buckets issued as their gradients are ready).
  WorkPredicate launched_when_ready;
  // With launched_when_ready: the pieces need only their rank's first
  // backward compute, as reductions regrouped into buckets that start with
  // backward would (an upper bound of what regrouping buys).
  bool ready_with_backward = false;
  // Host gaps before launches (the first's after the step's start included)
  // cut to what a launch costs the rank's host (its quickest gap between two
  // launches, replay_engine.cc): launches at the GPU's pace, as a CUDA
  // graph's, with the host's own work off the loop (synchronizations stay,
  // the host's time after them cut the same way).
  bool no_host_gaps = false;
  // Ranks (StepsReport::ranks indexes) whose lateness is a cause of its own
  // (the stragglers), each with the rank it is late against (the median
  // rank; kNone for none). launched_when_ready leaves their host timing as
  // measured; no_host_gaps cuts each of their host gaps by what it cuts the
  // other rank's same gap (launch order), so that only their lateness stays:
  // their gaps as measured where the two ranks' pieces do not line up
  // (replay_engine.cc: as many, of the same kinds and names in launch order).
  std::vector<std::pair<uint32_t, uint32_t>> lateness_kept;
  // Ranks (StepsReport::ranks indexes) that run like another rank: its
  // pieces' times and its host's gaps, piece by piece in launch order; where
  // the two ranks' pieces differ the change cannot be replayed.
  std::vector<std::pair<uint32_t, uint32_t>> runs_like;
  // Ranks whose every piece and host gap is divided by a factor.
  std::vector<std::pair<uint32_t, double>> rank_faster;
};

// no_host_gaps in words, as a candidate's projection and `vprof whatif` say it.
inline constexpr std::string_view kLaunchPaceChange =
    "launches at the GPU's pace, as a CUDA graph's with the host's own work off the loop: each "
    "host gap before a launch cut to the rank's quickest (synchronizations stay)";

// "gemm*" against a kernel name: '*' matches any run of characters, the
// rest literally, ASCII case ignored, anchored at both ends.
bool NameMatches(std::string_view pattern, std::string_view name);

}  // namespace vprof::reporter
