#include "interpose/core/trace_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "common/utf8_repair.h"
#include "common/vprof_build_info.h"
#include "interpose/core/clock.h"
#include "interpose/core/thread_buffers.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

constexpr size_t kEncodeBufferBytes = 1 << 20;
// Upper bound of every fixed-size packet the writer puts (clock sample, thread).
constexpr size_t kSmallPacketRoom = 512;

void MkdirP(const char* dir) {
  char path[4096];
  size_t n = std::strlen(dir);
  if (n == 0 || n >= sizeof path) return;
  std::memcpy(path, dir, n + 1);
  for (size_t i = 1; i <= n; ++i) {
    if (path[i] == '/' || path[i] == '\0') {
      char saved = path[i];
      path[i] = '\0';
      mkdir(path, 0777);  // errors surface when the file is opened
      path[i] = saved;
    }
  }
}

// pwritev(2) until every byte of the `count` pieces is written; false with
// errno set otherwise. Advances `iov` past what was written.
bool WriteAllAt(int fd, iovec* iov, int count, uint64_t offset) {
  for (;;) {
    while (count > 0 && iov->iov_len == 0) {
      ++iov;
      --count;
    }
    if (count == 0) return true;
    ssize_t n = pwritev(fd, iov, count, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    offset += static_cast<uint64_t>(n);
    for (size_t done = static_cast<size_t>(n); done > 0;) {
      const size_t part = std::min(done, iov->iov_len);
      iov->iov_base = static_cast<uint8_t*>(iov->iov_base) + part;
      iov->iov_len -= part;
      done -= part;
      if (iov->iov_len == 0) {
        ++iov;
        --count;
      }
    }
  }
}

}  // namespace

bool TraceWriter::Init(const Settings& settings, RunInfo* run, const CaptureSources& sources) {
  settings_ = settings;
  run_ = run;
  sources_ = sources;
  for (const SourceDrain& row : sources_.drains) {
    if (row.begin_trace) row.begin_trace();
  }
  auto* buf = new (std::nothrow) uint8_t[kEncodeBufferBytes];
  if (!buf) return Fail("cannot allocate the encode buffer");
  enc_ = ProtoEncoder(buf, kEncodeBufferBytes);
  return true;
}

bool TraceWriter::Fail(const char* what) {
  std::snprintf(error_, sizeof error_, "%s", what);
  return false;
}

bool TraceWriter::FailPath(const char* what, const char* why) {
  // A cut message is still a message: the return value is only looked at to
  // say so to the compiler.
  if (std::snprintf(error_, sizeof error_, "%s %s: %s", what, path_, why) < 0) error_[0] = '\0';
  return false;
}

TraceWriter::PacketTokens TraceWriter::BeginPacket(uint32_t field) {
  PacketTokens t;
  t.packet = enc_.BeginNested(sf::Trace::kPacket);
  enc_.AddVarint(sf::TracePacket::kSequence, ++packet_seq_);
  t.data = enc_.BeginNested(field);
  return t;
}

void TraceWriter::EndPacket(PacketTokens t) {
  enc_.EndNested(t.data);
  enc_.EndNested(t.packet);
}

bool TraceWriter::EnsureRoom(size_t bytes) {
  if (enc_.capacity() - enc_.size() >= bytes) return true;
  return WriteOut();
}

