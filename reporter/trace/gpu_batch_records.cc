#include "reporter/trace/gpu_batch_records.h"

#include <array>
#include <bit>
#include <cstring>

#include "vprof_trace_fields.h"

namespace vprof::reporter {
namespace {

namespace fields = vprof::schema;

// ReadVarint loads 8 wire bytes as one little-endian word.
static_assert(std::endian::native == std::endian::little);

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };
constexpr int kMaxVarintBytes = 10;

// The readers below walk a message's bytes, [p, end), with plain pointers:
// `readable` (at or past `end`) is the end of the packet the message lies
// in, so a read may look past `end` but never past `readable`. Each returns
// the byte after what it read, or null when the bytes are not what the wire
// format allows; a read that ends past `end` is caught by the field loop.

// A varint. When 8 bytes are readable: one load, the first byte without its
// continuation bit found at once, and the 7-bit groups packed in three
// steps, with no branch per byte. Most values of a GPU record are times, 6
// to 8 bytes long, and a loop over their bytes was the decoder's main cost.
inline const uint8_t* ReadVarint(const uint8_t* p, const uint8_t* readable, uint64_t* value) {
  if (p < readable && *p < 0x80) {
    *value = *p;
    return p + 1;
  }
  if (readable - p >= 8) {
    uint64_t word = 0;
    std::memcpy(&word, p, sizeof word);
    const uint64_t stops = ~word & 0x8080808080808080ULL;
    if (stops != 0) {
      const int bits = __builtin_ctzll(stops) + 1;  // through the last byte's bit 7
      uint64_t v = bits == 64 ? word : word & ((uint64_t{1} << bits) - 1);
      v = ((v & 0x7f007f007f007f00ULL) >> 1) | (v & 0x007f007f007f007fULL);
      v = ((v & 0x3fff00003fff0000ULL) >> 2) | (v & 0x00003fff00003fffULL);
      v = ((v & 0x0fffffff00000000ULL) >> 4) | (v & 0x000000000fffffffULL);
      *value = v;
      return p + bits / 8;
    }
  }
  // Near the packet's end, or 9 or 10 bytes long: byte by byte.
  uint64_t v = 0;
  for (int i = 0; i < kMaxVarintBytes && p < readable; ++i) {
    const uint8_t byte = *p++;
    v |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      *value = v;
      return p;
    }
  }
  return nullptr;
}

// A length-delimited field's payload, [p, *payload_end), which must end by `end`.
inline const uint8_t* ReadLength(const uint8_t* p, const uint8_t* end, const uint8_t* readable,
                                 const uint8_t** payload_end) {
  uint64_t length = 0;
  p = ReadVarint(p, readable, &length);
  if (!p || p > end || length > static_cast<uint64_t>(end - p)) return nullptr;
  *payload_end = p + length;
  return p;
}

// Past the value of a field of `wire_type`.
inline const uint8_t* SkipValue(const uint8_t* p, const uint8_t* end, const uint8_t* readable,
                                uint32_t wire_type) {
  switch (wire_type) {
    case kVarint: {
      uint64_t ignored = 0;
      return ReadVarint(p, readable, &ignored);
    }
    case kFixed64:
      return end - p >= 8 ? p + 8 : nullptr;
    case kFixed32:
      return end - p >= 4 ? p + 4 : nullptr;
    case kLengthDelimited: {
      const uint8_t* payload_end = nullptr;
      return ReadLength(p, end, readable, &payload_end) ? payload_end : nullptr;
    }
    default:  // groups (3, 4) and the reserved 6 and 7: not in this schema
      return nullptr;
  }
}

// A field's tag: false for field 0, which no message has.
inline const uint8_t* ReadTag(const uint8_t* p, const uint8_t* readable, uint32_t* field,
                              uint32_t* wire_type) {
  uint64_t tag = 0;
  p = ReadVarint(p, readable, &tag);
  *field = static_cast<uint32_t>(tag >> 3);
  *wire_type = static_cast<uint32_t>(tag & 7);
  return p && *field != 0 ? p : nullptr;
}

