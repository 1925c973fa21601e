#include "interpose/nvtx/nvtx_batch_writer.h"

#include <cstring>
#include <string_view>

#include "interpose/core/thread_buffers.h"
#include "interpose/core/trace_writer.h"
#include "interpose/nvtx/nvtx_handles.h"
#include "interpose/nvtx/nvtx_open_ranges.h"
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

std::string_view MessageOf(const NvtxRecord& r) {
  if (r.message.registered) return r.message.registered->text;
  return {r.message.text, strnlen(r.message.text, NvtxMessage::kTextBytes)};
}

struct Interned {
  uint64_t name_iid;
  uint64_t domain_iid;
};

}  // namespace

const SourceCount kNvtxRangeCount{"nvtx", false};

void CountLostOpenRanges(TraceWriter& w) {
  if (NvtxOpenRanges* open = GlobalNvtxOpenRanges()) w.Count(kNvtxRangeCount, 0, open->TakeLost());
}

bool WriteNvtxBatches(TraceWriter& w, ThreadBuffer& b) {
  uint64_t dropped = b.nvtx.TakeDropped();
  NvtxRecord chunk[kChunk];
  Interned iids[kChunk];
  for (;;) {
    size_t n = 0;
    b.nvtx.Consume(kChunk, [&](const NvtxRecord& r) { chunk[n++] = r; });
    if (n == 0 && dropped == 0) return true;
    for (size_t i = 0; i < n; ++i) {
      iids[i].name_iid = w.Intern(MessageOf(chunk[i]));
      iids[i].domain_iid = chunk[i].domain ? w.Intern(chunk[i].domain->name) : 0;
    }
    if (!w.EnsureRoom(n * kRangeRoom + 64)) return false;
    auto t = w.BeginPacket(sf::TracePacket::kNvtxBatch);
    ProtoEncoder& e = w.encoder();
    e.AddVarint(sf::NvtxBatch::kTid, static_cast<uint64_t>(b.tid));
    if (dropped) e.AddVarint(sf::NvtxBatch::kDropped, dropped);
    for (size_t i = 0; i < n; ++i) {
      namespace k = sf::NvtxRange;
      const NvtxRecord& r = chunk[i];
      size_t m = e.BeginNested(sf::NvtxBatch::kRange);
      e.AddVarint(k::kKind, r.kind);
      e.AddVarint(k::kNameIid, iids[i].name_iid);
      if (iids[i].domain_iid) e.AddVarint(k::kDomainIid, iids[i].domain_iid);
      e.AddVarint(k::kStartNs, r.start_ns);
      e.AddVarint(k::kEndNs, r.end_ns);
      if (r.depth) e.AddVarint(k::kDepth, r.depth);
      if (r.color) e.AddVarint(k::kColor, r.color);
      if (r.category) e.AddVarint(k::kCategory, r.category);
      if (r.start_tid) e.AddVarint(k::kStartTid, r.start_tid);
      e.EndNested(m);
    }
    w.EndPacket(t);
    w.Count(kNvtxRangeCount, n, dropped);
    dropped = 0;
    if (n < kChunk) return true;
  }
}

}  // namespace vprof
