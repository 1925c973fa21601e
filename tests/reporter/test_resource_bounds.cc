// Counts read from a trace are checked before anything is sized by them: a
// comm_size, comm_rank or world_size no NCCL world has gives a message naming
// the file, the field and what was expected, instead of exhausting memory.
#include <catch2/catch.hpp>
#include <string>

#include "cli_runner.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/rank_bounds.h"
#include "reporter/collectives/collective_matcher.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

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
