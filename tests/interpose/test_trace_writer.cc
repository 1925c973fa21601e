// TraceWriter end to end: records in thread buffers and communicators in the
// registry go in, a file comes out, libprotobuf reads it back field by field.
#include <fcntl.h>
#include <google/protobuf/stubs/common.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "interpose/core/clock.h"
#include "interpose/core/thread_buffers.h"
#include "interpose/core/trace_writer.h"
#include "interpose/nccl/comm_registry.h"
#include "interpose/nccl/nccl_functions.h"
#include "interpose/sources.h"
#include "read_trace_file.h"
#include "vprof_trace_fields.h"

namespace fs = std::filesystem;
using vprof::NcclFn;
using vprof::NcclRecord;

namespace {

std::string temp_dir() {
  char tmpl[] = "/tmp/vprof-writer-XXXXXX";
  return mkdtemp(tmpl);
}

vprof::RunInfo sample_run() {
  vprof::RunInfo run;
  run.host = "testhost";
  run.pid = 4242;
  run.ppid = 1;
  run.argv = {"train.py", "--lr", "0.1"};
  run.rank.rank = 3;
  run.rank.world_size = 4;
  run.rank.source = "torch";
  run.slurm.job_id = "991";
  run.slurm.proc_id = 3;
  run.env = {{"NCCL_ALGO", "Ring", false}, {"VIME_TOKEN", "", true}};
  run.start_ns = 1000;
  run.start_realtime_ns = 1700000000000000000ull;
  return run;
}

NcclRecord allreduce(uint64_t seq) {
  NcclRecord r{};
  r.function = static_cast<uint16_t>(NcclFn::kAllReduce);
  r.comm_id = 0xabcdef;
  r.comm_size = 4;
  r.comm_rank = 3;
  r.seq = seq;
  r.count = 262144;
  r.datatype = 7;
  r.bytes = 262144 * 4;
  r.red_op = 0;
  r.stream = 0x5000;
  r.group_depth = 1;
  r.result = 0;
  r.enter_ns = 10000 + seq * 100;
  r.exit_ns = 10050 + seq * 100;
  r.has = NcclRecord::kHasDatatype | NcclRecord::kHasRedOp;
  return r;
}

void drain_leftovers() {
  vprof::GlobalThreadBuffers().ForEach([](vprof::ThreadBuffer& b) {
    b.nccl.Discard();
    b.nccl.TakeDropped();
  });
  vprof::GlobalThreadBuffers().TakeLostWithoutBuffer();
}

// One NCCL record from a thread of its own (a thread buffer per thread).
void record_one_call(uint64_t seq) {
  std::thread producer(
      [seq] { vprof::GlobalThreadBuffers().Current()->nccl.Push(allreduce(seq)); });
  producer.join();
}

size_t clock_samples(const std::vector<vprof::trace::TracePacket>& packets) {
  return std::count_if(packets.begin(), packets.end(),
                       [](const auto& packet) { return packet.has_clock_sample(); });
}

// A writer of sample_run() into a new folder, removed afterwards; the thread
// buffers start empty.
struct WriterInTempDir {
  WriterInTempDir() {
    drain_leftovers();
    settings.output_dir = dir;
    REQUIRE(writer.Init(settings, &run, vprof::RegisteredSources()));
  }
  ~WriterInTempDir() { fs::remove_all(dir); }

  std::string dir = temp_dir();
  vprof::Settings settings;
  vprof::RunInfo run = sample_run();
  vprof::TraceWriter writer;
};

}  // namespace

