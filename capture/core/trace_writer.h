// Turns drained records into trace packets and appends them to this
// process's trace file.
//
// Only the holder of the flush lock (lifecycle.cc) calls into a TraceWriter:
// the writer thread normally, an exit handler at the end.
//
// The file on disk is whole after every write: each write puts the packets
// where the previous write's Footer began and a Footer (reason UNOBSERVED)
// after them, so a process that ends without vprof seeing it (a fatal signal,
// _exit, exec) leaves a readable trace up to its last flush. finish() writes
// the Footer that stays. The file is opened by name for each write and
// closed after it: a program that closes every descriptor, or opens its own
// file under a number vprof once held, never receives vprof's bytes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "proto_encoder.h"
#include "run_info.h"
#include "settings.h"

namespace vprof {

// Footer.reason values (schema EndReason) that the capture side writes.
enum class EndReason : int32_t {
  kExit = 1,
  kWindowEnd = 3,
  kInternalError = 4,
  kUnobserved = 5,  // the provisional Footer of every write
};

class TraceWriter {
 public:
  // Allocates the encode buffer; false on failure.
  bool init(const Settings& settings, RunInfo* run);

  // Moves every thread's records, new communicators and thread names into
  // packets, writing to the file whenever the buffer fills. Does nothing
  // until the first flush() began the trace. False when the trace could not
  // be written (vprof then disables itself).
  bool drain() { return drain_sources(); }
  // Begins the trace if needed (its header first in the buffer), drain(), a
  // clock sample, then everything to the file, which the first write
  // creates. Until something is recorded (a call, a new communicator, a
  // range, GPU activity, or a drop) nothing is written: a process that execs
  // before then leaves no file behind.
  bool flush();
  // flush(), then the final footer, creating the file if nothing was written
  // before. Later drain() and flush() calls do nothing (a writer tick that
  // was waiting for the flush lock while the trace ended must not start a
  // second file).
  bool finish(EndReason reason);

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
  bool write_out() { return write_file(EndReason::kUnobserved); }
  ProtoEncoder& encoder() { return enc_; }
  // The id of a string, writing its InternedString packet first when new.
  // Allocates (writer thread only); never call with a packet open.
  uint64_t intern(std::string_view s);
  // Interned string ids: 1 + NcclFn row, written with the header; the row
  // after the table names communicators vprof adopted without seeing them
  // created. Names found while running (kernels, API calls) count up from
  // kFirstDynamicIid.
  static uint64_t nccl_function_iid(uint16_t fn) { return uint64_t{fn} + 1; }
  // Totals for the footer's KindCount of a capture source other than the
  // NCCL wrappers, which this class counts itself.
  enum class Source : uint8_t { kCupti, kNvtx, kNcclPlugin, kCount };
  void count(Source source, uint64_t recorded, uint64_t dropped) {
    source_totals_[static_cast<size_t>(source)].recorded += recorded;
    source_totals_[static_cast<size_t>(source)].dropped += dropped;
  }

  // The file, once created ("" before).
  const char* path() const { return path_; }
  // Why the last call returned false.
  const char* error() const { return error_; }

  // In a forked child: start a new file for the child; the parent's file and
  // buffered bytes are the parent's.
  void reset_in_child(RunInfo* run);

 private:
  // The buffered packets, then a Footer with `reason`, to the file.
  bool write_file(EndReason reason);
  // A descriptor of this trace's file, created on first use; -1 on failure.
  int open_file();
  void put_footer(ProtoEncoder& e, EndReason reason);
  bool begin();
  bool recorded_anything() const;
  void put_header();
  void put_function_names();
  void put_interned_string(uint64_t iid, std::string_view s);
  void put_clock_sample();
  void put_new_communicators();
  bool drain_sources();
  void drain_thread(struct ThreadBuffer& b);
  void drain_nccl(struct ThreadBuffer& b);
  bool fail(const char* what);
  bool fail_path(const char* what, const char* why);

  Settings settings_;
  RunInfo* run_ = nullptr;
  ProtoEncoder enc_{nullptr, 0};
  // Where the next write goes: the end of the packets written, where the
  // provisional Footer begins; file_end_ is the end of that Footer.
  uint64_t packets_end_ = 0;
  uint64_t file_end_ = 0;
  // The file this trace created: a later open that finds another file under
  // the name (removed and made again by someone else) fails the trace.
  bool created_ = false;
  dev_t file_dev_ = 0;
  ino_t file_ino_ = 0;
  bool begun_ = false;  // the header is in the buffer or the file
  bool finished_ = false;
  bool finishing_ = false;  // finish() is flushing: nothing will be drained after this
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
  // Room for the Footer packet: four KindCounts and a handful of varints.
  static constexpr size_t kFooterRoom = 512;
  uint8_t footer_buf_[kFooterRoom] = {};
  char path_[4096] = {};
  char error_[4400] = {};
};

}  // namespace vprof
