// A traced run over two hosts whose clocks differ, written as trace files:
// the fixture for summarizing node by node. Hosts n1 (ranks 0, 1, a launcher
// and a worker that reaches NCCL only through a handle vprof does not wrap)
// and n2 (ranks 2, 3); a world communicator spanning both, one communicator
// inside each host, sends within a host and across hosts, ties for the last
// arrival, teardowns, GPU activity linked to the calls, and rank 3's trace
// cut short so some world collectives stay incomplete. Every process runs
// with NCCL's profiler plugin and asks NCCL for settings in its environment,
// and each departs from what the wrappers saw or what it asked in its own
// way (lost plugin events, graph captures, another protocol, custom
// all-reduce over CUDA IPC), so the coverage and consistency sections have
// something to say. Each step is also NVTX ranges (step, forward,
// backward, one of NCCL's own), for the phases section. Times come from a fixed-seed generator.
#pragma once

#include <string>

namespace vprof::reporter::testing {

inline constexpr char kFirstHost[] = "n1";
inline constexpr char kSecondHost[] = "n2";

void WriteTwoNodeRun(const std::string& directory);

}  // namespace vprof::reporter::testing
