// cudaGetErrorName and cudaGetErrorString for the codes the fake runtime returns, plus the
// ones callers commonly print.
#include <cuda_runtime_api.h>

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* description;
};

constexpr ErrorText kErrorTexts[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid configuration argument"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
     "invalid copy direction for memcpy"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "operation not valid in the present state"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not allowed while the stream captures a graph"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
     "the stream's capture was broken by an earlier operation"},
    {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation",
     "a capture may not depend on work outside it"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorText* Find(cudaError_t error) {
  for (const ErrorText& text : kErrorTexts) {
    if (text.code == error) return &text;
  }
  return nullptr;
}

}  // namespace

// The library is built with hidden visibility; exactly the CUDA API is exported.
#pragma GCC visibility push(default)
extern "C" {

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* text = Find(error);
  return text != nullptr ? text->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* text = Find(error);
  return text != nullptr ? text->description : "unrecognized error code";
}

}  // extern "C"
#pragma GCC visibility pop
