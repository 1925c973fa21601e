// A collective call's shape as the wrappers saw it: function, data type,
// reduction op, element count and communicator size. Requested vs actual
// (provenance.h) shows which shapes each rank issued: a change of data type,
// reduction or shard layout (the count each rank passes) changes the run's
// actual fingerprint, however often each shape was called.
#pragma once

#include <compare>
#include <cstdint>
#include <map>

#include "reporter/collectives/nccl_function.h"

namespace vprof::reporter {

struct CollectiveShape {
  NcclFunction function = NcclFunction::kUnknown;
  int32_t datatype = -1;  // ncclDataType_t; -1 when the call has none
  int32_t red_op = -1;    // ncclRedOp_t; -1 when the call has none
  uint64_t count = 0;     // elements, as passed to the call
  uint32_t comm_size = 0;

  auto operator<=>(const CollectiveShape&) const = default;
};

// A process's collective calls by shape. Shapes past kMaxShapes (a program
// whose counts change every call, as with variable sequence lengths) are
// counted, not kept: the report says how many calls it left out.
struct CollectiveShapes {
  static constexpr size_t kMaxShapes = 4096;

  std::map<CollectiveShape, uint64_t> calls;
  uint64_t calls_left_out = 0;

  void Add(const CollectiveShape& shape, uint64_t n = 1) {
    const auto found = calls.find(shape);
    if (found != calls.end()) {
      found->second += n;
    } else if (calls.size() < kMaxShapes) {
      calls.emplace(shape, n);
    } else {
      calls_left_out += n;
    }
  }
};

}  // namespace vprof::reporter