TEST_CASE("every packet type is written and reads back field by field") {
  drain_leftovers();
  std::string dir = temp_dir();
  vprof::Settings settings;
  settings.output_dir = dir + "/nested/out";  // created on demand
  settings.flush_interval_ms = 100;
  settings.buffer_kib = 16;
  settings.stop_after_s = 60;
  vprof::RunInfo run = sample_run();
  vprof::TraceWriter writer;
  REQUIRE(writer.Init(settings, &run, vprof::RegisteredSources()));

  auto* comm = new vprof::CommInfo;
  comm->comm = reinterpret_cast<const void*>(0x77770000);
  comm->id = 0xabcdef;
  comm->nranks = 4;
  comm->rank = 3;
  comm->parent_id = 0x1234;
  comm->split_color = -2;
  comm->created_by = static_cast<uint16_t>(NcclFn::kCommSplit);
  comm->create_begin_ns = 500;
  comm->create_end_ns = 900;
  comm->cuda_device = 1;
  REQUIRE(vprof::GlobalCommRegistry().insert(comm));

  pthread_setname_np(pthread_self(), "writer-test");
  vprof::GlobalThreadBuffers().Configure(8, 8);  // new buffers hold 8 records of each kind
  vprof::ThreadBuffer* mine = nullptr;
  std::thread producer([&] {
    pthread_setname_np(pthread_self(), "producer");
    mine = vprof::GlobalThreadBuffers().Current();
    for (uint64_t seq = 1; seq <= 11; ++seq) mine->nccl.Push(allreduce(seq));  // 3 dropped
  });
  producer.join();
  pid_t producer_tid = mine->tid;

  REQUIRE(writer.Flush());
  REQUIRE(std::string(writer.path()) == settings.output_dir + "/testhost.4242.vtrace");

  // A second thread, after the first flush; plus a point-to-point record.
  std::thread second([&] {
    NcclRecord send{};
    send.function = static_cast<uint16_t>(NcclFn::kSend);
    send.comm_id = 0xabcdef;
    send.comm_size = 4;
    send.comm_rank = 3;
    send.seq = 1;
    send.peer = 0;
    send.root = 0;
    send.count = 10;
    send.datatype = 4;
    send.bytes = 80;
    send.result = 5;
    send.enter_ns = 7;
    send.exit_ns = 9;
    send.has = NcclRecord::kHasDatatype | NcclRecord::kHasPeer;
    vprof::GlobalThreadBuffers().Current()->nccl.Push(send);
  });
  second.join();
  REQUIRE(writer.Finish(vprof::EndReason::kExit));

  auto packets = read_trace_file(writer.path());
  REQUIRE(packets.size() > 5);
  for (size_t i = 0; i < packets.size(); ++i) CHECK(packets[i].sequence() == i + 1);

  // Header first.
  REQUIRE(packets[0].has_run_header());
  const auto& h = packets[0].run_header();
  CHECK(h.format_version() == vprof::schema::kFormatVersion);
  CHECK_FALSE(h.vprof_version().empty());
  CHECK_FALSE(h.build_id().empty());
  CHECK(h.host() == "testhost");
  CHECK(h.pid() == 4242);
  CHECK(h.ppid() == 1);
  REQUIRE(h.argv_size() == 3);
  CHECK(h.argv(2) == "0.1");
  CHECK(h.rank().rank() == 3);
  CHECK(h.rank().world_size() == 4);
  CHECK_FALSE(h.rank().has_local_rank());
  CHECK(h.rank().source() == "torch");
  CHECK(h.slurm().job_id() == "991");
  CHECK(h.slurm().proc_id() == 3);
  REQUIRE(h.env_size() == 2);
  CHECK(h.env(0).name() == "NCCL_ALGO");
  CHECK(h.env(0).value() == "Ring");
  CHECK(h.env(1).redacted());
  CHECK(h.env(1).value().empty());
  CHECK(h.clock() == vprof::trace::CLOCK_DOMAIN_MONOTONIC);
  CHECK(h.start_ns() == 1000);
  CHECK(h.start_realtime_ns() == 1700000000000000000ull);
  CHECK(h.settings().flush_interval_ms() == 100);
  CHECK(h.settings().buffer_kib() == 16);
  CHECK(h.settings().stop_after_s() == 60);
  CHECK_FALSE(h.forked_child());

  std::map<uint64_t, std::string> names;
  std::map<uint32_t, std::string> threads;
  std::vector<vprof::trace::NcclEvent> events;
  uint64_t dropped = 0;
  int clock_samples = 0, comms = 0, footers = 0;
  for (const auto& p : packets) {
    if (p.has_interned_string()) names[p.interned_string().iid()] = p.interned_string().str();
    if (p.has_thread()) threads[p.thread().tid()] = p.thread().name();
    if (p.has_event_batch()) {
      // Names and threads come before the events that use them.
      for (const auto& e : p.event_batch().nccl()) {
        CHECK(names.count(e.function_iid()) == 1);
        events.push_back(e);
      }
      CHECK(threads.count(p.event_batch().tid()) == 1);
      dropped += p.event_batch().dropped();
    }
    if (p.has_clock_sample()) {
      ++clock_samples;
      CHECK(p.clock_sample().uncertainty_ns() < 1000000);
      CHECK(p.clock_sample().realtime_ns() > 1600000000000000000ull);
    }
    if (p.has_communicator()) {
      ++comms;
      const auto& c = p.communicator();
      CHECK(c.comm_id() == 0xabcdef);
      CHECK(c.nranks() == 4);
      CHECK(c.rank() == 3);
      CHECK(names[c.created_by_iid()] == "ncclCommSplit");
      CHECK(c.parent_comm_id() == 0x1234);
      CHECK(c.split_color() == -2);
      CHECK(c.create_begin_ns() == 500);
      CHECK(c.create_end_ns() == 900);
      CHECK(c.cuda_device() == 1);
    }
    if (p.has_footer()) ++footers;
  }
  CHECK(names.size() == vprof::kNcclFnCount + 1);
  CHECK(threads[static_cast<uint32_t>(producer_tid)] == "producer");
  CHECK(comms == 1);
  CHECK(clock_samples == 2);
  CHECK(dropped == 3);
  REQUIRE(events.size() == 9);
  for (size_t i = 0; i < 8; ++i) {
    const auto& e = events[i];
    NcclRecord want = allreduce(i + 1);
    CHECK(names[e.function_iid()] == "ncclAllReduce");
    CHECK(e.comm_id() == want.comm_id);
    CHECK(e.comm_size() == 4);
    CHECK(e.comm_rank() == 3);
    CHECK(e.seq() == i + 1);
    CHECK(e.count() == 262144);
    CHECK(e.datatype() == 7);
    CHECK(e.bytes() == 262144 * 4);
    CHECK(e.has_red_op());
    CHECK(e.red_op() == 0);
    CHECK_FALSE(e.has_root());
    CHECK_FALSE(e.has_peer());
    CHECK(e.stream() == 0x5000);
    CHECK(e.group_depth() == 1);
    CHECK(e.result() == 0);
    CHECK(e.enter_ns() == want.enter_ns);
    CHECK(e.exit_ns() == want.exit_ns);
  }
  const auto& send = events[8];
  CHECK(names[send.function_iid()] == "ncclSend");
  CHECK(send.has_peer());
  CHECK(send.peer() == 0);
  CHECK_FALSE(send.has_root());  // not flagged: not written
  CHECK(send.datatype() == 4);
  CHECK(send.result() == 5);

  REQUIRE(packets.back().has_footer());
  CHECK(footers == 1);
  const auto& f = packets.back().footer();
  CHECK(f.reason() == vprof::trace::END_REASON_EXIT);
  REQUIRE(f.counts_size() == 1);
  CHECK(f.counts(0).kind() == "nccl");
  CHECK(f.counts(0).recorded() == 9);
  CHECK(f.counts(0).dropped() == 3);
  fs::remove_all(dir);
}

