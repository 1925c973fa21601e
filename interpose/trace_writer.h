// Turns drained records into trace packets and appends them to this
// process's trace file.
//
// Only the holder of the flush lock (lifecycle.cc) calls into a TraceWriter:
// the writer thread normally, an exit or signal handler at the end. Nothing
// here allocates after init(), so a signal handler may call it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "proto_encoder.h"
#include "run_info.h"
#include "settings.h"

namespace vprof {

enum class EndReason : int32_t { kExit = 1, kSignal = 2, kWindowEnd = 3, kInternalError = 4 };

class TraceWriter {
 public:
  // Allocates the encode buffer; false on failure.
  bool init(const Settings& settings, RunInfo* run);

  // Moves every thread's records, new communicators and thread names into
  // packets, writing to the file whenever the buffer fills. Does nothing
  // until the first flush() began the trace. False when the trace could not
  // be written (vprof then disables itself).
  bool drain() { return drain_sources(/*may_allocate=*/true); }
  // Begins the trace if needed (its header first in the buffer), drain(), a
  // clock sample, then everything to the file, which the first write
  // creates. Until something is recorded (a call, a new communicator, a
  // range, GPU activity, or a drop) nothing is written: a process that execs
  // before then leaves no file behind. in_signal_handler: skip sources that
  // allocate (GPU activity buffers stay queued for a later flush, or are
  // lost).
  bool flush(bool in_signal_handler = false);
  // flush(), then the footer, creating the file if nothing was written
  // before. The trace is whole afterwards, and later
  // drain() and flush() calls do nothing (a writer tick that was waiting for
  // the flush lock while the trace ended must not start a second file).
  bool finish(EndReason reason, int signal, bool in_signal_handler = false);

  // For other capture sources (cupti/), called while draining, with the flush
  // lock held. A packet is begun and ended around the encoder's contents;
  // ensure_room() writes buffered packets out when space runs short (never
  // call it with a packet open).
  struct PacketTokens {
    size_t packet, data;
  };
  PacketTokens begin_packet(uint32_t field);
  void end_packet(PacketTokens t);
  bool ensure_room(size_t bytes);
  bool write_out();
  ProtoEncoder& encoder() { return enc_; }
  // The id of a string, writing its InternedString packet first when new.
  // Allocates (writer thread only); never call with a packet open.
  uint64_t intern(std::string_view s);
  // Totals for the footer's KindCount of a capture source other than the
  // NCCL wrappers, which this class counts itself.
  enum class Source : uint8_t { kCupti, kNvtx, kNcclPlugin, kCount };
  void count(Source source, uint64_t recorded, uint64_t dropped) {
    source_totals_[static_cast<size_t>(source)].recorded += recorded;
    source_totals_[static_cast<size_t>(source)].dropped += dropped;
  }

  // The file, once opened ("" before).
  const char* path() const { return path_; }
  // Why the last call returned false.
  const char* error() const { return error_; }

  // In a forked child: start a new file for the child; the parent's file and
  // buffered bytes are the parent's.
  void reset_in_child(RunInfo* run);

 private:
  bool open_file();
  bool begin();
  bool recorded_anything() const;
  void put_header();
  void put_function_names();
  void put_interned_string(uint64_t iid, std::string_view s);
  void put_clock_sample();
  void put_new_communicators();
  bool drain_sources(bool may_allocate);
  void drain_thread(struct ThreadBuffer& b, bool may_allocate);
  void drain_nccl(struct ThreadBuffer& b);
  bool fail(const char* what);
  bool fail_path(const char* what, const char* why);

  Settings settings_;
  RunInfo* run_ = nullptr;
  ProtoEncoder enc_{nullptr, 0};
  int fd_ = -1;
  bool begun_ = false;  // the header is in the buffer or the file
  bool finished_ = false;
  uint64_t packet_seq_ = 0;
  size_t comm_cursor_ = 0;
  // Communicators registered before this writer began (a forked child's
  // parent's): described in the file, but no reason on their own to write it.
  size_t comms_before_ = 0;
  uint64_t recorded_ = 0;
  uint64_t dropped_ = 0;
  struct Totals {
    uint64_t recorded = 0, dropped = 0;
  };
  Totals source_totals_[static_cast<size_t>(Source::kCount)] = {};
  // Looks strings up by string_view: most lookups find a name already seen
  // (every kernel and API record of a buffer asks), and need no allocation.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  // Strings interned beyond the fixed NCCL function names (kernel and API
  // names); ids count up from kFirstDynamicIid.
  static constexpr uint64_t kFirstDynamicIid = 1 << 16;
  std::unordered_map<std::string, uint64_t, NameHash, std::equal_to<>> interned_;
  uint64_t next_iid_ = kFirstDynamicIid;
  char path_[4096] = {};
  char error_[4400] = {};
};

}  // namespace vprof
