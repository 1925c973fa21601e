#include "reporter/ingest/nccl_plugin_reader.h"

namespace vprof::reporter {

void NcclPluginReader::AddInjectionStatus(const vprof::trace::InjectionStatus& status) {
  if (status.hook() == vprof::trace::INJECTION_HOOK_NCCL_PROFILER) {
    record_.injection = std::make_shared<const vprof::trace::InjectionStatus>(status);
  }
}

void NcclPluginReader::AddBatch(const vprof::trace::NcclPluginBatch& batch) {
  ++record_.batches;
  record_.dropped += batch.dropped();
  for (const auto& comm : batch.comm()) AddComm(comm);
  for (const auto& event : batch.event()) {
    const bool coll = event.type() == vprof::trace::NCCL_PLUGIN_EVENT_COLL;
    const bool p2p = event.type() == vprof::trace::NCCL_PLUGIN_EVENT_P2P;
    if (!coll && !p2p) continue;  // groups, proxy and kernel-channel events say no more here
    NcclPluginOpCounts& counts = ops_[{event.context_id(), event.func_iid()}];
    if (coll) {
      ++counts.coll;
      ++record_.coll_events;
      ++algorithms_[{event.func_iid(), event.algo_iid(), event.proto_iid(), event.channels()}];
    } else {
      ++counts.p2p;
      ++record_.p2p_events;
    }
    if (event.graph_captured()) ++record_.graph_captured_events;
  }
}

// A context is described at init and may be described again when it is
// finalized; the later description holds, except that a finalize time once
// read is kept.
void NcclPluginReader::AddComm(const vprof::trace::NcclPluginComm& comm) {
  auto [stored, inserted] = comms_.try_emplace(comm.context_id(), comm);
  if (inserted) return;
  const uint64_t finalize_ns = stored->second.finalize_ns();
  stored->second = comm;
  if (comm.finalize_ns() == 0) stored->second.set_finalize_ns(finalize_ns);
}

NcclPluginRecord NcclPluginReader::Result() const {
  NcclPluginRecord result = record_;
  for (const auto& [context_id, comm] : comms_) {
    NcclPluginContext& context = result.contexts[context_id];
    context.described = true;
    context.comm_hash = comm.comm_hash();
    context.name = comm.name_iid() == 0 ? "" : name_of_(comm.name_iid());
    context.nnodes = comm.nnodes();
    context.nranks = comm.nranks();
    context.rank = comm.rank();
    context.init_ns = comm.init_ns();
    context.finalize_ns = comm.finalize_ns();
  }
  for (const auto& [key, counts] : ops_) {
    NcclPluginOpCounts& op = result.contexts[key.first].ops[name_of_(key.second)];
    op.coll += counts.coll;
    op.p2p += counts.p2p;
  }
  for (const auto& [key, count] : algorithms_) {
    const auto& [func, algo, proto, channels] = key;
    result.algorithms[{name_of_(func), name_of_(algo), name_of_(proto), channels}] += count;
  }
  return result;
}

}  // namespace vprof::reporter
