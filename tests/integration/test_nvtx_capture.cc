// NVTX capture end to end: nvtx_client (the real NVTX3 loader compiled in)
// runs under vprof, and its trace is held against what the client says it did.
#include <dirent.h>
#include <google/protobuf/stubs/common.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../interpose/read_trace_file.h"

namespace {

namespace vt = vprof::trace;

// The ranges and marks nvtx_client makes besides its loop.
constexpr size_t kRangesBesideLoops = 11;

const std::string kBuild = std::getenv("VPROF_BUILD_ROOT") ? std::getenv("VPROF_BUILD_ROOT") : ".";
const std::string kLibvprof = kBuild + "/interpose/libvprof.so";
const std::string kClient = kBuild + "/tests/integration/nvtx_client";

struct Scratch {
  std::string dir;
  Scratch() {
    char tmpl[] = "/tmp/vprof-nvtx-XXXXXX";
    dir = mkdtemp(tmpl);
  }
  ~Scratch() { std::system(("rm -rf '" + dir + "'").c_str()); }
};

// Runs the client with the test's environment minus anything of vprof's or
// NVTX's, plus `extra`; returns its exit status.
int run_client(const Scratch& s, int loops, const std::vector<std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("VPROF_", 0) == 0 || kv.rfind("LD_PRELOAD=", 0) == 0 ||
        kv.rfind("NVTX_INJECTION64_PATH=", 0) == 0 || kv.rfind("CUDA_INJECTION64_PATH=", 0) == 0) {
      continue;
    }
    env.push_back(kv);
  }
  env.push_back("VPROF_OUTPUT_DIR=" + s.dir + "/traces");
  env.insert(env.end(), extra.begin(), extra.end());
  std::vector<char*> envp;
  for (std::string& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::string truth = s.dir + "/truth.txt", loops_arg = std::to_string(loops);
  char* argv[] = {const_cast<char*>(kClient.c_str()), truth.data(), loops_arg.data(), nullptr};
  pid_t pid = fork();
  if (pid == 0) {
    execve(argv[0], argv, envp.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<vt::TracePacket> only_trace(const Scratch& s) {
  std::vector<std::string> files;
  if (DIR* d = opendir((s.dir + "/traces").c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 7 && name.substr(name.size() - 7) == ".vtrace") files.push_back(name);
    }
    closedir(d);
  }
  REQUIRE(files.size() == 1);
  return read_trace_file(s.dir + "/traces/" + files[0]);
}

struct Truth {
  std::string kind, domain, name;
  int depth;
  uint64_t lo, hi;
};

std::vector<Truth> read_truth(const Scratch& s) {
  std::ifstream f(s.dir + "/truth.txt");
  std::vector<Truth> out;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    Truth t;
    in >> t.kind >> t.domain >> t.depth >> t.lo >> t.hi;
    in.ignore(1);
    std::getline(in, t.name);
    out.push_back(t);
  }
  return out;
}

struct Range {
  vt::NvtxRange range;
  uint32_t tid;
  std::string name, domain;
};

struct Captured {
  std::vector<Range> ranges;
  std::map<int, vt::InjectionStatus> hooks;  // by InjectionHook
  uint64_t dropped = 0;
  uint64_t footer_recorded = 0;
};

Captured decode(const std::vector<vt::TracePacket>& packets) {
  std::map<uint64_t, std::string> names;
  Captured c;
  for (const vt::TracePacket& p : packets) {
    if (p.has_interned_string()) names[p.interned_string().iid()] = p.interned_string().str();
    if (p.has_injection()) c.hooks[p.injection().hook()] = p.injection();
    if (p.has_nvtx_batch()) {
      c.dropped += p.nvtx_batch().dropped();
      for (const vt::NvtxRange& r : p.nvtx_batch().range()) {
        c.ranges.push_back({r, p.nvtx_batch().tid(), names.at(r.name_iid()),
                            r.domain_iid() ? names.at(r.domain_iid()) : "-"});
      }
    }
    if (p.has_footer()) {
      for (const vt::KindCount& k : p.footer().counts()) {
        if (k.kind() == "nvtx") c.footer_recorded = k.recorded();
      }
    }
  }
  return c;
}

const Range* find(const Captured& c, const std::string& name) {
  const Range* found = nullptr;
  for (const Range& r : c.ranges) {
    if (r.name != name) continue;
    REQUIRE(found == nullptr);  // each name but "loop" is used once
    found = &r;
  }
  return found;
}

vt::NvtxKind kind_of(const std::string& truth_kind) {
  if (truth_kind == "mark") return vt::NVTX_KIND_MARK;
  if (truth_kind == "start") return vt::NVTX_KIND_START_END;
  return vt::NVTX_KIND_PUSH_POP;
}

}  // namespace

