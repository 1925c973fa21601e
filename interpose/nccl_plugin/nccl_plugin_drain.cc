// Writer side of the NCCL profiler plugin: finished events and communicator
// contexts into NcclPluginBatch packets (nccl_plugin.h).
#include <vector>

#include "interpose/core/trace_writer.h"
#include "interpose/nccl_plugin/nccl_plugin.h"
#include "interpose/nccl_plugin/nccl_plugin_pool.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;
namespace abi = nccl_abi;

// Upper bounds of one encoded NcclPluginEvent (22 fields of at most 12 bytes
// with their tags, and the nested header), one NcclPluginComm (9 fields) and
// the batch's own framing.
constexpr size_t kEventRoom = 320;
constexpr size_t kCommRoom = 160;
constexpr size_t kBatchRoom = 64;

int32_t SchemaType(uint64_t type) {
  namespace t = sf::NcclPluginEventType;
  switch (type) {
    case abi::kGroup:
      return t::NCCL_PLUGIN_EVENT_GROUP;
    case abi::kColl:
      return t::NCCL_PLUGIN_EVENT_COLL;
    case abi::kP2p:
      return t::NCCL_PLUGIN_EVENT_P2P;
    case abi::kProxyOp:
      return t::NCCL_PLUGIN_EVENT_PROXY_OP;
    case abi::kKernelCh:
      return t::NCCL_PLUGIN_EVENT_KERNEL_CH;
    case abi::kGroupApi:
      return t::NCCL_PLUGIN_EVENT_GROUP_API;
    case abi::kCollApi:
      return t::NCCL_PLUGIN_EVENT_COLL_API;
    case abi::kP2pApi:
      return t::NCCL_PLUGIN_EVENT_P2P_API;
    case abi::kKernelLaunch:
      return t::NCCL_PLUGIN_EVENT_KERNEL_LAUNCH;
    default:
      return t::NCCL_PLUGIN_EVENT_UNSPECIFIED;
  }
}

struct PendingEvent {
  PluginEvent* event;
  uint64_t context_id;
  uint64_t func_iid, datatype_iid, algo_iid, proto_iid;
};

struct PendingComm {
  PluginContext* context;
  uint64_t name_iid;
  bool finalized;
};

// Everything one drain writes, gathered before any packet is opened: the
// strings are interned on the way, and interning writes packets of its own.
struct Drained {
  std::vector<PendingComm> comms;
  std::vector<PendingEvent> events;
  uint64_t dropped = 0;
};

uint64_t InternOr0(TraceWriter& w, const char* s) { return s && *s ? w.Intern(s) : 0; }

// Finished events of one context; with `finalized`, also the events NCCL
// started and will never stop (lost, counted as dropped).
void GatherEvents(TraceWriter& w, PluginContext& c, bool finalized, Drained* out) {
  const uint64_t next = c.next.load(std::memory_order_acquire);
  const uint64_t first = next > kNcclPluginPoolEvents ? next - kNcclPluginPoolEvents : 0;
  for (uint64_t i = first; i < next; ++i) {
    PluginEvent& e = c.pool[i % kNcclPluginPoolEvents];
    const SlotState state = e.state.load(std::memory_order_acquire);
    if (state == SlotState::kActive && finalized) {
      ++out->dropped;
      e.state.store(SlotState::kFree, std::memory_order_release);
      continue;
    }
    if (state != SlotState::kDone) continue;
    if (PluginEventOrdinal(e.event_id.load(std::memory_order_relaxed)) < c.first_own_slot) {
      e.state.store(SlotState::kFree, std::memory_order_release);  // the parent process's
      continue;
    }
    out->events.push_back({&e, c.id, InternOr0(w, e.func), InternOr0(w, e.datatype),
                           InternOr0(w, e.algo), InternOr0(w, e.proto)});
  }
}

void Gather(TraceWriter& w, PluginContext& c, Drained* out) {
  out->dropped += c.dropped.exchange(0, std::memory_order_relaxed);
  const bool finalized = c.finalize_ns.load(std::memory_order_acquire) != 0;
  const size_t before = out->events.size();
  GatherEvents(w, c, finalized, out);
  // A communicator a forked child inherited is the parent's: described here
  // only once the child uses it.
  const bool in_file = c.described || !c.inherited || out->events.size() > before;
  if (in_file && (finalized || !c.described)) {
    out->comms.push_back({&c, InternOr0(w, c.name), finalized});
  } else if (finalized) {
    RetireContext(c);
  }
}

