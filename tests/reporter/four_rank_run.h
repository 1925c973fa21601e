// A small traced run, written as trace files into a directory, whose every
// timing is known: the fixture most reporter tests read back.
#pragma once

#include <cstdint>
#include <string>

namespace vprof::reporter::testing {

// Communicator 0xabc of 4 ranks (processes node1.101 ... node1.104, ranks
// 0-3) created by ncclCommInitRank (taking 100, 200, 300, 400 ns), then:
//   seq 1  ncclAllReduce 1 MiB: enters 1000 1100 1300 1050, exits 101250 101300 101280 101260
//          → time 100 µs, arrival skew 300 ns, exit skew 50 ns, rank 2 last
//   seq 2  ncclAllReduce 1 MiB: enters 200000 200100 200400 200200, exits all 250400
//          → time 50 µs, arrival skew 400 ns, exit skew 0, rank 2 last
//   seq 3  ncclAllReduce 4 KiB: enters 300000 300010 300500 300020, exits all 301500
//          → time 1 µs, arrival skew 500 ns, rank 2 last
//   seq 4  ncclAllGather 256 KiB per rank: enters 400000 ×3, rank 3 at 400800, exits all 410800
//          → time 10 µs, arrival skew 800 ns, rank 3 last
// and ncclCommDestroy (5 ns each). Plus a launcher, node1.100, with no NCCL
// events. `skip_rank` leaves that rank's file out.
inline constexpr uint64_t kFourRankComm = 0xabc;
void WriteFourRankRun(const std::string& directory, int skip_rank = -1);

// The file name of rank r's trace in that run.
std::string FourRankFile(int rank);

}  // namespace vprof::reporter::testing
