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