TEST_CASE("a host name with '/' stays inside the folder; a path too long fails, cut nowhere") {
  drain_leftovers();
  const std::string dir = temp_dir();
  vprof::Settings settings;
  settings.output_dir = dir;
  vprof::RunInfo run = sample_run();
  run.host = "../evil/host";
  {
    vprof::TraceWriter writer;
    REQUIRE(writer.Init(settings, &run, vprof::RegisteredSources()));
    REQUIRE(writer.Finish(vprof::EndReason::kExit));
    CHECK(std::string(writer.path()) == dir + "/.._evil_host.4242.vtrace");
    CHECK(fs::exists(dir + "/.._evil_host.4242.vtrace"));
  }
  drain_leftovers();
  // A 4,090-byte folder (of 100-byte names): cut at the buffer, the trace's path would name a
  // file "test" in it, the start of "testhost.4242.vtrace".
  std::string deep = dir;
  while (deep.size() + 101 < 4090) deep += "/" + std::string(100, 'd');
  deep += "/" + std::string(4090 - deep.size() - 1, 'e');
  REQUIRE(deep.size() == 4090);
  settings.output_dir = deep;
  vprof::TraceWriter writer;
  REQUIRE(writer.Init(settings, &run, vprof::RegisteredSources()));
  CHECK_FALSE(writer.Finish(vprof::EndReason::kExit));
  CHECK(std::string(writer.error()).find("VPROF_OUTPUT_DIR is too long") != std::string::npos);
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      ++files;
      INFO(entry.path());
    }
  }
  CHECK(files == 1);  // the first writer's trace, and no file of a cut name
  fs::remove_all(dir);
}

