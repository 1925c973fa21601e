#include "reporter/export/export_perfetto.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "reporter/export/export_event_writer.h"
#include "reporter/export/export_trace_walker.h"
#include "reporter/export/perfetto_packets.h"
#include "reporter/gpu/export_names.h"
#include "reporter/trace/kernel_dimension.h"

namespace vprof::reporter {
namespace {

namespace pf = vprof::perfetto;

// Time zero of the trace, on the export's timeline: a second before the
// earliest process start.
int64_t PerfettoZero(const ExportPlan& plan) {
  constexpr int64_t kSecond = 1'000'000'000;
  return std::min<int64_t>(plan.earliest_start_ns, 0) - kSecond;
}

// A slice or instant of the process, held until its trace is read.
struct PendingEvent {
  uint64_t track = 0;  // the track it belongs on; overlapping ones move to lanes below it
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  bool instant = false;
  std::string event;  // the TrackEvent's serialized fields, less its track
};

struct PendingCounter {
  uint64_t track = 0;
  int64_t at_ns = 0;
  int64_t value = 0;
};

// A track of the process and, while its slices are written, its lanes: the
// track itself, then child tracks for slices that overlap without nesting.
struct Lane {
  uint32_t sequence = 0;           // the packet sequence its slices are written on
  std::vector<int64_t> open_ends;  // the slices begun and not yet ended, innermost last
};

class PerfettoProcessWriter : public TimelineSink {
 public:
  PerfettoProcessWriter(PerfettoPackets& packets, const ExportPlan& plan, uint32_t index)
      : packets_(packets),
        zero_ns_(PerfettoZero(plan)),
        index_(index),
        process_uuid_(packets.NewTrackUuid()) {}

  void ThreadName(uint32_t tid, std::string_view name) override {
    thread_names_[tid] = std::string(name);
  }

  void NcclCall(const NcclCallSite& call) override {
    const vprof::trace::NcclEvent& event = call.event;
    Start(call.name, "nccl");
    Hex("comm id", event.comm_id());
    Uint("comm rank", event.comm_rank());
    Uint("comm size", event.comm_size());
    Uint("seq", event.seq());
    Uint("count", event.count());
    Uint("bytes", event.bytes());
    if (event.has_datatype()) Label("datatype", NcclDataTypeName(event.datatype()));
    if (event.has_root()) Int("root", event.root());
    if (event.has_peer()) Int("peer", event.peer());
    Hex("stream", event.stream());
    Uint("group depth", event.group_depth());
    if (event.result() != 0) Int("result", event.result());  // 0: ncclSuccess
    if (event.call_id() != 0) Uint("call id", event.call_id());
    const size_t held = Hold(ThreadTrack(call.tid), call.enter_ns, call.exit_ns);
    if (event.call_id() != 0) nccl_calls_[event.call_id()] = held;
  }

  void Nvtx(const NvtxItem& range) override {
    Start(range.name, "nvtx");
    if (!range.domain.empty()) Label("domain", range.domain);
    if (range.record.color() != 0) Hex("color", range.record.color());
    if (range.record.category() != 0) Uint("category", range.record.category());
    switch (range.record.kind()) {
      case vprof::trace::NVTX_KIND_MARK:
        Hold(ThreadTrack(range.tid), range.start_ns, range.start_ns, true);
        break;
      case vprof::trace::NVTX_KIND_START_END:
        // May end on another thread and overlap ranges it does not enclose:
        // a track of the process's own, whose lanes keep overlaps apart.
        if (start_end_track_ == 0) start_end_track_ = NewTrack("NVTX start/end ranges");
        Hold(start_end_track_, range.start_ns, range.end_ns);
        break;
      default:
        Hold(ThreadTrack(range.tid), range.start_ns, range.end_ns);
        break;
    }
  }

