#include "trace_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "clock.h"
#include "thread_buffers.h"
#include "utf8_repair.h"
#include "vprof_build_info.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

constexpr size_t kEncodeBufferBytes = 1 << 20;
// Upper bound of every fixed-size packet the writer puts (clock sample, thread).
constexpr size_t kSmallPacketRoom = 512;

void mkdir_p(const char* dir) {
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

// pwrite(2) until every byte is written; false with errno set otherwise.
bool write_all_at(int fd, const uint8_t* p, size_t size, uint64_t offset) {
  while (size > 0) {
    ssize_t n = pwrite(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace

bool TraceWriter::init(const Settings& settings, RunInfo* run, const CaptureSources& sources) {
  settings_ = settings;
  run_ = run;
  sources_ = sources;
  for (const SourceDrain& row : sources_.drains) {
    if (row.begin_trace) row.begin_trace();
  }
  auto* buf = new (std::nothrow) uint8_t[kEncodeBufferBytes];
  if (!buf) return fail("cannot allocate the encode buffer");
  enc_ = ProtoEncoder(buf, kEncodeBufferBytes);
  return true;
}

bool TraceWriter::fail(const char* what) {
  std::snprintf(error_, sizeof error_, "%s", what);
  return false;
}

bool TraceWriter::fail_path(const char* what, const char* why) {
  // A cut message is still a message: the return value is only looked at to
  // say so to the compiler.
  if (std::snprintf(error_, sizeof error_, "%s %s: %s", what, path_, why) < 0) error_[0] = '\0';
  return false;
}

TraceWriter::PacketTokens TraceWriter::begin_packet(uint32_t field) {
  PacketTokens t;
  t.packet = enc_.begin_nested(sf::Trace::kPacket);
  enc_.add_varint(sf::TracePacket::kSequence, ++packet_seq_);
  t.data = enc_.begin_nested(field);
  return t;
}

void TraceWriter::end_packet(PacketTokens t) {
  enc_.end_nested(t.data);
  enc_.end_nested(t.packet);
}

bool TraceWriter::ensure_room(size_t bytes) {
  if (enc_.capacity() - enc_.size() >= bytes) return true;
  return write_out();
}

bool TraceWriter::write_file(EndReason reason) {
  ProtoEncoder footer(footer_buf_, sizeof footer_buf_);
  put_footer(footer, reason);
  const size_t packets = enc_.size();
  const uint64_t end = packets_end_ + packets + footer.size();
  const int fd = open_file();
  bool ok = fd >= 0;
  if (ok) {
    ok = write_all_at(fd, enc_.data(), packets, packets_end_) &&
         write_all_at(fd, footer.data(), footer.size(), packets_end_ + packets);
    // A Footer is rarely shorter than the one it replaces (counts only grow).
    if (ok && end < file_end_ && ftruncate(fd, static_cast<off_t>(end)) != 0) ok = false;
    if (!ok) fail_path("cannot write trace file", std::strerror(errno));
    close(fd);
  }
  enc_.clear();
  if (!ok) return false;
  packets_end_ += packets;
  file_end_ = end;
  return true;
}

int TraceWriter::open_file() {
  if (created_) {
    int fd = open(path_, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      fail_path("cannot reopen trace file", std::strerror(errno));
      return -1;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || st.st_dev != file_dev_ || st.st_ino != file_ino_) {
      close(fd);
      fail_path("cannot reopen trace file", "another file took its name");
      return -1;
    }
    return fd;
  }
  mkdir_p(settings_.output_dir.c_str());
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
      fail("VPROF_OUTPUT_DIR is too long: the trace file's path would exceed 4,095 bytes");
      return -1;
    }
    // 0600: a trace holds the program's command line, environment and names,
    // which other users of a shared node have no business reading.
    fd = open(path_, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) {
      fail_path("cannot create trace file", std::strerror(errno));
      return -1;
    }
  }
  if (fd < 0) {
    fail("no free trace file name in VPROF_OUTPUT_DIR");
    return -1;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    fail_path("cannot stat trace file", std::strerror(errno));
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
  run_->versions = detect_versions();
  // The buffer is empty here: nothing is encoded before the trace begins.
  put_header();
  if (!run_pass(DrainPass::kTraceBegin)) return false;
  return !enc_.overflow() || fail("run header larger than the encode buffer");
}

bool TraceWriter::recorded_anything() const {
  if (noted_recorded_) return true;
  for (const Totals& totals : totals_) {
    if (totals.recorded || totals.dropped) return true;
  }
  return false;
}

void TraceWriter::count(const SourceCount& count, uint64_t recorded, uint64_t dropped) {
  for (size_t i = 0; i < sources_.counts.size(); ++i) {
    if (sources_.counts[i] != &count) continue;
    totals_[i].recorded += recorded;
    totals_[i].dropped += dropped;
    return;
  }
}

void TraceWriter::put_header() {
  const RunInfo& r = *run_;
  auto t = begin_packet(sf::TracePacket::kRunHeader);
  namespace h = sf::RunHeader;
  enc_.add_varint(h::kFormatVersion, sf::kFormatVersion);
  enc_.add_string(h::kVprofVersion, kVprofVersion);
  enc_.add_string(h::kBuildId, kVprofBuildId);
  enc_.add_string(h::kHost, r.host);
  enc_.add_varint(h::kPid, static_cast<uint64_t>(r.pid));
  enc_.add_varint(h::kPpid, static_cast<uint64_t>(r.ppid));
  for (const auto& a : r.argv) enc_.add_string(h::kArgv, a);
  {
    namespace k = sf::RankInfo;
    size_t m = enc_.begin_nested(h::kRank);
    if (r.rank.rank) enc_.add_int32(k::kRank, *r.rank.rank);
    if (r.rank.local_rank) enc_.add_int32(k::kLocalRank, *r.rank.local_rank);
    if (r.rank.world_size) enc_.add_int32(k::kWorldSize, *r.rank.world_size);
    if (r.rank.local_world_size) enc_.add_int32(k::kLocalWorldSize, *r.rank.local_world_size);
    if (r.rank.node_rank) enc_.add_int32(k::kNodeRank, *r.rank.node_rank);
    enc_.add_string(k::kSource, r.rank.source);
    enc_.end_nested(m);
  }
  if (!r.slurm.job_id.empty()) {
    namespace k = sf::SlurmInfo;
    size_t m = enc_.begin_nested(h::kSlurm);
    enc_.add_string(k::kJobId, r.slurm.job_id);
    enc_.add_string(k::kStepId, r.slurm.step_id);
    enc_.add_string(k::kNodeList, r.slurm.node_list);
    enc_.add_string(k::kTasksPerNode, r.slurm.tasks_per_node);
    if (r.slurm.proc_id) enc_.add_int32(k::kProcId, *r.slurm.proc_id);
    if (r.slurm.local_id) enc_.add_int32(k::kLocalId, *r.slurm.local_id);
    if (r.slurm.node_id) enc_.add_int32(k::kNodeId, *r.slurm.node_id);
    enc_.end_nested(m);
  }
  for (const auto& e : r.env) {
    size_t m = enc_.begin_nested(h::kEnv);
    enc_.add_string(sf::EnvVar::kName, e.name);
    if (!e.redacted) enc_.add_string(sf::EnvVar::kValue, e.value);
    if (e.redacted) enc_.add_bool(sf::EnvVar::kRedacted, true);
    enc_.end_nested(m);
  }
  {
    size_t m = enc_.begin_nested(h::kVersions);
    if (r.versions.nccl) enc_.add_varint(sf::Versions::kNccl, r.versions.nccl);
    if (r.versions.cuda_runtime) {
      enc_.add_varint(sf::Versions::kCudaRuntime, r.versions.cuda_runtime);
    }
    if (r.versions.cuda_driver) enc_.add_varint(sf::Versions::kCudaDriver, r.versions.cuda_driver);
    enc_.end_nested(m);
  }
  enc_.add_varint(h::kClock, static_cast<uint64_t>(sf::ClockDomain::CLOCK_DOMAIN_MONOTONIC));
  enc_.add_varint(h::kStartNs, r.start_ns);
  enc_.add_varint(h::kStartRealtimeNs, r.start_realtime_ns);
  {
    namespace k = sf::Settings;
    size_t m = enc_.begin_nested(h::kSettings);
    enc_.add_varint(k::kFlushIntervalMs, settings_.flush_interval_ms);
    enc_.add_varint(k::kBufferKib, settings_.buffer_kib);
    enc_.add_double(k::kStartAfterS, settings_.start_after_s);
    enc_.add_double(k::kStopAfterS, settings_.stop_after_s);
    enc_.add_string(k::kDeepCapture, deep_schedule_text(settings_.deep));
    if (settings_.audit_fingerprints) {
      enc_.add_string(k::kAudit, "fingerprint");
      enc_.add_varint(k::kAuditEvery, settings_.audit_every);
      enc_.add_varint(k::kAuditMinBytes, settings_.audit_min_bytes);
    }
    enc_.end_nested(m);
  }
  if (r.forked_child) enc_.add_bool(h::kForkedChild, true);
  end_packet(t);
}

void TraceWriter::put_interned_string(uint64_t iid, std::string_view s) {
  auto t = begin_packet(sf::TracePacket::kInternedString);
  enc_.add_varint(sf::InternedString::kIid, iid);
  enc_.add_string(sf::InternedString::kStr, s);
  end_packet(t);
}

void TraceWriter::put_clock_sample() {
  uint64_t before = now_ns();
  uint64_t real = realtime_ns();
  uint64_t after = now_ns();
  auto t = begin_packet(sf::TracePacket::kClockSample);
  enc_.add_varint(sf::ClockSample::kClockNs, before + (after - before) / 2);
  enc_.add_varint(sf::ClockSample::kRealtimeNs, real);
  enc_.add_varint(sf::ClockSample::kUncertaintyNs, after - before);
  end_packet(t);
}

bool TraceWriter::describe_thread(ThreadBuffer& b) {
  if (b.described_tid == b.tid) return true;
  if (!ensure_room(kSmallPacketRoom)) return false;
  auto t = begin_packet(sf::TracePacket::kThread);
  enc_.add_varint(sf::ThreadDescriptor::kTid, static_cast<uint64_t>(b.tid));
  enc_.add_string(sf::ThreadDescriptor::kName,
                  std::string_view(b.name, strnlen(b.name, sizeof b.name)));
  end_packet(t);
  b.described_tid = b.tid;
  return true;
}

void TraceWriter::drain_threads(std::span<const SourceDrain> rows) {
  thread_buffers().for_each([&](ThreadBuffer& b) {
    if (!describe_thread(b)) return;
    // A failed drain does not end the walk: every buffer is still visited
    // (and a retired one freed once empty); drain_sources() reports the
    // error after the pass.
    for (const SourceDrain& row : rows) {
      if (!row.drain_thread(*this, b) && error_[0] == '\0') {
        std::snprintf(error_, sizeof error_, "cannot write %s", row.name);
      }
    }
  });
}

bool TraceWriter::drain_sources() {
  if (!begun_ || finished_) return true;
  error_[0] = '\0';
  const std::span<const SourceDrain> rows = sources_.drains;
  for (size_t i = 0; i < rows.size();) {
    if (rows[i].pass == DrainPass::kEachThread) {
      size_t end = i;
      while (end < rows.size() && rows[end].pass == DrainPass::kEachThread) ++end;
      drain_threads(rows.subspan(i, end - i));
      i = end;
      continue;
    }
    if (rows[i].pass == DrainPass::kEachTick && !rows[i].drain(*this, finishing_)) return false;
    ++i;
  }
  return error_[0] == '\0';
}

bool TraceWriter::run_pass(DrainPass pass) {
  for (const SourceDrain& row : sources_.drains) {
    if (row.pass == pass && !row.drain(*this, finishing_)) return false;
  }
  return true;
}

uint64_t TraceWriter::intern(std::string_view s) {
  if (auto it = interned_.find(s); it != interned_.end()) return it->second;
  uint64_t iid = next_iid_++;
  interned_.emplace(s, iid);
  if (ensure_room(utf8_repaired_bound(s.size()) + 32)) put_interned_string(iid, s);
  return iid;
}

bool TraceWriter::flush() {
  if (finished_) return true;
  if (!begin()) return false;
  if (!drain_sources()) return false;
  if (!run_pass(DrainPass::kEachFlush)) return false;
  if (!ensure_room(kSmallPacketRoom)) return false;
  put_clock_sample();
  // A process that recorded nothing yet keeps its header and clock samples
  // in the buffer: one that then execs (a forked child, a shell's exec, a
  // launcher's wrapper) leaves no file behind. The buffer holds hours of
  // clock samples; when it fills, ensure_room() writes them out.
  if (!created_ && !recorded_anything()) return true;
  return write_out();
}

bool TraceWriter::finish(EndReason reason) {
  if (finished_) return true;
  finishing_ = true;
  if (!flush()) return false;
  bool ok = write_file(reason);
  finished_ = true;
  return ok;
}

void TraceWriter::put_footer(ProtoEncoder& e, EndReason reason) {
  // Not counted in packet_seq_: the next write's first packet takes its place.
  size_t packet = e.begin_nested(sf::Trace::kPacket);
  e.add_varint(sf::TracePacket::kSequence, packet_seq_ + 1);
  namespace k = sf::Footer;
  size_t footer = e.begin_nested(sf::TracePacket::kFooter);
  e.add_varint(k::kReason, static_cast<uint64_t>(reason));
  e.add_varint(k::kEndNs, now_ns());
  for (size_t i = 0; i < sources_.counts.size(); ++i) {
    const Totals& totals = totals_[i];
    if (!sources_.counts[i]->always && !totals.recorded && !totals.dropped) continue;
    size_t m = e.begin_nested(k::kCounts);
    e.add_string(sf::KindCount::kKind, sources_.counts[i]->kind);
    e.add_varint(sf::KindCount::kRecorded, totals.recorded);
    e.add_varint(sf::KindCount::kDropped, totals.dropped);
    e.end_nested(m);
  }
  e.end_nested(footer);
  e.end_nested(packet);
}

void TraceWriter::reset_in_child(RunInfo* run) {
  run_ = run;
  created_ = false;  // the parent's file: the child must not write to it
  packets_end_ = 0;
  file_end_ = 0;
  finished_ = false;
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
