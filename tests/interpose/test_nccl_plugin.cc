// The NCCL profiler plugin end to end, without NCCL: descriptors built in
// memory go through the exported ncclProfiler_v5 / _v4 structs as NCCL would
// call them, a real TraceWriter drains them into a file, and libprotobuf reads
// it back field by field. Expected values are written out here (NCCL's bit
// values as numbers), not taken from vprof's own declarations.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "interpose/core/runtime.h"
#include "interpose/core/trace_writer.h"
#include "interpose/nccl_plugin/nccl_plugin.h"
#include "interpose/nccl_plugin/nccl_plugin_pool.h"
#include "interpose/sources.h"
#include "read_trace_file.h"

namespace fs = std::filesystem;
namespace abi = vprof::nccl_abi;
namespace pb = vprof::trace;

namespace {

// NCCL's event type bits (nccl_profiler.h in NCCL's source tree).
constexpr int kGroup = 1, kColl = 2, kP2p = 4, kProxyOp = 8, kKernelCh = 64;
constexpr int kGroupApi = 256, kCollApi = 512, kP2pApi = 1024, kKernelLaunch = 2048;
constexpr int kV4Default = kGroup | kColl | kP2p;
constexpr int kV5Default = kV4Default | kGroupApi | kCollApi | kP2pApi | kKernelLaunch;
// NCCL's state numbers for recordEventState.
constexpr int kKernelChStop = 22, kGroupStartApiStop = 23, kGroupEndApiStart = 24;
constexpr const char* kSelf = "/opt/vprof/lib/libvprof.so";

uint32_t gettid_now() { return static_cast<uint32_t>(syscall(SYS_gettid)); }

void configure(bool plugin = true, bool kernel_ch = false, bool proxy = false) {
  vprof::g_run_state.store(vprof::RunState::kRecording);
  vprof::Settings s;
  s.nccl_plugin = plugin;
  s.nccl_kernel_ch = kernel_ch;
  s.nccl_proxy = proxy;
  vprof::ConfigureNcclPlugin(s, kSelf);
}

// One trace file written by a real TraceWriter, and what came out of it.
struct Decoded {
  std::map<uint64_t, std::string> names;
  std::vector<pb::NcclPluginComm> comms;
  std::vector<pb::NcclPluginEvent> events;
  std::vector<pb::InjectionStatus> hooks;
  uint64_t batch_dropped = 0;
  std::optional<pb::KindCount> plugin_count;
  std::vector<pb::TracePacket> packets;
};

class TraceFile {
 public:
  TraceFile() {
    char tmpl[] = "/tmp/vprof-plugin-XXXXXX";
    dir_ = mkdtemp(tmpl);
    settings_.output_dir = dir_;
    run_.host = "pluginhost";
    run_.pid = 77;
    REQUIRE(writer_.Init(settings_, &run_, vprof::RegisteredSources()));
  }
  ~TraceFile() { fs::remove_all(dir_); }
  vprof::TraceWriter& writer() { return writer_; }

  Decoded Finish() {
    REQUIRE(writer_.Finish(vprof::EndReason::kExit));
    Decoded d;
    d.packets = read_trace_file(writer_.path());
    REQUIRE_FALSE(d.packets.empty());
    for (const auto& p : d.packets) {
      if (p.has_interned_string()) d.names[p.interned_string().iid()] = p.interned_string().str();
      if (p.has_injection() && p.injection().hook() == pb::INJECTION_HOOK_NCCL_PROFILER) {
        d.hooks.push_back(p.injection());
      }
      if (p.has_nccl_plugin_batch()) {
        const auto& b = p.nccl_plugin_batch();
        d.batch_dropped += b.dropped();
        for (const auto& c : b.comm()) d.comms.push_back(c);
        for (const auto& e : b.event()) {
          // Every string the event names was written before the event.
          for (uint64_t iid : {e.func_iid(), e.datatype_iid(), e.algo_iid(), e.proto_iid()}) {
            CHECK((iid == 0 || d.names.count(iid) == 1));
          }
          d.events.push_back(e);
        }
      }
    }
    REQUIRE(d.packets.back().has_footer());
    for (const auto& c : d.packets.back().footer().counts()) {
      if (c.kind() == "nccl_plugin") d.plugin_count = c;
    }
    return d;
  }