bool TraceWriter::WriteFile(EndReason reason) {
  if (reason != EndReason::kWritesStalled) {
    if (const uint64_t stop = writes_end_ns_.load(); stop != 0 && NowNs() >= stop) stalled_ = true;
    if (stalled_) {
      enc_.clear();
      // Said again on every call: a drain's pass begins with no error.
      return FailPath("stopped writing",
                      "the trace's writes at exit ran past their bound (a stalled file system?); "
                      "it ends at its last whole write");
    }
  }
  ProtoEncoder footer(footer_buf_, sizeof footer_buf_);
  PutFooter(footer, reason);
  const size_t packets = enc_.size();
  const uint64_t end = packets_end_ + packets + footer.size();
  const int fd = OpenFile();
  bool ok = fd >= 0;
  if (ok) {
    // One write of both, so that a file system that answers slowly does so once.
    // (iovec's pointer is not const; pwritev only reads through it.)
    iovec pieces[] = {{const_cast<uint8_t*>(enc_.data()), packets},
                      {const_cast<uint8_t*>(footer.data()), footer.size()}};
    ok = WriteAllAt(fd, pieces, 2, packets_end_);
    // A Footer is rarely shorter than the one it replaces (counts only grow).
    if (ok && end < file_end_ && ftruncate(fd, static_cast<off_t>(end)) != 0) ok = false;
    if (!ok) FailPath("cannot write trace file", std::strerror(errno));
    close(fd);
  }
  enc_.clear();
  if (!ok) return false;
  packets_end_ += packets;
  file_end_ = end;
  return true;
}

void TraceWriter::EndStalled() {
  if (!stalled_ || finished_) return;
  finished_ = true;
  enc_.clear();  // what the pass encoded after its failed write
  if (created_) WriteFile(EndReason::kWritesStalled);
}

int TraceWriter::OpenFile() {
  if (created_) {
    int fd = open(path_, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      FailPath("cannot reopen trace file", std::strerror(errno));
      return -1;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_dev != file_dev_ || st.st_ino != file_ino_) {
      close(fd);
      FailPath("cannot reopen trace file", "another file took its name");
      return -1;
    }
    return fd;
  }
  MkdirP(settings_.output_dir.c_str());
  int fd = -1;
  // The host as a file name: a '/' in it would put the trace outside the folder.
  std::string host = run_->host.empty() ? "unknown-host" : run_->host;
  std::replace(host.begin(), host.end(), '/', '_');
  for (int n = 0; n < 1000 && fd < 0; ++n) {
    int length;
    if (n == 0) {
      length = std::snprintf(path_, sizeof path_, "%s/%s.%d.vtrace", settings_.output_dir.c_str(),
                             host.c_str(), static_cast<int>(run_->pid));
    } else {
      // The name is taken: an exec'd image keeps its pid.
      length =
          std::snprintf(path_, sizeof path_, "%s/%s.%d.%d.vtrace", settings_.output_dir.c_str(),
                        host.c_str(), static_cast<int>(run_->pid), n);
    }
    if (length < 0 || static_cast<size_t>(length) >= sizeof path_) {
      // A cut path names another file (a 4,094-byte folder name became "v").
      path_[0] = '\0';
      Fail("VPROF_OUTPUT_DIR is too long: the trace file's path would exceed 4,095 bytes");
      return -1;
    }
    // 0600: a trace holds the program's command line, environment and names,
    // which other users of a shared node have no business reading.
    fd = open(path_, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) {
      FailPath("cannot create trace file", std::strerror(errno));
      return -1;
    }
  }
  if (fd < 0) {
    Fail("no free trace file name in VPROF_OUTPUT_DIR");
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    FailPath("cannot stat trace file", std::strerror(errno));
    close(fd);
    return -1;
  }
  created_ = true;
  file_dev_ = st.st_dev;
  file_ino_ = st.st_ino;
  return fd;
}

bool TraceWriter::begin() {
  if (begun_) return true;
  begun_ = true;
  // Libraries load late (Python imports torch after start): ask now.
  run_->versions = DetectVersions();
  // The buffer is empty here: nothing is encoded before the trace begins.
  PutHeader();
  if (!RunPass(DrainPass::kTraceBegin)) return false;
  return !enc_.Overflow() || Fail("run header larger than the encode buffer");
}

bool TraceWriter::RecordedAnything() const {
  if (noted_recorded_) return true;
  for (const Totals& totals : totals_) {
    if (totals.recorded || totals.dropped) return true;
  }
  return false;
}

void TraceWriter::Count(const SourceCount& count, uint64_t recorded, uint64_t dropped) {
  for (size_t i = 0; i < sources_.counts.size(); ++i) {
    if (sources_.counts[i] != &count) continue;
    totals_[i].recorded += recorded;
    totals_[i].dropped += dropped;
    return;
  }
}