TEST_CASE_METHOD(WriterInTempDir, "the trace file is readable by its owner alone") {
  const mode_t before = umask(0);  // so the mode is the one vprof asks for, not the umask's
  REQUIRE(writer.Finish(vprof::EndReason::kExit));
  umask(before);
  struct stat st {};
  REQUIRE(stat(writer.path(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
}

TEST_CASE_METHOD(WriterInTempDir,
                 "a taken file name gets a numbered suffix instead of being overwritten") {
  { std::ofstream(dir + "/testhost.4242.vtrace") << "earlier image"; }
  REQUIRE(writer.Finish(vprof::EndReason::kExit));
  CHECK(std::string(writer.path()) == dir + "/testhost.4242.1.vtrace");
  std::ifstream earlier(dir + "/testhost.4242.vtrace");
  std::string content((std::istreambuf_iterator<char>(earlier)), {});
  CHECK(content == "earlier image");
  auto packets = read_trace_file(writer.path());
  REQUIRE(packets.size() >= 3);
  CHECK(packets.back().footer().reason() == vprof::trace::END_REASON_EXIT);
}

TEST_CASE_METHOD(WriterInTempDir,
                 "text from the program and the kernel is written as valid UTF-8") {
  // One byte of 0xff in an argument or an NCCL_* value, and a host name cut
  // inside a character.
  run.argv = {"train.py", "--tag=\xff"};
  run.env = {{"NCCL_SOCKET_IFNAME", "eth\xff", false}};
  run.host = "caf\xc3";
  // The kernel keeps 15 bytes of a thread name: here the first byte of "€".
  pid_t tid = 0;
  std::thread named([&] {
    prctl(PR_SET_NAME, "abcdefghijklmn\xe2\x82\xac");
    vprof::ThreadBuffer* b = vprof::GlobalThreadBuffers().Current();
    tid = b->tid;
    b->nccl.Push(allreduce(1));
  });
  named.join();
  REQUIRE(writer.Finish(vprof::EndReason::kExit));

  const auto packets = read_trace_file(writer.path());
  REQUIRE_FALSE(packets.empty());
  const std::string fffd = "\xef\xbf\xbd";
  const auto& h = packets[0].run_header();
  CHECK(h.argv(1) == "--tag=" + fffd);
  CHECK(h.env(0).value() == "eth" + fffd);
  CHECK(h.host() == "caf" + fffd);
  std::vector<std::string> text = {h.host(), h.vprof_version(), h.build_id()};
  text.insert(text.end(), h.argv().begin(), h.argv().end());
  for (const auto& e : h.env()) text.insert(text.end(), {e.name(), e.value()});
  std::string thread_name;
  for (const auto& p : packets) {
    if (p.has_thread() && p.thread().tid() == static_cast<uint32_t>(tid)) {
      thread_name = p.thread().name();
    }
    if (p.has_thread()) text.push_back(p.thread().name());
    if (p.has_interned_string()) text.push_back(p.interned_string().str());
  }
  CHECK(thread_name == "abcdefghijklmn" + fffd);
  for (const std::string& s : text) {
    INFO(s);
    CHECK(
        google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size())));
  }
}

TEST_CASE_METHOD(WriterInTempDir,
                 "once the trace has ended, later flushes leave the folder as it is") {
  REQUIRE(writer.Finish(vprof::EndReason::kExit));
  const std::string whole = writer.path();
  // A writer tick or a window's end that was waiting for the flush lock.
  CHECK(writer.Flush());
  CHECK(writer.Drain());
  CHECK(writer.Finish(vprof::EndReason::kWindowEnd));
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path().string());
  REQUIRE(files.size() == 1);
  CHECK(files[0] == whole);
  auto packets = read_trace_file(whole);
  REQUIRE_FALSE(packets.empty());
  CHECK(packets.back().footer().reason() == vprof::trace::END_REASON_EXIT);
}

