// CUPTI activity records → trace schema messages (GpuBatch members).
//
// Pure functions over one record at a time, so unit tests can build real
// CUPTI records in memory and check the encoding field by field.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string_view>

#include "interpose/core/proto_encoder.h"

namespace vprof {

// The name a record carries, to be interned before the record is encoded:
// a kernel's function name, or an API call's name (looked up through
// get_callback_name). Empty for records without one.
using CallbackNameFn = CUptiResult(CUPTIAPI*)(CUpti_CallbackDomain, uint32_t, const char**);
std::string_view ActivityName(const CUpti_Activity* record, CallbackNameFn get_callback_name);

// Appends the record to the GpuBatch being built in enc (the caller has
// begun the GpuBatch message). name_iid: the interned ActivityName().
// Returns false for a kind vprof does not record (nothing is written).
bool EncodeActivity(ProtoEncoder& enc, const CUpti_Activity* record, uint64_t name_iid);

// Upper bound of what EncodeActivity writes for one record.
inline constexpr size_t kMaxEncodedActivityBytes = 192;

}  // namespace vprof