 private:
  std::string dir_;
  vprof::Settings settings_;
  vprof::RunInfo run_;
  vprof::TraceWriter writer_;
};

const pb::NcclPluginEvent& only(const Decoded& d, pb::NcclPluginEventType type) {
  const pb::NcclPluginEvent* found = nullptr;
  int n = 0;
  for (const auto& e : d.events) {
    if (e.type() == type) {
      found = &e;
      ++n;
    }
  }
  INFO("event type " << type);
  REQUIRE(n == 1);
  return *found;
}

abi::EventDescrV5 v5(int type, void* parent) {
  abi::EventDescrV5 d{};
  d.type = static_cast<uint64_t>(type);
  d.parent_obj = parent;
  d.rank = 3;
  return d;
}

abi::EventDescrV4 v4(int type, void* parent) {
  abi::EventDescrV4 d{};
  d.type = static_cast<uint8_t>(type);
  d.parent_obj = parent;
  d.rank = 1;
  return d;
}

void* start5(void* ctx, abi::EventDescrV5 d) {
  void* h = reinterpret_cast<void*>(0x1);  // must be overwritten
  REQUIRE(ncclProfiler_v5.start_event(ctx, &h, &d) == ncclSuccess);
  return h;
}

void* start4(void* ctx, abi::EventDescrV4 d) {
  void* h = reinterpret_cast<void*>(0x1);
  REQUIRE(ncclProfiler_v4.start_event(ctx, &h, &d) == ncclSuccess);
  return h;
}

void stop(void* h) { REQUIRE(ncclProfiler_v5.stop_event(h) == ncclSuccess); }

}  // namespace

