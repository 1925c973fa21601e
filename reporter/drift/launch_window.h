// The GPU kernels one process launched in a window of its host clock, read
// from its trace for the drift audit. A kernel is placed by the CUDA API call
// that launched it (the ApiCall record with its correlation id, which the
// light capture keeps for launches), not by when the GPU ran it: the GPU runs
// behind the host.
//
// Bounded: the trace is streamed twice, the first pass keeping the
// correlation ids of the calls made in the window, the second counting the
// kernels they launched by name, grid and block; what is kept grows with the
// launches of the window and the kinds of kernel, not with the trace.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vprof::reporter {

// Launches of one kernel with one grid and block (zeros: not recorded).
struct KernelLaunches {
  std::string name;  // as CUPTI reports it
  std::array<uint32_t, 3> grid{}, block{};
  uint64_t count = 0;
  uint64_t first_ns = 0;  // when the first of them was launched
};

struct LaunchWindow {
  std::string problem;                   // non-empty: the trace could not be read whole
  bool kernels_in_trace = false;         // any kernel record at all
  bool launches_in_trace = false;        // any CUDA API record at all
  uint64_t dropped_in_trace = 0;         // GPU records CUPTI dropped, the whole trace
  uint64_t kernels = 0;                  // launched in the window, vprof's own left out
  uint64_t graph_replays = 0;            // CUDA-graph replays recorded whole (no kernel names)
  std::vector<KernelLaunches> launches;  // in the order of their first launch
};

// The kernels of `path` launched after `after_ns` and up to `until_ns`.
LaunchWindow ReadLaunchWindow(const std::string& path, uint64_t after_ns, uint64_t until_ns);

}  // namespace vprof::reporter
