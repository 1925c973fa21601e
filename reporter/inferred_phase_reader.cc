#include "reporter/inferred_phase_reader.h"

#include <algorithm>
#include <string>
#include <vector>

namespace vprof::reporter {
namespace {

// How many disjoint busy intervals stay open to merge with kernels that
// arrive late; more than a GPU activity buffer holds out of order. Every
// process of a report keeps this many, and up to kClosedBatch closed ones
// (20 KiB).
constexpr size_t kOpenIntervals = 1024;
// How far back from the newest interval a kernel is looked for one by one.
constexpr int kStepsBack = 8;
// Closed intervals dropped from the front at once (TrimmedVector).
constexpr size_t kClosedBatch = 256;
// Calls of threads other than the main one kept to find kernels' launching
// threads: more than the kernels a GPU queues ahead of their records (2,048
// calls, 16 KiB per process).
constexpr size_t kMaxLaunchThreads = 2048;

}  // namespace

InferredPhaseReader::InferredPhaseReader(NameLookup name_of)
    : name_of_(std::move(name_of)), open_(kClosedBatch), launch_threads_(kClosedBatch) {}

void InferredPhaseReader::AddHeader(const vprof::trace::RunHeader& header) {
  const std::vector<std::string> argv(header.argv().begin(), header.argv().end());
  std::vector<std::string> environment;
  for (const auto& variable : header.env()) environment.push_back(variable.name());
  input_.role = ProcessRoleOf(argv, environment);
}

void InferredPhaseReader::AddGpuBatch(const vprof::trace::GpuBatch& batch) {
  // The API calls first: a kernel's call is in its batch or an earlier one.
  for (const auto& api : batch.api()) {
    if (api.correlation_id() != 0) AddLaunchThread(api.correlation_id(), api.tid());
  }
  for (const auto& kernel : batch.kernel()) {
    AddKernel(kernel.start_ns(), kernel.start_ns() + kernel.duration_ns());
    AddKernelThread(kernel);
  }
}

void InferredPhaseReader::AddLaunchThread(uint32_t correlation_id, uint32_t tid) {
  if (main_tid_ && tid == *main_tid_) return;
  // Calls come nearly in correlation order: the place is found from the back.
  auto at = launch_threads_.end();
  while (at != launch_threads_.begin() && std::prev(at)->first > correlation_id) --at;
  launch_threads_.insert(at, {correlation_id, tid});
  if (launch_threads_.size() > kMaxLaunchThreads) launch_threads_.pop_front();
}

void InferredPhaseReader::AddKernelThread(const vprof::trace::GpuKernel& kernel) {
  const auto call = std::lower_bound(
      launch_threads_.begin(), launch_threads_.end(), kernel.correlation_id(),
      [](const LaunchThread& entry, uint32_t correlation) { return entry.first < correlation; });
  if (call == launch_threads_.end() || call->first != kernel.correlation_id()) return;
  if (!main_tid_) main_tid_ = call->second;
  if (call->second != *main_tid_) {
    off_main_by_iid_[kernel.name_iid()].Add(0, kernel.duration_ns());
  }
}

void InferredPhaseReader::AddKernel(uint64_t start_ns, uint64_t end_ns) {
  if (!any_kernel_) open_.reserve(kOpenIntervals + 1);  // all it will hold
  if (!any_kernel_ || start_ns < input_.first_kernel_start_ns) {
    input_.first_kernel_start_ns = start_ns;
  }
  input_.last_kernel_end_ns = std::max(input_.last_kernel_end_ns, end_ns);
  any_kernel_ = true;

  start_ns = std::max(start_ns, closed_until_ns_);
  if (end_ns <= start_ns) return;
  // Merge with every open interval it touches: the one starting before it
  // that reaches it, and those starting inside it. Kernels come nearly in
  // time order, so the first interval starting after it is found by a few
  // steps back from the end; a binary search when it is further back.
  const auto begin = open_.begin();
  auto next = open_.end();
  for (int steps = 0; steps < kStepsBack && next != begin; ++steps) {
    if (std::prev(next)->first <= start_ns) break;
    --next;
  }
  if (next != begin && std::prev(next)->first > start_ns) {
    const auto starts_after = [](uint64_t at, const Interval& open) { return at < open.first; };
    next = std::upper_bound(begin, next, start_ns, starts_after);
  }
  auto first = next;
  if (next != begin && std::prev(next)->second >= start_ns) {
    first = std::prev(next);
    start_ns = first->first;
    end_ns = std::max(end_ns, first->second);
  }
  while (next != open_.end() && next->first <= end_ns) {
    end_ns = std::max(end_ns, next->second);
    ++next;
  }
  if (first == next) {
    open_.insert(next, {start_ns, end_ns});
  } else {
    *first = {start_ns, end_ns};
    open_.erase(std::next(first), next);
  }
  if (open_.size() > kOpenIntervals) {
    const Interval oldest = open_.front();
    input_.kernel_busy_ns += static_cast<int64_t>(oldest.second - oldest.first);
    closed_until_ns_ = oldest.second;
    open_.pop_front();
  }
}

InferredPhaseInput InferredPhaseReader::Result() const {
  InferredPhaseInput result = input_;
  for (const auto& [iid, totals] : off_main_by_iid_) {
    ActivityTotals& named = result.off_main_thread_kernels[name_of_(iid)];
    named.count += totals.count;
    named.total_ns += totals.total_ns;
  }
  for (const auto& [start_ns, end_ns] : open_) {
    result.kernel_busy_ns += static_cast<int64_t>(end_ns - start_ns);
  }
  return result;
}

}  // namespace vprof::reporter
