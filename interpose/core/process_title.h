// The process's title, read again while the trace runs. The RunHeader's argv
// is read at load, but a program may rename itself later: Ray starts every
// worker as "python .../default_worker.py --node-ip-address ..." and, through
// setproctitle, makes it "ray::MegatronTrainRayActor.train" once it hosts an
// actor; setproctitle overwrites the argv area, which /proc/self/cmdline
// reads. The reporter tells a process's role from the latest title
// (reporter/phases/process_role.h).
//
// Reading /proc is a system call, so only the holder of the flush lock reads
// it: the writer thread, at most once a second, and whoever ends the trace,
// once. Each reading that differs from the one before becomes a ProcessTitle
// packet; a trace records kMostTitleChanges of them and the one at its end,
// and counts the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vprof {

class TraceWriter;

// The first kTitleBytes bytes of /proc/self/cmdline, without trailing NULs
// (setproctitle pads the rest of the argv area with them). Enough to tell a
// process's role by: its program, script and first options; a title longer
// than this changes where it begins.
inline constexpr size_t kTitleBytes = 4096;
struct TitleText {
  char bytes[kTitleBytes] = {};
  size_t size = 0;
  std::string_view view() const { return {bytes, size}; }
};

// False when /proc/self/cmdline cannot be read.
bool ReadProcessTitle(TitleText* out);

// A trace's title changes as the flush lock's holder reads them. `read` is
// ReadProcessTitle but in tests.
class TitleWatch {
 public:
  using Reader = bool (*)(TitleText* out);
  static constexpr uint32_t kMostTitleChanges = 16;
  static constexpr uint64_t kReadIntervalNs = 1000000000;

  explicit TitleWatch(Reader read) : read_(read) {}
  // At initialisation: the title at load, which the RunHeader's argv holds.
  // A title that cannot be read then is never watched.
  void Start();
  // Reads the title when kReadIntervalNs passed since the last reading, or
  // at once when `at_end` (the trace is ending), and writes a ProcessTitle
  // packet when it differs from the last reading (the first
  // kMostTitleChanges times; later changes are counted), or at the end from
  // the last title written (or changes went unwritten). False when the trace
  // cannot be written.
  bool PutChanges(TraceWriter& writer, uint64_t now_ns, bool at_end);
  // In a forked child: its trace begins with the load-time argv again.
  void ResetInChild();

 private:
  bool PutPacket(TraceWriter& writer, uint64_t now_ns, bool at_end);

  Reader read_;
  bool started_ = false;
  TitleText at_load_;
  TitleText last_read_;
  TitleText last_written_;
  // The reading in hand; a member, not 4 KiB more on the stack of the
  // program's thread that ends the trace at exit.
  TitleText reading_;
  uint64_t next_read_ns_ = 0;
  uint32_t written_ = 0;
  uint64_t unwritten_ = 0;
};

// The process's watch (reading /proc/self/cmdline): made at initialisation,
// before the writer thread starts, and never destroyed; null before, and when
// vprof is off. Only the flush lock's holder uses it after.
void ConfigureTitleWatch();
TitleWatch* GlobalTitleWatch();

}  // namespace vprof
