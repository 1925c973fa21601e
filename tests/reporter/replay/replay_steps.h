// Steps built in memory for the replay's tests: each rank's one full step as
// the pieces of GPU work it launched, times in microseconds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter::testing {

struct Piece {
  int64_t launch_us, start_us, end_us;
  std::string name = "gemm";
  WorkKind kind = WorkKind::kCompute;
  uint32_t stream = 7;
  uint64_t seq = 0;  // a collective's sequence number on communicator 0xc
};

inline Piece Collective(int64_t launch_us, int64_t start_us, int64_t end_us, uint64_t seq) {
  return {launch_us,       start_us, end_us, "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
          WorkKind::kComm, 9,        seq};
}

// One full step; each rank's window from 0 to `end_us` (its last piece's end
// when 0).
inline StepsReport OneStep(const std::vector<std::vector<Piece>>& ranks,
                           const std::vector<int64_t>& end_us = {}) {
  StepsReport steps;
  int64_t step_end = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    RankStepsReport& rank = steps.ranks.emplace_back();
    rank.rank = static_cast<int32_t>(r);
    rank.phase_names = {""};
    RankStepReport& step = rank.steps.emplace_back();
    step.start_ns = 0;
    for (const Piece& piece : ranks[r]) {
      ReplayWork work;
      work.launch_ns = piece.launch_us * 1000;
      work.start_ns = piece.start_us * 1000;
      work.end_ns = piece.end_us * 1000;
      work.kind = piece.kind;
      work.stream = piece.stream;
      if (piece.kind == WorkKind::kComm) {
        work.comm_id = 0xc;
        work.seq = piece.seq;
      }
      const auto named = std::find(rank.replay_names.begin(), rank.replay_names.end(), piece.name);
      work.name = static_cast<uint64_t>(named - rank.replay_names.begin());
      if (named == rank.replay_names.end()) rank.replay_names.push_back(piece.name);
      step.end_ns = std::max(step.end_ns, work.end_ns);
      step.replay.push_back(work);
    }
    if (r < end_us.size() && end_us[r] > 0) step.end_ns = end_us[r] * 1000;
    rank.total.window_ns = step.end_ns;
    step_end = std::max(step_end, step.end_ns);
  }
  FullStepReport& full = steps.full_steps.emplace_back();
  full.duration_ns = step_end;
  return steps;
}

}  // namespace vprof::reporter::testing
