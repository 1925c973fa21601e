#include "reporter/export/export_chrome.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

#include "reporter/base/json_writer.h"
#include "reporter/export/export_event_writer.h"
#include "reporter/gpu/export_names.h"
#include "reporter/trace/kernel_dimension.h"

namespace vprof::reporter {
namespace {

// Tracks that are not OS threads get thread ids no Linux thread has (pid_max
// is at most 2^22), numbered in the order they first appear.
constexpr uint32_t kFirstGpuTrack = 0x40000000;
constexpr uint32_t kFirstPluginTrack = 0x50000000;

class ChromeProcessWriter : public TimelineSink {
 public:
  ChromeProcessWriter(TraceEventWriter& events, const ExportProcess& process, uint32_t index)
      : events_(events), index_(index) {
    Metadata("process_name", 0).BeginArgs().String("name", DisplayName(process)).EndArgs().End();
    Metadata("process_sort_index", 0).BeginArgs().Uint("sort_index", index).EndArgs().End();
  }

  void ThreadName(uint32_t tid, std::string_view name) override {
    Metadata("thread_name", tid).BeginArgs().String("name", name).EndArgs().End();
  }

  void NcclCall(const NcclCallSite& call) override {
    const vprof::trace::NcclEvent& event = call.event;
    Slice(call.name, "nccl", call.tid, call.enter_ns, ClampedDuration(call.enter_ns, call.exit_ns))
        .BeginArgs()
        .Hex("comm id", event.comm_id())
        .Uint("comm rank", event.comm_rank())
        .Uint("comm size", event.comm_size())
        .Uint("seq", event.seq())
        .Uint("count", event.count())
        .Uint("bytes", event.bytes());
    if (event.has_datatype()) events_.String("datatype", NcclDataTypeName(event.datatype()));
    if (event.has_root()) events_.Int("root", event.root());
    if (event.has_peer()) events_.Int("peer", event.peer());
    events_.Hex("stream", event.stream())
        .Uint("group depth", event.group_depth())
        .Int("result", event.result());
    if (event.call_id() != 0) events_.Uint("call id", event.call_id());
    events_.EndArgs().End();
  }

  void Nvtx(const NvtxItem& range) override {
    const vprof::trace::NvtxRange& record = range.record;
    switch (record.kind()) {
      case vprof::trace::NVTX_KIND_MARK:
        Event('i', range.name, "nvtx", range.tid, range.start_ns).String("s", "t");
        NvtxArgs(range);
        break;
      case vprof::trace::NVTX_KIND_START_END: {
        // May end on another thread and overlap ranges it does not enclose:
        // an async slice of the process, not a slice of one thread.
        const uint64_t id = Id(FlowKind::kNvtxRange, next_nvtx_range_++);
        Event('b', range.name, "nvtx", range.tid, range.start_ns).Hex("id", id);
        NvtxArgs(range);
        Event('e', range.name, "nvtx", range.tid, range.end_ns).Hex("id", id).End();
        break;
      }
      default:
        Slice(range.name, "nvtx", range.tid, range.start_ns,
              ClampedDuration(range.start_ns, range.end_ns));
        NvtxArgs(range);
        break;
    }
  }

  void Api(const ApiItem& api) override {
    const vprof::trace::ApiCall& record = api.record;
    Slice(api.name, record.driver() ? "cuda_driver" : "cuda_runtime", record.tid(), api.start_ns,
          static_cast<int64_t>(record.duration_ns()))
        .BeginArgs()
        .Uint("correlation", record.correlation_id())
        .Uint("result", record.return_value());
    if (api.nccl_call_id) events_.Uint("nccl call id", *api.nccl_call_id);
    events_.EndArgs().End();
    if (api.launches_gpu_work && record.correlation_id() != 0) {
      Flow('s', "launch", Id(FlowKind::kLaunch, record.correlation_id()), record.tid(),
           api.start_ns);
    }
  }

  void Kernel(const KernelItem& kernel) override {
    const vprof::trace::GpuKernel& record = kernel.record;
    const uint32_t track = GpuTrack(record.device(), record.stream());
    // vprof's own kernels are drawn under a category of their own, which a
    // count of the program's kernels (against torch.profiler's) leaves out.
    Slice(kernel.name, kernel.vprof_own ? "vprof_kernel" : "kernel", track, kernel.start_ns,
          static_cast<int64_t>(record.duration_ns()))
        .BeginArgs()
        .Uint("correlation", record.correlation_id())
        .Uint("device", record.device())
        .Uint("stream", record.stream())
        .Dims("grid", KernelDimension(record.grid_x()), KernelDimension(record.grid_y()),
              KernelDimension(record.grid_z()))
        .Dims("block", KernelDimension(record.block_x()), KernelDimension(record.block_y()),
              KernelDimension(record.block_z()));
    if (record.graph_id() != 0) events_.Uint("graph id", record.graph_id());
    if (kernel.nccl_call_id) events_.Uint("nccl call id", *kernel.nccl_call_id);
    if (const NcclCallSite* call = kernel.nccl_call) {
      events_.String("nccl call", call->name)
          .Hex("comm id", call->event.comm_id())
          .Uint("seq", call->event.seq());
    }
    events_.EndArgs().End();
    EndLaunchFlow(record.correlation_id(), track, kernel.start_ns);
    if (const NcclCallSite* call = kernel.nccl_call) {
      const uint64_t id = Id(FlowKind::kNcclCall, record.correlation_id());
      Flow('s', "nccl_call", id, call->tid, call->enter_ns);
      Flow('f', "nccl_call", id, track, kernel.start_ns);
    }
  }

