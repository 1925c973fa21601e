#include "reporter/inferred_phase_reader.h"

#include <algorithm>
#include <string>
#include <vector>

namespace vprof::reporter {
namespace {

// How many disjoint busy intervals stay open to merge with kernels that
// arrive late; far more than a GPU activity buffer holds out of order.
constexpr size_t kOpenIntervals = 4096;

}  // namespace

void InferredPhaseReader::AddHeader(const vprof::trace::RunHeader& header) {
  const std::vector<std::string> argv(header.argv().begin(), header.argv().end());
  input_.role = ProcessRoleOf(argv);
}

void InferredPhaseReader::AddGpuBatch(const vprof::trace::GpuBatch& batch) {
  for (const auto& kernel : batch.kernel()) {
    AddKernel(kernel.start_ns(), kernel.start_ns() + kernel.duration_ns());
  }
}

void InferredPhaseReader::AddKernel(uint64_t start_ns, uint64_t end_ns) {
  if (!any_kernel_ || start_ns < input_.first_kernel_start_ns) {
    input_.first_kernel_start_ns = start_ns;
  }
  input_.last_kernel_end_ns = std::max(input_.last_kernel_end_ns, end_ns);
  any_kernel_ = true;

  start_ns = std::max(start_ns, closed_until_ns_);
  if (end_ns <= start_ns) return;
  // Merge with every open interval it touches: the one starting before it
  // that reaches it, and those starting inside it.
  auto next = open_.upper_bound(start_ns);
  if (next != open_.begin()) {
    auto before = std::prev(next);
    if (before->second >= start_ns) {
      start_ns = before->first;
      end_ns = std::max(end_ns, before->second);
      next = open_.erase(before);
    }
  }
  while (next != open_.end() && next->first <= end_ns) {
    end_ns = std::max(end_ns, next->second);
    next = open_.erase(next);
  }
  open_.emplace(start_ns, end_ns);

  if (open_.size() > kOpenIntervals) {
    const auto oldest = open_.begin();
    input_.kernel_busy_ns += static_cast<int64_t>(oldest->second - oldest->first);
    closed_until_ns_ = oldest->second;
    open_.erase(oldest);
  }
}

InferredPhaseInput InferredPhaseReader::Result() const {
  InferredPhaseInput result = input_;
  for (const auto& [start_ns, end_ns] : open_) {
    result.kernel_busy_ns += static_cast<int64_t>(end_ns - start_ns);
  }
  return result;
}

}  // namespace vprof::reporter
