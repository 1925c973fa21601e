#include "nvtx_batch_writer.h"

#include <cstring>
#include <string_view>

#include "nvtx_handles.h"
#include "nvtx_open_ranges.h"
#include "thread_buffers.h"
#include "trace_writer.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = vprof::schema;

// Records are taken a chunk at a time: their names are interned first (which
// may write InternedString packets), then the chunk is encoded as one batch,
// since no packet may be open while interning.
constexpr size_t kChunk = 256;
// Upper bound of one encoded NvtxRange: 9 fields of at most 11 bytes, plus
// the nested message's tag and length.
constexpr size_t kRangeRoom = 9 * 11 + 8;

std::string_view message_of(const NvtxRecord& r) {
  if (r.message.registered) return r.message.registered->text;
  return {r.message.text, strnlen(r.message.text, NvtxMessage::kTextBytes)};
}

struct Interned {
  uint64_t name_iid;
  uint64_t domain_iid;
};

}  // namespace

const SourceCount kNvtxRangeCount{"nvtx", false};

void count_lost_open_ranges(TraceWriter& w) {
  if (NvtxOpenRanges* open = nvtx_open_ranges()) w.count(kNvtxRangeCount, 0, open->take_lost());
}

bool write_nvtx_batches(TraceWriter& w, ThreadBuffer& b) {
  uint64_t dropped = b.nvtx.take_dropped();
  NvtxRecord chunk[kChunk];
  Interned iids[kChunk];
  for (;;) {
    size_t n = 0;
    b.nvtx.consume(kChunk, [&](const NvtxRecord& r) { chunk[n++] = r; });
    if (n == 0 && dropped == 0) return true;
    for (size_t i = 0; i < n; ++i) {
      iids[i].name_iid = w.intern(message_of(chunk[i]));
      iids[i].domain_iid = chunk[i].domain ? w.intern(chunk[i].domain->name) : 0;
    }
    if (!w.ensure_room(n * kRangeRoom + 64)) return false;
    auto t = w.begin_packet(sf::TracePacket::kNvtxBatch);
    ProtoEncoder& e = w.encoder();
    e.add_varint(sf::NvtxBatch::kTid, static_cast<uint64_t>(b.tid));
    if (dropped) e.add_varint(sf::NvtxBatch::kDropped, dropped);
    for (size_t i = 0; i < n; ++i) {
      namespace k = sf::NvtxRange;
      const NvtxRecord& r = chunk[i];
      size_t m = e.begin_nested(sf::NvtxBatch::kRange);
      e.add_varint(k::kKind, r.kind);
      e.add_varint(k::kNameIid, iids[i].name_iid);
      if (iids[i].domain_iid) e.add_varint(k::kDomainIid, iids[i].domain_iid);
      e.add_varint(k::kStartNs, r.start_ns);
      e.add_varint(k::kEndNs, r.end_ns);
      if (r.depth) e.add_varint(k::kDepth, r.depth);
      if (r.color) e.add_varint(k::kColor, r.color);
      if (r.category) e.add_varint(k::kCategory, r.category);
      if (r.start_tid) e.add_varint(k::kStartTid, r.start_tid);
      e.end_nested(m);
    }
    w.end_packet(t);
    w.count(kNvtxRangeCount, n, dropped);
    dropped = 0;
    if (n < kChunk) return true;
  }
}

}  // namespace vprof