  void Memcpy(const CopyItem& copy) override {
    const vprof::trace::GpuMemcpy& record = copy.record;
    const uint32_t track = GpuTrack(record.device(), record.stream());
    Slice(MemcpyName(record.copy_kind(), record.src_kind(), record.dst_kind()), "gpu_memcpy", track,
          copy.start_ns, static_cast<int64_t>(record.duration_ns()));
    GpuWorkArgs(record.correlation_id(), record.device(), record.stream(), record.bytes(),
                copy.nccl_call_id);
    EndLaunchFlow(record.correlation_id(), track, copy.start_ns);
  }

  void Memset(const MemsetItem& set) override {
    const vprof::trace::GpuMemset& record = set.record;
    const uint32_t track = GpuTrack(record.device(), record.stream());
    Slice("Memset", "gpu_memset", track, set.start_ns, static_cast<int64_t>(record.duration_ns()));
    GpuWorkArgs(record.correlation_id(), record.device(), record.stream(), record.bytes(),
                set.nccl_call_id);
    EndLaunchFlow(record.correlation_id(), track, set.start_ns);
  }

  void GraphReplay(const GraphReplayItem& replay) override {
    const vprof::trace::GpuGraphReplay& record = replay.record;
    const uint32_t track = GpuTrack(record.device(), record.stream());
    Slice(GraphReplayName(record.graph_id()), "graph_replay", track, replay.start_ns,
          static_cast<int64_t>(record.duration_ns()))
        .BeginArgs()
        .Uint("correlation", record.correlation_id())
        .Uint("device", record.device())
        .Uint("stream", record.stream())
        .Uint("graph id", record.graph_id());
    if (replay.nodes) {
      events_.Uint("kernels", replay.nodes->kernels)
          .Uint("memsets", replay.nodes->memsets)
          .Uint("memcpys", replay.nodes->memcpys);
    }
    events_.EndArgs().End();
    EndLaunchFlow(record.correlation_id(), track, replay.start_ns);
  }

  // Samples come in time order: each is drawn as read.
  void DeviceMemorySample(const DeviceMemorySampleItem& sample) override {
    const std::string name = MemoryInUseName(sample.record.device());
    Event('C', name, "gpu_memory", 0, sample.at_ns)
        .BeginArgs()
        .Uint("bytes", sample.record.used_bytes())
        .Uint("total bytes", sample.record.total_bytes())
        .EndArgs()
        .End();
  }

  void MemoryHeld(const MemoryHeldItem& held) override {
    const std::string name = MemoryHeldName(held.device);
    Event('C', name, "gpu_memory", 0, held.at_ns)
        .BeginArgs()
        .Int("bytes", held.bytes)
        .EndArgs()
        .End();
  }

  void PluginColl(const PluginCollItem& coll) override {
    const vprof::trace::NcclPluginEvent& record = coll.record;
    Slice(coll.function, "nccl_plugin", PluginTrack(record.context_id(), coll.comm), coll.start_ns,
          ClampedDuration(coll.start_ns, coll.stop_ns))
        .BeginArgs()
        .String("algorithm", coll.algorithm)
        .String("protocol", coll.protocol)
        .Uint("channels", record.channels())
        .Uint("warps", record.warps())
        .Uint("seq", record.seq())
        .Uint("count", record.count())
        .String("datatype", coll.datatype)
        .Int("root", record.root())
        .Hex("stream", record.stream())
        .Bool("graph captured", record.graph_captured())
        .EndArgs()
        .End();
  }

 private:
  uint64_t Id(FlowKind kind, uint64_t id) const { return FlowId(index_, kind, id); }

  TraceEventWriter& Event(char phase, std::string_view name, std::string_view category,
                          uint32_t tid, int64_t ts_ns) {
    return events_.Begin(phase)
        .String("name", name)
        .String("cat", category)
        .Uint("pid", index_)
        .Uint("tid", tid)
        .Micros("ts", ts_ns);
  }

