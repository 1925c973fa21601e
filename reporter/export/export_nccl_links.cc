#include "reporter/export/export_nccl_links.h"

#include <utility>

namespace vprof::reporter {

bool MayLaunchKernels(NcclFunction function, uint32_t group_depth) {
  if (function == NcclFunction::kGroupEnd) return group_depth <= 1;
  const FunctionRole role = RoleOf(function);
  return group_depth == 0 &&
         (role == FunctionRole::kCollective || role == FunctionRole::kPointToPoint);
}

std::vector<vprof::trace::GpuKernel> NcclLaunchLinks::AddCall(const NcclCallSite& call,
                                                              bool may_launch) {
  const uint64_t call_id = call.event.call_id();
  if (call_id == 0) return {};
  auto state = calls_.find(call_id);
  if (state == calls_.end()) {
    if (!may_launch) return {};  // nothing of it is in flight, nor will be
    state = calls_.emplace(call_id, CallState{}).first;
  }
  state->second.site = call;
  state->second.may_launch = may_launch;
  std::vector<vprof::trace::GpuKernel> released = std::move(state->second.held);
  state->second.held.clear();
  if (!released.empty()) state->second.linked = true;
  RetireIfDone(state);
  return released;
}

void NcclLaunchLinks::AddExternalCorrelation(uint64_t call_id, uint32_t correlation_id) {
  if (call_id == 0) return;
  if (!correlations_.try_emplace(correlation_id, Correlation{call_id}).second) return;
  ++calls_[call_id].open_correlations;
}

std::optional<uint64_t> NcclLaunchLinks::AddApiCall(uint32_t correlation_id,
                                                    bool launches_gpu_work) {
  const auto correlation = correlations_.find(correlation_id);
  if (correlation == correlations_.end()) return std::nullopt;
  const uint64_t call_id = correlation->second.call_id;
  correlation->second.api_seen = true;
  if (!launches_gpu_work || correlation->second.gpu_record_seen) Close(correlation);
  return call_id;
}

NcclLaunchLinks::KernelLink NcclLaunchLinks::AddKernel(const vprof::trace::GpuKernel& kernel) {
  const auto correlation = correlations_.find(kernel.correlation_id());
  if (correlation == correlations_.end()) return {};
  KernelLink link;
  link.call_id = correlation->second.call_id;
  CallState& call = calls_.at(*link.call_id);  // open while the correlation is
  if (call.site) {
    link.call = call.site;
    call.linked = true;
  } else {
    call.held.push_back(kernel);
    link.held = true;
  }
  GpuRecordSeen(correlation);
  return link;
}

std::optional<uint64_t> NcclLaunchLinks::AddCopyOrSet(uint32_t correlation_id) {
  const auto correlation = correlations_.find(correlation_id);
  if (correlation == correlations_.end()) return std::nullopt;
  const uint64_t call_id = correlation->second.call_id;
  GpuRecordSeen(correlation);
  return call_id;
}

std::vector<vprof::trace::GpuKernel> NcclLaunchLinks::TakeHeld() {
  std::vector<vprof::trace::GpuKernel> held;
  for (auto& [call_id, call] : calls_) {
    for (auto& kernel : call.held) held.push_back(std::move(kernel));
    call.held.clear();
  }
  return held;
}

void NcclLaunchLinks::GpuRecordSeen(Correlations::iterator correlation) {
  correlation->second.gpu_record_seen = true;
  if (correlation->second.api_seen) Close(correlation);
}

void NcclLaunchLinks::Close(Correlations::iterator correlation) {
  const auto call = calls_.find(correlation->second.call_id);
  correlations_.erase(correlation);
  --call->second.open_correlations;
  RetireIfDone(call);
}

// Done when none of its correlations is open and either its event was read
// and it is linked (or launches nothing itself), or, with no event yet,
// nothing of it is held: it holds nothing worth keeping.
void NcclLaunchLinks::RetireIfDone(Calls::iterator call) {
  const CallState& state = call->second;
  if (state.open_correlations > 0) return;
  const bool done = state.site ? state.linked || !state.may_launch : state.held.empty();
  if (done) calls_.erase(call);
}

}  // namespace vprof::reporter