TEST_CASE("NVTX ranges of a preloaded process are captured whole") {
  Scratch s;
  constexpr int kLoops = 1000;
  REQUIRE(run_client(s, kLoops, {"LD_PRELOAD=" + kLibvprof, "VPROF_GPU=0"}) == 0);
  const Captured c = decode(only_trace(s));
  const std::vector<Truth> truth = read_truth(s);
  REQUIRE(truth.size() == kRangesBesideLoops + 1);  // and the loop's line

  REQUIRE(c.hooks.count(vt::INJECTION_HOOK_NVTX));
  const vt::InjectionStatus& hook = c.hooks.at(vt::INJECTION_HOOK_NVTX);
  CHECK(hook.claimed());
  CHECK(hook.found().empty());
  CHECK(hook.attached());
  CHECK(hook.version() == 3);

  uint32_t main_tid = 0;
  for (const Truth& t : truth) {
    INFO("range " << t.name);
    if (t.kind == "loop") {
      size_t n = 0;
      for (const Range& r : c.ranges) {
        if (r.name != "loop") continue;
        ++n;
        CHECK(r.range.start_ns() >= t.lo);
        CHECK(r.range.end_ns() <= t.hi);
      }
      CHECK(n == static_cast<size_t>(t.depth));
      continue;
    }
    const Range* r = find(c, t.name);
    REQUIRE(r != nullptr);
    CHECK(r->range.kind() == kind_of(t.kind));
    CHECK(r->domain == t.domain);
    CHECK(r->range.start_ns() >= t.lo);
    CHECK(r->range.end_ns() <= t.hi);
    CHECK(r->range.start_ns() <= r->range.end_ns());
    if (t.kind == "push") CHECK(static_cast<int>(r->range.depth()) == t.depth);
    if (t.kind == "mark") CHECK(r->range.start_ns() == r->range.end_ns());
    if (t.kind != "start") {
      if (main_tid == 0) main_tid = r->tid;
      CHECK(r->tid == main_tid);
    }
  }
  // What nvtxRangePush returned agrees with nesting: inner is one deeper.
  CHECK(truth[0].depth == 0);
  CHECK(truth[1].depth == 1);
  // Each domain nests on its own: both interleaved ranges are outermost.
  CHECK(find(c, "registered-name")->range.depth() == 0);
  CHECK(find(c, "interleaved")->range.depth() == 0);

  const Range* colored = find(c, "colored");
  CHECK(colored->range.color() == 0xFF00FF00u);
  CHECK(colored->range.category() == 7);

  // Ended on another thread: the batch is that thread's, the start is main's.
  const Range* cross = find(c, "cross-thread");
  CHECK(cross->tid != main_tid);
  CHECK(cross->range.start_tid() == main_tid);

  CHECK(c.ranges.size() == kRangesBesideLoops + kLoops);
  for (const Range& r : c.ranges) {
    INFO("range " << r.name);
    CHECK(google::protobuf::internal::IsStructurallyValidUTF8(r.name.data(),
                                                              static_cast<int>(r.name.size())));
  }
  CHECK(c.dropped == 0);
  CHECK(c.footer_recorded == c.ranges.size());
}

TEST_CASE("a full NVTX buffer drops ranges and counts them") {
  Scratch s;
  constexpr int kLoops = 200000;
  // 16 KiB rings hold about a hundred ranges; the writer drains every 10 ms.
  REQUIRE(run_client(s, kLoops, {"LD_PRELOAD=" + kLibvprof, "VPROF_GPU=0", "VPROF_BUFFER_KB=16"}) ==
          0);
  const Captured c = decode(only_trace(s));
  CHECK(c.dropped > 0);
  CHECK(c.ranges.size() + c.dropped == kRangesBesideLoops + kLoops);
  CHECK(c.footer_recorded == c.ranges.size());
}

TEST_CASE("NVTX alone brings vprof in when a launcher dropped LD_PRELOAD") {
  Scratch s;
  REQUIRE(run_client(s, 10, {"NVTX_INJECTION64_PATH=" + kLibvprof, "VPROF_GPU=0"}) == 0);
  const Captured c = decode(only_trace(s));
  CHECK(c.ranges.size() == kRangesBesideLoops + 10);
  REQUIRE(find(c, "inner") != nullptr);
  CHECK(find(c, "inner")->range.depth() == 1);
  CHECK(c.hooks.at(vt::INJECTION_HOOK_NVTX).attached());
}

TEST_CASE("another tool's NVTX_INJECTION64_PATH is left alone and recorded") {
  Scratch s;
  const std::string other = s.dir + "/other-tool.so";  // does not exist: NVTX runs without a tool
  REQUIRE(run_client(
              s, 10,
              {"LD_PRELOAD=" + kLibvprof, "VPROF_GPU=0", "NVTX_INJECTION64_PATH=" + other}) == 0);
  const Captured c = decode(only_trace(s));
  CHECK(c.ranges.empty());
  REQUIRE(c.hooks.count(vt::INJECTION_HOOK_NVTX));
  const vt::InjectionStatus& hook = c.hooks.at(vt::INJECTION_HOOK_NVTX);
  CHECK_FALSE(hook.claimed());
  CHECK(hook.found() == other);
  CHECK_FALSE(hook.attached());
}