  TraceEventWriter& Slice(std::string_view name, std::string_view category, uint32_t tid,
                          int64_t ts_ns, int64_t dur_ns) {
    return Event('X', name, category, tid, ts_ns).Micros("dur", dur_ns);
  }

  TraceEventWriter& Metadata(std::string_view name, uint32_t tid) {
    return events_.Begin('M').String("name", name).Uint("pid", index_).Uint("tid", tid);
  }

  // A flow's end binds to the slice around it ("bp": "e"), its start always does.
  void Flow(char phase, std::string_view name, uint64_t id, uint32_t tid, int64_t ts_ns) {
    Event(phase, name, name, tid, ts_ns).Hex("id", id);
    if (phase == 'f') events_.String("bp", "e");
    events_.End();
  }

  void EndLaunchFlow(uint32_t correlation_id, uint32_t track, int64_t ts_ns) {
    if (correlation_id != 0)
      Flow('f', "launch", Id(FlowKind::kLaunch, correlation_id), track, ts_ns);
  }

  // Ends the event, with what the range's attributes carried as args.
  void NvtxArgs(const NvtxItem& range) {
    const vprof::trace::NvtxRange& record = range.record;
    if (!range.domain.empty() || record.color() != 0 || record.category() != 0) {
      events_.BeginArgs();
      if (!range.domain.empty()) events_.String("domain", range.domain);
      if (record.color() != 0) events_.Hex("color", record.color());
      if (record.category() != 0) events_.Uint("category", record.category());
      events_.EndArgs();
    }
    events_.End();
  }

  void GpuWorkArgs(uint32_t correlation_id, uint32_t device, uint32_t stream, uint64_t bytes,
                   std::optional<uint64_t> nccl_call_id) {
    events_.BeginArgs()
        .Uint("correlation", correlation_id)
        .Uint("device", device)
        .Uint("stream", stream)
        .Uint("bytes", bytes);
    if (nccl_call_id) events_.Uint("nccl call id", *nccl_call_id);
    events_.EndArgs().End();
  }

  uint32_t GpuTrack(uint32_t device, uint32_t stream) {
    const auto [track, added] = gpu_tracks_.try_emplace(
        std::pair(device, stream), kFirstGpuTrack + static_cast<uint32_t>(gpu_tracks_.size()));
    if (added) NameTrack(track->second, GpuTrackName(device, stream));
    return track->second;
  }

  uint32_t PluginTrack(uint64_t context_id, const PluginComm* comm) {
    const auto [track, added] = plugin_tracks_.try_emplace(
        context_id, kFirstPluginTrack + static_cast<uint32_t>(plugin_tracks_.size()));
    if (added) {
      NameTrack(track->second, PluginTrackName(context_id, comm));
    }
    return track->second;
  }

  // Named, and sorted after the process's threads, where viewers honour it.
  void NameTrack(uint32_t tid, std::string_view name) {
    ThreadName(tid, name);
    Metadata("thread_sort_index", tid).BeginArgs().Uint("sort_index", tid).EndArgs().End();
  }

  TraceEventWriter& events_;
  // The process's place in the document: its pid there (OS pids repeat
  // across hosts) and the top bits of its flow and async ids.
  const uint32_t index_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> gpu_tracks_;  // (device, stream) → tid
  std::unordered_map<uint64_t, uint32_t> plugin_tracks_;          // context_id → tid
  uint64_t next_nvtx_range_ = 0;
};

}  // namespace

void WriteChromeTimeline(const ExportPlan& plan, std::string_view directory, std::ostream& out,
                         ExportTally& tally) {
  out << "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"producer\": \"vprof export\", "
         "\"directory\": ";
  WriteJsonString(out, directory);
  out << ", \"clock\": \"" << (plan.realtime ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC")
      << "\", \"ts\": \"microseconds since origin_ns\", \"origin_ns\": " << plan.origin_ns
      << ", \"origin_unix_ns\": ";
  if (plan.origin_unix_ns) {
    out << *plan.origin_unix_ns;
  } else {
    out << "null";
  }
  out << "},\n\"traceEvents\": [\n";
  TraceEventWriter events(out);
  for (uint32_t index = 0; index < plan.processes.size(); ++index) {
    const ExportProcess& process = plan.processes[index];
    ChromeProcessWriter writer(events, process, index);
    WalkSelected(plan, process, writer, tally);
  }
  out << "\n],\n\"vprofExport\": {\"selection\": ";
  WriteJsonString(out, plan.selection);
  out << ", \"processes left out\": [";
  for (size_t i = 0; i < plan.left_out.size(); ++i) {
    out << (i == 0 ? "" : ", ");
    WriteJsonString(out, plan.left_out[i]);
  }
  out << "], \"records left out\": ";
  WriteJsonString(out, tally.LeftOut());
  out << "}}\n";
}

}  // namespace vprof::reporter
