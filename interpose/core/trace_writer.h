// Turns drained records into trace packets and appends them to this
// process's trace file. The records come from the sources' drains, which the
// writer knows only through the table they register (capture_source.h).
//
// Only the holder of the flush lock (runtime.cc) calls into a TraceWriter:
// the writer thread normally, an exit handler at the end.
//
// The file on disk is whole after every write: each write puts the packets
// where the previous write's Footer began and a Footer (reason UNOBSERVED)
// after them, so a process that ends without vprof seeing it (a fatal signal,
// _exit, exec) leaves a readable trace up to its last flush. Finish() writes
// the Footer that stays. The file is opened by name for each write and
// closed after it: a program that closes every descriptor, or opens its own
// file under a number vprof once held, never receives vprof's bytes.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/settings.h"
#include "interpose/core/capture_source.h"
#include "interpose/core/proto_encoder.h"
#include "interpose/core/run_info.h"

namespace vprof {

// Footer.reason values (schema EndReason) that the capture side writes.
enum class EndReason : int32_t {
  kExit = 1,
  kWindowEnd = 3,
  kInternalError = 4,
  kUnobserved = 5,  // the provisional Footer of every write
  kWritesStalled = 6,
};

class TraceWriter {
 public:
  // Allocates the encode buffer; false on failure. `sources` (interpose/sources.cc)
  // outlives the writer.
  bool Init(const Settings& settings, RunInfo* run, const CaptureSources& sources);

  // Runs the table's kEachTick drains: every thread's records, new
  // communicators and thread names into packets, writing to the file
  // whenever the buffer fills. Does nothing
  // until the first Flush() began the trace. False when the trace could not
  // be written (vprof then disables itself).
  bool Drain() { return DrainSources(); }
  // Begins the trace if needed (its header first in the buffer), Drain(), the
  // kEachFlush drains, a clock sample, then everything to the file, which the first write
  // creates. Until something is recorded (a call, a new communicator, a
  // range, GPU activity, or a drop) nothing is written: a process that execs
  // before then leaves no file behind.
  bool Flush();
  // Flush() with the final footer, creating the file if nothing was written
  // before. Later Drain() and Flush() calls do nothing (a writer tick that
  // was waiting for the flush lock while the trace ended must not start a
  // second file).
  bool Finish(EndReason reason);

  // From `deadline_ns` (CLOCK_MONOTONIC) on, no write is made: the buffered
  // packets are left out, the call fails, and so does every later write
  // (stalled()); the file ends in the last whole write's provisional Footer
  // until EndStalled(). 0 lifts the bound. For an exit handler, whose writes
  // must not hold the program when the file system stalls. The one call
  // made without the flush lock: an exit handler bounds the writes of a
  // drain the writer thread is in.
  void EndWritesBy(uint64_t deadline_ns) { writes_end_ns_.store(deadline_ns); }
  // A write came after EndWritesBy()'s deadline.
  bool stalled() const { return stalled_; }
  // After a stall: a Footer of reason kWritesStalled alone after the last
  // whole write, and the trace is finished; error() still says why (or why
  // that write failed). For the holder of the flush lock at the stall.
  void EndStalled();

