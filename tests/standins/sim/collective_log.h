// Ground truth for the profiler's tests: every NCCL collective call the simulated program makes,
// timed with CLOCK_MONOTONIC just before and just after the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "monotonic_clock.h"
#include "nccl.h"

namespace sim {

class CollectiveLog {
 public:
  // Times `call` (which makes one NCCL collective call of `count` elements of `dtype_bytes` on
  // the communicator named `comm` with `nranks` ranks) and records it.
  template <typename Call>
  ncclResult_t Record(const char* op, const char* comm, int nranks, size_t count,
                      size_t dtype_bytes, Call call) {
    const uint64_t enter_ns = standins::MonotonicNs();
    const ncclResult_t result = call();
    const uint64_t exit_ns = standins::MonotonicNs();
    Add({op, comm, 0, count, dtype_bytes, nranks, enter_ns, exit_ns});
    return result;
  }

  // Calls of `op` recorded so far.
  int Count(const std::string& op) const;
  // Writes one JSON object per call, in call order:
  //   {"op":...,"comm":...,"seq":<1-based per communicator>,"count":...,"dtype_bytes":...,
  //    "bytes":<count*dtype_bytes>,"nranks":...,"enter_ns":...,"exit_ns":...}
  bool WriteJsonLines(const std::string& path) const;

 private:
  struct Entry {
    std::string op;
    std::string comm;
    int seq;
    size_t count;
    size_t dtype_bytes;
    int nranks;
    uint64_t enter_ns;
    uint64_t exit_ns;
  };
  void Add(Entry entry);

  // Calls come from the main and the communication thread (never at once on one communicator).
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
  std::map<std::string, int> calls_per_comm_;
};

}  // namespace sim
