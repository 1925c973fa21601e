// What the step analysis keeps of one process's steps as they close. Each
// step leaves one row (the figures the report lists per step); the rest of
// its result (phases, streams, the longest spans) is needed only summed over
// the measured steps, which start after the warmup and the steps before
// cudaProfilerStart, known only once every process was read. So that rest is
// kept step by step for the first steps only, and summed over the steps after
// them: memory per step is one row, whatever else a step holds.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "reporter/base/duration_histogram.h"
#include "reporter/steps/step_record.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// Adds every figure of `more` to `into`.
void AddSegmentTimes(SegmentTimes& into, const SegmentTimes& more);

// Steps kept in detail beyond the warmup: how many steps may come before
// cudaProfilerStart and still leave the measured steps' phases exact.
constexpr uint32_t kDetailedStepsPastWarmup = 64;

// The replay (reporter/replay/) needs each piece of a step's GPU work: it is
// kept for the first kReplaySteps steps past the warmup of each process, in
// all at most kReplayWorks pieces (64 bytes each) shared by the processes,
// never under kMinReplayWorks each: a step whose work does not fit is not kept.
inline constexpr uint32_t kReplaySteps = 8;
inline constexpr size_t kReplayWorks = size_t{1} << 21;
inline constexpr size_t kMinReplayWorks = size_t{1} << 14;
size_t ReplayWorksPerProcess(size_t processes);

// One step's row: the report's RankStepReport on the process's own clock,
// and where its NVTX range (or inferred start) began.
struct StepRow {
  // A PhaseSpan of the step, its phase an index into the store's phase_names().
  struct PhaseSpan {
    PhaseIndex phase = 0;
    bool from_nvtx = true;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
  };

  int64_t range_start_ns = 0;
  bool phase_ranges_missing = false;  // StepResult's
  RankStepReport step;
  std::vector<PhaseSpan> phase_spans;
};

// The parts of step results that the report only sums over steps.
struct StepDetail {
  std::map<std::string, SegmentTimes> phases;  // summed, by phase
  std::map<uint32_t, StepStreamUse> streams;   // summed, by stream
  // Of the steps added, the first whose figure (exposed_ns, duration_ns) is
  // the largest, above 0.
  std::optional<StepSpan> longest_exposed_comm;
  std::optional<StepSpan> longest_idle_gap;

  // Adds a later step's (or later steps') detail.
  void Add(const StepDetail& later);
  void Add(const StepResult& step);

 private:
  void KeepLongestSpans(const std::optional<StepSpan>& exposed_comm,
                        const std::optional<StepSpan>& idle_gap);
  void AddStreamUse(const StepStreamUse& use);
};

class StepStore {
 public:
  void KeepDetailOfFirst(uint32_t steps) { detailed_steps_ = steps; }
  void Add(StepResult step);

  size_t size() const { return rows_.size(); }
  // Steps left out under a deep schedule: no deep window held them whole.
  void CountShallow() { ++shallow_; }
  uint32_t shallow() const { return shallow_; }
  const std::deque<StepRow>& rows() const { return rows_; }
  // Hands the rows over (the store keeps none).
  std::deque<StepRow> TakeRows() { return std::move(rows_); }
  // The phases its rows name (spans, and the ledger's figures by phase); [0]
  // is no phase.
  const std::vector<std::string>& phase_names() const { return phase_names_; }
  // The detail summed over the steps from `first` on; none when `first` is
  // past the steps kept in detail and steps after it were summed.
  std::optional<StepDetail> DetailFrom(uint32_t first) const;
  // Names the spans kept (a kernel name per step would be a string per step),
  // and the replay's work: each name once, in replay_names().
  void NameSpans(const std::function<std::string(uint64_t iid)>& name_of);
  const std::vector<std::string>& replay_names() const { return replay_names_; }

 private:
  uint32_t detailed_steps_ = 1 + kDetailedStepsPastWarmup;
  std::deque<StepRow> rows_;       // grows by blocks: no spare room to double
  std::vector<StepDetail> first_;  // the first detailed_steps_ steps, one each
  StepDetail rest_;                // summed over the steps after them
  std::vector<std::string> phase_names_{std::string()};  // a handful: found by a walk
  PhaseIndex IndexOf(std::string_view phase);
  uint32_t shallow_ = 0;
  std::vector<std::string> replay_names_;
};

// What the step analysis keeps of one traced process, filled while its trace
// streams past (step_tracker.h) and turned into the report's steps by
// BuildStepsReport.
struct ProcessSteps {
  // Steps from NVTX ranges matching a step pattern, in order.
  StepStore nvtx;
  // Steps inferred from optimizer-kernel bursts, in order; used for the
  // report only when no process has NVTX steps.
  StepStore inferred;
  bool any_kernels = false;          // the process has GPU kernel or whole graph replay records
  bool max_connections_one = false;  // CUDA_DEVICE_MAX_CONNECTIONS=1 in its RunHeader environment
  std::optional<int64_t> profiler_start_ns;  // the first cudaProfilerStart call's start
  // The start of the first inferred step that a CUDA-graph replay recorded
  // whole ended: before it, a graph's eager warm-up and capture.
  std::optional<int64_t> first_graph_step_ns;
  // Under a deep schedule (RunHeader's Settings.deep_capture other than
  // "always"), the stores hold only the steps a deep window held whole (the
  // others are counted as shallow). NVTX steps' durations (range start to
  // end) on both sides: their medians tell what deep capture added to a step.
  std::string deep_schedule;  // empty under always
  uint32_t deep_windows = 0;
  DurationHistogram deep_step_ns;
  DurationHistogram shallow_step_ns;
  // GPU records that came after their step was finalized (step_tracker.h
  // says when that happens), or whose launch record never came: not counted.
  uint64_t late_records = 0;
  uint64_t unlaunched_records = 0;
};

}  // namespace vprof::reporter