void TraceWriter::PutHeader() {
  const RunInfo& r = *run_;
  auto t = BeginPacket(sf::TracePacket::kRunHeader);
  namespace h = sf::RunHeader;
  enc_.AddVarint(h::kFormatVersion, sf::kFormatVersion);
  enc_.AddString(h::kVprofVersion, kVprofVersion);
  enc_.AddString(h::kBuildId, kVprofBuildId);
  enc_.AddString(h::kHost, r.host);
  enc_.AddVarint(h::kPid, static_cast<uint64_t>(r.pid));
  enc_.AddVarint(h::kPpid, static_cast<uint64_t>(r.ppid));
  for (const auto& a : r.argv) enc_.AddString(h::kArgv, a);
  {
    namespace k = sf::RankInfo;
    size_t m = enc_.BeginNested(h::kRank);
    if (r.rank.rank) enc_.AddInt32(k::kRank, *r.rank.rank);
    if (r.rank.local_rank) enc_.AddInt32(k::kLocalRank, *r.rank.local_rank);
    if (r.rank.world_size) enc_.AddInt32(k::kWorldSize, *r.rank.world_size);
    if (r.rank.local_world_size) enc_.AddInt32(k::kLocalWorldSize, *r.rank.local_world_size);
    if (r.rank.node_rank) enc_.AddInt32(k::kNodeRank, *r.rank.node_rank);
    enc_.AddString(k::kSource, r.rank.source);
    enc_.EndNested(m);
  }
  if (!r.slurm.job_id.empty()) {
    namespace k = sf::SlurmInfo;
    size_t m = enc_.BeginNested(h::kSlurm);
    enc_.AddString(k::kJobId, r.slurm.job_id);
    enc_.AddString(k::kStepId, r.slurm.step_id);
    enc_.AddString(k::kNodeList, r.slurm.node_list);
    enc_.AddString(k::kTasksPerNode, r.slurm.tasks_per_node);
    if (r.slurm.proc_id) enc_.AddInt32(k::kProcId, *r.slurm.proc_id);
    if (r.slurm.local_id) enc_.AddInt32(k::kLocalId, *r.slurm.local_id);
    if (r.slurm.node_id) enc_.AddInt32(k::kNodeId, *r.slurm.node_id);
    enc_.EndNested(m);
  }
  for (const auto& e : r.env) {
    size_t m = enc_.BeginNested(h::kEnv);
    enc_.AddString(sf::EnvVar::kName, e.name);
    if (!e.redacted) enc_.AddString(sf::EnvVar::kValue, e.value);
    if (e.redacted) enc_.AddBool(sf::EnvVar::kRedacted, true);
    enc_.EndNested(m);
  }
  {
    size_t m = enc_.BeginNested(h::kVersions);
    if (r.versions.nccl) enc_.AddVarint(sf::Versions::kNccl, r.versions.nccl);
    if (r.versions.cuda_runtime) {
      enc_.AddVarint(sf::Versions::kCudaRuntime, r.versions.cuda_runtime);
    }
    if (r.versions.cuda_driver) enc_.AddVarint(sf::Versions::kCudaDriver, r.versions.cuda_driver);
    enc_.EndNested(m);
  }
  enc_.AddVarint(h::kClock, static_cast<uint64_t>(sf::ClockDomain::CLOCK_DOMAIN_MONOTONIC));
  enc_.AddVarint(h::kStartNs, r.start_ns);
  enc_.AddVarint(h::kStartRealtimeNs, r.start_realtime_ns);
  {
    namespace k = sf::Settings;
    size_t m = enc_.BeginNested(h::kSettings);
    enc_.AddVarint(k::kFlushIntervalMs, settings_.flush_interval_ms);
    enc_.AddVarint(k::kBufferKib, settings_.buffer_kib);
    enc_.AddDouble(k::kStartAfterS, settings_.start_after_s);
    enc_.AddDouble(k::kStopAfterS, settings_.stop_after_s);
    enc_.AddString(k::kDeepCapture, DeepScheduleText(settings_.deep));
    if (settings_.audit_fingerprints) {
      enc_.AddString(k::kAudit, "fingerprint");
      enc_.AddVarint(k::kAuditEvery, settings_.audit_every);
      enc_.AddVarint(k::kAuditMinBytes, settings_.audit_min_bytes);
    }
    enc_.EndNested(m);
  }
  if (r.forked_child) enc_.AddBool(h::kForkedChild, true);
  if (r.cut.any()) {
    namespace k = sf::HeaderCut;
    size_t m = enc_.BeginNested(h::kCut);
    enc_.AddVarint(k::kArgvCapBytes, kMaxArgvBytes);
    enc_.AddVarint(k::kArgvArgsCut, r.cut.argv_args_cut);
    enc_.AddVarint(k::kEnvCapBytes, kMaxEnvBytes);
    enc_.AddVarint(k::kEnvValueCapBytes, kMaxEnvValueBytes);
    enc_.AddVarint(k::kEnvVarsLeftOut, r.cut.env_vars_left_out);
    enc_.AddVarint(k::kEnvValuesCut, r.cut.env_values_cut);
    enc_.EndNested(m);
  }
  EndPacket(t);
}

