// Infers a process's steps from its optimizer kernels (kernel class
// "optimizer": multi_tensor_apply, fused Adam/SGD/LAMB kernels), for traces
// without NVTX step ranges. Work is taken in launch order (CUPTI's correlation
// ids grow with every API call); an optimizer burst is a run of optimizer
// kernels with at most kBurstInterruptions other kernels between two of them,
// and a step ends with the last optimizer kernel of a burst: it holds the work
// launched after the previous step's last optimizer kernel up to its own. Its
// window runs from the previous step's window end (the first step: its first
// work's start) to the end of its last GPU work, so steps tile the timeline.
// A CUDA-graph replay recorded whole whose graph's node list holds optimizer
// kernels ends a step by itself: replays of a whole training step, back to
// back, are a step each. Any other whole replay after a burst ends the burst
// at once: it is many kernels, not one (torch.compile's forward and backward
// graphs around an eager optimizer).
//
// Streaming: records arrive in completion order, so a reorder buffer of
// kReorderWindow records hands them on by correlation id. Only the open step's
// work is kept, capped at kMaxOpenWork while no burst has begun (a trace
// without optimizer kernels).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "reporter/steps/closed_step.h"

namespace vprof::reporter {

class OptimizerStepCollector {
 public:
  explicit OptimizerStepCollector(ClosedStepSink sink) : sink_(std::move(sink)) {}

  void AddWork(const GpuWork& work);
  // Closes the last step if it ended in a burst; later work is in no step.
  void Finish();
  // Forgets the work held, closing no step: the steps are not wanted.
  void Drop();

  // Work held (the memory bound, for tests).
  size_t held_works() const { return reorder_.size() + open_.size(); }

 private:
  static constexpr size_t kReorderWindow = 4096;
  static constexpr uint32_t kBurstInterruptions = 16;
  static constexpr size_t kMaxOpenWork = size_t{1} << 18;

  void TakeInOrder(const GpuWork& work);
  void CloseStep();

  ClosedStepSink sink_;
  std::multimap<uint32_t, GpuWork> reorder_;  // by correlation id
  std::vector<GpuWork> open_;                 // launch order
  size_t burst_end_ = 0;                      // open_[0, burst_end_) ends in the burst
  bool in_burst_ = false;
  uint32_t since_optimizer_ = 0;  // kernels taken since the burst's last optimizer kernel
  std::optional<int64_t> last_window_end_;
};

}  // namespace vprof::reporter