TEST_CASE("v5: a collective's events reach the trace with every field and their parents") {
  unsetenv("NCCL_PROFILER_PLUGIN");
  configure();
  CHECK(std::string(getenv("NCCL_PROFILER_PLUGIN")) == kSelf);  // claimed
  CHECK(std::string(ncclProfiler_v5.name) == "vprof");
  TraceFile trace;
  REQUIRE(trace.writer().Flush());  // the file exists before NCCL calls in

  void* ctx = nullptr;
  int mask = -1;
  REQUIRE(ncclProfiler_v5.init(&ctx, 0xfeedbeefULL, &mask, "world", 2, 8, 3, nullptr) ==
          ncclSuccess);
  CHECK(mask == kV5Default);
  REQUIRE(ctx != nullptr);

  static const char kAllReduce[] = "AllReduce";
  abi::EventDescrV5 d = v5(kGroupApi, nullptr);
  d.group_api.group_depth = 2;
  d.group_api.graph_captured = true;
  void* group_api = start5(ctx, d);
  REQUIRE(group_api != nullptr);
  CHECK(*static_cast<uint64_t*>(group_api) == kGroupApi);  // a handle begins with its type
  ncclProfiler_v5.record_event_state(group_api, abi::EventState(kGroupStartApiStop), nullptr);

  d = v5(kCollApi, group_api);
  d.coll_api = {kAllReduce, 1024, "ncclFloat32", 0, reinterpret_cast<void*>(0x5000), false};
  void* coll_api = start5(ctx, d);
  stop(coll_api);
  ncclProfiler_v5.record_event_state(group_api, abi::EventState(kGroupEndApiStart), nullptr);

  d = v5(kKernelLaunch, group_api);
  d.kernel_launch.stream = reinterpret_cast<void*>(0x5000);
  stop(start5(ctx, d));

  void* group = start5(ctx, v5(kGroup, nullptr));
  d = v5(kColl, coll_api);
  d.coll = {7, kAllReduce, nullptr, nullptr,  1024, 0, "ncclFloat32",
            4, 16,         "RING",  "SIMPLE", group};
  void* coll = start5(ctx, d);
  stop(coll);
  stop(group);

  // KernelCh comes from NCCL's proxy thread after the collective stopped.
  d = v5(kKernelCh, coll);
  d.kernel_ch = {3, 1000};
  void* channel = start5(ctx, d);
  abi::StateArgs args{};
  args.kernel_ch.timer = 2500;
  ncclProfiler_v5.record_event_state(channel, abi::EventState(kKernelChStop), &args);
  stop(channel);

  d = v5(kP2pApi, group_api);
  d.p2p_api = {"Send", 10, "ncclInt8", reinterpret_cast<void*>(0x6000), false};
  void* p2p_api = start5(ctx, d);
  stop(p2p_api);
  d = v5(kP2p, p2p_api);
  d.p2p = {"Send", nullptr, "ncclInt8", 10, 5, 2, group};
  stop(start5(ctx, d));
  stop(group_api);
  REQUIRE(ncclProfiler_v5.finalize(ctx) == ncclSuccess);

  const uint32_t tid = gettid_now();
  Decoded out = trace.Finish();
  REQUIRE(out.comms.size() == 1);  // initialised and finalized between two drains: one record
  const auto& c = out.comms[0];
  CHECK(c.context_id() != 0);
  CHECK(c.comm_hash() == 0xfeedbeefULL);
  CHECK(out.names[c.name_iid()] == "world");
  CHECK(c.nnodes() == 2);
  CHECK(c.nranks() == 8);
  CHECK(c.rank() == 3);
  CHECK(c.init_ns() > 0);
  CHECK(c.finalize_ns() >= c.init_ns());
  CHECK(c.activation_mask() == kV5Default);

  REQUIRE(out.events.size() == 8);
  std::set<uint64_t> ids;
  for (const auto& e : out.events) {
    ids.insert(e.event_id());
    CHECK(e.context_id() == c.context_id());
    CHECK(e.tid() == tid);
    CHECK(e.start_ns() >= c.init_ns());
    CHECK(e.stop_ns() >= e.start_ns());
    CHECK(e.stop_ns() <= c.finalize_ns());
  }
  CHECK(ids.size() == 8);

  const auto& ga = only(out, pb::NCCL_PLUGIN_EVENT_GROUP_API);
  CHECK(ga.parent_id() == 0);
  CHECK(ga.group_depth() == 2);
  CHECK(ga.graph_captured());
  CHECK(ga.func_iid() == 0);

  const auto& ca = only(out, pb::NCCL_PLUGIN_EVENT_COLL_API);
  CHECK(ca.parent_id() == ga.event_id());
  CHECK(out.names[ca.func_iid()] == "AllReduce");
  CHECK(ca.count() == 1024);
  CHECK(out.names[ca.datatype_iid()] == "ncclFloat32");
  CHECK(ca.root() == 0);
  CHECK(ca.stream() == 0x5000);
  CHECK_FALSE(ca.graph_captured());

  const auto& kl = only(out, pb::NCCL_PLUGIN_EVENT_KERNEL_LAUNCH);
  CHECK(kl.parent_id() == ga.event_id());
  CHECK(kl.stream() == 0x5000);
  CHECK(kl.start_ns() >= ca.stop_ns());

  const auto& g = only(out, pb::NCCL_PLUGIN_EVENT_GROUP);
  CHECK(g.parent_id() == 0);

  const auto& co = only(out, pb::NCCL_PLUGIN_EVENT_COLL);
  CHECK(co.parent_id() == ca.event_id());  // v5: the API event, not the group
  CHECK(co.seq() == 7);
  CHECK(out.names[co.func_iid()] == "AllReduce");
  CHECK(co.count() == 1024);
  CHECK(out.names[co.datatype_iid()] == "ncclFloat32");
  CHECK(out.names[co.algo_iid()] == "RING");
  CHECK(out.names[co.proto_iid()] == "SIMPLE");
  CHECK(co.channels() == 4);
  CHECK(co.warps() == 16);
  CHECK(co.start_ns() >= g.start_ns());
  CHECK(co.stop_ns() <= g.stop_ns());

  const auto& ch = only(out, pb::NCCL_PLUGIN_EVENT_KERNEL_CH);
  CHECK(ch.parent_id() == co.event_id());  // a parent that had already stopped
  CHECK(ch.channel_id() == 3);
  CHECK(ch.gpu_start() == 1000);
  CHECK(ch.gpu_stop() == 2500);

  const auto& pa = only(out, pb::NCCL_PLUGIN_EVENT_P2P_API);
  CHECK(pa.parent_id() == ga.event_id());
  CHECK(out.names[pa.func_iid()] == "Send");
  CHECK(pa.count() == 10);
  CHECK(pa.stream() == 0x6000);

  const auto& p = only(out, pb::NCCL_PLUGIN_EVENT_P2P);
  CHECK(p.parent_id() == pa.event_id());
  CHECK(out.names[p.datatype_iid()] == "ncclInt8");
  CHECK(p.count() == 10);
  CHECK(p.peer() == 5);
  CHECK(p.channels() == 2);

  // How the hook was claimed, and that NCCL called in with v5.
  REQUIRE_FALSE(out.hooks.empty());
  const auto& hook = out.hooks.back();
  CHECK(hook.claimed());
  CHECK(hook.found().empty());
  CHECK(hook.attached());
  CHECK(hook.version() == 5);

  CHECK(out.batch_dropped == 0);
  REQUIRE(out.plugin_count);
  CHECK(out.plugin_count->recorded() == 8);
  CHECK(out.plugin_count->dropped() == 0);
}

