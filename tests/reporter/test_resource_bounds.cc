// Counts read from a trace are checked before anything is sized by them: a
// comm_size, comm_rank or world_size no NCCL world has gives a message naming
// the file, the field and what was expected, instead of exhausting memory; so
// does a packet's declared length. What the report writes grows with what the
// traces hold, not with a size they declare: ranks as runs, names cut.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.h"
#include "mini_json.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/rank_bounds.h"
#include "reporter/collectives/collective_matcher.h"
#include "reporter/trace/trace_names.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"
#include "unwrapped.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint64_t kComm = 0xabc;

// Two ranks of one all-reduce of 4 KiB (enters 100 and 300, exits 1000),
// rank 1's batch also holding `extra`, an event the test damages.
void WriteRunWithExtraEvent(const std::string& directory, uint32_t extra_comm_size,
                            uint32_t extra_comm_rank) {
  for (uint32_t rank = 0; rank < 2; ++rank) {
    TraceFileBuilder trace("node0", 10 + rank);
    trace.AddCommunicator(kComm, 2, rank, "ncclCommInitRank");
    std::vector<vprof::trace::NcclEvent> events = {
        trace.Event("ncclAllReduce", kComm, 2, rank, 1, 4096, 100 + 200 * rank, 1000)};
    if (rank == 1) {
      events.push_back(trace.Event("ncclAllReduce", 0xdef, extra_comm_size, extra_comm_rank, 1,
                                   4096, 2000, 3000));
    }
    trace.AddBatch(events);
    trace.AddFooter();
    trace.WriteTo(directory + "/rank" + std::to_string(rank) + ".vtrace");
  }
}

}  // namespace

TEST_CASE("a comm_size of 2^32 - 1 is named with its file and field, the rest reported, exit 3") {
  ScratchDir dir;
  WriteRunWithExtraEvent(dir.path(), UINT32_MAX, 0);
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  CHECK(result.status == kExitInputNotWhole);
  CHECK(Contains(result.err, "rank1.vtrace: 1 NCCL event out of bounds, not used"));
  CHECK(Contains(result.err, "field comm_size: expected at most 1048576 ranks, got 4294967295"));
  // The whole all-reduce is still matched: time = max exit − max enter.
  CHECK(Contains(result.out, "\"total_time_ns\": 700"));
}

TEST_CASE("a comm_rank not below comm_size is named, exit 3") {
  ScratchDir dir;
  WriteRunWithExtraEvent(dir.path(), 8, UINT32_MAX);
  const CliResult result = Run({"report", dir.path()});
  CHECK(result.status == kExitInputNotWhole);
  CHECK(Contains(result.err, "field comm_rank: expected below comm_size 8, got 4294967295"));
}

TEST_CASE("a world_size of 2^31 - 1 is named and taken as unknown; the report is made") {
  ScratchDir dir;
  for (int32_t rank = 0; rank < 2; ++rank) {
    TraceFileBuilder trace(
        RankHeader("node0", 10 + static_cast<uint32_t>(rank), rank, rank == 0 ? INT32_MAX : 2));
    trace.AddBatch(
        {trace.Event("ncclAllReduce", kComm, 2, static_cast<uint32_t>(rank), 1, 4096, 100, 1000)});
    trace.AddFooter();
    trace.WriteTo(dir.path() + "/rank" + std::to_string(rank) + ".vtrace");
  }
  const CliResult result = Run({"report", dir.path()});
  CHECK(result.status == kExitOk);
  CHECK(Contains(result.err,
                 "rank0.vtrace: field rank.world_size: expected at most 1048576 ranks, got "
                 "2147483647; world size taken as unknown"));
  CHECK_FALSE(Contains(result.err, "ranks missing"));  // rank 1's world of 2 is whole
}

TEST_CASE("the matcher sizes nothing by a comm_size or comm_rank out of bounds") {
  CollectiveMatcher matcher(2);
  const auto call = [](uint32_t comm_size, uint32_t comm_rank) {
    return CollectiveCall{kComm, 1,    NcclFunction::kAllReduce,       comm_size,
                          {},    4096, Arrival{0, comm_rank, 100, 200}};
  };
  CHECK_FALSE(matcher.Add(call(kMostRanks + 1, 0)));
  CHECK_FALSE(matcher.Add(call(4, 4)));
  CHECK(matcher.pending_count() == 0);
  // In bounds, the highest rank of a world of 2^20 waits for the others.
  CHECK_FALSE(matcher.Add(call(kMostRanks, kMostRanks - 1)));
  CHECK(matcher.pending_count() == 1);
}

