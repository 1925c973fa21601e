#include "reporter/export/export_trace_walker.h"

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "reporter/export/export_event_writer.h"
#include "reporter/gpu/export_names.h"
#include "reporter/gpu/graph_node_counts.h"
#include "reporter/gpu/memory_events.h"
#include "reporter/gpu/vprof_kernels.h"
#include "reporter/trace/trace_names.h"
#include "reporter/trace/trace_reader.h"

namespace vprof::reporter {
namespace {

class TraceWalker {
 public:
  TraceWalker(int64_t shift_ns, TimelineSink& sink) : shift_ns_(shift_ns), sink_(sink) {}

  void Walk(const std::string& path) {
    TraceReader reader(path);
    vprof::trace::TracePacket packet;
    while (reader.Next(&packet)) Absorb(packet);
    for (const auto& kernel : links_.TakeHeld()) {
      WriteKernel(kernel, std::nullopt, nullptr);
    }
    WriteMemoryHeld();
  }

 private:
  int64_t OnTimeline(uint64_t trace_ns) const { return static_cast<int64_t>(trace_ns) + shift_ns_; }

  void Absorb(const vprof::trace::TracePacket& packet) {
    switch (packet.data_case()) {
      case vprof::trace::TracePacket::kInternedString:
        names_[packet.interned_string().iid()] = TraceName(packet.interned_string().str());
        break;
      case vprof::trace::TracePacket::kThread:
        sink_.ThreadName(packet.thread().tid(), TraceName(packet.thread().name()));
        break;
      case vprof::trace::TracePacket::kEventBatch:
        AddEvents(packet.event_batch());
        break;
      case vprof::trace::TracePacket::kGpuBatch:
        AddGpuBatch(packet.gpu_batch());
        break;
      case vprof::trace::TracePacket::kNvtxBatch:
        AddNvtxBatch(packet.nvtx_batch());
        break;
      case vprof::trace::TracePacket::kNcclPluginBatch:
        AddPluginBatch(packet.nccl_plugin_batch());
        break;
      case vprof::trace::TracePacket::kCommunicator: {
        const vprof::trace::Communicator& comm = packet.communicator();
        communicators_[comm.comm_id()] = {comm.nranks(), comm.rank()};
        break;
      }
      case vprof::trace::TracePacket::kDeviceMemory:
        for (const auto& sample : packet.device_memory().sample()) {
          sink_.DeviceMemorySample({sample, OnTimeline(sample.time_ns())});
        }
        break;
      default:  // header, clocks, footer: the plan has what they say
        break;
    }
  }

  void AddEvents(const vprof::trace::EventBatch& batch) {
    for (const auto& event : batch.nccl()) {
      NcclCallSite call{event,
                        std::string(NameOf(event.function_iid())),
                        NcclFunction::kUnknown,
                        batch.tid(),
                        OnTimeline(event.enter_ns()),
                        OnTimeline(event.exit_ns())};
      call.function = NcclFunctionFromName(call.name);
      // A call that creates a communicator is recorded before NCCL says its size and the
      // caller's rank: its Communicator packet, which comes before the call's batch, does.
      if (call.event.comm_size() == 0) {
        if (const auto comm = communicators_.find(event.comm_id()); comm != communicators_.end()) {
          call.event.set_comm_size(comm->second.first);
          call.event.set_comm_rank(comm->second.second);
        }
      }
      sink_.NcclCall(call);
      const bool may_launch = MayLaunchKernels(call.function, event.group_depth());
      for (const auto& kernel : links_.AddCall(call, may_launch)) {
        WriteKernel(kernel, event.call_id(), &call);
      }
    }
  }

  void AddGpuBatch(const vprof::trace::GpuBatch& batch) {
    for (const auto& external : batch.external()) {
      links_.AddExternalCorrelation(external.external_id(), external.correlation_id());
    }
    for (const auto& api : batch.api()) {
      const std::string_view name = NameOf(api.name_iid());
      const bool launches = LaunchesGpuWork(name);
      sink_.Api({api, name, OnTimeline(api.start_ns()),
                 links_.AddApiCall(api.correlation_id(), launches), launches});
    }
    for (const auto& kernel : batch.kernel()) {
      NcclLaunchLinks::KernelLink link = links_.AddKernel(kernel);
      if (link.held) continue;
      WriteKernel(kernel, link.call_id, link.call ? &*link.call : nullptr);
    }
    for (const auto& copy : batch.memcpy()) {
      sink_.Memcpy({copy, OnTimeline(copy.start_ns()), links_.AddCopyOrSet(copy.correlation_id())});
    }
    for (const auto& set : batch.memset()) {
      sink_.Memset({set, OnTimeline(set.start_ns()), links_.AddCopyOrSet(set.correlation_id())});
    }
    // A graph's node list comes before the records of its replays.
    for (const auto& graph : batch.graph_nodes()) graph_nodes_.Add(graph);
    for (const auto& replay : batch.graph_replay()) {
      // CUPTI could not time it: nothing to draw.
      if (replay.start_ns() == 0) continue;
      sink_.GraphReplay(
          {replay, OnTimeline(replay.start_ns()), graph_nodes_.Of(replay.graph_id())});
    }
    for (const auto& op : batch.memory()) {
      if (const std::optional<int64_t> delta = DeviceMemoryDelta(op)) {
        memory_changes_.push_back({op.device(), OnTimeline(op.timestamp_ns()), *delta});
      }
    }
  }