  void Api(const ApiItem& api) override {
    const vprof::trace::ApiCall& record = api.record;
    Start(api.name, record.driver() ? "cuda_driver" : "cuda_runtime");
    Uint("correlation", record.correlation_id());
    if (record.return_value() != 0) Uint("result", record.return_value());  // 0: success
    if (api.nccl_call_id) Uint("nccl call id", *api.nccl_call_id);
    if (api.launches_gpu_work && record.correlation_id() != 0) {
      event_.add_flow_ids(FlowId(index_, FlowKind::kLaunch, record.correlation_id()));
    }
    Hold(ThreadTrack(record.tid()), api.start_ns,
         api.start_ns + static_cast<int64_t>(record.duration_ns()));
  }

  void Kernel(const KernelItem& kernel) override {
    const vprof::trace::GpuKernel& record = kernel.record;
    // vprof's own kernels under a category of their own, as in the Chrome export.
    Start(kernel.name, kernel.vprof_own ? "vprof_kernel" : "kernel");
    GpuWork(record.correlation_id());
    Label("grid", Dims(record.grid_x(), record.grid_y(), record.grid_z()));
    Label("block", Dims(record.block_x(), record.block_y(), record.block_z()));
    if (record.graph_id() != 0) Uint("graph id", record.graph_id());
    if (kernel.nccl_call_id) Uint("nccl call id", *kernel.nccl_call_id);
    if (const NcclCallSite* call = kernel.nccl_call) {
      Label("nccl call", call->name);
      Hex("comm id", call->event.comm_id());
      Uint("seq", call->event.seq());
      // The flow starts on the call's slice, when the call was kept.
      const auto held = nccl_calls_.find(call->event.call_id());
      if (call->event.call_id() != 0 && held != nccl_calls_.end()) {
        const uint64_t id = FlowId(index_, FlowKind::kNcclCall, record.correlation_id());
        event_.add_terminating_flow_ids(id);
        pf::TrackEvent flow;
        flow.add_flow_ids(id);
        flow.AppendToString(&pending_[held->second].event);
      }
    }
    HoldGpu(record.device(), record.stream(), kernel.start_ns, record.duration_ns());
  }

  void Memcpy(const CopyItem& copy) override {
    const vprof::trace::GpuMemcpy& record = copy.record;
    Start(MemcpyName(record.copy_kind(), record.src_kind(), record.dst_kind()), "gpu_memcpy");
    GpuWork(record.correlation_id());
    Uint("bytes", record.bytes());
    if (copy.nccl_call_id) Uint("nccl call id", *copy.nccl_call_id);
    HoldGpu(record.device(), record.stream(), copy.start_ns, record.duration_ns());
  }

  void Memset(const MemsetItem& set) override {
    const vprof::trace::GpuMemset& record = set.record;
    Start("Memset", "gpu_memset");
    GpuWork(record.correlation_id());
    Uint("bytes", record.bytes());
    if (set.nccl_call_id) Uint("nccl call id", *set.nccl_call_id);
    HoldGpu(record.device(), record.stream(), set.start_ns, record.duration_ns());
  }

  void GraphReplay(const GraphReplayItem& replay) override {
    const vprof::trace::GpuGraphReplay& record = replay.record;
    Start(GraphReplayName(record.graph_id()), "graph_replay");
    GpuWork(record.correlation_id());
    Uint("graph id", record.graph_id());
    if (replay.nodes) {
      Uint("kernels", replay.nodes->kernels);
      Uint("memsets", replay.nodes->memsets);
      Uint("memcpys", replay.nodes->memcpys);
    }
    HoldGpu(record.device(), record.stream(), replay.start_ns, record.duration_ns());
  }

  void PluginColl(const PluginCollItem& coll) override {
    const vprof::trace::NcclPluginEvent& record = coll.record;
    Start(coll.function, "nccl_plugin");
    Label("algorithm", coll.algorithm);
    Label("protocol", coll.protocol);
    Uint("channels", record.channels());
    Uint("warps", record.warps());
    Uint("seq", record.seq());
    Uint("count", record.count());
    Label("datatype", coll.datatype);
    Int("root", record.root());
    Hex("stream", record.stream());
    Bool("graph captured", record.graph_captured());
    Hold(PluginTrack(record.context_id(), coll.comm), coll.start_ns, coll.stop_ns);
  }