void PutComm(ProtoEncoder& enc, const PendingComm& p) {
  namespace k = sf::NcclPluginComm;
  const PluginContext& c = *p.context;
  const size_t m = enc.BeginNested(sf::NcclPluginBatch::kComm);
  enc.AddVarint(k::kContextId, c.id);
  enc.AddVarint(k::kCommHash, c.comm_hash);
  if (p.name_iid) enc.AddVarint(k::kNameIid, p.name_iid);
  enc.AddVarint(k::kNnodes, c.nnodes);
  enc.AddVarint(k::kNranks, c.nranks);
  enc.AddVarint(k::kRank, c.rank);
  enc.AddVarint(k::kInitNs, c.init_ns);
  if (p.finalized) enc.AddVarint(k::kFinalizeNs, c.finalize_ns.load(std::memory_order_relaxed));
  enc.AddVarint(k::kActivationMask, c.activation_mask);
  enc.EndNested(m);
}

void PutEvent(ProtoEncoder& enc, const PendingEvent& p) {
  namespace k = sf::NcclPluginEvent;
  const PluginEvent& e = *p.event;
  const size_t m = enc.BeginNested(sf::NcclPluginBatch::kEvent);
  enc.AddVarint(k::kType, static_cast<uint64_t>(SchemaType(e.type)));
  enc.AddVarint(k::kContextId, p.context_id);
  enc.AddVarint(k::kEventId, e.event_id.load(std::memory_order_relaxed));
  if (e.parent_id) enc.AddVarint(k::kParentId, e.parent_id);
  if (p.func_iid) enc.AddVarint(k::kFuncIid, p.func_iid);
  if (e.seq) enc.AddVarint(k::kSeq, e.seq);
  if (e.count) enc.AddVarint(k::kCount, e.count);
  if (p.datatype_iid) enc.AddVarint(k::kDatatypeIid, p.datatype_iid);
  if (e.root) enc.AddSint32(k::kRoot, e.root);
  if (e.peer) enc.AddSint32(k::kPeer, e.peer);
  if (p.algo_iid) enc.AddVarint(k::kAlgoIid, p.algo_iid);
  if (p.proto_iid) enc.AddVarint(k::kProtoIid, p.proto_iid);
  if (e.channels) enc.AddVarint(k::kChannels, e.channels);
  if (e.warps) enc.AddVarint(k::kWarps, e.warps);
  if (e.stream) enc.AddVarint(k::kStream, e.stream);
  if (e.graph_captured) enc.AddBool(k::kGraphCaptured, true);
  enc.AddVarint(k::kStartNs, e.start_ns);
  enc.AddVarint(k::kStopNs, e.stop_ns);
  enc.AddVarint(k::kTid, e.tid);
  if (e.channel_id) enc.AddVarint(k::kChannelId, e.channel_id);
  if (e.gpu_start) enc.AddVarint(k::kGpuStart, e.gpu_start);
  if (e.gpu_stop) enc.AddVarint(k::kGpuStop, e.gpu_stop);
  if (e.group_depth) enc.AddSint32(k::kGroupDepth, e.group_depth);
  enc.EndNested(m);
}

// One NcclPluginBatch, or several when the encode buffer fills.
bool PutBatches(TraceWriter& w, const Drained& d) {
  ProtoEncoder& enc = w.encoder();
  TraceWriter::PacketTokens t{};
  if (!w.EnsureRoom(kBatchRoom + kEventRoom)) return false;
  t = w.BeginPacket(sf::TracePacket::kNcclPluginBatch);
  if (d.dropped) enc.AddVarint(sf::NcclPluginBatch::kDropped, d.dropped);
  auto make_room = [&](size_t bytes) {
    if (enc.capacity() - enc.size() >= bytes) return true;
    w.EndPacket(t);
    if (!w.WriteOut()) return false;
    t = w.BeginPacket(sf::TracePacket::kNcclPluginBatch);
    return true;
  };
  for (const PendingComm& c : d.comms) {
    if (!make_room(kCommRoom)) return false;
    PutComm(enc, c);
  }
  for (const PendingEvent& e : d.events) {
    if (!make_room(kEventRoom)) return false;
    PutEvent(enc, e);
  }
  w.EndPacket(t);
  return true;
}

}  // namespace

const SourceCount kNcclPluginCount{"nccl_plugin", false};

bool DrainNcclPlugin(TraceWriter& w) {
  Drained d;
  ForEachOpenContext([&](PluginContext& c) { Gather(w, c, &d); });
  if (d.comms.empty() && d.events.empty() && d.dropped == 0) return true;
  if (!PutBatches(w, d)) return false;
  // Only now, after encoding read them, may NCCL's threads reuse the slots.
  for (const PendingEvent& e : d.events) {
    e.event->state.store(SlotState::kFree, std::memory_order_release);
  }
  for (const PendingComm& c : d.comms) {
    c.context->described = true;
    if (c.finalized) RetireContext(*c.context);
  }
  w.Count(kNcclPluginCount, d.events.size(), d.dropped);
  return w.error()[0] == '\0';
}

}  // namespace vprof