// One field as it lies on the wire: its tag, where it starts, and its value
// (a varint's number, or a length-delimited field's payload); other wire
// types are skipped.
struct WireField {
  uint32_t number = 0;
  uint32_t wire_type = 0;
  const uint8_t* start = nullptr;
  uint64_t varint = 0;
  const uint8_t* payload = nullptr;
  const uint8_t* payload_end = nullptr;
};

// The field at p, which must end by `end`; the byte after it, or null.
// Always inlined, as ForEachField is: called once per field of every GPU
// record, a WireField kept in memory cost a tenth of a report's instructions.
[[gnu::always_inline]] inline const uint8_t* ReadField(const uint8_t* p, const uint8_t* end,
                                                       const uint8_t* readable, WireField* field) {
  field->start = p;
  p = ReadTag(p, readable, &field->number, &field->wire_type);
  if (!p || p >= end) return nullptr;
  switch (field->wire_type) {
    case kVarint:
      p = ReadVarint(p, readable, &field->varint);
      return p && p <= end ? p : nullptr;
    case kLengthDelimited:
      field->payload = ReadLength(p, end, readable, &field->payload_end);
      return field->payload ? field->payload_end : nullptr;
    default:
      return SkipValue(p, end, readable, field->wire_type);
  }
}

// Calls on_field(field) for each field of the message in [p, end); false
// when its bytes do not parse or on_field returns false.
template <typename OnField>
[[gnu::always_inline]] inline bool ForEachField(const uint8_t* p, const uint8_t* end,
                                                const uint8_t* readable, OnField on_field) {
  while (p < end) {
    WireField field;
    p = ReadField(p, end, readable, &field);
    if (!p || !on_field(field)) return false;
  }
  return true;
}

// Where a varint field of a message goes in its row: a 64-bit or a 32-bit
// member (a uint32 field keeps the low 32 bits, as protobuf does), and for a
// proto3 `optional` uint32 field the member that says it was written.
template <typename Row>
struct VarintField {
  uint32_t number = 0;
  uint64_t Row::*wide = nullptr;
  uint32_t Row::*narrow = nullptr;
  bool Row::*present = nullptr;
};

template <typename Row>
constexpr VarintField<Row> Field(uint32_t number, uint64_t Row::*member) {
  return {number, member, nullptr, nullptr};
}
template <typename Row>
constexpr VarintField<Row> Field(uint32_t number, uint32_t Row::*member,
                                 bool Row::*present = nullptr) {
  return {number, nullptr, member, present};
}

// A row's fields by field number. Fields not listed, and numbers past the
// table, are read and dropped; a listed number past the table does not
// compile (std::array::at in a constant expression).
constexpr uint32_t kMaxFieldNumber = 15;
template <typename Row>
using FieldTable = std::array<VarintField<Row>, kMaxFieldNumber + 1>;

template <typename Row, size_t N>
constexpr FieldTable<Row> ByNumber(const VarintField<Row> (&fields)[N]) {
  FieldTable<Row> table{};
  for (const VarintField<Row>& field : fields) table.at(field.number) = field;
  return table;
}

