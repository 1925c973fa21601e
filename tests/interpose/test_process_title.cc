// The title watch over a fake /proc/self/cmdline: readings that differ become
// ProcessTitle packets, at most one read a second, a bounded number of them
// and always the one at the end, with secrets redacted and invalid UTF-8
// repaired as in the RunHeader; and the real /proc/self/cmdline read as the
// kernel gives it.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "interpose/core/process_title.h"
#include "interpose/core/trace_writer.h"
#include "interpose/sources.h"
#include "trace_in_temp_dir.h"

namespace {

// What the fake /proc/self/cmdline holds: NUL-separated, as the kernel gives it.
std::string g_cmdline;
bool g_readable = true;
int g_reads = 0;

bool fake_read(vprof::TitleText* out) {
  ++g_reads;
  if (!g_readable) return false;
  const size_t size = std::min(g_cmdline.size(), sizeof out->bytes);
  std::memcpy(out->bytes, g_cmdline.data(), size);
  out->size = size;
  while (out->size > 0 && out->bytes[out->size - 1] == '\0') --out->size;
  return true;
}

// setproctitle's way: the title over the start of the argv area, NULs over the rest.
void set_title(std::string_view title) {
  const size_t area = std::max(g_cmdline.size(), title.size() + 1);
  g_cmdline.assign(title);
  g_cmdline.resize(area, '\0');
}

constexpr uint64_t kSecond = 1000000000;

struct Watched : TraceInTempDir {
  explicit Watched(std::string cmdline) : TraceInTempDir("titlehost", 77) {
    g_cmdline = std::move(cmdline);
    g_readable = true;
    g_reads = 0;
    watch.Start();
    REQUIRE(writer.Flush());  // the header
  }

  // The ProcessTitle packets of the finished trace.
  std::vector<vprof::trace::ProcessTitle> titles() {
    std::vector<vprof::trace::ProcessTitle> out;
    for (const auto& packet : finished_packets()) {
      if (packet.has_process_title()) out.push_back(packet.process_title());
    }
    return out;
  }

  vprof::TitleWatch watch{fake_read};
};

std::vector<std::string> argv_of(const vprof::trace::ProcessTitle& title) {
  return {title.argv().begin(), title.argv().end()};
}

// Arguments as /proc/self/cmdline gives them: each ended by a NUL.
std::string cmdline(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& argument : argv) text += argument + '\0';
  return text;
}

const std::string kRayWorker =
    cmdline({"python", "/ray/default_worker.py", "--node-ip-address=10.0.0.7"});

}  // namespace

TEST_CASE("process title: a Ray worker's rename, read on the tick, and the title at the end") {
  Watched w(kRayWorker);
  // Unchanged: nothing.
  REQUIRE(w.watch.PutChanges(w.writer, 1 * kSecond, false));
  set_title("ray::MegatronTrainRayActor.__init__");
  // Within a second of the last reading: not read.
  REQUIRE(w.watch.PutChanges(w.writer, 1 * kSecond + 500000000, false));
  CHECK(g_reads == 2);  // start, and the first tick
  REQUIRE(w.watch.PutChanges(w.writer, 2 * kSecond, false));
  // The same title again: not written again.
  REQUIRE(w.watch.PutChanges(w.writer, 3 * kSecond, false));
  set_title("ray::MegatronTrainRayActor.train");
  REQUIRE(w.watch.PutChanges(w.writer, 4 * kSecond, false));
  // At the end the title is read at once; it is the last one written: nothing more.
  REQUIRE(w.watch.PutChanges(w.writer, 4 * kSecond + 1, true));
  CHECK(g_reads == 6);

  const auto titles = w.titles();
  REQUIRE(titles.size() == 2);
  CHECK(argv_of(titles[0]) == std::vector<std::string>{"ray::MegatronTrainRayActor.__init__"});
  CHECK(titles[0].observed_ns() == 2 * kSecond);
  CHECK_FALSE(titles[0].at_end());
  CHECK(argv_of(titles[1]) == std::vector<std::string>{"ray::MegatronTrainRayActor.train"});
  CHECK(titles[1].observed_ns() == 4 * kSecond);
  CHECK(titles[1].unrecorded_changes() == 0);
}