TEST_CASE("v4: NCCL 2.27's layout, init order and parents; proxy events of another process") {
  configure(/*plugin=*/true, /*kernel_ch=*/true, /*proxy=*/true);
  TraceFile trace;
  REQUIRE(trace.writer().Flush());
  void* ctx = nullptr;
  int mask = -1;
  REQUIRE(ncclProfiler_v4.init(&ctx, &mask, nullptr, 0xabcULL, 1, 2, 1, nullptr) == ncclSuccess);
  CHECK(mask == (kV4Default | kKernelCh | kProxyOp));
  REQUIRE(ctx != nullptr);
  // The writer sees the communicator before it is finalized.
  REQUIRE(trace.writer().Flush());

  void* group = start4(ctx, v4(kGroup, nullptr));
  abi::EventDescrV4 d = v4(kColl, group);
  d.coll = {0, "AllGather", nullptr, nullptr, 4096, 0, "ncclInt8", 2, 8, "RING", "LL"};
  void* coll = start4(ctx, d);
  d = v4(kP2p, group);
  d.p2p = {"Recv", nullptr, "ncclFloat16", 33, 0, 1};
  void* p2p = start4(ctx, d);
  d = v4(kProxyOp, coll);
  d.proxy_op = {getpid(), 6, 1, 4, 65536, 1};
  void* ours = start4(ctx, d);
  // A proxy working for another process: its parent is not a handle of ours,
  // even if the address happens to fall into our pool.
  d.proxy_op.pid = getpid() + 1;
  void* theirs = start4(ctx, d);
  for (void* h : {ours, theirs, p2p, coll, group}) {
    REQUIRE(h != nullptr);
    REQUIRE(ncclProfiler_v4.stop_event(h) == ncclSuccess);
  }
  REQUIRE(ncclProfiler_v4.stop_event(group) == ncclSuccess);  // twice: ignored
  REQUIRE(ncclProfiler_v4.finalize(ctx) == ncclSuccess);

  Decoded out = trace.Finish();
  REQUIRE(out.comms.size() == 2);  // live, then finalized
  CHECK(out.comms[0].context_id() == out.comms[1].context_id());
  CHECK(out.comms[0].finalize_ns() == 0);
  CHECK(out.comms[1].finalize_ns() > 0);
  CHECK(out.comms[1].name_iid() == 0);
  CHECK(out.comms[1].comm_hash() == 0xabc);
  CHECK(out.comms[1].nranks() == 2);
  CHECK(out.comms[1].rank() == 1);
  CHECK(out.comms[1].activation_mask() == (kV4Default | kKernelCh | kProxyOp));

  REQUIRE(out.events.size() == 5);
  const auto& g = only(out, pb::NCCL_PLUGIN_EVENT_GROUP);
  const auto& co = only(out, pb::NCCL_PLUGIN_EVENT_COLL);
  CHECK(co.parent_id() == g.event_id());  // v4: the group
  CHECK(out.names[co.func_iid()] == "AllGather");
  CHECK(co.seq() == 0);
  CHECK(co.count() == 4096);
  CHECK(out.names[co.algo_iid()] == "RING");
  CHECK(out.names[co.proto_iid()] == "LL");
  CHECK(co.channels() == 2);
  CHECK(co.warps() == 8);
  const auto& p = only(out, pb::NCCL_PLUGIN_EVENT_P2P);
  CHECK(p.parent_id() == g.event_id());
  CHECK(out.names[p.func_iid()] == "Recv");
  CHECK(out.names[p.datatype_iid()] == "ncclFloat16");
  CHECK(p.count() == 33);
  CHECK(p.peer() == 0);
  CHECK(p.channels() == 1);
  std::multiset<uint64_t> proxy_parents;
  for (const auto& e : out.events) {
    if (e.type() != pb::NCCL_PLUGIN_EVENT_PROXY_OP) continue;
    proxy_parents.insert(e.parent_id());
    CHECK(e.channel_id() == 6);
    CHECK(e.peer() == 1);
  }
  CHECK(proxy_parents == std::multiset<uint64_t>{0, co.event_id()});
  CHECK(out.hooks.back().version() == 4);
  REQUIRE(out.plugin_count);
  CHECK(out.plugin_count->recorded() == 5);
}

