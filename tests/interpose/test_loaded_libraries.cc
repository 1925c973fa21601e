// The loaded-library watch over a fake loader list: each object is listed
// once per trace, only when the loader's counts changed, at most one look a
// second but always one at the end, a bounded number then counted, names
// that overflow a look's arena listed at the next, every object again in a
// forked child's trace; and the real loader's list, which holds this test's
// own libraries.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "interpose/core/loaded_libraries.h"
#include "interpose/core/trace_writer.h"
#include "interpose/sources.h"
#include "trace_in_temp_dir.h"

namespace fs = std::filesystem;

namespace {

struct FakeObject {
  std::string path;
  uint64_t base;
};
std::vector<FakeObject> g_objects;
vprof::LoaderList::Counts g_counts;
int g_walked_objects = 0;  // objects handed to the watch, over all walks

void fake_walk(void* context, bool (*on_counts)(void*, vprof::LoaderList::Counts),
               bool (*on_object)(void*, const vprof::LoadedObject&)) {
  if (!on_counts(context, g_counts)) return;
  for (const FakeObject& o : g_objects) {
    ++g_walked_objects;
    if (!on_object(context, {o.path, o.base})) break;
  }
}

void load(std::string path, uint64_t base) {
  g_objects.push_back({std::move(path), base});
  ++g_counts.adds;
}

constexpr uint64_t kSecond = 1000000000;

struct Watched : TraceInTempDir {
  explicit Watched(vprof::LoaderList list = {fake_walk}) : TraceInTempDir("libhost", 78) {
    g_objects.clear();
    g_counts = {};
    g_walked_objects = 0;
    REQUIRE(watch.Init(list));
    REQUIRE(writer.Flush());  // the header
  }

  bool look(uint64_t now_ns, bool at_end = false) { return watch.PutNew(writer, now_ns, at_end); }

  // The LoadedLibraries packets of the finished trace.
  std::vector<vprof::trace::LoadedLibraries> packets() {
    std::vector<vprof::trace::LoadedLibraries> out;
    for (const auto& packet : finished_packets()) {
      if (packet.has_loaded_libraries()) out.push_back(packet.loaded_libraries());
    }
    return out;
  }

  vprof::LoadedLibraryWatch watch;
};

std::vector<std::string> paths(const vprof::trace::LoadedLibraries& p) {
  return {p.path().begin(), p.path().end()};
}

}  // namespace

TEST_CASE("each object is listed once, when the loader's counts change") {
  Watched w;
  load("/usr/lib/libc.so.6", 0x7000);
  load("/venv/site-packages/torch/lib/libtorch_cuda.so", 0x9000);
  REQUIRE(w.look(0));
  // Within the second: no look at all.
  load("/venv/site-packages/vllm/_C.abi3.so", 0xa000);
  REQUIRE(w.look(kSecond / 2));
  CHECK(g_walked_objects == 2);
  // Past it: the counts changed, only the new object is written.
  REQUIRE(w.look(kSecond));
  // Same counts: the list is not walked.
  const int walked = g_walked_objects;
  REQUIRE(w.look(3 * kSecond));
  CHECK(g_walked_objects == walked);
  // One unloaded and loaded again elsewhere: listed again (it moved); the
  // at-end look comes at once.
  g_objects.pop_back();
  ++g_counts.subs;
  load("/venv/site-packages/vllm/_C.abi3.so", 0xb000);
  REQUIRE(w.look(3 * kSecond + 1, true));

  const auto got = w.packets();
  REQUIRE(got.size() == 3);
  CHECK(paths(got[0]) ==
        std::vector<std::string>{"/usr/lib/libc.so.6",
                                 "/venv/site-packages/torch/lib/libtorch_cuda.so"});
  CHECK(got[0].observed_ns() == 0);
  CHECK(paths(got[1]) == std::vector<std::string>{"/venv/site-packages/vllm/_C.abi3.so"});
  CHECK(got[1].observed_ns() == kSecond);
  CHECK(paths(got[2]) == std::vector<std::string>{"/venv/site-packages/vllm/_C.abi3.so"});
  for (const auto& p : got) CHECK(p.unrecorded() == 0);
}