TEST_CASE("a packet declaring 1.9 GB is named with its file and offset, the rest reported") {
  ScratchDir dir;
  WriteRunWithExtraEvent(dir.path(), 2, 1);
  // Rank 1's trace gains a frame that declares 1.9e9 bytes; the file is made that long
  // (sparse), so the frame is not a cut.
  const std::string rank1 = dir.path() + "/rank1.vtrace";
  const uint64_t hostile_at = std::filesystem::file_size(rank1);
  const std::string frame = "\x0a\x80\xe6\xfe\x89\x07";  // tag, then 1,900,000,000
  std::ofstream(rank1, std::ios::binary | std::ios::app) << frame;
  std::filesystem::resize_file(rank1, hostile_at + frame.size() + 1'900'000'000);
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  INFO(result.err);
  CHECK(result.status == kExitInputNotWhole);
  CHECK(Contains(result.err, "rank1.vtrace: corrupt packet at byte " + std::to_string(hostile_at) +
                                 ": it declares 1900000000 bytes (1.77 GiB; limit 64.0 MiB a "
                                 "packet); using the 6 packets before it"));
  // Both ranks' all-reduce is matched, rank 1's Footer included before the frame.
  CHECK(Contains(result.out, "\"total_time_ns\": 700"));
}

TEST_CASE("missing ranks of huge communicators are written as runs: the report stays small") {
  ScratchDir dir;
  // One trace, rank 3 of 4 communicators of 2^20 ranks each, two collectives on each (two
  // incomplete runs per communicator): every other rank is missing from each.
  constexpr uint32_t kSize = kMostRanks;
  TraceFileBuilder trace("node0", 10);
  std::vector<vprof::trace::NcclEvent> events;
  for (uint64_t comm = 1; comm <= 4; ++comm) {
    trace.AddCommunicator(comm, kSize, 3, "ncclCommInitRank");
    events.push_back(trace.Event("ncclAllReduce", comm, kSize, 3, 1, 4096, 100, 200));
    events.push_back(trace.Event("ncclBroadcast", comm, kSize, 3, 2, 4096, 300, 400));
  }
  trace.AddBatch(events);
  trace.AddFooter();
  trace.WriteTo(dir.File("node0.10.vtrace"));
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  CHECK(result.status == kExitOk);
  CHECK(result.out.size() < 64 * 1024);  // a list of ranks would be 8 × 2^20 numbers
  const JsonValue report = JsonValue::Parse(result.out);
  const JsonValue& comm = report["communicators"][3];
  CHECK(comm["ranks_seen"][0].string() == "3");
  const JsonValue& run = comm["incomplete"][1];
  CHECK(run["seen_comm_ranks"][0].string() == "3");
  CHECK(run["missing_comm_ranks"].array().size() == 2);
  CHECK(run["missing_comm_ranks"][0].string() == "0-2");
  CHECK(run["missing_comm_ranks"][1].string() == "4-1048575");
  const CliResult text = Run({"report", dir.path()});
  INFO(text.out);
  CHECK(Contains(Unwrapped(text.out), "missing comm ranks: 0-2, 4-1048575"));
}

TEST_CASE("a name of the limit is kept whole; one byte more, it is cut between characters") {
  const std::string at_limit(kMaxNameBytes, 'n');
  CHECK(TraceName(at_limit) == at_limit);
  // kMaxNameBytes + 1 bytes, "é" (two bytes) across the cut, which keeps kMaxNameBytes - 3
  // bytes for "…" (three): the "é" goes whole.
  const std::string past = std::string(kMaxNameBytes - 4, 'n') + "\xc3\xa9xyz";
  REQUIRE(past.size() == kMaxNameBytes + 1);
  CHECK(TraceName(past) == std::string(kMaxNameBytes - 4, 'n') + "…");
}

TEST_CASE("a name of 1 MiB is cut to 8 KiB as it is read: the report does not repeat it whole") {
  ScratchDir dir;
  // Its host name is in every communicator's member row: 64 of them.
  const std::string host(1 << 20, 'h');
  TraceFileBuilder trace(host, 10);
  std::vector<vprof::trace::NcclEvent> events;
  for (uint64_t comm = 1; comm <= 64; ++comm) {
    trace.AddCommunicator(comm, 1, 0, "ncclCommInitRank");
    events.push_back(trace.Event("ncclAllReduce", comm, 1, 0, 1, 4096, 100, 200));
  }
  trace.AddBatch(events);
  trace.AddFooter();
  trace.WriteTo(dir.File("node0.10.vtrace"));
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  CHECK(result.status == kExitOk);
  // 66 copies of the name (64 members, the process, the hosts) and 100 KB besides: 66 MiB with
  // the name whole.
  CHECK(result.out.size() < (1 << 20));
  const JsonValue report = JsonValue::Parse(result.out);
  const std::string& shown = report["communicators"][63]["members"][0]["host"].string();
  CHECK(shown.size() == kMaxNameBytes);
  CHECK(shown == std::string(kMaxNameBytes - 3, 'h') + "…");
}