TEST_CASE("process title: a change seen only at the end, with secrets and bad bytes") {
  Watched w(kRayWorker);
  REQUIRE(w.watch.PutChanges(w.writer, 1 * kSecond, false));
  // A new command line of several arguments (a program that rewrites argv in place), one of
  // them a secret option's value, another not UTF-8.
  g_cmdline = cmdline({"serve", "--api-key", "s3cr3t", "caf\xe9"}) + std::string(3, '\0');
  REQUIRE(w.watch.PutChanges(w.writer, 1 * kSecond + 1, true));
  const auto titles = w.titles();
  REQUIRE(titles.size() == 1);
  CHECK(titles[0].at_end());
  CHECK(titles[0].observed_ns() == 1 * kSecond + 1);
  CHECK(argv_of(titles[0]) ==
        std::vector<std::string>{"serve", "--api-key", "<redacted>", "caf\xef\xbf\xbd"});
}

TEST_CASE("process title: at most 16 changes are written, the rest counted, the end always") {
  Watched w(kRayWorker);
  for (uint64_t i = 1; i <= 20; ++i) {
    set_title("ray::Actor.step" + std::to_string(i));
    REQUIRE(w.watch.PutChanges(w.writer, i * kSecond, false));
  }
  set_title("ray::Actor");
  REQUIRE(w.watch.PutChanges(w.writer, 30 * kSecond, true));
  const auto titles = w.titles();
  REQUIRE(titles.size() == vprof::TitleWatch::kMostTitleChanges + 1);
  CHECK(argv_of(titles[15]) == std::vector<std::string>{"ray::Actor.step16"});
  CHECK(argv_of(titles[16]) == std::vector<std::string>{"ray::Actor"});
  CHECK(titles[16].at_end());
  CHECK(titles[16].unrecorded_changes() == 4);  // step17 to step20

  // A title at the end equal to the last one written is written again, for the count.
  Watched again(kRayWorker);
  for (uint64_t i = 1; i <= 18; ++i) {
    set_title(i % 2 ? "ray::Actor.train" : "ray::Actor");
    REQUIRE(again.watch.PutChanges(again.writer, i * kSecond, false));
  }
  REQUIRE(again.watch.PutChanges(again.writer, 30 * kSecond, true));
  const auto counted = again.titles();
  REQUIRE(counted.size() == 17);
  CHECK(argv_of(counted[15]) == std::vector<std::string>{"ray::Actor"});
  CHECK(argv_of(counted[16]) == std::vector<std::string>{"ray::Actor"});
  CHECK(counted[16].unrecorded_changes() == 2);
}

TEST_CASE("process title: unreadable, nothing written; a forked child starts from the load") {
  Watched w(kRayWorker);
  g_readable = false;
  set_title("ray::Actor");
  REQUIRE(w.watch.PutChanges(w.writer, 1 * kSecond, false));
  REQUIRE(w.watch.PutChanges(w.writer, 2 * kSecond, true));
  CHECK(w.titles().empty());

  // The title unreadable at load: never watched.
  g_readable = false;
  vprof::TitleWatch unread(fake_read);
  unread.Start();
  g_readable = true;
  Watched other(kRayWorker);
  set_title("ray::Actor");
  REQUIRE(unread.PutChanges(other.writer, 1 * kSecond, true));
  CHECK(other.titles().empty());

  // A child's trace begins with the argv at load: a title its parent had written is the
  // child's first change again.
  Watched parent(kRayWorker);
  set_title("ray::Actor");
  REQUIRE(parent.watch.PutChanges(parent.writer, 1 * kSecond, false));
  parent.watch.ResetInChild();
  REQUIRE(parent.watch.PutChanges(parent.writer, 1 * kSecond + 1, false));
  CHECK(parent.titles().size() == 2);
}

TEST_CASE("process title: /proc/self/cmdline as the kernel gives it") {
  vprof::TitleText title;
  REQUIRE(vprof::ReadProcessTitle(&title));
  // This test's own command line: its program first, no trailing NUL.
  const std::string_view text = title.view();
  REQUIRE_FALSE(text.empty());
  CHECK(text.back() != '\0');
  CHECK(text.substr(0, text.find('\0')).find("test_process_title") != std::string_view::npos);
}