TEST_CASE("a full pool drops events and counts them; freed slots are used again") {
  configure();
  TraceFile trace;
  REQUIRE(trace.writer().Flush());
  void* ctx = nullptr;
  int mask = 0;
  REQUIRE(ncclProfiler_v5.init(&ctx, 1, &mask, "big", 1, 1, 0, nullptr) == ncclSuccess);
  REQUIRE(ctx != nullptr);
  const size_t pool = vprof::kNcclPluginPoolEvents;
  std::vector<void*> handles;
  for (size_t i = 0; i < pool + 5; ++i) handles.push_back(start5(ctx, v5(kGroup, nullptr)));
  for (size_t i = 0; i < pool; ++i) REQUIRE(handles[i] != nullptr);
  for (size_t i = pool; i < pool + 5; ++i) CHECK(handles[i] == nullptr);
  for (size_t i = 0; i < pool; ++i) stop(handles[i]);
  REQUIRE(trace.writer().Flush());
  // Written out, the slots are free again.
  void* again = start5(ctx, v5(kGroup, nullptr));
  REQUIRE(again != nullptr);
  stop(again);
  // Started and never stopped when NCCL finalizes: lost, and counted.
  REQUIRE(start5(ctx, v5(kGroup, nullptr)) != nullptr);
  REQUIRE(ncclProfiler_v5.finalize(ctx) == ncclSuccess);

  Decoded out = trace.Finish();
  CHECK(out.events.size() == pool + 1);
  CHECK(out.batch_dropped == 6);
  REQUIRE(out.plugin_count);
  CHECK(out.plugin_count->recorded() == pool + 1);
  CHECK(out.plugin_count->dropped() == 6);
}

TEST_CASE("activation masks follow the settings; off means mask 0 and no context") {
  struct Case {
    bool plugin, kernel_ch, proxy;
    int v4_mask, v5_mask;
  } cases[] = {
      {true, false, false, kV4Default, kV5Default},
      {true, true, false, kV4Default | kKernelCh, kV5Default | kKernelCh},
      {true, false, true, kV4Default | kProxyOp, kV5Default | kProxyOp},
      {false, true, true, 0, 0},
  };
  for (const auto& c : cases) {
    INFO("plugin " << c.plugin << " kernel_ch " << c.kernel_ch << " proxy " << c.proxy);
    configure(c.plugin, c.kernel_ch, c.proxy);
    void* ctx = nullptr;
    int mask = -1;
    REQUIRE(ncclProfiler_v4.init(&ctx, &mask, "m", 1, 1, 1, 0, nullptr) == ncclSuccess);
    CHECK(mask == c.v4_mask);
    CHECK((ctx != nullptr) == c.plugin);
    if (ctx) ncclProfiler_v4.finalize(ctx);
    for (auto init : {ncclProfiler_v5.init, ncclProfiler_v6.init}) {
      ctx = nullptr;
      mask = -1;
      REQUIRE(init(&ctx, 1, &mask, "m", 1, 1, 0, nullptr) == ncclSuccess);
      CHECK(mask == c.v5_mask);
      CHECK((ctx != nullptr) == c.plugin);
      if (ctx) ncclProfiler_v5.finalize(ctx);
    }
  }
  // vprof disabled (VPROF_ENABLE=0, a bad setting, a write error): nothing.
  configure();
  vprof::g_run_state.store(vprof::RunState::kDisabled);
  void* ctx = reinterpret_cast<void*>(0x1);
  int mask = -1;
  REQUIRE(ncclProfiler_v5.init(&ctx, 1, &mask, "m", 1, 1, 0, nullptr) == ncclSuccess);
  CHECK(mask == 0);
  CHECK(ctx == nullptr);
  // NCCL calls startEvent with the null context all the same.
  abi::EventDescrV5 d = v5(kColl, nullptr);
  void* h = reinterpret_cast<void*>(0x1);
  REQUIRE(ncclProfiler_v5.start_event(nullptr, &h, &d) == ncclSuccess);
  CHECK(h == nullptr);
  vprof::g_run_state.store(vprof::RunState::kRecording);
  // Retire the contexts finalized above.
  TraceFile trace;
  REQUIRE(trace.writer().Flush());
}

