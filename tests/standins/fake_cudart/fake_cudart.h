// What the fake NCCL and the fake driver call in the fake CUDA runtime. Real libnccl links the CUDA
// runtime statically, so its own CUDA calls are invisible to an LD_PRELOAD interposer such as
// vprof. The fake NCCL keeps that property by calling these C++ functions, which no interposer
// defines, instead of the exported cuda* symbols.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

namespace fake_cudart {

// cudaStreamSynchronize without going through the exported symbol.
__attribute__((visibility("default"))) cudaError_t SynchronizeStream(cudaStream_t stream);

// cudaStreamCreate and cudaStreamDestroy without going through the exported symbols (the fake
// driver's cuStreamCreate and cuStreamDestroy). Destroy: false for an unknown stream.
__attribute__((visibility("default"))) cudaStream_t CreateStreamHandle();
__attribute__((visibility("default"))) bool DestroyStreamHandle(cudaStream_t stream);

// The fake driver's events (cuEventCreate, cuEventRecord, cuEventElapsedTime, cuEventDestroy), on
// the runtime's, without the exported symbols. Record and ElapsedMs answer as cudaEventRecord and
// cudaEventElapsedTime do; Destroy: false for an unknown event.
__attribute__((visibility("default"))) cudaEvent_t CreateTimedEvent();
__attribute__((visibility("default"))) cudaError_t RecordEvent(cudaEvent_t event,
                                                               cudaStream_t stream);
__attribute__((visibility("default"))) cudaError_t ElapsedMs(float* ms, cudaEvent_t start,
                                                             cudaEvent_t end);
__attribute__((visibility("default"))) bool DestroyEventHandle(cudaEvent_t event);

// The calling thread's device, as cudaGetDevice reports it.
__attribute__((visibility("default"))) int CurrentDevice();

// The fake driver's cuStreamIsCapturing: whether `stream` is between cudaStreamBeginCapture and
// cudaStreamEndCapture (false for a dead stream).
__attribute__((visibility("default"))) bool StreamCapturing(cudaStream_t stream);

// The fake driver's cuLaunchKernel: queues a kernel called `name` on `stream` whose `body` runs
// on the host when the stream reaches it. cudaErrorInvalidResourceHandle for a dead stream.
__attribute__((visibility("default"))) cudaError_t EnqueueKernel(cudaStream_t stream,
                                                                 const char* name,
                                                                 std::function<void()> body);

}  // namespace fake_cudart
