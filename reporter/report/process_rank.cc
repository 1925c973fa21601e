#include "reporter/report/process_rank.h"

namespace vprof::reporter {

bool IsRankProcess(const ProcessRecord& process) {
  return process.nccl_events > 0 || (process.header_rank && process.gpu.ran_kernels());
}

ProcessRank ResolveRank(const ProcessRecord& process) {
  if (!IsRankProcess(process)) return {};
  if (process.header_rank) return {process.header_rank, "header"};
  const CommunicatorMembership* largest = nullptr;
  // Ascending comm_id, strict comparison: ties go to the lowest id, so the
  // choice does not depend on the order of the trace.
  for (const auto& [comm_id, membership] : process.communicators) {
    if (largest == nullptr || membership.nranks > largest->nranks) largest = &membership;
  }
  if (largest == nullptr) return {};
  return {static_cast<int32_t>(largest->rank), "communicator"};
}

}  // namespace vprof::reporter