TEST_CASE("NCCL_PROFILER_PLUGIN naming another tool is left alone, and so is it when off") {
  setenv("NCCL_PROFILER_PLUGIN", "/opt/other/libnccl-profiler-inspector.so", 1);
  configure();
  CHECK(std::string(getenv("NCCL_PROFILER_PLUGIN")) == "/opt/other/libnccl-profiler-inspector.so");
  {
    TraceFile trace;
    Decoded out = trace.Finish();
    REQUIRE_FALSE(out.hooks.empty());
    CHECK(out.hooks.back().found() == "/opt/other/libnccl-profiler-inspector.so");
    CHECK_FALSE(out.hooks.back().claimed());
  }
  unsetenv("NCCL_PROFILER_PLUGIN");
  configure(/*plugin=*/false);
  CHECK(getenv("NCCL_PROFILER_PLUGIN") == nullptr);
  setenv("NCCL_PROFILER_PLUGIN", kSelf, 1);  // inherited from a parent that claimed it
  configure();
  CHECK(std::string(getenv("NCCL_PROFILER_PLUGIN")) == kSelf);
  TraceFile trace;
  Decoded out = trace.Finish();
  CHECK(out.hooks.back().found().empty());
  CHECK(out.hooks.back().claimed());
}

TEST_CASE("in a forked child, the parent's events and communicators stay the parent's") {
  configure();
  void* used = nullptr;
  void* idle = nullptr;
  int mask = 0;
  REQUIRE(ncclProfiler_v5.init(&used, 11, &mask, "used", 1, 2, 0, nullptr) == ncclSuccess);
  REQUIRE(ncclProfiler_v5.init(&idle, 12, &mask, "idle", 1, 2, 0, nullptr) == ncclSuccess);
  stop(start5(used, v5(kGroup, nullptr)));  // finished, not yet written: the parent's to write
  stop(start5(idle, v5(kGroup, nullptr)));
  vprof::ResetNcclPluginInChild();
  void* child_event = start5(used, v5(kGroup, nullptr));
  stop(child_event);
  ncclProfiler_v5.finalize(used);
  ncclProfiler_v5.finalize(idle);

  TraceFile trace;
  Decoded out = trace.Finish();
  REQUIRE(out.events.size() == 1);
  CHECK(out.events[0].tid() == gettid_now());
  REQUIRE(out.comms.size() == 1);  // only the communicator the child used
  CHECK(out.names[out.comms[0].name_iid()] == "used");
  CHECK(out.events[0].context_id() == out.comms[0].context_id());
}

TEST_CASE("threads start and stop events while the writer drains: none lost, none twice") {
  configure();
  TraceFile trace;
  REQUIRE(trace.writer().Flush());
  void* ctx = nullptr;
  int mask = 0;
  REQUIRE(ncclProfiler_v5.init(&ctx, 5, &mask, "busy", 1, 4, 0, nullptr) == ncclSuccess);
  constexpr int kThreads = 4, kEach = 20000;  // more than a pool: slots are reused
  std::atomic<int> running{kThreads};
  std::vector<std::thread> threads;
  std::vector<uint32_t> tids(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      tids[t] = gettid_now();
      for (int i = 0; i < kEach; ++i) {
        abi::EventDescrV5 d = v5(kColl, nullptr);
        d.coll.seq_number = static_cast<uint64_t>(t) * kEach + i;
        d.coll.func = "AllReduce";
        void* h = nullptr;
        ncclProfiler_v5.start_event(ctx, &h, &d);
        ncclProfiler_v5.stop_event(h);
      }
      running.fetch_sub(1);
    });
  }
  while (running.load() > 0) REQUIRE(trace.writer().Flush());
  for (auto& t : threads) t.join();
  ncclProfiler_v5.finalize(ctx);
  Decoded out = trace.Finish();
  std::set<uint64_t> seqs, ids;
  for (const auto& e : out.events) {
    seqs.insert(e.seq());
    ids.insert(e.event_id());
    CHECK(std::find(tids.begin(), tids.end(), e.tid()) != tids.end());
  }
  CHECK(seqs.size() == out.events.size());  // no event written twice
  CHECK(ids.size() == out.events.size());
  CHECK(out.events.size() + out.batch_dropped == kThreads * kEach);
  REQUIRE(out.plugin_count);
  CHECK(out.plugin_count->recorded() == out.events.size());
  CHECK(out.plugin_count->dropped() == out.batch_dropped);
}