  void MemoryHeld(const MemoryHeldItem& held) override {
    counters_.push_back({CounterTrack(MemoryHeldName(held.device)), held.at_ns, held.bytes});
  }

  void DeviceMemorySample(const DeviceMemorySampleItem& sample) override {
    counters_.push_back({CounterTrack(MemoryInUseName(sample.record.device())), sample.at_ns,
                         static_cast<int64_t>(sample.record.used_bytes())});
  }

  // After the walk: the tracks, then every track's slices nested, then the
  // counters.
  void Finish(const ExportProcess& process) {
    pf::TrackDescriptor descriptor;
    descriptor.set_uuid(process_uuid_);
    // OS pids repeat across hosts: the process's place in the export is its
    // pid here, and its name says the host and OS pid.
    descriptor.mutable_process()->set_pid(static_cast<int32_t>(index_ + 1));
    descriptor.mutable_process()->set_process_name(DisplayName(process));
    packets_.Descriptor(descriptor);
    for (auto& [tid, uuid] : thread_tracks_) {
      const auto name = thread_names_.find(tid);
      track_names_[uuid] = name == thread_names_.end() || name->second.empty()
                               ? "thread " + std::to_string(tid)
                               : name->second + " " + std::to_string(tid);
    }
    for (const auto& [uuid, name] : track_names_) {
      pf::TrackDescriptor track;
      track.set_uuid(uuid);
      track.set_parent_uuid(process_uuid_);
      track.set_name(name);
      if (counter_tracks_.contains(uuid)) {
        track.mutable_counter()->set_unit(pf::CounterDescriptor::UNIT_SIZE_BYTES);
      }
      packets_.Descriptor(track);
    }
    WriteSlices();
    for (const PendingCounter& counter : counters_) {
      pf::TrackEvent event;
      event.set_type(pf::TrackEvent::TYPE_COUNTER);
      event.set_track_uuid(counter.track);
      event.set_counter_value(counter.value);
      packets_.Event(Timestamp(counter.at_ns), event);
    }
  }

 private:
  // A record before time zero (none is: every record follows its process's
  // start) would be drawn at zero.
  uint64_t Timestamp(int64_t timeline_ns) const {
    return static_cast<uint64_t>(std::max<int64_t>(timeline_ns - zero_ns_, 0));
  }

  // Starts the event to be held next: its name, category and type.
  void Start(std::string_view name, std::string_view category) {
    event_.Clear();
    event_.add_category_iids(packets_.Category(category));
    event_.set_name_iid(packets_.EventName(name));
  }

  pf::DebugAnnotation& Annotation(std::string_view name) {
    pf::DebugAnnotation& annotation = *event_.add_debug_annotations();
    annotation.set_name_iid(packets_.AnnotationName(name));
    return annotation;
  }
  void Uint(std::string_view name, uint64_t value) { Annotation(name).set_uint_value(value); }
  void Int(std::string_view name, int64_t value) { Annotation(name).set_int_value(value); }
  void Bool(std::string_view name, bool value) { Annotation(name).set_bool_value(value); }
  // A value of few distinct strings ("RING", "float32"): interned.
  void Label(std::string_view name, std::string_view value) {
    Annotation(name).set_string_value_iid(packets_.AnnotationString(value));
  }
  // HexText: the ids people compare with the other exports and the report. The
  // few there are (communicators, streams) are interned.
  void Hex(std::string_view name, uint64_t value) { Label(name, HexText(value)); }

  static std::string Dims(uint32_t x, uint32_t y, uint32_t z) {
    return "[" + std::to_string(KernelDimension(x)) + ", " + std::to_string(KernelDimension(y)) +
           ", " + std::to_string(KernelDimension(z)) + "]";
  }