  // CUPTI's buffers come out of order, so the changes wait for the end of the
  // trace (a process makes few) and are summed in time order, per GPU.
  void WriteMemoryHeld() {
    std::stable_sort(memory_changes_.begin(), memory_changes_.end(),
                     [](const MemoryHeldItem& a, const MemoryHeldItem& b) {
                       return a.device != b.device ? a.device < b.device : a.at_ns < b.at_ns;
                     });
    int64_t held = 0;
    for (size_t i = 0; i < memory_changes_.size(); ++i) {
      const MemoryHeldItem& change = memory_changes_[i];
      if (i == 0 || memory_changes_[i - 1].device != change.device) held = 0;
      held += change.bytes;
      sink_.MemoryHeld({change.device, change.at_ns, held});
    }
  }

  void WriteKernel(const vprof::trace::GpuKernel& kernel, std::optional<uint64_t> call_id,
                   const NcclCallSite* call) {
    const KernelName& name = KernelNameOf(kernel.name_iid());
    sink_.Kernel(
        {kernel, name.demangled, name.vprof_own, OnTimeline(kernel.start_ns()), call_id, call});
  }

  void AddNvtxBatch(const vprof::trace::NvtxBatch& batch) {
    for (const auto& range : batch.range()) {
      // A START_END range ended on another thread is in the ending thread's
      // batch, naming the thread that started it.
      const uint32_t tid = range.start_tid() != 0 ? range.start_tid() : batch.tid();
      const std::string_view domain = range.domain_iid() != 0 ? NameOf(range.domain_iid()) : "";
      sink_.Nvtx({range, NameOf(range.name_iid()), domain, tid, OnTimeline(range.start_ns()),
                  OnTimeline(range.end_ns())});
    }
  }

  void AddPluginBatch(const vprof::trace::NcclPluginBatch& batch) {
    for (const auto& comm : batch.comm()) {
      const std::string_view name = comm.name_iid() != 0 ? NameOf(comm.name_iid()) : "";
      plugin_comms_[comm.context_id()] =
          PluginComm{comm.comm_hash(), std::string(name), comm.nranks(), comm.rank()};
    }
    for (const auto& event : batch.event()) {
      if (event.type() != vprof::trace::NCCL_PLUGIN_EVENT_COLL) continue;
      const auto comm = plugin_comms_.find(event.context_id());
      sink_.PluginColl({event, comm == plugin_comms_.end() ? nullptr : &comm->second,
                        NameOf(event.func_iid()), NameOf(event.algo_iid()),
                        NameOf(event.proto_iid()), NameOf(event.datatype_iid()),
                        OnTimeline(event.start_ns()), OnTimeline(event.stop_ns())});
    }
  }

  // The interned string; for an iid never interned, a placeholder naming it.
  std::string_view NameOf(uint64_t iid) {
    auto [name, inserted] = names_.try_emplace(iid);
    if (inserted) name->second = "(iid " + std::to_string(iid) + " not interned)";
    return name->second;
  }

  struct KernelName {
    std::string demangled;
    bool vprof_own = false;
  };
  // Demangling allocates, so each name is demangled once.
  const KernelName& KernelNameOf(uint64_t iid) {
    auto [name, inserted] = kernel_names_.try_emplace(iid);
    if (inserted) name->second = {DemangledKernelName(NameOf(iid)), IsVprofKernel(NameOf(iid))};
    return name->second;
  }

  const int64_t shift_ns_;
  TimelineSink& sink_;
  std::unordered_map<uint64_t, std::string> names_;        // by iid
  std::unordered_map<uint64_t, KernelName> kernel_names_;  // by iid
  std::unordered_map<uint64_t, PluginComm> plugin_comms_;  // by context_id
  NcclLaunchLinks links_;
  GraphNodeCounts graph_nodes_;
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> communicators_;  // id → size, rank
  std::vector<MemoryHeldItem> memory_changes_;  // bytes: the change, + allocated, - released
};

}  // namespace

std::string PluginTrackName(uint64_t context_id, const PluginComm* comm) {
  if (comm == nullptr) return "NCCL plugin: context " + std::to_string(context_id);
  return "NCCL plugin: " + (comm->name.empty() ? std::string("comm") : comm->name) + " " +
         HexText(comm->comm_hash) + " (rank " + std::to_string(comm->rank) + " of " +
         std::to_string(comm->nranks) + ")";
}

std::string GpuTrackName(uint32_t device, uint32_t stream) {
  return "stream " + std::to_string(stream) + " (GPU " + std::to_string(device) + ")";
}

std::string MemoryHeldName(uint32_t device) {
  return "GPU " + std::to_string(device) + " memory held";
}

std::string MemoryInUseName(uint32_t device) {
  return "GPU " + std::to_string(device) + " memory in use";
}

void WalkTrace(const std::string& path, int64_t shift_ns, TimelineSink& sink) {
  TraceWalker(shift_ns, sink).Walk(path);
}

}  // namespace vprof::reporter
