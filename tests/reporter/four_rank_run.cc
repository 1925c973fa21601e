#include "four_rank_run.h"

#include <array>

#include "trace_file_builder.h"

namespace vprof::reporter::testing {

std::string FourRankFile(int rank) { return "node1." + std::to_string(101 + rank) + ".vtrace"; }

void WriteFourRankRun(const std::string& directory, int skip_rank) {
  constexpr std::array<std::array<uint64_t, 4>, 4> kEnter = {{
      {1000, 1100, 1300, 1050},
      {200000, 200100, 200400, 200200},
      {300000, 300010, 300500, 300020},
      {400000, 400000, 400000, 400800},
  }};
  constexpr std::array<std::array<uint64_t, 4>, 4> kExit = {{
      {101250, 101300, 101280, 101260},
      {250400, 250400, 250400, 250400},
      {301500, 301500, 301500, 301500},
      {410800, 410800, 410800, 410800},
  }};
  for (uint32_t rank = 0; rank < 4; ++rank) {
    if (static_cast<int>(rank) == skip_rank) continue;
    // No rank in the header: the reporter takes it from the communicator.
    TraceFileBuilder trace("node1", 101 + rank);
    // As the capture side does: the creating call's event, and a Communicator
    // packet with the same times.
    const uint64_t init_end = 10 + 100 * (rank + 1);
    trace.AddCommunicator(kFourRankComm, 4, rank, "ncclCommInitRank", 10, init_end);
    trace.AddBatch({trace.Event("ncclCommInitRank", kFourRankComm, 4, rank, 0, 0, 10, init_end)});
    trace.AddBatch({
        trace.Event("ncclAllReduce", kFourRankComm, 4, rank, 1, 1 << 20, kEnter[0][rank],
                    kExit[0][rank]),
        trace.Event("ncclAllReduce", kFourRankComm, 4, rank, 2, 1 << 20, kEnter[1][rank],
                    kExit[1][rank]),
    });
    trace.AddBatch({
        trace.Event("ncclAllReduce", kFourRankComm, 4, rank, 3, 4096, kEnter[2][rank],
                    kExit[2][rank]),
        trace.Event("ncclAllGather", kFourRankComm, 4, rank, 4, 256 << 10, kEnter[3][rank],
                    kExit[3][rank]),
        trace.Event("ncclCommDestroy", kFourRankComm, 4, rank, 0, 0, 500000, 500005),
    });
    trace.AddFooter();
    trace.WriteTo(directory + "/" + FourRankFile(static_cast<int>(rank)));
  }
  TraceFileBuilder launcher("node1", 100);
  launcher.AddFooter();
  launcher.WriteTo(directory + "/node1.100.vtrace");
}

}  // namespace vprof::reporter::testing
