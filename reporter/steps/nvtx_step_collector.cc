#include "reporter/steps/nvtx_step_collector.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace vprof::reporter {
namespace {

constexpr size_t kHeldWorksBudget = 4 * NvtxStepCollector::kMaxHeldWorks;
constexpr size_t kMinHeldWorks = 1024;

}  // namespace

size_t HeldWorksPerProcess(size_t processes) {
  if (processes == 0) return NvtxStepCollector::kMaxHeldWorks;
  return std::clamp(kHeldWorksBudget / processes, kMinHeldWorks, NvtxStepCollector::kMaxHeldWorks);
}

void NvtxStepCollector::AddRange(int64_t start_ns, int64_t end_ns, std::optional<uint32_t> number) {
  if (end_ns < start_ns) return;
  if (last_closed_range_ && start_ns < last_closed_range_->second) return;
  // Steps it holds become part of it; one that holds it or crosses it wins.
  // Open steps do not overlap, so they are sorted by end as well as by start:
  // those that overlap the range are one run, found by binary search. Ranges
  // that only touch (one's end is the next one's start, as back-to-back steps
  // on a coarse clock) do not overlap.
  OpenStep step{start_ns, end_ns, SpareWorks(), number};
  // Steps of a program are alike: room for as much work as the last one
  // closed, or (before any closed) for the waiting work launched inside it,
  // saves growing the vector one doubling at a time.
  const auto launched_inside = [&](const GpuWork& work) {
    return work.launch_ns >= start_ns && work.launch_ns <= end_ns;
  };
  step.works.reserve(std::max<size_t>(
      last_closed_works_, std::count_if(undecided_.begin(), undecided_.end(), launched_inside)));
  auto it = std::lower_bound(open_.begin(), open_.end(), start_ns,
                             [](const OpenStep& open, int64_t at) { return open.end_ns <= at; });
  while (it != open_.end() && it->start_ns < end_ns) {
    if (it->start_ns < start_ns || it->end_ns > end_ns) return;  // crossing
    step.works.insert(step.works.end(), it->works.begin(), it->works.end());
    it = open_.erase(it);
  }
  const auto at =
      std::upper_bound(open_.begin(), open_.end(), start_ns,
                       [](int64_t at_ns, const OpenStep& open) { return at_ns < open.start_ns; });
  open_.insert(at, std::move(step));
  any_steps_ = true;
  latest_range_end_ = std::max(latest_range_end_, end_ns);
  CloseOldestBeyondCaps();

  std::swap(waiting_, undecided_);  // waiting_ was empty
  for (const GpuWork& work : waiting_) AddWork(work);
  waiting_.clear();
}

void NvtxStepCollector::AddWork(const GpuWork& work) {
  if (work.launch_ns > latest_range_end_) {
    undecided_.push_back(work);
    if (undecided_.size() > max_held_works_) undecided_.pop_front();
    return;
  }
  Place(work);
}

void NvtxStepCollector::Place(const GpuWork& work) {
  // Open steps are sorted by start and do not overlap: the candidate is the
  // last one starting at or before the launch, nearly always the newest.
  auto step = open_.end();
  if (open_.empty() || open_.back().start_ns > work.launch_ns) {
    step = std::upper_bound(
        open_.begin(), open_.end(), work.launch_ns,
        [](int64_t launch_ns, const OpenStep& open) { return launch_ns < open.start_ns; });
  }
  if (step != open_.begin() && std::prev(step)->end_ns >= work.launch_ns) {
    --step;
  } else {
    step = open_.end();
  }
  if (step == open_.end()) {
    if (last_closed_range_ && work.launch_ns <= last_closed_range_->second) ++late_records_;
    return;  // launched outside every step
  }
  step->works.push_back(work);
  ++held_works_;
  CloseOldestBeyondCaps();
}

void NvtxStepCollector::CloseOldestBeyondCaps() {
  while (open_.size() > 1 && (held_works_ > max_held_works_ || open_.size() > kMaxOpenSteps)) {
    CloseFront();
  }
}

void NvtxStepCollector::CloseFront() {
  OpenStep step = std::move(open_.front());
  open_.pop_front();
  held_works_ -= step.works.size();
  last_closed_works_ = step.works.size();
  ClosedStep closed{step.start_ns, step.end_ns,           step.start_ns,
                    step.start_ns, std::move(step.works), step.number};
  if (last_window_end_)
    closed.window_start_ns = std::max(closed.window_start_ns, *last_window_end_);
  closed.window_end_ns = std::max(closed.window_start_ns, step.end_ns);
  for (const GpuWork& work : closed.works) {
    closed.window_end_ns = std::max(closed.window_end_ns, work.end_ns);
  }
  last_window_end_ = closed.window_end_ns;
  last_closed_range_ = {step.start_ns, step.end_ns};
  sink_(closed);
  if (spare_works_.size() < kMaxSpareWorks) {
    closed.works.clear();
    spare_works_.push_back(std::move(closed.works));
  }
}

std::vector<GpuWork> NvtxStepCollector::SpareWorks() {
  if (spare_works_.empty()) return {};
  std::vector<GpuWork> works = std::move(spare_works_.back());
  spare_works_.pop_back();
  return works;
}

void NvtxStepCollector::Finish() {
  undecided_.clear();  // launched after every step range: in no step
  while (!open_.empty()) CloseFront();
}

}  // namespace vprof::reporter
