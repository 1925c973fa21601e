#include "interpose/nccl/nccl_drain.h"

#include "interpose/core/thread_buffers.h"
#include "interpose/core/trace_writer.h"
#include "interpose/nccl/comm_registry.h"
#include "interpose/nccl/nccl_functions.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

// Upper bound of one encoded NcclEvent (16 fields of at most 11 bytes) plus
// the batch and packet framing around it.
constexpr size_t kEventRoom = 256;
// Upper bound of one Communicator packet.
constexpr size_t kCommunicatorRoom = 512;

static_assert(kNcclFnCount + 1 < TraceWriter::kFirstDynamicIid,
              "the NCCL function names' ids must stay below Intern()'s");

// Where the registry's log was read up to, and where it ended when the trace
// began (BeginCommunicatorsTrace). The process's, like every source's
// state: it has one writer (core/runtime.cc), whose every trace begins here.
size_t g_comm_cursor = 0;
size_t g_comms_before = 0;

}  // namespace

const SourceCount kNcclCallCount{"nccl", true};

bool PutNcclFunctionNames(TraceWriter& w) {
  for (size_t i = 0; i <= kNcclFnCount; ++i) {
    w.PutInternedString(NcclFunctionIid(static_cast<uint16_t>(i)),
                        i < kNcclFnCount ? NcclFunctionName(static_cast<NcclFn>(i))
                                         : "(adopted: first seen in a call)");
  }
  return true;
}

void BeginCommunicatorsTrace() {
  g_comm_cursor = 0;
  g_comms_before = GlobalCommRegistry().registered();
}

bool PutNewCommunicators(TraceWriter& w) {
  ProtoEncoder& enc = w.encoder();
  GlobalCommRegistry().ForEachNew(&g_comm_cursor, [&](const CommInfo& c) {
    if (!w.EnsureRoom(kCommunicatorRoom)) return;
    namespace k = sf::Communicator;
    auto t = w.BeginPacket(sf::TracePacket::kCommunicator);
    enc.AddVarint(k::kCommId, c.id);
    enc.AddVarint(k::kNranks, c.nranks);
    enc.AddVarint(k::kRank, c.rank);
    enc.AddVarint(k::kCreatedByIid, NcclFunctionIid(c.created_by));
    if (c.parent_id) enc.AddVarint(k::kParentCommId, c.parent_id);
    if (c.split_color) enc.AddSint32(k::kSplitColor, c.split_color);
    enc.AddVarint(k::kCreateBeginNs, c.create_begin_ns);
    enc.AddVarint(k::kCreateEndNs, c.create_end_ns);
    enc.AddInt32(k::kCudaDevice, c.cuda_device);
    if (c.nccl_version) enc.AddVarint(k::kNcclVersion, c.nccl_version);
    w.EndPacket(t);
  });
  if (g_comm_cursor > g_comms_before) w.NoteRecorded();
  return true;
}

bool DrainNcclCalls(TraceWriter& w, ThreadBuffer& b, void (*on_call)(const NcclRecord& call)) {
  uint64_t dropped = b.nccl.TakeDropped();
  w.Count(kNcclCallCount, 0, dropped);
  if (b.nccl.empty() && dropped == 0) return true;

  ProtoEncoder& enc = w.encoder();
  bool ok = true;
  bool open_batch = false;
  TraceWriter::PacketTokens batch{};
  auto close_batch = [&] {
    if (!open_batch) return;
    w.EndPacket(batch);
    open_batch = false;
  };
  auto start_batch = [&] {
    batch = w.BeginPacket(sf::TracePacket::kEventBatch);
    enc.AddVarint(sf::EventBatch::kTid, static_cast<uint64_t>(b.tid));
    if (dropped) enc.AddVarint(sf::EventBatch::kDropped, dropped);
    dropped = 0;
    open_batch = true;
  };
  if (!w.EnsureRoom(kEventRoom)) return false;
  start_batch();
  uint64_t recorded = 0;
  // Bounded per call so one busy thread cannot starve the others.
  b.nccl.Consume(b.nccl.capacity(), [&](const NcclRecord& r) {
    if (!ok) return;
    if (enc.capacity() - enc.size() < kEventRoom) {
      close_batch();
      if (!w.WriteOut()) {
        ok = false;
        return;
      }
      start_batch();
    }
    namespace k = sf::NcclEvent;
    size_t m = enc.BeginNested(sf::EventBatch::kNccl);
    enc.AddVarint(k::kFunctionIid, NcclFunctionIid(r.function));
    if (r.comm_id) {
      enc.AddVarint(k::kCommId, r.comm_id);
      enc.AddVarint(k::kCommSize, r.comm_size);
      enc.AddVarint(k::kCommRank, r.comm_rank);
    }
    if (r.seq) enc.AddVarint(k::kSeq, r.seq);
    if (r.count) enc.AddVarint(k::kCount, r.count);
    if (r.has & NcclRecord::kHasDatatype) enc.AddInt32(k::kDatatype, r.datatype);
    if (r.bytes) enc.AddVarint(k::kBytes, r.bytes);
    if (r.has & NcclRecord::kHasRedOp) enc.AddInt32(k::kRedOp, r.red_op);
    if (r.has & NcclRecord::kHasRoot) enc.AddInt32(k::kRoot, r.root);
    if (r.has & NcclRecord::kHasPeer) enc.AddInt32(k::kPeer, r.peer);
    if (r.stream) enc.AddVarint(k::kStream, r.stream);
    if (r.group_depth) enc.AddVarint(k::kGroupDepth, r.group_depth);
    if (r.result) enc.AddInt32(k::kResult, r.result);
    enc.AddVarint(k::kEnterNs, r.enter_ns);
    enc.AddVarint(k::kExitNs, r.exit_ns);
    if (r.call_id) enc.AddVarint(k::kCallId, r.call_id);
    enc.EndNested(m);
    on_call(r);
    ++recorded;
  });
  close_batch();
  w.Count(kNcclCallCount, recorded, 0);
  return ok;
}

}  // namespace vprof