TEST_CASE_METHOD(
    WriterInTempDir,
    "nothing is written before the first flush, and a forked child starts its own file") {
  record_one_call(1);
  REQUIRE(writer.Drain());
  CHECK(fs::is_empty(dir));
  REQUIRE(writer.Flush());
  run.pid = 5555;
  run.forked_child = true;
  writer.ResetInChild(&run);
  REQUIRE(writer.Finish(vprof::EndReason::kWindowEnd));
  auto child = read_trace_file(dir + "/testhost.5555.vtrace");
  REQUIRE(child.size() >= 3);
  CHECK(child[0].run_header().forked_child());
  CHECK(child.back().footer().reason() == vprof::trace::END_REASON_WINDOW_END);
  // The parent's file is the parent writer's, not finished here: it still
  // ends in the provisional Footer of its last write.
  auto parent = read_trace_file(dir + "/testhost.4242.vtrace");
  REQUIRE_FALSE(parent.empty());
  CHECK(parent.back().footer().reason() == vprof::trace::END_REASON_UNOBSERVED);
}

TEST_CASE_METHOD(
    WriterInTempDir,
    "until something is recorded nothing is written, so a process that execs leaves no "
    "file") {
  REQUIRE(writer.Flush());
  REQUIRE(writer.Flush());
  CHECK(fs::is_empty(dir));

  // A forked child that flushes, then execs: its writer is gone without an end.
  {
    vprof::RunInfo child_run = sample_run();
    child_run.pid = 5555;
    child_run.forked_child = true;
    vprof::TraceWriter child;
    REQUIRE(child.Init(settings, &child_run, vprof::RegisteredSources()));
    REQUIRE(child.Flush());
    CHECK(fs::is_empty(dir));
  }
  // The image it became keeps its pid and, with the name free, takes the plain name.
  vprof::RunInfo exec_run = sample_run();
  exec_run.pid = 5555;
  vprof::TraceWriter exec_image;
  REQUIRE(exec_image.Init(settings, &exec_run, vprof::RegisteredSources()));
  REQUIRE(exec_image.Finish(vprof::EndReason::kExit));
  CHECK(std::string(exec_image.path()) == dir + "/testhost.5555.vtrace");
  auto image = read_trace_file(exec_image.path());
  REQUIRE(image.size() >= 3);
  CHECK(image[0].run_header().pid() == 5555);
  CHECK_FALSE(image[0].run_header().forked_child());
  CHECK(image.back().footer().reason() == vprof::trace::END_REASON_EXIT);

  // The first record makes the parent write, with the clock samples it held, header first.
  record_one_call(7);
  REQUIRE(writer.Flush());
  auto parent = read_trace_file(dir + "/testhost.4242.vtrace");
  REQUIRE_FALSE(parent.empty());
  CHECK(parent[0].run_header().pid() == 4242);
  CHECK(clock_samples(parent) == 3);
  const auto batch = std::find_if(parent.begin(), parent.end(),
                                  [](const auto& packet) { return packet.has_event_batch(); });
  REQUIRE(batch != parent.end());
  REQUIRE(batch->event_batch().nccl_size() == 1);
  CHECK(batch->event_batch().nccl(0).seq() == 7);
}

namespace {

// The footers of a trace, and whether its sequence numbers count 1, 2, ...
struct FooterCheck {
  std::vector<vprof::trace::Footer> footers;
  bool footer_last = false;
  bool sequence_unbroken = true;
  size_t events = 0;
  // One Footer, the last packet, after packets numbered 1, 2, ...
  bool whole_with_one_footer() const {
    return footers.size() == 1 && footer_last && sequence_unbroken;
  }
};
FooterCheck footers_of(const std::string& path) {
  FooterCheck check;
  auto packets = read_trace_file(path);
  for (size_t i = 0; i < packets.size(); ++i) {
    if (packets[i].sequence() != i + 1) check.sequence_unbroken = false;
    if (packets[i].has_footer()) check.footers.push_back(packets[i].footer());
    if (packets[i].has_event_batch()) check.events += packets[i].event_batch().nccl_size();
  }
  check.footer_last = !packets.empty() && packets.back().has_footer();
  return check;
}

}  // namespace

