// Element types and reduction arithmetic on host buffers.
#pragma once

#include <cstddef>

#include "nccl.h"

namespace fake_nccl {

bool IsValidType(ncclDataType_t type);
size_t TypeSize(ncclDataType_t type);

// What a collective's ncclRedOp_t means once resolved against the communicator: a built-in
// operation, or ncclRedOpCreatePreMulSum's "scale each rank's input, then sum".
struct Reduction {
  ncclRedOp_t op = ncclSum;  // the built-in operation applied across ranks
  bool pre_multiply = false;
  // ncclScalarDevice: read when the collective runs ("device" memory is host memory).
  const void* scalar_source = nullptr;
  // ncclScalarHostImmediate: copied when the operation was created.
  alignas(8) std::byte scalar[8] = {};

  const void* Scalar() const { return scalar_source != nullptr ? scalar_source : scalar; }
};

// dst[i] = src[i] * scalar, with scalar of the same type.
void CopyScaled(void* dst, const void* src, size_t count, ncclDataType_t type, const void* scalar);
// acc[i] = acc[i] (op) in[i]; ncclAvg accumulates as a sum.
void Accumulate(void* acc, const void* in, size_t count, ncclDataType_t type, ncclRedOp_t op);
// data[i] /= divisor (the last step of ncclAvg).
void Divide(void* data, size_t count, ncclDataType_t type, int divisor);

}  // namespace fake_nccl
