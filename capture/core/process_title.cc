#include "process_title.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <new>
#include <string>
#include <vector>

#include "proto_encoder.h"
#include "secret_text.h"
#include "trace_writer.h"
#include "utf8_repair.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

TitleWatch* g_watch = nullptr;  // created once, never destroyed (see load_order.h)

// The title's arguments as the RunHeader's argv is written: split at the
// NULs, secret values redacted.
std::vector<std::string> title_argv(std::string_view title) {
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i <= title.size(); ++i) {
    if (i == title.size() || title[i] == '\0') {
      argv.emplace_back(title.substr(start, i - start));
      start = i + 1;
    }
  }
  return redact_argv(argv);
}

}  // namespace

bool read_process_title(TitleText* out) {
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

void TitleWatch::start() {
  started_ = read_(&at_load_);
  reset_in_child();
}

void TitleWatch::reset_in_child() {
  last_read_ = at_load_;
  last_written_ = at_load_;
  next_read_ns_ = 0;
  written_ = 0;
  unwritten_ = 0;
}

bool TitleWatch::put_changes(TraceWriter& writer, uint64_t now_ns, bool at_end) {
  if (!started_ || (!at_end && now_ns < next_read_ns_)) return true;
  next_read_ns_ = now_ns + kReadIntervalNs;
  // Unreadable now (no /proc in a sandbox, descriptors exhausted): the title
  // stays what was last read.
  if (!read_(&reading_)) return true;
  if (at_end) {
    // The title the trace ends with is always written, and with it the count
    // of changes that went unwritten.
    if (reading_.view() == last_written_.view() && unwritten_ == 0) return true;
    return put_packet(writer, now_ns, true);
  }
  if (reading_.view() == last_read_.view()) return true;
  if (written_ == kMostTitleChanges) {
    last_read_ = reading_;
    ++unwritten_;
    return true;
  }
  return put_packet(writer, now_ns, false);
}

bool TitleWatch::put_packet(TraceWriter& writer, uint64_t now_ns, bool at_end) {
  std::vector<std::string> argv;
  // The writer thread must not end the program: without memory the title is
  // left out, and found changed again at the next reading.
  try {
    argv = title_argv(reading_.view());
  } catch (const std::bad_alloc&) {
    return true;
  }
  size_t room = 64;
  for (const std::string& a : argv) room += utf8_repaired_bound(a.size()) + 8;
  if (!writer.ensure_room(room)) return false;
  ProtoEncoder& enc = writer.encoder();
  auto t = writer.begin_packet(sf::TracePacket::kProcessTitle);
  enc.add_varint(sf::ProcessTitle::kObservedNs, now_ns);
  for (const std::string& a : argv) enc.add_string(sf::ProcessTitle::kArgv, a);
  if (at_end) enc.add_bool(sf::ProcessTitle::kAtEnd, true);
  if (unwritten_) enc.add_varint(sf::ProcessTitle::kUnrecordedChanges, unwritten_);
  writer.end_packet(t);
  if (!at_end) ++written_;
  last_read_ = reading_;
  last_written_ = reading_;
  unwritten_ = 0;
  return true;
}

void configure_title_watch() {
  g_watch = new (std::nothrow) TitleWatch(read_process_title);
  if (g_watch) g_watch->start();
}

TitleWatch* title_watch() { return g_watch; }

}  // namespace vprof
