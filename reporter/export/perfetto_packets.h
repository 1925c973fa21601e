// A Perfetto trace written packet by packet to a stream: the Trace message's
// framing (each packet is field 1 of Trace, so packets are appended as they
// come), interned names, track uuids and packet sequences.
//
// Sequence 1 holds the track descriptors, counters and the export's metadata,
// with absolute timestamps. Each track's slices go on a sequence of their own,
// in time order, so that its packets can leave out what the sequence says once:
// the track (TracePacketDefaults) and the time, which is the change since the
// sequence's previous packet (an incremental clock of the sequence, announced
// with the trace clock in a ClockSnapshot). Interned strings have one iid in
// the whole trace; a sequence carries the entries it uses, each on the first
// packet that refers to it.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "reporter/export/perfetto_trace.pb.h"

namespace vprof::reporter {

class PerfettoPackets {
 public:
  explicit PerfettoPackets(std::ostream& out);

  // The iid of a string in its table, interned on first use.
  uint64_t Category(std::string_view name) { return Intern(kCategories, name); }
  uint64_t EventName(std::string_view name) { return Intern(kEventNames, name); }
  uint64_t AnnotationName(std::string_view name) { return Intern(kAnnotationNames, name); }
  uint64_t AnnotationString(std::string_view value) { return Intern(kAnnotationStrings, value); }

  uint64_t NewTrackUuid() { return next_uuid_++; }

  // On sequence 1: a descriptor, and an event (its track set) at an absolute time.
  void Descriptor(const vprof::perfetto::TrackDescriptor& track);
  void Event(uint64_t timestamp_ns, const vprof::perfetto::TrackEvent& event);

  // A sequence for the slices of `track_uuid`, whose times start at `start_ns`.
  uint32_t OpenTrackSequence(uint64_t track_uuid, uint64_t start_ns);
  // An event of the sequence (`event`: a TrackEvent's serialized fields, no
  // track) at `timestamp_ns`, no earlier than the sequence's previous packet.
  void SequenceEvent(uint32_t sequence, uint64_t timestamp_ns, std::string_view event);
  // The end of the slice last begun on the sequence's track and not yet ended.
  void SequenceEnd(uint32_t sequence, uint64_t timestamp_ns);
  void CloseSequence(uint32_t sequence) { sequences_.erase(sequence); }

 private:
  enum Table : size_t { kCategories, kEventNames, kAnnotationNames, kAnnotationStrings };
  static constexpr size_t kTables = 4;

  struct Sequence {
    bool started = false;  // its first packet (which clears its incremental state) is written
    uint64_t last_ns = 0;  // the time of its previous packet
    std::array<std::unordered_set<uint64_t>, kTables> interned;  // iids it has carried
  };

  uint64_t Intern(Table table, std::string_view name);
  // A packet of `sequence` at `timestamp_ns`: the change since its previous one.
  vprof::perfetto::TracePacket SequencePacket(uint32_t sequence, uint64_t timestamp_ns);
  // Adds to `packet` the interned entries `event` refers to that `sequence`
  // has not carried; whether it refers to any.
  bool AddInterned(Sequence& sequence, const vprof::perfetto::TrackEvent& event,
                   vprof::perfetto::TracePacket& packet);
  void AddEntry(Sequence& sequence, Table table, uint64_t iid, vprof::perfetto::InternedData& data);
  // Frames `packet` (of `sequence`, whose first packet it may be), then
  // `track_event` (serialized TrackEvent fields) as its track_event, and
  // writes them out.
  void Write(Sequence& sequence, vprof::perfetto::TracePacket& packet,
             std::string_view track_event);

  std::ostream& out_;
  // Per table: iids by string, and strings by iid (from 1; [0] unused).
  std::array<std::unordered_map<std::string, uint64_t>, kTables> iids_;
  std::array<std::vector<std::string>, kTables> strings_;
  uint64_t next_uuid_ = 1;  // 0 is the trace-global track
  uint32_t next_sequence_ = 2;
  std::unordered_map<uint32_t, Sequence> sequences_;  // open ones; 1 always
  vprof::perfetto::TrackEvent parsed_;                // reused
  std::string slice_end_;                             // a TYPE_SLICE_END TrackEvent, serialized
  std::string packet_bytes_, framed_;                 // reused
};

}  // namespace vprof::reporter
