// How long a call takes in the stand-in: latency plus the nccl-tests bus-bandwidth model,
//   simulated_ns = latency_ns + S * busfactor / busbw
// with S and busfactor as nccl-tests define them (see README.md), so that a profiler measuring
// the span from the last rank's arrival to the exit recovers busbw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "operation.h"

namespace fake_nccl {

struct TimingModel {
  double latency_ns = 5'000;             // FAKE_NCCL_LATENCY_US, default 5
  double busbw_bytes_per_ns = 20.0;      // FAKE_NCCL_BUSBW_GBPS (1 GB/s = 1 byte/ns), default 20
  uint64_t timeout_ns = 60'000'000'000;  // FAKE_NCCL_TIMEOUT_S, default 60
  // FAKE_NCCL_KERNELS=1: a collective runs as a kernel on the caller's stream and the call
  // returns once it is queued, as on real NCCL; default 0, host-blocking (README.md).
  bool collectives_on_stream = false;

  // Reads the environment; fails (with a message) on a malformed or non-positive value.
  static ncclResult_t FromEnvironment(TimingModel* model);

  uint64_t SimulatedNs(OpKind kind, size_t count, size_t type_bytes, int nranks) const;
  // "timeout after <N> s", the start of every timeout message.
  std::string TimeoutText() const;
};

}  // namespace fake_nccl
