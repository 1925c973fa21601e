#include "nccl_drain.h"

#include "comm_registry.h"
#include "nccl_functions.h"
#include "thread_buffers.h"
#include "trace_writer.h"
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
              "the NCCL function names' ids must stay below intern()'s");

// Where the registry's log was read up to, and where it ended when the trace
// began (begin_communicators_trace). The process's, like every source's
// state: it has one writer (lifecycle.cc), whose every trace begins here.
size_t g_comm_cursor = 0;
size_t g_comms_before = 0;

}  // namespace

const SourceCount kNcclCallCount{"nccl", true};

bool put_nccl_function_names(TraceWriter& w) {
  for (size_t i = 0; i <= kNcclFnCount; ++i) {
    w.put_interned_string(nccl_function_iid(static_cast<uint16_t>(i)),
                          i < kNcclFnCount ? nccl_function_name(static_cast<NcclFn>(i))
                                           : "(adopted: first seen in a call)");
  }
  return true;
}

void begin_communicators_trace() {
  g_comm_cursor = 0;
  g_comms_before = comm_registry().registered();
}

bool put_new_communicators(TraceWriter& w) {
  ProtoEncoder& enc = w.encoder();
  comm_registry().for_each_new(&g_comm_cursor, [&](const CommInfo& c) {
    if (!w.ensure_room(kCommunicatorRoom)) return;
    namespace k = sf::Communicator;
    auto t = w.begin_packet(sf::TracePacket::kCommunicator);
    enc.add_varint(k::kCommId, c.id);
    enc.add_varint(k::kNranks, c.nranks);
    enc.add_varint(k::kRank, c.rank);
    enc.add_varint(k::kCreatedByIid, nccl_function_iid(c.created_by));
    if (c.parent_id) enc.add_varint(k::kParentCommId, c.parent_id);
    if (c.split_color) enc.add_sint32(k::kSplitColor, c.split_color);
    enc.add_varint(k::kCreateBeginNs, c.create_begin_ns);
    enc.add_varint(k::kCreateEndNs, c.create_end_ns);
    enc.add_int32(k::kCudaDevice, c.cuda_device);
    w.end_packet(t);
  });
  if (g_comm_cursor > g_comms_before) w.note_recorded();
  return true;
}

bool drain_nccl_calls(TraceWriter& w, ThreadBuffer& b, void (*on_call)(const NcclRecord& call)) {
  uint64_t dropped = b.nccl.take_dropped();
  w.count(kNcclCallCount, 0, dropped);
  if (b.nccl.empty() && dropped == 0) return true;

  ProtoEncoder& enc = w.encoder();
  bool ok = true;
  bool open_batch = false;
  TraceWriter::PacketTokens batch{};
  auto close_batch = [&] {
    if (!open_batch) return;
    w.end_packet(batch);
    open_batch = false;
  };
  auto start_batch = [&] {
    batch = w.begin_packet(sf::TracePacket::kEventBatch);
    enc.add_varint(sf::EventBatch::kTid, static_cast<uint64_t>(b.tid));
    if (dropped) enc.add_varint(sf::EventBatch::kDropped, dropped);
    dropped = 0;
    open_batch = true;
  };
  if (!w.ensure_room(kEventRoom)) return false;
  start_batch();
  uint64_t recorded = 0;
  // Bounded per call so one busy thread cannot starve the others.
  b.nccl.consume(b.nccl.capacity(), [&](const NcclRecord& r) {
    if (!ok) return;
    if (enc.capacity() - enc.size() < kEventRoom) {
      close_batch();
      if (!w.write_out()) {
        ok = false;
        return;
      }
      start_batch();
    }
    namespace k = sf::NcclEvent;
    size_t m = enc.begin_nested(sf::EventBatch::kNccl);
    enc.add_varint(k::kFunctionIid, nccl_function_iid(r.function));
    if (r.comm_id) {
      enc.add_varint(k::kCommId, r.comm_id);
      enc.add_varint(k::kCommSize, r.comm_size);
      enc.add_varint(k::kCommRank, r.comm_rank);
    }
    if (r.seq) enc.add_varint(k::kSeq, r.seq);
    if (r.count) enc.add_varint(k::kCount, r.count);
    if (r.has & NcclRecord::kHasDatatype) enc.add_int32(k::kDatatype, r.datatype);
    if (r.bytes) enc.add_varint(k::kBytes, r.bytes);
    if (r.has & NcclRecord::kHasRedOp) enc.add_int32(k::kRedOp, r.red_op);
    if (r.has & NcclRecord::kHasRoot) enc.add_int32(k::kRoot, r.root);
    if (r.has & NcclRecord::kHasPeer) enc.add_int32(k::kPeer, r.peer);
    if (r.stream) enc.add_varint(k::kStream, r.stream);
    if (r.group_depth) enc.add_varint(k::kGroupDepth, r.group_depth);
    if (r.result) enc.add_int32(k::kResult, r.result);
    enc.add_varint(k::kEnterNs, r.enter_ns);
    enc.add_varint(k::kExitNs, r.exit_ns);
    if (r.call_id) enc.add_varint(k::kCallId, r.call_id);
    enc.end_nested(m);
    on_call(r);
    ++recorded;
  });
  close_batch();
  w.count(kNcclCallCount, recorded, 0);
  return ok;
}

}  // namespace vprof