// What each row takes from its message; the rest of the message is skipped.
namespace kernel = fields::GpuKernel;
constexpr FieldTable<KernelRow> kKernelFields = ByNumber<KernelRow>({
    Field(kernel::kNameIid, &KernelRow::name_iid),
    Field(kernel::kStartNs, &KernelRow::start_ns),
    Field(kernel::kDurationNs, &KernelRow::duration_ns),
    Field(kernel::kStream, &KernelRow::stream),
    Field(kernel::kCorrelationId, &KernelRow::correlation_id),
    Field(kernel::kGraphId, &KernelRow::graph_id),
});
namespace api = fields::ApiCall;
constexpr FieldTable<ApiRow> kApiFields = ByNumber<ApiRow>({
    Field(api::kNameIid, &ApiRow::name_iid),
    Field(api::kStartNs, &ApiRow::start_ns),
    Field(api::kDurationNs, &ApiRow::duration_ns),
    Field(api::kTid, &ApiRow::tid),
    Field(api::kCorrelationId, &ApiRow::correlation_id),
});
namespace memcpy_field = fields::GpuMemcpy;
constexpr FieldTable<CopyRow> kMemcpyFields = ByNumber<CopyRow>({
    Field(memcpy_field::kCopyKind, &CopyRow::copy_kind),
    Field(memcpy_field::kSrcKind, &CopyRow::src_kind),
    Field(memcpy_field::kDstKind, &CopyRow::dst_kind),
    Field(memcpy_field::kBytes, &CopyRow::bytes),
    Field(memcpy_field::kStartNs, &CopyRow::start_ns),
    Field(memcpy_field::kDurationNs, &CopyRow::duration_ns),
    Field(memcpy_field::kStream, &CopyRow::stream),
    Field(memcpy_field::kCorrelationId, &CopyRow::correlation_id),
    Field(memcpy_field::kGraphId, &CopyRow::graph_id),
    Field(memcpy_field::kSrcDevice, &CopyRow::src_device, &CopyRow::has_src_device),
    Field(memcpy_field::kDstDevice, &CopyRow::dst_device, &CopyRow::has_dst_device),
});
namespace memset_field = fields::GpuMemset;
constexpr FieldTable<CopyRow> kMemsetFields = ByNumber<CopyRow>({
    Field(memset_field::kBytes, &CopyRow::bytes),
    Field(memset_field::kStartNs, &CopyRow::start_ns),
    Field(memset_field::kDurationNs, &CopyRow::duration_ns),
    Field(memset_field::kStream, &CopyRow::stream),
    Field(memset_field::kCorrelationId, &CopyRow::correlation_id),
    Field(memset_field::kGraphId, &CopyRow::graph_id),
});
namespace external = fields::ExternalCorrelation;
constexpr FieldTable<ExternalRow> kExternalFields = ByNumber<ExternalRow>({
    Field(external::kExternalId, &ExternalRow::external_id),
    Field(external::kCorrelationId, &ExternalRow::correlation_id),
});
namespace replay = fields::GpuGraphReplay;
constexpr FieldTable<GraphReplayRow> kGraphReplayFields = ByNumber<GraphReplayRow>({
    Field(replay::kStartNs, &GraphReplayRow::start_ns),
    Field(replay::kDurationNs, &GraphReplayRow::duration_ns),
    Field(replay::kStream, &GraphReplayRow::stream),
    Field(replay::kCorrelationId, &GraphReplayRow::correlation_id),
    Field(replay::kGraphId, &GraphReplayRow::graph_id),
});

template <typename Row>
[[gnu::always_inline]] inline void Store(Row& row, const VarintField<Row>& field, uint64_t value) {
  if (field.wide) {
    row.*field.wide = value;
  } else if (field.narrow) {
    row.*field.narrow = static_cast<uint32_t>(value);
    if (field.present) row.*field.present = true;
  }
}

// Appends a row to `rows` and decodes the message in [p, end) into it.
template <typename Row>
bool DecodeInto(std::vector<Row>& rows, const FieldTable<Row>& table, const uint8_t* p,
                const uint8_t* end, const uint8_t* readable) {
  Row& row = rows.emplace_back();
  while (p < end) {
    // Nearly every field of a GPU record: a varint under a one-byte tag
    // (bit 7 clear, wire type 0, fields 1 to 15: the table's numbers), which
    // indexes the table at once. A third of the decoder's instructions went
    // to reading such tags as varints and dispatching on their wire type.
    if (const uint8_t tag = *p; (tag & 0x87) == 0 && tag != 0 && end - p > 1) {
      uint64_t value = 0;
      p = ReadVarint(p + 1, readable, &value);
      if (!p || p > end) return false;
      Store(row, table[tag >> 3], value);
      continue;
    }
    // Anything else (another wire type, a longer tag): the general walk.
    WireField wire;
    p = ReadField(p, end, readable, &wire);
    if (!p) return false;
    if (wire.wire_type == kVarint && wire.number <= kMaxFieldNumber) {
      Store(row, table[wire.number], wire.varint);
    }
  }
  return true;
}