void TraceWriter::PutInternedString(uint64_t iid, std::string_view s) {
  auto t = BeginPacket(sf::TracePacket::kInternedString);
  enc_.AddVarint(sf::InternedString::kIid, iid);
  enc_.AddString(sf::InternedString::kStr, s);
  EndPacket(t);
}

void TraceWriter::PutClockSample() {
  uint64_t before = NowNs();
  uint64_t real = RealtimeNs();
  uint64_t after = NowNs();
  auto t = BeginPacket(sf::TracePacket::kClockSample);
  enc_.AddVarint(sf::ClockSample::kClockNs, before + (after - before) / 2);
  enc_.AddVarint(sf::ClockSample::kRealtimeNs, real);
  enc_.AddVarint(sf::ClockSample::kUncertaintyNs, after - before);
  EndPacket(t);
}

bool TraceWriter::DescribeThread(ThreadBuffer& b) {
  if (b.described_tid == b.tid) return true;
  if (!EnsureRoom(kSmallPacketRoom)) return false;
  auto t = BeginPacket(sf::TracePacket::kThread);
  enc_.AddVarint(sf::ThreadDescriptor::kTid, static_cast<uint64_t>(b.tid));
  enc_.AddString(sf::ThreadDescriptor::kName,
                 std::string_view(b.name, strnlen(b.name, sizeof b.name)));
  EndPacket(t);
  b.described_tid = b.tid;
  return true;
}

void TraceWriter::DrainThreads(std::span<const SourceDrain> rows) {
  GlobalThreadBuffers().ForEach([&](ThreadBuffer& b) {
    if (!DescribeThread(b)) return;
    // A failed drain does not end the walk: every buffer is still visited
    // (and a retired one freed once empty); DrainSources() reports the
    // error after the pass.
    for (const SourceDrain& row : rows) {
      if (!row.drain_thread(*this, b) && error_[0] == '\0') {
        std::snprintf(error_, sizeof error_, "cannot write %s", row.name);
      }
    }
  });
}

bool TraceWriter::DrainSources() {
  if (!begun_ || finished_) return true;
  error_[0] = '\0';
  const std::span<const SourceDrain> rows = sources_.drains;
  for (size_t i = 0; i < rows.size();) {
    if (rows[i].pass == DrainPass::kEachThread) {
      size_t end = i;
      while (end < rows.size() && rows[end].pass == DrainPass::kEachThread) ++end;
      DrainThreads(rows.subspan(i, end - i));
      i = end;
      continue;
    }
    if (rows[i].pass == DrainPass::kEachTick && !rows[i].drain(*this, finishing_)) return false;
    ++i;
  }
  return error_[0] == '\0';
}

