#include "reporter/ingest/inferred_phase_reader.h"

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

}  // namespace

InferredPhaseReader::InferredPhaseReader() : open_(kClosedBatch) {}

void InferredPhaseReader::AddHeader(const vprof::trace::RunHeader& header) {
  argv_.assign(header.argv().begin(), header.argv().end());
  environment_.clear();
  for (const auto& variable : header.env()) environment_.push_back(variable.name());
  start_ns_ = header.start_ns();
}

void InferredPhaseReader::AddProcessTitle(const vprof::trace::ProcessTitle& title) {
  // The latest reading holds: the writer puts them in the order it read them.
  title_ = ProcessTitleRecord{
      {title.argv().begin(), title.argv().end()},
      title.at_end(),
      static_cast<int64_t>(title.observed_ns() - std::min(title.observed_ns(), start_ns_))};
}

void InferredPhaseReader::AddLoadedLibraries(const vprof::trace::LoadedLibraries& libraries) {
  for (const std::string& path : libraries.path()) {
    if (NamesRoleLibrary(path) &&
        std::find(role_libraries_.begin(), role_libraries_.end(), path) == role_libraries_.end()) {
      role_libraries_.push_back(path);
    }
  }
}

void InferredPhaseReader::AddGpuBatch(const GpuBatchRecords& batch) {
  for (const KernelRow& kernel : batch.kernels) {
    AddKernel(kernel.start_ns, kernel.start_ns + kernel.duration_ns);
  }
  // A replay recorded whole kept the GPU busy over its span, its kernels unnamed.
  for (const GraphReplayRow& replay : batch.graph_replays) {
    if (replay.timed()) AddKernel(replay.start_ns, replay.start_ns + replay.duration_ns);
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

InferredPhaseInput InferredPhaseReader::Result(
    const std::map<std::string, ActivityTotals>& kernels) const {
  InferredPhaseInput result = input_;
  result.role =
      ProcessRoleOf({argv_, environment_, title_ ? &*title_ : nullptr, role_libraries_, &kernels});
  for (const auto& [start_ns, end_ns] : open_) {
    result.kernel_busy_ns += static_cast<int64_t>(end_ns - start_ns);
  }
  return result;
}

}  // namespace vprof::reporter
