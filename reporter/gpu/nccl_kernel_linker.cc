#include "reporter/gpu/nccl_kernel_linker.h"

#include <algorithm>

#include "reporter/collectives/bandwidth.h"

namespace vprof::reporter {
namespace {

bool IsCollectiveOrPointToPoint(NcclFunction function) {
  const FunctionRole role = RoleOf(function);
  return role == FunctionRole::kCollective || role == FunctionRole::kPointToPoint;
}

// Inside a group NCCL only queues the work; the ncclGroupEnd that closes the
// outermost group (at depth 1 when called) launches the kernels.
bool MayLaunchKernels(NcclFunction function, uint32_t group_depth) {
  if (function == NcclFunction::kGroupEnd) return group_depth <= 1;
  return group_depth == 0 && IsCollectiveOrPointToPoint(function);
}

}  // namespace

bool LaunchesKernel(std::string_view api_name) {
  return api_name.find("Launch") != std::string_view::npos &&
         api_name.find("HostFunc") == std::string_view::npos;
}

void NcclKernelLinker::AddCall(const vprof::trace::NcclEvent& event, NcclFunction function) {
  if (event.call_id() == 0) return;
  NcclFunctionGpuTime& totals = linkage_.functions[function];
  ++totals.calls;
  if (event.exit_ns() >= event.enter_ns()) {
    totals.host_ns += static_cast<int64_t>(event.exit_ns() - event.enter_ns());
  }
  if (IsCollectiveOrPointToPoint(function)) {
    ++linkage_.calls;
    if (event.group_depth() > 0) ++linkage_.grouped_calls;
  }

  const bool may_launch = MayLaunchKernels(function, event.group_depth());
  CallState* call = calls_.Find(event.call_id());
  if (!call) {
    if (!may_launch) return;  // nothing of it is in flight, nor will be
    call = &calls_.GetOrAdd(event.call_id());
  }
  const uint64_t size = CollectiveSizeBytes(function, event.bytes(), event.comm_size());
  call->key = CallKey{function,    event.comm_id(),   BucketOf(size),   may_launch,
                      event.seq(), event.comm_rank(), event.comm_size()};
  if (call->waiting_kernels > 0) {
    Attribute(*call, call->waiting_kernels, call->waiting_ns);
    call->waiting_kernels = 0;
    call->waiting_ns = 0;
  }
  RetireIfDone(event.call_id(), *call);
}

void NcclKernelLinker::AddExternalCorrelation(uint64_t call_id, uint32_t correlation_id) {
  if (call_id == 0 || launches_.Find(correlation_id)) return;
  launches_.Put(correlation_id, call_id);
  ++calls_.GetOrAdd(call_id).open_launches;
}

void NcclKernelLinker::AddApiCall(uint32_t correlation_id, bool launches_kernel) {
  if (launches_kernel) return;  // its kernel closes it
  const uint64_t* launch = launches_.Find(correlation_id);
  if (!launch) return;
  const uint64_t call_id = *launch;
  launches_.Erase(correlation_id);
  CallState& call = *calls_.Find(call_id);
  --call.open_launches;
  RetireIfDone(call_id, call);
}

void NcclKernelLinker::AddKernel(uint32_t correlation_id, uint64_t start_ns, uint64_t duration_ns,
                                 bool nccl_class) {
  if (nccl_class) ++linkage_.nccl_kernels;
  const uint64_t* launch = launches_.Find(correlation_id);
  if (!launch) {
    if (nccl_class) ++linkage_.unlinked_nccl_kernels;
    return;
  }
  ++linkage_.linked_kernels;
  const uint64_t call_id = *launch;
  launches_.Erase(correlation_id);
  CallState& state = *calls_.Find(call_id);
  --state.open_launches;
  state.first_start_ns = std::min(state.first_start_ns, static_cast<int64_t>(start_ns));
  state.last_end_ns = std::max(state.last_end_ns, static_cast<int64_t>(start_ns + duration_ns));
  if (state.key) {
    Attribute(state, 1, static_cast<int64_t>(duration_ns));
  } else {
    ++state.waiting_kernels;
    state.waiting_ns += static_cast<int64_t>(duration_ns);
  }
  RetireIfDone(call_id, state);
}

NcclLinkage NcclKernelLinker::Result() const {
  NcclLinkage result = linkage_;
  calls_.ForEach([&](uint64_t, const CallState& call) {
    result.linked_kernels_without_call += call.waiting_kernels;
  });
  return result;
}

void NcclKernelLinker::Attribute(CallState& call, uint64_t kernels, int64_t gpu_ns) {
  const CallKey& key = *call.key;
  const bool first_link = !call.linked;
  call.linked = true;
  linkage_.functions[key.function].linked.Add(first_link, kernels, gpu_ns);
  if (!IsCollectiveOrPointToPoint(key.function)) return;
  if (first_link) ++linkage_.linked_calls;
  if (key.comm_id == 0) return;
  const NcclFunction op = RoleOf(key.function) == FunctionRole::kPointToPoint
                              ? NcclFunction::kSendRecvPair
                              : key.function;
  linkage_.collectives[OpKey{key.comm_id, op, key.bucket}].Add(first_link, kernels, gpu_ns);
}

// A call is done when none of its correlations is open and either it was
// linked (or cannot launch kernels) once its event was read, or, with no
// event yet, nothing of it is waiting: it holds nothing worth keeping.
void NcclKernelLinker::RetireIfDone(uint64_t call_id, const CallState& state) {
  if (state.open_launches > 0) return;
  const bool done = state.key ? state.linked || !state.key->may_launch : state.waiting_kernels == 0;
  if (!done) return;
  if (state.linked) EmitSpan(state);
  calls_.Erase(call_id);
}

// Only collectives outside a group: a group's kernels serve several calls.
void NcclKernelLinker::EmitSpan(const CallState& call) const {
  const CallKey& key = *call.key;
  if (!span_sink_ || key.comm_id == 0 || !key.may_launch ||
      RoleOf(key.function) != FunctionRole::kCollective) {
    return;
  }
  span_sink_(CollectiveKernelSpan{OpKey{key.comm_id, key.function, key.bucket}, key.seq,
                                  key.comm_rank, key.comm_size, call.first_start_ns,
                                  call.last_end_ns});
}

}  // namespace vprof::reporter