  // The buffer protocol, which every drain (capture_source.h) follows.
  //  - Who: the holder of the flush lock (runtime.cc) alone: the writer
  //    thread, or an exit handler as the trace ends. The lock is held across
  //    every drain of a pass, so a drain never waits for it, and what a
  //    drain calls must not either.
  //  - A packet: BeginPacket(), the fields through encoder(), EndPacket().
  //    Nested messages inside it use the encoder's BeginNested/EndNested.
  //  - Room: before each packet (or each element of a batch), EnsureRoom()
  //    with an upper bound of its size. When the buffer lacks it, the
  //    buffered packets are written to the file, so EnsureRoom() and
  //    WriteOut() must never be called with a packet open: a batch is
  //    ended, written out, and begun again (nccl/nccl_drain.cc).
  //  - Names: Intern() gives a string's id, writing its InternedString
  //    packet first when new; it allocates and may write out, so it too is
  //    never called with a packet open: intern first, then begin the packet.
  //  - Failure: EnsureRoom() and WriteOut() return false when the file
  //    cannot be written; the drain then returns false.
  struct PacketTokens {
    size_t packet, data;
  };
  PacketTokens BeginPacket(uint32_t field);
  void EndPacket(PacketTokens t);
  bool EnsureRoom(size_t bytes);
  bool WriteOut() { return WriteFile(EndReason::kUnobserved); }
  ProtoEncoder& encoder() { return enc_; }
  uint64_t Intern(std::string_view s);
  // A string's id if Intern() gave it one; 0 otherwise. Writes nothing.
  uint64_t InternedId(std::string_view s) const;
  // An InternedString packet of a fixed id below kFirstDynamicIid: a
  // kTraceBegin drain's, into the buffer only.
  void PutInternedString(uint64_t iid, std::string_view s);
  // Interned string ids from kFirstDynamicIid up are Intern()'s; those below
  // are the sources' fixed names, written as the trace begins (the NCCL
  // function table's, nccl_functions.h).
  static constexpr uint64_t kFirstDynamicIid = 1 << 16;
  // Adds to a source's KindCount of the Footer; `count` is a row of the
  // table's counts.
  void Count(const SourceCount& count, uint64_t recorded, uint64_t dropped);
  // Something no KindCount counts makes this trace worth a file (a
  // communicator created after the trace began).
  void NoteRecorded() { noted_recorded_ = true; }
  // The most KindCounts a table may have: the Footer's room is sized for them.
  static constexpr size_t kMaxCounts = 5;
  const Settings& settings() const { return settings_; }

  // The file, once created ("" before).
  const char* path() const { return path_; }
  // Why the last call returned false.
  const char* error() const { return error_; }

  // In a forked child: start a new file for the child; the parent's file and
  // buffered bytes are the parent's.
  void ResetInChild(RunInfo* run);

 private:
  // The buffered packets, then a Footer with `reason`, to the file.
  bool WriteFile(EndReason reason);
  // A descriptor of this trace's file, created on first use; -1 on failure.
  int OpenFile();
  void PutFooter(ProtoEncoder& e, EndReason reason);
  bool begin();
  // Flush() short of its write: the drains, the kEachFlush pass and a clock
  // sample into the buffer (written out only as it fills).
  bool DrainIntoBuffer();
  bool RecordedAnything() const;
  void PutHeader();
  void PutClockSample();
  // The table's kEachTick rows (with their kEachThread rows), in order.
  bool DrainSources();
  // `rows` (consecutive kEachThread rows) over every thread buffer.
  void DrainThreads(std::span<const SourceDrain> rows);
  // Its ThreadDescriptor, once per thread; false when there was no room.
  bool DescribeThread(ThreadBuffer& b);
  // The table's rows of kTraceBegin or kEachFlush, in order.
  bool RunPass(DrainPass pass);
  bool Fail(const char* what);
  bool FailPath(const char* what, const char* why);

  Settings settings_;
  RunInfo* run_ = nullptr;
  CaptureSources sources_;
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
  bool finishing_ = false;  // Finish() is flushing: nothing will be drained after this
  std::atomic<uint64_t> writes_end_ns_{0};  // EndWritesBy(); 0: none
  bool stalled_ = false;
  uint64_t packet_seq_ = 0;
  bool noted_recorded_ = false;
  struct Totals {
    uint64_t recorded = 0, dropped = 0;
  };
  // By the index of sources_.counts.
  Totals totals_[kMaxCounts] = {};
  // Looks strings up by string_view: most lookups find a name already seen
  // (every kernel and API record of a buffer asks), and need no allocation.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  // Strings interned beyond the sources' fixed names (kernel and API names).
  std::unordered_map<std::string, uint64_t, NameHash, std::equal_to<>> interned_;
  uint64_t next_iid_ = kFirstDynamicIid;
  // Room for the Footer packet: kMaxCounts KindCounts and a handful of varints.
  static constexpr size_t kFooterRoom = 512;
  uint8_t footer_buf_[kFooterRoom] = {};
  char path_[4096] = {};
  char error_[4400] = {};
};

}  // namespace vprof