TEST_CASE("a loader without counts is walked on every look, writing only what is new") {
  Watched w;
  g_objects.push_back({"/lib/a.so", 1});
  REQUIRE(w.look(0));
  REQUIRE(w.look(kSecond));
  g_objects.push_back({"/lib/b.so", 2});
  REQUIRE(w.look(2 * kSecond));
  const auto got = w.packets();
  REQUIRE(got.size() == 2);
  CHECK(paths(got[0]) == std::vector<std::string>{"/lib/a.so"});
  CHECK(paths(got[1]) == std::vector<std::string>{"/lib/b.so"});
  CHECK(g_walked_objects == 1 + 1 + 2);
}

TEST_CASE("past the most listed, objects are counted once each") {
  Watched w;
  const uint32_t total = vprof::LoadedLibraryWatch::kMostListed + 10;
  for (uint32_t i = 0; i < total; ++i) load("/l/" + std::to_string(i) + ".so", i);
  REQUIRE(w.look(0));
  load("/l/late.so", 1);
  REQUIRE(w.look(kSecond, true));
  const auto got = w.packets();
  REQUIRE(got.size() == 2);
  CHECK(got[0].path_size() == static_cast<int>(vprof::LoadedLibraryWatch::kMostListed));
  CHECK(got[0].path(0) == "/l/0.so");
  CHECK(got[0].unrecorded() == 10);
  CHECK(got[1].path_size() == 0);
  CHECK(got[1].unrecorded() == 11);
}

TEST_CASE("names beyond a look's arena are listed at the next look, whatever the counts") {
  Watched w;
  // Each name takes 1,001 arena bytes with its NUL.
  const std::string stem(993, 'x');
  const size_t fit = vprof::LoadedLibraryWatch::kArenaBytes / 1001;
  for (size_t i = 0; i < fit + 3; ++i) load("/" + stem + std::to_string(100000 + i), i);
  REQUIRE(w.look(0));
  REQUIRE(w.look(kSecond));  // counts unchanged since the first look
  const auto got = w.packets();
  REQUIRE(got.size() == 2);
  CHECK(got[0].path_size() == static_cast<int>(fit));
  CHECK(got[1].path_size() == 3);
  CHECK(got[1].path(0) == "/" + stem + std::to_string(100000 + fit));
}

TEST_CASE("a forked child's trace lists every object again") {
  Watched w;
  load("/lib/a.so", 1);
  REQUIRE(w.look(0));
  w.watch.ResetInChild();
  REQUIRE(w.look(1));  // within the second, but a child looks at once
  const auto got = w.packets();
  REQUIRE(got.size() == 2);
  CHECK(paths(got[1]) == std::vector<std::string>{"/lib/a.so"});
}

TEST_CASE("the real loader's list holds this test's C++ runtime, once") {
  Watched w({nullptr});
  vprof::ConfigureLoadedLibraryWatch();
  vprof::LoadedLibraryWatch* watch = vprof::GlobalLoadedLibraryWatch();
  REQUIRE(watch != nullptr);
  REQUIRE(watch->PutNew(w.writer, 0, false));
  REQUIRE(watch->PutNew(w.writer, 0, true));  // nothing loaded since
  const auto got = w.packets();
  REQUIRE(got.size() == 1);
  const auto listed = paths(got[0]);
  CHECK(std::count_if(listed.begin(), listed.end(), [](const std::string& p) {
          return fs::path(p).filename().string().starts_with("libstdc++.so");
        }) == 1);
  CHECK(std::none_of(listed.begin(), listed.end(), [](const std::string& p) { return p.empty(); }));
}
