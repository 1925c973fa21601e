// The fixed-size record an NCCL wrapper writes on the hot path. The writer
// thread turns it into an NcclEvent of the trace schema.
#pragma once

#include <cstdint>

namespace vprof {

struct NcclRecord {
  uint64_t enter_ns;
  uint64_t exit_ns;
  uint64_t comm_id;  // 0: the call has no communicator
  uint64_t seq;
  uint64_t count;
  uint64_t stream;
  uint64_t bytes;
  uint64_t call_id;  // external correlation id pushed to CUPTI; 0: none
  int32_t red_op;
  int32_t root;
  int32_t peer;
  int32_t result;
  uint32_t comm_size;
  uint32_t comm_rank;
  uint16_t function;  // row of the NCCL table (NcclFn)
  int8_t datatype;    // ncclDataType_t; kNone when the call has none
  uint8_t group_depth;
  uint8_t has;  // which optional fields are set (Has* bits)
  // Collective fingerprints (interpose/audit/collective_audit.h): the result slots of
  // the input's and the output's, 0 when none, and what became of each
  // (interpose/audit/fingerprinter.h FingerprintState; 0: not asked for).
  uint8_t fp_input_state;
  uint8_t fp_output_state;
  uint32_t fp_input;
  uint32_t fp_output;

  static constexpr uint8_t kHasDatatype = 1, kHasRedOp = 2, kHasRoot = 4, kHasPeer = 8;
};
static_assert(sizeof(NcclRecord) <= 104, "keep the hot-path record small");

}  // namespace vprof