TEST_CASE_METHOD(WriterInTempDir,
                 "every write leaves a whole trace whose provisional Footer the next replaces") {
  record_one_call(1);
  REQUIRE(writer.Flush());
  FooterCheck first = footers_of(writer.path());
  REQUIRE(first.whole_with_one_footer());
  CHECK(first.footers[0].reason() == vprof::trace::END_REASON_UNOBSERVED);
  REQUIRE(first.footers[0].counts_size() == 1);
  CHECK(first.footers[0].counts(0).recorded() == 1);
  CHECK(first.events == 1);

  record_one_call(2);
  record_one_call(3);
  REQUIRE(writer.Flush());
  FooterCheck second = footers_of(writer.path());
  REQUIRE(second.whole_with_one_footer());
  CHECK(second.footers[0].counts(0).recorded() == 3);
  CHECK(second.footers[0].end_ns() >= first.footers[0].end_ns());
  CHECK(second.events == 3);

  REQUIRE(writer.Finish(vprof::EndReason::kExit));
  FooterCheck last = footers_of(writer.path());
  REQUIRE(last.whole_with_one_footer());
  CHECK(last.footers[0].reason() == vprof::trace::END_REASON_EXIT);
  CHECK(last.events == 3);
}

TEST_CASE_METHOD(WriterInTempDir,
                 "past the bound on the exit's writes nothing more is written, until the Footer "
                 "that says the writes stalled") {
  record_one_call(1);
  REQUIRE(writer.Flush());
  writer.EndWritesBy(vprof::NowNs() - 1);
  record_one_call(2);
  record_one_call(3);
  CHECK_FALSE(writer.Flush());
  CHECK(writer.stalled());
  CHECK(std::string(writer.error()).find("ran past their bound") != std::string::npos);
  CHECK(std::string(writer.error()).find(writer.path()) != std::string::npos);
  // The file is as the first flush left it; later writes fail without writing.
  FooterCheck cut = footers_of(writer.path());
  REQUIRE(cut.whole_with_one_footer());
  CHECK(cut.footers[0].reason() == vprof::trace::END_REASON_UNOBSERVED);
  CHECK(cut.events == 1);
  CHECK_FALSE(writer.Flush());
  CHECK(std::string(writer.error()).find("ran past their bound") != std::string::npos);
  CHECK(footers_of(writer.path()).footers[0].end_ns() == cut.footers[0].end_ns());

  writer.EndStalled();
  FooterCheck stalled = footers_of(writer.path());
  REQUIRE(stalled.footers.size() == 1);
  CHECK(stalled.footer_last);
  CHECK_FALSE(stalled.sequence_unbroken);  // the gap: packets were lost
  CHECK(stalled.footers[0].reason() == vprof::trace::END_REASON_WRITES_STALLED);
  CHECK(stalled.events == 1);
  // The trace has ended: the exit's Finish that follows writes nothing more.
  CHECK(writer.Finish(vprof::EndReason::kExit));
  CHECK(footers_of(writer.path()).footers[0].reason() == vprof::trace::END_REASON_WRITES_STALLED);
}

TEST_CASE_METHOD(WriterInTempDir,
                 "the Footer after a stall is written alone, whatever the pass encoded after its "
                 "failed write") {
  record_one_call(1);
  REQUIRE(writer.Flush());
  // Ten threads' full rings encode to more than the 1 MiB buffer, so the pass's first write
  // comes, and fails, in the middle of it; the one-call threads drained after it encode more.
  for (int t = 0; t < 10; ++t) {
    std::thread producer([t] {
      vprof::ThreadBuffer* b = vprof::GlobalThreadBuffers().Current();
      for (uint64_t seq = 0; seq < 4000; ++seq) b->nccl.Push(allreduce(100000 * (t + 1) + seq));
    });
    producer.join();
  }
  for (uint64_t seq = 2; seq < 7; ++seq) record_one_call(seq);
  writer.EndWritesBy(vprof::NowNs() - 1);
  CHECK_FALSE(writer.Flush());
  writer.EndStalled();
  FooterCheck stalled = footers_of(writer.path());
  REQUIRE(stalled.footers.size() == 1);
  CHECK(stalled.footer_last);
  CHECK(stalled.footers[0].reason() == vprof::trace::END_REASON_WRITES_STALLED);
  CHECK(stalled.events == 1);  // the first flush's call alone
}

