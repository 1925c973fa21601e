#include "reporter/steps/optimizer_step_collector.h"

#include <algorithm>

namespace vprof::reporter {

void OptimizerStepCollector::AddWork(const GpuWork& work) {
  reorder_.emplace(work.correlation_id, work);
  if (reorder_.size() <= kReorderWindow) return;
  TakeInOrder(reorder_.begin()->second);
  reorder_.erase(reorder_.begin());
}

void OptimizerStepCollector::TakeInOrder(const GpuWork& work) {
  // A CUDA-graph replay recorded whole whose graph runs the optimizer: the
  // step ends with it (its nodes are not recorded, so nothing of the step can
  // follow inside it), and a burst before it ended a step of its own. Graphs
  // replayed back to back are a step each.
  if (work.optimizer && work.whole_graph) {
    if (in_burst_) CloseStep();
    open_.push_back(work);
    burst_end_ = open_.size();
    CloseStep();
    return;
  }
  open_.push_back(work);
  if (work.optimizer) {
    in_burst_ = true;
    burst_end_ = open_.size();
    since_optimizer_ = 0;
    return;
  }
  if (!in_burst_) {
    if (open_.size() > kMaxOpenWork) open_.erase(open_.begin());
    return;
  }
  // A replay recorded whole after the burst is many kernels at once (the
  // next step's forward graph, as torch.compile's CUDA graphs replay it).
  if (work.whole_graph ||
      (work.kind != WorkKind::kCopy && ++since_optimizer_ > kBurstInterruptions)) {
    CloseStep();
  }
}

void OptimizerStepCollector::CloseStep() {
  // Room for as much as this step holds: steps of a program are alike.
  std::vector<GpuWork> next;
  next.reserve(burst_end_);
  next.assign(open_.begin() + static_cast<std::ptrdiff_t>(burst_end_), open_.end());
  open_.resize(burst_end_);
  ClosedStep step;
  step.range_start_ns = open_.front().launch_ns;
  step.range_end_ns = open_.back().launch_ns;
  int64_t first_start = open_.front().start_ns;
  int64_t last_end = open_.front().end_ns;
  for (const GpuWork& work : open_) {
    first_start = std::min(first_start, work.start_ns);
    last_end = std::max(last_end, work.end_ns);
  }
  step.window_start_ns = last_window_end_.value_or(first_start);
  step.window_end_ns = std::max(step.window_start_ns, last_end);
  last_window_end_ = step.window_end_ns;
  step.works = std::move(open_);
  open_ = std::move(next);
  in_burst_ = false;
  burst_end_ = 0;
  since_optimizer_ = 0;
  sink_(step);
}

void OptimizerStepCollector::Finish() {
  for (const auto& [correlation, work] : reorder_) TakeInOrder(work);
  reorder_.clear();
  if (in_burst_) CloseStep();
  open_.clear();
}

void OptimizerStepCollector::Drop() {
  reorder_.clear();
  open_.clear();
  in_burst_ = false;
  burst_end_ = 0;
}

}  // namespace vprof::reporter
