// What the bench's CUPTI probes (graph_trace/, callback_probe/) share: the
// activity functions each looks up in the program's libcupti, and the
// buffers it gives CUPTI (freed by the probe's completion callback).
#pragma once

#include <cupti.h>

#include <cstdint>
#include <cstdlib>

namespace cupti_probe {

using EnableKindFn = CUptiResult (*)(CUpti_ActivityKind);
using RegisterFn = CUptiResult (*)(CUpti_BuffersCallbackRequestFunc,
                                   CUpti_BuffersCallbackCompleteFunc);
using NextFn = CUptiResult (*)(uint8_t*, size_t, CUpti_Activity**);
using FlushFn = CUptiResult (*)(uint32_t);

inline constexpr size_t kBufferBytes = 8 << 20;

inline void OnRequest(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = kBufferBytes;
  *max_records = 0;
}

}  // namespace cupti_probe
