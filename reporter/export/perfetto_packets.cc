#include "reporter/export/perfetto_packets.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace vprof::reporter {
namespace {

namespace pf = vprof::perfetto;

constexpr uint32_t kMainSequence = 1;
// TracePacket.sequence_flags.
constexpr uint32_t kIncrementalStateCleared = 1;
constexpr uint32_t kNeedsIncrementalState = 2;
// ClockSnapshot clock ids: the trace's clock, and the first a sequence may define.
constexpr uint32_t kBootTimeClock = 6;
constexpr uint32_t kSequenceClock = 64;

constexpr uint32_t kTracePacketField = 1;  // Trace.packet
constexpr uint32_t kTrackEventField = 11;  // TracePacket.track_event
constexpr uint32_t kLengthDelimited = 2;   // the wire type of messages and bytes

// Appends field `field` holding `bytes` (a message or bytes) to `out`.
void AppendLengthDelimited(std::string& out, uint32_t field, std::string_view bytes) {
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.WriteTag((field << 3) | kLengthDelimited);
  coded.WriteVarint32(static_cast<uint32_t>(bytes.size()));
  coded.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
}

}  // namespace

PerfettoPackets::PerfettoPackets(std::ostream& out) : out_(out) {
  pf::TrackEvent end;
  end.set_type(pf::TrackEvent::TYPE_SLICE_END);
  slice_end_ = end.SerializeAsString();
  for (auto& strings : strings_) strings.emplace_back();  // iids count from 1
  sequences_[kMainSequence] = {};
}

uint64_t PerfettoPackets::Intern(Table table, std::string_view name) {
  const auto [entry, added] = iids_[table].try_emplace(std::string(name), strings_[table].size());
  if (added) strings_[table].push_back(entry->first);
  return entry->second;
}

void PerfettoPackets::AddEntry(Sequence& sequence, Table table, uint64_t iid,
                               pf::InternedData& data) {
  if (iid == 0 || iid >= strings_[table].size() || !sequence.interned[table].insert(iid).second) {
    return;
  }
  const std::string& text = strings_[table][iid];
  if (table == kAnnotationStrings) {
    pf::InternedString& entry = *data.add_debug_annotation_string_values();
    entry.set_iid(iid);
    entry.set_str(text);
    return;
  }
  pf::InternedName& entry = table == kCategories   ? *data.add_event_categories()
                            : table == kEventNames ? *data.add_event_names()
                                                   : *data.add_debug_annotation_names();
  entry.set_iid(iid);
  entry.set_name(text);
}

bool PerfettoPackets::AddInterned(Sequence& sequence, const pf::TrackEvent& event,
                                  pf::TracePacket& packet) {
  pf::InternedData& data = *packet.mutable_interned_data();
  for (const uint64_t iid : event.category_iids()) AddEntry(sequence, kCategories, iid, data);
  if (event.has_name_iid()) AddEntry(sequence, kEventNames, event.name_iid(), data);
  for (const pf::DebugAnnotation& annotation : event.debug_annotations()) {
    AddEntry(sequence, kAnnotationNames, annotation.name_iid(), data);
    if (annotation.has_string_value_iid()) {
      AddEntry(sequence, kAnnotationStrings, annotation.string_value_iid(), data);
    }
  }
  if (data.ByteSizeLong() == 0) packet.clear_interned_data();
  return event.category_iids_size() > 0 || event.has_name_iid() ||
         event.debug_annotations_size() > 0;
}

void PerfettoPackets::Descriptor(const pf::TrackDescriptor& track) {
  pf::TracePacket packet;
  packet.set_trusted_packet_sequence_id(kMainSequence);
  *packet.mutable_track_descriptor() = track;
  Write(sequences_[kMainSequence], packet, "");
}

void PerfettoPackets::Event(uint64_t timestamp_ns, const pf::TrackEvent& event) {
  pf::TracePacket packet;
  packet.set_trusted_packet_sequence_id(kMainSequence);
  packet.set_timestamp(timestamp_ns);
  Sequence& main = sequences_[kMainSequence];
  if (AddInterned(main, event, packet)) packet.set_sequence_flags(kNeedsIncrementalState);
  Write(main, packet, event.SerializeAsString());
}

uint32_t PerfettoPackets::OpenTrackSequence(uint64_t track_uuid, uint64_t start_ns) {
  const uint32_t id = next_sequence_++;
  Sequence& sequence = sequences_[id];
  sequence.last_ns = start_ns;
  pf::TracePacket packet;
  packet.set_trusted_packet_sequence_id(id);
  // The packet itself is on the trace clock; the ones after it, on the sequence's.
  packet.set_timestamp(start_ns);
  packet.set_timestamp_clock_id(kBootTimeClock);
  pf::TracePacketDefaults& defaults = *packet.mutable_trace_packet_defaults();
  defaults.set_timestamp_clock_id(kSequenceClock);
  defaults.mutable_track_event_defaults()->set_track_uuid(track_uuid);
  pf::ClockSnapshot& clocks = *packet.mutable_clock_snapshot();
  pf::ClockSnapshot::Clock& trace_clock = *clocks.add_clocks();
  trace_clock.set_clock_id(kBootTimeClock);
  trace_clock.set_timestamp(start_ns);
  pf::ClockSnapshot::Clock& sequence_clock = *clocks.add_clocks();
  sequence_clock.set_clock_id(kSequenceClock);
  sequence_clock.set_timestamp(start_ns);
  sequence_clock.set_is_incremental(true);
  Write(sequence, packet, "");
  return id;
}

pf::TracePacket PerfettoPackets::SequencePacket(uint32_t sequence, uint64_t timestamp_ns) {
  Sequence& state = sequences_.at(sequence);
  pf::TracePacket packet;
  packet.set_trusted_packet_sequence_id(sequence);
  packet.set_sequence_flags(kNeedsIncrementalState);  // its time and track are the sequence's
  packet.set_timestamp(timestamp_ns - state.last_ns);
  state.last_ns = timestamp_ns;
  return packet;
}

void PerfettoPackets::SequenceEvent(uint32_t sequence, uint64_t timestamp_ns,
                                    std::string_view event) {
  pf::TracePacket packet = SequencePacket(sequence, timestamp_ns);
  Sequence& state = sequences_.at(sequence);
  parsed_.ParseFromArray(event.data(), static_cast<int>(event.size()));
  AddInterned(state, parsed_, packet);
  Write(state, packet, event);
}

void PerfettoPackets::SequenceEnd(uint32_t sequence, uint64_t timestamp_ns) {
  // The end names nothing interned: no parse, no lookups (half the packets are ends).
  pf::TracePacket packet = SequencePacket(sequence, timestamp_ns);
  Write(sequences_.at(sequence), packet, slice_end_);
}

void PerfettoPackets::Write(Sequence& sequence, pf::TracePacket& packet,
                            std::string_view track_event) {
  if (!sequence.started) {
    packet.set_sequence_flags(kIncrementalStateCleared);
    sequence.started = true;
  }
  packet_bytes_.clear();
  packet.AppendToString(&packet_bytes_);
  if (!track_event.empty()) AppendLengthDelimited(packet_bytes_, kTrackEventField, track_event);
  framed_.clear();
  AppendLengthDelimited(framed_, kTracePacketField, packet_bytes_);
  out_.write(framed_.data(), static_cast<std::streamsize>(framed_.size()));
}

}  // namespace vprof::reporter
