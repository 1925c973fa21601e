#include "interpose/core/process_title.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <string>
#include <vector>

#include "common/secret_text.h"
#include "common/utf8_repair.h"
#include "interpose/core/proto_encoder.h"
#include "interpose/core/trace_writer.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

TitleWatch* g_watch = nullptr;  // created once, never destroyed (see load_order.h)

// The title's arguments as the RunHeader's argv is written: split at the
// NULs, secret values redacted.
std::vector<std::string> TitleArgv(std::string_view title) {
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i <= title.size(); ++i) {
    if (i == title.size() || title[i] == '\0') {
      argv.emplace_back(title.substr(start, i - start));
      start = i + 1;
    }
  }
  return RedactArgv(argv);
}

}  // namespace

bool ReadProcessTitle(TitleText* out) {
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t size = 0;
  bool ok = true;
  while (size < sizeof out->bytes) {
    const ssize_t n = read(fd, out->bytes + size, sizeof out->bytes - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ok = false;
    if (n <= 0) break;
    size += static_cast<size_t>(n);
  }
  close(fd);
  while (size > 0 && out->bytes[size - 1] == '\0') --size;
  out->size = size;
  return ok;
}

void TitleWatch::Start() {
  started_ = read_(&at_load_);
  ResetInChild();
}

void TitleWatch::ResetInChild() {
  last_read_ = at_load_;
  last_written_ = at_load_;
  next_read_ns_ = 0;
  written_ = 0;
  unwritten_ = 0;
}

bool TitleWatch::PutChanges(TraceWriter& writer, uint64_t now_ns, bool at_end) {
  if (!started_ || (!at_end && now_ns < next_read_ns_)) return true;
  next_read_ns_ = now_ns + kReadIntervalNs;
  // Unreadable now (no /proc in a sandbox, descriptors exhausted): the title
  // stays what was last read.
  if (!read_(&reading_)) return true;
  if (at_end) {
    // The title the trace ends with is always written, and with it the count
    // of changes that went unwritten.
    if (reading_.view() == last_written_.view() && unwritten_ == 0) return true;
    return PutPacket(writer, now_ns, true);
  }
  if (reading_.view() == last_read_.view()) return true;
  if (written_ == kMostTitleChanges) {
    last_read_ = reading_;
    ++unwritten_;
    return true;
  }
  return PutPacket(writer, now_ns, false);
}

bool TitleWatch::PutPacket(TraceWriter& writer, uint64_t now_ns, bool at_end) {
  std::vector<std::string> argv;
  // The writer thread must not end the program: without memory the title is
  // left out, and found changed again at the next reading.
  try {
    argv = TitleArgv(reading_.view());
  } catch (const std::bad_alloc&) {
    return true;
  }
  size_t room = 64;
  for (const std::string& a : argv) room += Utf8RepairedBound(a.size()) + 8;
  if (!writer.EnsureRoom(room)) return false;
  ProtoEncoder& enc = writer.encoder();
  auto t = writer.BeginPacket(sf::TracePacket::kProcessTitle);
  enc.AddVarint(sf::ProcessTitle::kObservedNs, now_ns);
  for (const std::string& a : argv) enc.AddString(sf::ProcessTitle::kArgv, a);
  if (at_end) enc.AddBool(sf::ProcessTitle::kAtEnd, true);
  if (unwritten_) enc.AddVarint(sf::ProcessTitle::kUnrecordedChanges, unwritten_);
  writer.EndPacket(t);
  if (!at_end) ++written_;
  last_read_ = reading_;
  last_written_ = reading_;
  unwritten_ = 0;
  return true;
}

void ConfigureTitleWatch() {
  g_watch = new (std::nothrow) TitleWatch(ReadProcessTitle);
  if (g_watch) g_watch->Start();
}

TitleWatch* GlobalTitleWatch() { return g_watch; }

}  // namespace vprof