  // The device and stream are the track's name.
  void GpuWork(uint32_t correlation_id) {
    Uint("correlation", correlation_id);
    if (correlation_id != 0) {
      event_.add_terminating_flow_ids(FlowId(index_, FlowKind::kLaunch, correlation_id));
    }
  }

  // Holds the started event as a slice (or an instant) of `track`; its index.
  size_t Hold(uint64_t track, int64_t start_ns, int64_t end_ns, bool instant = false) {
    event_.set_type(instant ? pf::TrackEvent::TYPE_INSTANT : pf::TrackEvent::TYPE_SLICE_BEGIN);
    pending_.push_back(
        {track, start_ns, std::max(start_ns, end_ns), instant, event_.SerializeAsString()});
    return pending_.size() - 1;
  }

  void HoldGpu(uint32_t device, uint32_t stream, int64_t start_ns, uint64_t duration_ns) {
    Hold(GpuTrack(device, stream), start_ns, start_ns + static_cast<int64_t>(duration_ns));
  }

  uint64_t NewTrack(std::string name) {
    const uint64_t uuid = packets_.NewTrackUuid();
    track_names_[uuid] = std::move(name);
    return uuid;
  }

  uint64_t ThreadTrack(uint32_t tid) {
    auto [track, added] = thread_tracks_.try_emplace(tid, 0);
    if (added) track->second = NewTrack("");  // named in Finish, when every name is read
    return track->second;
  }

  uint64_t GpuTrack(uint32_t device, uint32_t stream) {
    auto [track, added] = gpu_tracks_.try_emplace(std::pair(device, stream), 0);
    if (added) track->second = NewTrack(GpuTrackName(device, stream));
    return track->second;
  }

  uint64_t PluginTrack(uint64_t context_id, const PluginComm* comm) {
    auto [track, added] = plugin_tracks_.try_emplace(context_id, 0);
    if (added) {
      track->second = NewTrack(PluginTrackName(context_id, comm));
    }
    return track->second;
  }

  uint64_t CounterTrack(const std::string& name) {
    auto [track, added] = counter_by_name_.try_emplace(name, 0);
    if (added) {
      track->second = NewTrack(name);
      counter_tracks_.insert(track->second);
    }
    return track->second;
  }

  // Each track's slices by start (the longer first at equal starts, so a
  // parent begins before its child), each begun on the first lane where it
  // nests, and ended before anything later begins there: the begin/end pairs
  // of a lane then form a stack at every timestamp, ties included.
  void WriteSlices() {
    std::vector<size_t> order(pending_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const PendingEvent& x = pending_[a];
      const PendingEvent& y = pending_[b];
      if (x.track != y.track) return x.track < y.track;
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      return x.end_ns > y.end_ns;
    });
    std::vector<Lane> lanes;
    for (size_t i = 0; i < order.size(); ++i) {
      const PendingEvent& event = pending_[order[i]];
      if (i == 0 || pending_[order[i - 1]].track != event.track) {
        CloseLanes(lanes);
        lanes.push_back({packets_.OpenTrackSequence(event.track, Timestamp(event.start_ns)), {}});
      }
      Lane* placed = nullptr;
      for (Lane& lane : lanes) {
        EndUpTo(lane, event.start_ns);
        if (event.instant || lane.open_ends.empty() || event.end_ns <= lane.open_ends.back()) {
          placed = &lane;
          break;
        }
      }
      if (placed == nullptr) {
        pf::TrackDescriptor track;
        track.set_uuid(packets_.NewTrackUuid());
        track.set_parent_uuid(process_uuid_);
        track.set_name(track_names_[event.track] + " (overlapping " + std::to_string(lanes.size()) +
                       ")");
        packets_.Descriptor(track);
        lanes.push_back({packets_.OpenTrackSequence(track.uuid(), Timestamp(event.start_ns)), {}});
        placed = &lanes.back();
      }
      packets_.SequenceEvent(placed->sequence, Timestamp(event.start_ns), event.event);
      if (!event.instant) placed->open_ends.push_back(event.end_ns);
    }
    CloseLanes(lanes);
  }