bool TraceWriter::RunPass(DrainPass pass) {
  for (const SourceDrain& row : sources_.drains) {
    if (row.pass == pass && !row.drain(*this, finishing_)) return false;
  }
  return true;
}

uint64_t TraceWriter::InternedId(std::string_view s) const {
  const auto it = interned_.find(s);
  return it == interned_.end() ? 0 : it->second;
}

uint64_t TraceWriter::Intern(std::string_view s) {
  if (const uint64_t known = InternedId(s)) return known;
  uint64_t iid = next_iid_++;
  interned_.emplace(s, iid);
  if (EnsureRoom(Utf8RepairedBound(s.size()) + 32)) PutInternedString(iid, s);
  return iid;
}

bool TraceWriter::DrainIntoBuffer() {
  if (!begin()) return false;
  if (!DrainSources()) return false;
  if (!RunPass(DrainPass::kEachFlush)) return false;
  if (!EnsureRoom(kSmallPacketRoom)) return false;
  PutClockSample();
  return true;
}

bool TraceWriter::Flush() {
  if (finished_) return true;
  if (!DrainIntoBuffer()) return false;
  // A process that recorded nothing yet keeps its header and clock samples
  // in the buffer: one that then execs (a forked child, a shell's exec, a
  // launcher's wrapper) leaves no file behind. The buffer holds hours of
  // clock samples; when it fills, EnsureRoom() writes them out.
  if (!created_ && !RecordedAnything()) return true;
  return WriteOut();
}

bool TraceWriter::Finish(EndReason reason) {
  if (finished_) return true;
  finishing_ = true;
  // Flush() with the final Footer in its write: one write fewer as the process ends.
  if (!DrainIntoBuffer()) return false;
  bool ok = WriteFile(reason);
  finished_ = true;
  return ok;
}

void TraceWriter::PutFooter(ProtoEncoder& e, EndReason reason) {
  // Not counted in packet_seq_: the next write's first packet takes its place.
  size_t packet = e.BeginNested(sf::Trace::kPacket);
  e.AddVarint(sf::TracePacket::kSequence, packet_seq_ + 1);
  namespace k = sf::Footer;
  size_t footer = e.BeginNested(sf::TracePacket::kFooter);
  e.AddVarint(k::kReason, static_cast<uint64_t>(reason));
  e.AddVarint(k::kEndNs, NowNs());
  for (size_t i = 0; i < sources_.counts.size(); ++i) {
    const Totals& totals = totals_[i];
    if (!sources_.counts[i]->always && !totals.recorded && !totals.dropped) continue;
    size_t m = e.BeginNested(k::kCounts);
    e.AddString(sf::KindCount::kKind, sources_.counts[i]->kind);
    e.AddVarint(sf::KindCount::kRecorded, totals.recorded);
    e.AddVarint(sf::KindCount::kDropped, totals.dropped);
    e.EndNested(m);
  }
  if (const uint64_t threads = GlobalThreadBuffers().threads_without_buffer(); threads > 0) {
    e.AddVarint(k::kThreadsWithoutBuffer, threads);
    e.AddVarint(k::kBufferPoolBytes, ThreadBuffers::kPoolBytes);
  }
  e.EndNested(footer);
  e.EndNested(packet);
}

void TraceWriter::ResetInChild(RunInfo* run) {
  run_ = run;
  created_ = false;  // the parent's file: the child must not write to it
  packets_end_ = 0;
  file_end_ = 0;
  finished_ = false;
  writes_end_ns_.store(0);
  stalled_ = false;
  begun_ = false;
  path_[0] = '\0';
  enc_.clear();
  packet_seq_ = 0;
  for (const SourceDrain& row : sources_.drains) {
    if (row.begin_trace) row.begin_trace();
  }
  noted_recorded_ = false;
  for (Totals& totals : totals_) totals = {};
  interned_.clear();  // the child's file must carry its own names
  next_iid_ = kFirstDynamicIid;
}

}  // namespace vprof