void Clear(GpuBatchRecords& records) {
  records.kernels.clear();
  records.apis.clear();
  records.memcpys.clear();
  records.memsets.clear();
  records.externals.clear();
  records.graph_replays.clear();
  records.dropped = 0;
  records.others.Clear();
}

// Adds the fields of the GpuBatch in [begin, end) to `records`, as protobuf
// merges a message into one it holds. `readable`: as for the readers above.
bool AppendGpuBatch(const uint8_t* begin, const uint8_t* end, const uint8_t* readable,
                    GpuBatchRecords& records) {
  namespace f = fields::GpuBatch;
  // The fields left to protobuf, as they were on the wire: their
  // concatenation is a GpuBatch holding just them. Reused, as the rows are.
  thread_local std::string others;
  others.clear();
  const bool parsed = ForEachField(begin, end, readable, [&](const WireField& field) {
    if (field.number == f::kDropped && field.wire_type == kVarint) {
      records.dropped = field.varint;
      return true;
    }
    if (field.wire_type != kLengthDelimited) return true;
    switch (field.number) {
      case f::kKernel:
        return DecodeInto(records.kernels, kKernelFields, field.payload, field.payload_end,
                          readable);
      case f::kApi:
        return DecodeInto(records.apis, kApiFields, field.payload, field.payload_end, readable);
      case f::kMemcpy:
        return DecodeInto(records.memcpys, kMemcpyFields, field.payload, field.payload_end,
                          readable);
      case f::kMemset:
        return DecodeInto(records.memsets, kMemsetFields, field.payload, field.payload_end,
                          readable);
      case f::kExternal:
        return DecodeInto(records.externals, kExternalFields, field.payload, field.payload_end,
                          readable);
      case f::kGraphReplay:
        return DecodeInto(records.graph_replays, kGraphReplayFields, field.payload,
                          field.payload_end, readable);
      case f::kSync:
      case f::kEventRecord:
      case f::kOverhead:
      case f::kDevice:
      case f::kMemory:
      case f::kGraphNodes:
        others.append(reinterpret_cast<const char*>(field.start),
                      static_cast<size_t>(field.payload_end - field.start));
        return true;
      default:  // a field this vprof does not know
        return true;
    }
  });
  if (!parsed) return false;
  return others.empty() || records.others.MergeFromString(others);
}

}  // namespace

bool DecodeGpuBatch(const void* data, size_t size, GpuBatchRecords* records) {
  Clear(*records);
  const auto* begin = static_cast<const uint8_t*>(data);
  return AppendGpuBatch(begin, begin + size, begin + size, *records);
}

PacketDecode DecodeGpuBatchPacket(const void* data, size_t size, GpuBatchRecords* records) {
  namespace f = fields::TracePacket;
  const auto* begin = static_cast<const uint8_t*>(data);
  const uint8_t* end = begin + size;
  bool gpu_batch = false;
  const bool parsed = ForEachField(begin, end, end, [&](const WireField& field) {
    // The sequence, and fields this vprof does not know, are not the oneof.
    if (field.wire_type != kLengthDelimited || field.number < f::kRunHeader ||
        field.number > f::kInjection) {
      return true;
    }
    if (field.number != f::kGpuBatch) {
      gpu_batch = false;
      return true;
    }
    if (!gpu_batch) Clear(*records);
    gpu_batch = true;
    return AppendGpuBatch(field.payload, field.payload_end, end, *records);
  });
  if (!parsed) return PacketDecode::kCorrupt;
  return gpu_batch ? PacketDecode::kGpuBatch : PacketDecode::kOther;
}

}  // namespace vprof::reporter
