// A folder holding traces of two runs is refused with a message naming them;
// ranks of one run without a trace are named, and the report goes on.
#include <catch2/catch.hpp>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "cli_runner.h"
#include "reporter/base/exit_status.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"
#include "vprof_trace.pb.h"
#include "vprof_trace_fields.h"

namespace vprof::reporter {
namespace {

using testing::Contains;
using testing::FramePacket;
using testing::ScratchDir;

// 2026-11-30T10:00:00Z
constexpr uint64_t kTenOClockNs = 1'796'032'800'000'000'000;

struct Process {
  std::string host = "node0";
  uint32_t pid = 100;
  uint32_t ppid = 1;
  std::optional<int32_t> rank;
  std::optional<int32_t> world_size;
  std::string slurm_job = "";
  std::string slurm_step = "";
  std::string master_port = "29500";
  std::string torchrun_run = "";  // TORCHELASTIC_RUN_ID; not set when empty
  bool forked_child = false;
  uint64_t start_realtime_ns = kTenOClockNs;
};

// A whole trace: its RunHeader and a Footer.
void WriteTrace(const ScratchDir& dir, const Process& process) {
  vprof::trace::TracePacket header_packet;
  header_packet.set_sequence(1);
  vprof::trace::RunHeader& header = *header_packet.mutable_run_header();
  header.set_format_version(vprof::schema::kFormatVersion);
  header.set_host(process.host);
  header.set_pid(process.pid);
  header.set_ppid(process.ppid);
  header.set_forked_child(process.forked_child);
  if (process.rank) header.mutable_rank()->set_rank(*process.rank);
  if (process.world_size) header.mutable_rank()->set_world_size(*process.world_size);
  if (!process.slurm_job.empty()) {
    header.mutable_slurm()->set_job_id(process.slurm_job);
    header.mutable_slurm()->set_step_id(process.slurm_step);
  }
  for (const auto& [name, value] : {std::pair<std::string, std::string>{"MASTER_ADDR", "node0"},
                                    {"MASTER_PORT", process.master_port}}) {
    vprof::trace::EnvVar& variable = *header.add_env();
    variable.set_name(name);
    variable.set_value(value);
  }
  if (!process.torchrun_run.empty()) {
    vprof::trace::EnvVar& variable = *header.add_env();
    variable.set_name("TORCHELASTIC_RUN_ID");
    variable.set_value(process.torchrun_run);
  }
  header.set_start_realtime_ns(process.start_realtime_ns);
  vprof::trace::TracePacket footer_packet;
  footer_packet.set_sequence(2);
  footer_packet.mutable_footer()->set_reason(vprof::trace::END_REASON_EXIT);

  std::ofstream file(dir.File(process.host + "." + std::to_string(process.pid) + ".vtrace"),
                     std::ios::binary);
  file << FramePacket(header_packet.SerializeAsString())
       << FramePacket(footer_packet.SerializeAsString());
}

struct Listing {
  bool listed;
  int status;
  std::string err;
};

Listing List(const ScratchDir& dir) {
  std::ostringstream err;
  int status = kExitOk;
  const bool listed = ListTraceFilesOrSay(dir.path(), err, &status).has_value();
  return {listed, status, err.str()};
}

TEST_CASE("run identity: traces of two Slurm jobs are refused") {
  ScratchDir dir;
  WriteTrace(dir, {.pid = 100, .rank = 0, .world_size = 2, .slurm_job = "4100", .slurm_step = "0"});
  WriteTrace(dir, {.pid = 101, .rank = 1, .world_size = 2, .slurm_job = "4100", .slurm_step = "0"});
  WriteTrace(dir, {.pid = 200, .rank = 0, .world_size = 1, .slurm_job = "4177", .slurm_step = "0"});
  const Listing listing = List(dir);
  CHECK_FALSE(listing.listed);
  CHECK(listing.status == kExitUsage);
  CHECK(Contains(listing.err,
                 "the traces are of more than one run: traces of 2 Slurm jobs: "
                 "job 4100 (2 traces, e.g. node0.100.vtrace); "
                 "job 4177 (1 traces, e.g. node0.200.vtrace)"));
  CHECK(Contains(listing.err, "move each run's traces into a folder of its own"));
}

TEST_CASE("run identity: one rank in two traces of one world is two runs") {
  ScratchDir dir;
  // The same 2-rank job launched twice into one folder, an hour apart.
  const uint64_t hour_ns = 3'600'000'000'000;
  WriteTrace(dir, {.pid = 100, .rank = 0, .world_size = 2});
  WriteTrace(dir, {.pid = 101, .rank = 1, .world_size = 2});
  WriteTrace(dir,
             {.pid = 300, .rank = 0, .world_size = 2, .start_realtime_ns = kTenOClockNs + hour_ns});
  WriteTrace(dir,
             {.pid = 301, .rank = 1, .world_size = 2, .start_realtime_ns = kTenOClockNs + hour_ns});
  const Listing listing = List(dir);
  CHECK_FALSE(listing.listed);
  CHECK(listing.status == kExitUsage);
  CHECK(Contains(listing.err,
                 "rank 0 (world size 2, rendezvous node0:29500) is in 2 traces: node0.100.vtrace "
                 "(started 2026-11-30T10:00:00.000Z), node0.300.vtrace (started "
                 "2026-11-30T11:00:00.000Z); rank 1 "));

  // The command line refuses it the same way, before reading any event.
  const testing::CliResult cli = testing::Run({"report", dir.path()});
  CHECK(cli.status == kExitUsage);
  CHECK(Contains(cli.err, "the traces are of more than one run"));
  CHECK(cli.out.empty());
}

TEST_CASE("run identity: two torchrun --standalone runs into one folder are refused") {
  ScratchDir dir;
  // World sizes 2 and 3, each with its run id and its random port, a minute apart.
  const uint64_t minute_ns = 60'000'000'000;
  for (uint32_t rank = 0; rank < 2; ++rank) {
    WriteTrace(dir, {.pid = 100 + rank,
                     .rank = static_cast<int32_t>(rank),
                     .world_size = 2,
                     .master_port = "41234",
                     .torchrun_run = "7f3a9c"});
  }
  for (uint32_t rank = 0; rank < 3; ++rank) {
    WriteTrace(dir, {.pid = 200 + rank,
                     .rank = static_cast<int32_t>(rank),
                     .world_size = 3,
                     .master_port = "45678",
                     .torchrun_run = "b20e41",
                     .start_realtime_ns = kTenOClockNs + minute_ns});
  }
  const Listing listing = List(dir);
  CHECK_FALSE(listing.listed);
  CHECK(listing.status == kExitUsage);
  CHECK(Contains(listing.err,
                 "the traces are of more than one run: traces of 2 torchrun runs "
                 "(TORCHELASTIC_RUN_ID): run 7f3a9c (world size 2, 2 traces: node0.100.vtrace, "
                 "node0.101.vtrace, started 2026-11-30T10:00:00.000Z); run b20e41 (world size 3, "
                 "3 traces: node0.200.vtrace, node0.201.vtrace, node0.202.vtrace, started "
                 "2026-11-30T10:01:00.000Z)"));
}

TEST_CASE("run identity: children, Slurm steps and worker groups are one run") {
  ScratchDir dir;
  // Ranks 0 and 1; rank 0 forked a worker and exec'd a helper (both inherit
  // RANK=0); a second Slurm step of the same job ran ranks 0 and 1 again;
  // a second worker group (its own rendezvous and torchrun run id) has ranks 0 and 1 too.
  WriteTrace(dir, {.pid = 100, .rank = 0, .world_size = 2, .slurm_job = "7", .slurm_step = "0"});
  WriteTrace(dir, {.pid = 101, .rank = 1, .world_size = 2, .slurm_job = "7", .slurm_step = "0"});
  WriteTrace(dir, {.pid = 102,
                   .ppid = 100,
                   .rank = 0,
                   .world_size = 2,
                   .slurm_job = "7",
                   .slurm_step = "0",
                   .forked_child = true});
  WriteTrace(
      dir,
      {.pid = 103, .ppid = 100, .rank = 0, .world_size = 2, .slurm_job = "7", .slurm_step = "0"});
  WriteTrace(dir, {.pid = 200,
                   .rank = 0,
                   .world_size = 2,
                   .slurm_job = "7",
                   .slurm_step = "1",
                   .torchrun_run = "first"});
  WriteTrace(dir, {.pid = 201,
                   .rank = 1,
                   .world_size = 2,
                   .slurm_job = "7",
                   .slurm_step = "1",
                   .torchrun_run = "first"});
  WriteTrace(dir, {.pid = 300,
                   .rank = 0,
                   .world_size = 2,
                   .slurm_job = "7",
                   .slurm_step = "1",
                   .master_port = "29600",
                   .torchrun_run = "second"});
  WriteTrace(dir, {.pid = 301,
                   .rank = 1,
                   .world_size = 2,
                   .slurm_job = "7",
                   .slurm_step = "1",
                   .master_port = "29600",
                   .torchrun_run = "second"});
  const Listing listing = List(dir);
  CHECK(listing.listed);
  CHECK(listing.status == kExitOk);
  CHECK(listing.err.empty());
}

TEST_CASE("run identity: ranks without a trace are named, the traces present are used") {
  ScratchDir dir;
  // World size 8, traces of ranks 0, 2, 3 and 7: missing 1 and 4-6, 4 of 8.
  for (const int32_t rank : {0, 2, 3, 7}) {
    WriteTrace(dir, {.pid = 100 + static_cast<uint32_t>(rank), .rank = rank, .world_size = 8});
  }
  const Listing listing = List(dir);
  CHECK(listing.listed);
  CHECK(listing.status == kExitOk);
  CHECK(Contains(listing.err,
                 "ranks missing: world size 8, rendezvous node0:29500: no trace of "
                 "ranks 1, 4-6 (4 of 8 missing); the report covers the traces present"));
}

}  // namespace
}  // namespace vprof::reporter