  // Ends the lane's open slices that end by `at_ns`, innermost first.
  void EndUpTo(Lane& lane, int64_t at_ns) {
    while (!lane.open_ends.empty() && lane.open_ends.back() <= at_ns) {
      packets_.SequenceEnd(lane.sequence, Timestamp(lane.open_ends.back()));
      lane.open_ends.pop_back();
    }
  }

  void CloseLanes(std::vector<Lane>& lanes) {
    for (Lane& lane : lanes) {
      EndUpTo(lane, std::numeric_limits<int64_t>::max());
      packets_.CloseSequence(lane.sequence);
    }
    lanes.clear();
  }

  PerfettoPackets& packets_;
  const int64_t zero_ns_;  // on the timeline
  const uint32_t index_;
  const uint64_t process_uuid_;
  pf::TrackEvent event_;  // the event being made, reused
  std::vector<PendingEvent> pending_;
  std::vector<PendingCounter> counters_;
  std::unordered_map<uint64_t, size_t> nccl_calls_;  // call_id → its slice in pending_
  std::map<uint64_t, std::string> track_names_;      // by uuid: creation order
  std::map<uint32_t, uint64_t> thread_tracks_;       // tid → uuid
  std::unordered_map<uint32_t, std::string> thread_names_;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> gpu_tracks_;  // (device, stream) → uuid
  std::unordered_map<uint64_t, uint64_t> plugin_tracks_;          // context_id → uuid
  std::map<std::string, uint64_t> counter_by_name_;
  std::unordered_set<uint64_t> counter_tracks_;  // uuids
  uint64_t start_end_track_ = 0;
};

}  // namespace

void WritePerfettoTrace(const ExportPlan& plan, std::string_view directory, std::ostream& out,
                        ExportTally& tally) {
  PerfettoPackets packets(out);
  for (uint32_t index = 0; index < plan.processes.size(); ++index) {
    const ExportProcess& process = plan.processes[index];
    PerfettoProcessWriter writer(packets, plan, index);
    WalkSelected(plan, process, writer, tally);
    writer.Finish(process);
  }
  // What the export is, and what it left out, on a track of its own at the origin.
  pf::TrackDescriptor track;
  track.set_uuid(packets.NewTrackUuid());
  track.set_name("vprof export");
  packets.Descriptor(track);
  pf::TrackEvent event;
  event.set_type(pf::TrackEvent::TYPE_INSTANT);
  event.set_track_uuid(track.uuid());
  event.set_name_iid(packets.EventName("vprof export"));
  const auto text = [&](std::string_view name, std::string value) {
    pf::DebugAnnotation& annotation = *event.add_debug_annotations();
    annotation.set_name_iid(packets.AnnotationName(name));
    annotation.set_string_value(std::move(value));
  };
  text("directory", std::string(directory));
  text("clock", plan.realtime ? "CLOCK_REALTIME" : "CLOCK_MONOTONIC");
  text("origin_ns", std::to_string(plan.origin_ns));
  text("zero_ns", std::to_string(plan.origin_ns + PerfettoZero(plan)));
  if (plan.origin_unix_ns) text("origin_unix_ns", std::to_string(*plan.origin_unix_ns));
  if (!plan.selection.empty()) text("selection", plan.selection);
  if (!plan.left_out.empty()) {
    std::string processes;
    for (const std::string& left_out : plan.left_out) {
      processes += (processes.empty() ? "" : "; ") + left_out;
    }
    text("processes left out", processes);
  }
  if (const std::string records = tally.LeftOut(); !records.empty()) {
    text("records left out", records);
  }
  packets.Event(static_cast<uint64_t>(-PerfettoZero(plan)), event);
}

}  // namespace vprof::reporter