TEST_CASE_METHOD(WriterInTempDir,
                 "a program that closes every descriptor and opens its own file gets no trace "
                 "bytes in it") {
  record_one_call(1);
  REQUIRE(writer.Flush());
  const std::string trace = writer.path();
  const std::string mine = dir + "/program-output.txt";
  pid_t child = fork();
  if (child == 0) {
    // Every descriptor open on the trace folder, as a program that closes
    // all of its descriptors would (the sanitizers' own are left alone).
    for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
      std::error_code ec;
      if (fs::read_symlink(entry.path(), ec).string().rfind(dir, 0) == 0) {
        close(std::stoi(entry.path().filename().string()));
      }
    }
    int own = open(mine.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    bool ok = own >= 0 && write(own, "program output\n", 15) == 15;
    record_one_call(2);
    ok = ok && writer.Flush();
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(fs::file_size(mine) == 15);
  FooterCheck after = footers_of(trace);
  CHECK(after.footer_last);
  CHECK(after.events == 2);  // the child's write went to the trace, by name
}

TEST_CASE_METHOD(WriterInTempDir, "a file that took the trace's name is never written to") {
  record_one_call(1);
  REQUIRE(writer.Flush());
  const std::string trace = writer.path();
  // Made while the trace still exists (so with an inode of its own), then
  // renamed into its place.
  { std::ofstream(dir + "/other") << "someone else's"; }
  fs::rename(dir + "/other", trace);
  record_one_call(2);
  CHECK_FALSE(writer.Flush());
  CHECK(std::string(writer.error()).find("another file took its name") != std::string::npos);
  std::ifstream in(trace);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), {}) == "someone else's");

  // A symbolic link planted under the name is not followed.
  const std::string target = dir + "/target";
  { std::ofstream(target) << "target"; }
  fs::remove(trace);
  fs::create_symlink(target, trace);
  record_one_call(3);
  CHECK_FALSE(writer.Flush());
  std::ifstream t(target);
  CHECK(std::string((std::istreambuf_iterator<char>(t)), {}) == "target");
}

TEST_CASE("an unwritable folder is reported by path") {
  vprof::Settings settings;
  settings.output_dir = "/proc/vprof-cannot-write-here";
  vprof::RunInfo run = sample_run();
  vprof::TraceWriter writer;
  REQUIRE(writer.Init(settings, &run, vprof::RegisteredSources()));
  CHECK_FALSE(writer.Finish(vprof::EndReason::kExit));
  CHECK(std::string(writer.error()).find("/proc/vprof-cannot-write-here/testhost.4242.vtrace") !=
        std::string::npos);
}

TEST_CASE("a write that fails (full disk, here a file size limit) is reported, not ignored") {
  std::string dir = temp_dir();
  pid_t child = fork();
  if (child == 0) {
    // A file size limit makes write(2) fail with EFBIG like ENOSPC would.
    signal(SIGXFSZ, SIG_IGN);
    rlimit limit{64, 64};
    setrlimit(RLIMIT_FSIZE, &limit);
    vprof::Settings settings;
    settings.output_dir = dir;
    vprof::RunInfo run = sample_run();
    vprof::TraceWriter writer;
    bool ok = writer.Init(settings, &run, vprof::RegisteredSources()) &&
              !writer.Finish(vprof::EndReason::kExit) &&
              std::string(writer.error()).find("cannot write trace file " + dir) == 0;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  fs::remove_all(dir);
}

TEST_CASE_METHOD(WriterInTempDir,
                 "a name's id is looked up without writing it; Intern gives it once, with its "
                 "packet") {
  CHECK(writer.InternedId("sim_fwd_kernel") == 0);
  const uint64_t iid = writer.Intern("sim_fwd_kernel");
  CHECK(iid >= vprof::TraceWriter::kFirstDynamicIid);
  CHECK(writer.InternedId("sim_fwd_kernel") == iid);
  CHECK(writer.Intern("sim_fwd_kernel") == iid);
  CHECK(writer.InternedId("sim_bwd_kernel") == 0);
  REQUIRE(writer.Finish(vprof::EndReason::kExit));
  std::map<uint64_t, std::string> names;
  for (const auto& p : read_trace_file(writer.path())) {
    if (p.has_interned_string() && p.interned_string().iid() >= iid) {
      CHECK(names.emplace(p.interned_string().iid(), p.interned_string().str()).second);
    }
  }
  CHECK(names == std::map<uint64_t, std::string>{{iid, "sim_fwd_kernel"}});
}
