// Gathers a process's GPU work into the steps its NVTX step ranges bound.
//
// Work belongs to the step whose range contains its CPU launch (the API call
// that queued it), not its GPU start: the CPU runs ahead of the GPU, so work
// queued during step k often runs while the CPU is already in step k+1, and
// only the launch says which step asked for it. A step's window is
// [range start, range end or end of the last GPU work launched in it, whichever
// is later], its start moved up to the previous window's end when the GPU was
// still busy with the previous step (windows never overlap). So where step
// ranges follow each other (torch.profiler's ProfilerStep#N, a training loop's
// step range) the windows tile them and a step's time is its period: the GPU
// idle after a step's last kernel while the host finishes the step is the
// step's. Time between two ranges is no step's: the program marked it as none.
//
// Streaming: ranges arrive when they end and GPU records when CUPTI flushes
// them, in either order. Only open steps keep their work:
//  - work launched after the latest step range read waits (`undecided_`) until
//    a range ending after its launch is read: ranges of a thread arrive in end
//    order, so by then the range that holds it, if any, has been read;
//  - steps stay open until the work they hold passes the held-work limit (or
//    they pass kMaxOpenSteps); then the oldest are closed (analyzed and
//    forgotten). No later record can be relied on to say that a step's
//    records are all in: CUPTI hands over whole buffers, several in flight
//    at once and not in completion order. On 2 × H200 (DDP,
//    bench/RESULTS.md), closing step k once work of step k+8 was read left
//    thousands of records late; holding by count left none. A record that
//    still comes after its step closed is counted in late_records(), not in
//    any step.
// Memory: at most the held-work limit (LimitHeldWorks) of work in open steps (more only
// inside one step), and as many undecided (traces without step ranges). The
// limit is per process; a report over many processes lowers it
// (HeldWorksPerProcess) so that what all of them hold stays bounded.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <utility>

#include "reporter/base/trimmed_vector.h"
#include "reporter/steps/closed_step.h"

namespace vprof::reporter {

class NvtxStepCollector {
 public:
  // The limit of one process read alone.
  static constexpr size_t kMaxHeldWorks = size_t{1} << 18;

  explicit NvtxStepCollector(ClosedStepSink sink) : sink_(std::move(sink)) {}

  void LimitHeldWorks(size_t works) { max_held_works_ = works; }
  // Whether a step range was taken: the process has NVTX steps.
  bool any_steps() const { return any_steps_; }

  // A range matching a step pattern. Only outermost step ranges are steps:
  // one inside another (ProfilerStep#3 around train_step) is part of it.
  // `number`: the program's number of the step, from the range's name.
  void AddRange(int64_t start_ns, int64_t end_ns, std::optional<uint32_t> number = std::nullopt);
  void AddWork(const GpuWork& work);
  // Closes every step still open.
  void Finish();

  // Steps and work held (the memory bound, for tests).
  size_t held_steps() const { return open_.size(); }
  size_t held_works() const {
    size_t works = undecided_.size();
    for (const OpenStep& step : open_) works += step.works.size();
    return works;
  }
  uint64_t late_records() const { return late_records_; }

 private:
  static constexpr size_t kMaxOpenSteps = size_t{1} << 12;
  static constexpr size_t kMaxSpareWorks = 4;
  static constexpr size_t kUndecidedTrimBatch = 256;

  struct OpenStep {
    int64_t start_ns;
    int64_t end_ns;
    std::vector<GpuWork> works;
    std::optional<uint32_t> number;
  };

  // Places work launched no later than the latest range end read.
  void Place(const GpuWork& work);
  // An empty vector for a new step's work, with room left by a closed one.
  std::vector<GpuWork> SpareWorks();
  void CloseFront();
  void CloseOldestBeyondCaps();

  ClosedStepSink sink_;
  std::deque<OpenStep> open_;  // by start; they do not overlap
  // Launch order; trimmed at the front when beyond the held-work limit.
  TrimmedVector<GpuWork> undecided_{kUndecidedTrimBatch};
  TrimmedVector<GpuWork> waiting_{kUndecidedTrimBatch};  // AddRange's, kept
  // Closed steps' vectors, emptied: a step opens for each one that closes.
  std::vector<std::vector<GpuWork>> spare_works_;
  std::optional<std::pair<int64_t, int64_t>> last_closed_range_;
  std::optional<int64_t> last_window_end_;
  int64_t latest_range_end_ = INT64_MIN;
  uint64_t late_records_ = 0;
  size_t held_works_ = 0;  // in open_
  size_t last_closed_works_ = 0;
  size_t max_held_works_ = kMaxHeldWorks;
  bool any_steps_ = false;
};

// The held-work limit of each process when `processes` are read together:
// an equal share of one budget for the whole report (2^20 works, 72 MiB:
// kMaxHeldWorks each for up to 4 processes), so that 1,024 ranks hold no more
// than 4 do, but never below 1,024 works (a few steps of most programs). Fewer held works can
// close a step before a late CUPTI buffer arrives: its records are then
// counted as late, not lost silently.
size_t HeldWorksPerProcess(size_t processes);

}  // namespace vprof::reporter
