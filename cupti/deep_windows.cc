#include "cupti/deep_windows.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "cupti/gpu_capture.h"
#include "interpose/core/load_order.h"
#include "interpose/core/log.h"
#include "interpose/core/trace_writer.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

// A DeepWindow packet waiting for the writer; end_ns 0 while open.
struct WindowPacket {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  int32_t cause = 0;
};

// What the file under the trigger's name was when last read: a trigger is
// read again only when one of these changes (`vprof trigger` writes a new
// file and renames it into place).
struct FileIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  int64_t mtime_ns = 0;
  off_t size = 0;
  bool operator==(const FileIdentity&) const = default;
};

// The writer thread's state (ConfigureDeepWindows writes it before that
// thread starts).
struct Controller {
  DeepSchedule schedule;
  std::string trigger_path;
  uint64_t poll_ns = 0;
  uint64_t next_poll_ns = 0;
  std::optional<FileIdentity> trigger_file;  // the file last read
  std::optional<TriggerWindow> trigger;      // the last valid trigger read
  bool open = false;
  uint64_t open_start_ns = 0;
  int32_t open_cause = 0;
};
Controller* g_controller = nullptr;  // created once, never destroyed (see load_order.h)

LoadFirst<std::mutex> g_windows_lock VPROF_LOAD_FIRST;
LoadFirst<std::vector<WindowPacket>> g_pending VPROF_LOAD_FIRST;

void QueuePacket(const WindowPacket& packet) {
  std::lock_guard<std::mutex> lock(*g_windows_lock);
  g_pending->push_back(packet);
}

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Reads the trigger file when it changed. A file that is not regular, cannot
// be read or does not parse gets one warning per version of the file and is
// otherwise ignored; the last valid trigger stays.
void PollTriggerFile(Controller& c) {
  struct stat st;
  if (lstat(c.trigger_path.c_str(), &st) != 0) return;  // no trigger asked for
  const FileIdentity seen{st.st_dev, st.st_ino, MtimeNs(st), st.st_size};
  if (c.trigger_file == seen) return;
  c.trigger_file = seen;
  if (!S_ISREG(st.st_mode)) {
    LogWarn(
        "trigger file {} is not a regular file: expected one that `vprof trigger` "
        "wrote; ignored",
        c.trigger_path);
    return;
  }
  // O_NONBLOCK: a FIFO swapped in after lstat must not block the writer.
  const int fd = open(c.trigger_path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    LogWarn("trigger file {} cannot be opened; ignored", c.trigger_path);
    return;
  }
  char text[kMaxTriggerFileBytes + 1];
  ssize_t got = -1;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) got = read(fd, text, sizeof text);
  close(fd);
  if (got < 0) {
    LogWarn("trigger file {} cannot be read as a regular file; ignored", c.trigger_path);
    return;
  }
  TriggerWindow window;
  std::string expected;
  if (!ParseTrigger(std::string_view(text, static_cast<size_t>(got)), &window, &expected)) {
    LogWarn("trigger file {} ignored: expected {}", c.trigger_path, expected);
    return;
  }
  c.trigger = window;
}

}  // namespace

void ConfigureDeepWindows(const DeepSchedule& schedule, const std::string& output_dir,
                          uint64_t trigger_poll_ns) {
  if (schedule.mode == DeepSchedule::Mode::kAlways) return;
  g_controller = new Controller;
  g_controller->schedule = schedule;
  g_controller->trigger_path = output_dir + "/" + kTriggerFileName;
  g_controller->poll_ns = trigger_poll_ns;
}

void UpdateDeepWindows(uint64_t now_ns, uint64_t now_realtime_ns) {
  // A process that never initialises CUDA (a launcher) has nothing to record
  // and does not read the trigger file.
  if (!g_controller || !g_gpu_capture_active.load(std::memory_order_acquire)) return;
  Controller& c = *g_controller;
  if (now_ns >= c.next_poll_ns) {
    PollTriggerFile(c);
    c.next_poll_ns = now_ns + c.poll_ns;
  }
  const bool triggered = c.trigger && now_realtime_ns >= c.trigger->start_realtime_ns &&
                         now_realtime_ns < c.trigger->end_realtime_ns;
  const bool duty = InDutyWindow(c.schedule, now_realtime_ns);
  const bool want = triggered || duty;
  if (want == c.open) return;
  if (!RecordGpuActivity(want, now_ns)) return;  // GPU capture failed: nothing to record
  c.open = want;
  if (want) {
    c.open_start_ns = now_ns;
    c.open_cause = triggered ? sf::DeepWindowCause::DEEP_WINDOW_TRIGGER
                             : sf::DeepWindowCause::DEEP_WINDOW_DUTY_CYCLE;
    QueuePacket({c.open_start_ns, 0, c.open_cause});
  } else {
    QueuePacket({c.open_start_ns, now_ns, c.open_cause});
  }
}

bool DrainDeepWindows(TraceWriter& w) {
  std::vector<WindowPacket> packets;
  {
    std::lock_guard<std::mutex> lock(*g_windows_lock);
    packets.swap(*g_pending);
  }
  for (const WindowPacket& p : packets) {
    if (!w.EnsureRoom(64)) return false;
    ProtoEncoder& enc = w.encoder();
    auto t = w.BeginPacket(sf::TracePacket::kDeepWindow);
    enc.AddVarint(sf::DeepWindow::kStartNs, p.start_ns);
    if (p.end_ns) enc.AddVarint(sf::DeepWindow::kEndNs, p.end_ns);
    enc.AddVarint(sf::DeepWindow::kCause, static_cast<uint64_t>(p.cause));
    w.EndPacket(t);
  }
  return true;
}

void ResetDeepWindowsInChild() {
  g_controller = nullptr;  // the parent's object stays, unused
  g_windows_lock.RenewInChild();
  g_pending.RenewInChild();
}

}  // namespace vprof
