// The result of analyzing one step of one process (step_segments.h), which
// the step store (step_store.h) folds as soon as the step closes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// One stream's work inside one step.
struct StepStreamUse {
  uint32_t stream = 0;
  uint64_t compute_kernels = 0;
  uint64_t comm_kernels = 0;
  uint64_t copies = 0;
  int64_t busy_ns = 0;         // union of its work's intervals inside the window
  uint64_t graph_replays = 0;  // recorded whole: not in compute_kernels
};

// The longest exposed communication kernel or idle gap of one step, on the
// process's own clock (the report adds the clock offset).
struct StepSpan {
  uint32_t correlation_id = 0;
  uint64_t name_iid = 0;  // the kernel (or GPU work) it names; 0 for copies
  std::string name;  // copies and whole graph replays: what they are; else from name_iid at the end
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
  int64_t exposed_ns = 0;  // communication: the part of it no compute hid
};

// Where the host was in one phase during one step, on the process's own
// clock: for an NVTX phase, its first range's start to its last range's end,
// cut to the step's range; for an inferred one, the launches of its first and
// last GPU work (StepTracker::InferredPhaseSpans). The memory a phase held is
// read over this span (step_memory.h): allocations happen on the host.
struct PhaseSpan {
  std::string_view phase;  // static storage, or a PhaseRulesScope's
  bool from_nvtx = true;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// One step of one process, analyzed once all its GPU records were read.
struct StepResult {
  int64_t range_start_ns = 0;  // the NVTX range's start (or the inferred start)
  int64_t start_ns = 0;        // the window, on the process's own clock
  int64_t end_ns = 0;
  // The API calls that launched the step's work: one per kernel, copy or
  // memset, one per CUDA graph launch however many nodes it ran.
  uint32_t launches = 0;
  SegmentTimes times;
  std::vector<BucketReport> buckets;
  std::vector<StepStreamUse> streams;
  std::optional<StepSpan> longest_exposed_comm;
  std::optional<StepSpan> longest_idle_gap;
  // By NVTX phase (phase_rules.h): the step's work launched inside the
  // phase's ranges, over the part of the window from its first start to its
  // last end. Phases overlap on the GPU, so they need not add up to the step.
  std::vector<std::pair<std::string, SegmentTimes>> phases;
  // A phase range that may reach into the step was dropped before the step
  // was analyzed (the cap on held ranges, step_tracker.h): its phases may
  // be short.
  bool phase_ranges_missing = false;
  std::vector<PhaseSpan> phase_spans;  // by phase name
  // RankStepReport's figures of the same names, their phases indexes into
  // phase_table (the step's own: [0] is no phase).
  std::vector<PhaseTime> compute_by_phase;
  std::vector<PhaseTime> host_idle_by_phase;
  std::vector<StepCollective> collectives;
  std::vector<ExposedPiece> exposed_pieces;
  std::vector<std::string_view> phase_table;  // static storage, or a PhaseRulesScope's
  std::optional<uint32_t> number;             // ClosedStep's
  // Its work, for the replay, where the step is one kept (RankStepReport's).
  std::vector<ReplayWork> replay;
};

}  // namespace vprof::reporter
