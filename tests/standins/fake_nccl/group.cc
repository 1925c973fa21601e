#include "group.h"

#include <span>
#include <vector>

#include "collective.h"
#include "comm.h"
#include "errors.h"
#include "p2p.h"
#include "profiler_events.h"

namespace fake_nccl {
namespace {

thread_local int t_group_depth = 0;
thread_local std::vector<Operation> t_deferred;

ncclResult_t Execute(std::span<const Operation> ops) {
  profiler::OnLaunch(ops);
  for (size_t first = 0; first < ops.size();) {
    const Operation& op = ops[first];
    if (op.comm->async_error != ncclSuccess) {
      return Fail(ncclInvalidUsage, std::string(OpName(op.kind)) +
                                        ": the communicator failed earlier; destroy or abort it");
    }
    if (op.comm->single_thread_clique) {
      return Fail(ncclInvalidUsage,
                  std::string(OpName(op.kind)) +
                      ": the stand-in cannot communicate on ncclCommInitAll communicators of "
                      "several ranks (all ranks would have to progress in one thread)");
    }
    size_t end = first + 1;
    if (IsPointToPoint(op.kind)) {
      while (end < ops.size() && IsPointToPoint(ops[end].kind) && ops[end].comm == op.comm) ++end;
    }
    const std::span<const Operation> batch = ops.subspan(first, end - first);
    profiler::OnRunStart(batch);
    const ncclResult_t result =
        IsPointToPoint(op.kind) ? RunPointToPoint(batch) : RunCollective(op);
    profiler::OnRunEnd(batch);
    if (result != ncclSuccess) return result;
    first = end;
  }
  return ncclSuccess;
}

}  // namespace

ncclResult_t Submit(const Operation& call) {
  Operation op = call;
  profiler::OnCall(op, t_group_depth);
  profiler::OnGroupEnd();  // NCCL wraps every call in a group of its own
  if (t_group_depth > 0) {
    t_deferred.push_back(op);
    profiler::AfterGroupEnd(false);
    return ncclSuccess;
  }
  const ncclResult_t result = Execute({&op, 1});
  profiler::AfterGroupEnd(true);
  return result;
}

void StartGroup() { ++t_group_depth; }

ncclResult_t EndGroup() {
  if (t_group_depth == 0) return Fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  profiler::OnGroupEnd();
  if (--t_group_depth > 0) {
    profiler::AfterGroupEnd(false);
    return ncclSuccess;
  }
  const std::vector<Operation> deferred = std::move(t_deferred);
  t_deferred.clear();
  const ncclResult_t result = Execute(deferred);
  profiler::AfterGroupEnd(true);
  return result;
}

}  // namespace fake_nccl
