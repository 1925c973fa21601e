// Message size and bandwidth as nccl-tests defines them (its doc/PERFORMANCE.md),
// so numbers from a traced job compare directly with nccl-tests runs.
#pragma once

#include <cstdint>
#include <optional>

#include "reporter/collectives/nccl_function.h"

namespace vprof::reporter {

// S, the size nccl-tests reports: an event's `bytes` (count × type size as
// passed) for all-reduce, broadcast, reduce and send/recv; that times the rank
// count for all-gather, reduce-scatter, all-to-all, gather and scatter, whose
// count is per rank. Saturates instead of wrapping on absurd inputs.
uint64_t CollectiveSizeBytes(NcclFunction op, uint64_t event_bytes, uint32_t nranks);

// busbw / algbw: 2(n−1)/n for all-reduce; (n−1)/n for reduce-scatter,
// all-gather, all-to-all, gather and scatter; 1 otherwise.
double BusFactor(NcclFunction op, uint32_t nranks);

// algbw = S / time in GB/s (1 GB/s = 1e9 B/s = 1 B/ns); none for zero time.
std::optional<double> AlgorithmBandwidthGBps(uint64_t size_bytes, int64_t time_ns);

}  // namespace vprof::reporter
