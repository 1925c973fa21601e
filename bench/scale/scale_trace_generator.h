// Writes synthetic trace files shaped like a data-parallel training job, for
// the reporter's scale benchmark and its tests: per rank and step, NCCL
// collectives on a few communicators (the same seqs on every member), the
// GPU kernels, API calls and copies around them (NCCL kernels tied to their
// calls by ExternalCorrelation, as CUPTI writes them), and NVTX step,
// forward, backward and optimizer ranges. Deterministic for a given seed.
#pragma once

#include <cstdint>
#include <string>

namespace vprof::bench {

struct ScaleShape {
  uint32_t ranks = 8;
  uint64_t events_per_rank = 100'000;  // rounded up to whole steps
  uint32_t ranks_per_host = 8;
  uint64_t seed = 1;
};

// What one step of one rank holds. Events are the records the benchmark
// counts: NcclEvent, GpuKernel, GpuMemcpy, ApiCall and NvtxRange.
struct StepContents {
  uint32_t collectives = 0;      // NcclEvents, each with one API call and one NCCL kernel
  uint32_t compute_kernels = 0;  // each with one cudaLaunchKernel API call
  uint32_t memcpys = 0;          // each with one cudaMemcpyAsync API call
  uint32_t nvtx_ranges = 4;      // step, forward, backward, optimizer
  uint64_t events() const {
    return 3ULL * collectives + 2ULL * compute_kernels + 2ULL * memcpys + nvtx_ranges;
  }
};

// The communicators and the step for `shape`: every rank's steps are alike.
StepContents StepContentsFor(const ScaleShape& shape);
uint64_t StepsFor(const ScaleShape& shape);

struct GeneratedTraces {
  uint64_t files = 0;
  uint64_t events = 0;  // over all files
  uint64_t bytes = 0;
};

// Writes `shape.ranks` files into `directory` (which must exist). Throws
// std::runtime_error when a file cannot be written.
GeneratedTraces WriteScaleTraces(const std::string& directory, const ScaleShape& shape);

}  // namespace vprof::bench
