// Fake libcuda.so.1: the driver functions vprof's kernels use
// (interpose/core/cuda_driver_functions.def), with cuda.h's signatures, over the fake
// runtime's streams. It knows vprof's two kernels: vprof_fingerprint, run on
// the host with interpose/core/fingerprint_hash.h when the stream reaches it, writing
// its result the way fingerprint_kernel.cu does (value, then tag), and the
// launch-cost calibration's: the empty vprof_calibrate, which takes no
// parameters, and vprof_calibrate_wait(ns), which sleeps that long. "Device"
// memory is host memory, as in the fake runtime. A module image that is not
// a fatbin, an unknown function, a bad launch configuration or an unknown
// stream fail with the driver's codes. A stream is capturing between the fake runtime's
// cudaStreamBeginCapture and cudaStreamEndCapture. The graph functions of
// cupti/graph_driver_functions.def read the fake runtime's graphs: a node is a kernel
// (named as its records name it), a memcpy node or a memset node.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "activity_hooks.h"
#include "fake_cudart.h"
#include "interpose/core/fingerprint_hash.h"

namespace {

constexpr uint32_t kFatbinMagic = 0xba55ed50;
constexpr int kMultiprocessors = 4;

// Handles: addresses of these, so no real pointer is ever mistaken for one.
char g_module;
char g_function;
char g_calibrate_function;
char g_wait_function;
char g_contexts[64];

CUresult Status(cudaError_t e) {
  return e == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// A graph node handed out by cuGraphGetNodes. A kernel node's CUfunction is the node's own
// handle. Kept for the process's life (a graph's nodes are read once, at its instantiation).
std::mutex g_nodes_lock;
std::deque<FakeGraphNode> g_nodes;

// The node behind a handle cuGraphGetNodes gave, or null.
const FakeGraphNode* FindNode(const void* handle) {
  const std::lock_guard<std::mutex> lock(g_nodes_lock);
  for (const FakeGraphNode& node : g_nodes) {
    if (&node == handle) return &node;
  }
  return nullptr;
}

void* Allocate(size_t bytes) { return std::aligned_alloc(256, (bytes + 255) / 256 * 256); }

// vprof_fingerprint(data, bytes, sums, slot, tag): the kernel's parameters.
void RunFingerprint(const unsigned char* data, uint64_t bytes, uint64_t* slot, uint64_t tag) {
  const uint64_t value = vprof::fingerprint::FingerprintBytes(data, bytes);
  std::atomic_ref<uint64_t>(slot[0]).store(value, std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(slot[1]).store(tag, std::memory_order_release);
}

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = error == CUDA_SUCCESS ? "no error" : "fake driver error";
  return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream, CUcontext* pctx) {
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const int device = fake_cudart::CurrentDevice();
  if (device < 0 || device >= static_cast<int>(sizeof g_contexts))
    return CUDA_ERROR_INVALID_CONTEXT;
  *pctx = reinterpret_cast<CUcontext>(&g_contexts[device]);
  return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  if (captureStatus == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *captureStatus = fake_cudart::StreamCapturing(reinterpret_cast<cudaStream_t>(hStream))
                       ? CU_STREAM_CAPTURE_STATUS_ACTIVE
                       : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  return ctx == nullptr ? CUDA_ERROR_INVALID_CONTEXT : CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  if (pctx != nullptr) *pctx = nullptr;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *device = fake_cudart::CurrentDevice();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice) {
  if (pi == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (attrib != CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) return CUDA_ERROR_INVALID_VALUE;
  *pi = kMultiprocessors;
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  if (magic != kFatbinMagic) return CUDA_ERROR_INVALID_IMAGE;
  *module = reinterpret_cast<CUmodule>(&g_module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  if (hfunc == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (hmod != reinterpret_cast<CUmodule>(&g_module)) return CUDA_ERROR_INVALID_HANDLE;
  if (std::strcmp(name, "vprof_fingerprint") == 0) {
    *hfunc = reinterpret_cast<CUfunction>(&g_function);
  } else if (std::strcmp(name, "vprof_calibrate") == 0) {
    *hfunc = reinterpret_cast<CUfunction>(&g_calibrate_function);
  } else if (std::strcmp(name, "vprof_calibrate_wait") == 0) {
    *hfunc = reinterpret_cast<CUfunction>(&g_wait_function);
  } else {
    return CUDA_ERROR_NOT_FOUND;
  }
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule hmod) {
  return hmod == reinterpret_cast<CUmodule>(&g_module) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  if (phStream == nullptr || (Flags != CU_STREAM_DEFAULT && Flags != CU_STREAM_NON_BLOCKING)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *phStream = reinterpret_cast<CUstream>(fake_cudart::CreateStreamHandle());
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hStream) {
  return Status(fake_cudart::SynchronizeStream(reinterpret_cast<cudaStream_t>(hStream)));
}

CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  if (phEvent == nullptr || (Flags & ~(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING)) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  // Timing events only: the calibration's are, and the fake runtime's disabled ones cannot time.
  if ((Flags & CU_EVENT_DISABLE_TIMING) != 0) return CUDA_ERROR_NOT_SUPPORTED;
  *phEvent = reinterpret_cast<CUevent>(fake_cudart::CreateTimedEvent());
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  return Status(fake_cudart::RecordEvent(reinterpret_cast<cudaEvent_t>(hEvent),
                                         reinterpret_cast<cudaStream_t>(hStream)));
}

CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  const cudaError_t result = fake_cudart::ElapsedMs(
      pMilliseconds, reinterpret_cast<cudaEvent_t>(hStart), reinterpret_cast<cudaEvent_t>(hEnd));
  if (result == cudaErrorNotReady) return CUDA_ERROR_NOT_READY;
  if (result == cudaErrorInvalidValue) return CUDA_ERROR_INVALID_VALUE;
  return Status(result);
}

CUresult cuEventDestroy_v2(CUevent hEvent) {
  return fake_cudart::DestroyEventHandle(reinterpret_cast<cudaEvent_t>(hEvent))
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuStreamDestroy_v2(CUstream hStream) {
  return fake_cudart::DestroyStreamHandle(reinterpret_cast<cudaStream_t>(hStream))
             ? CUDA_SUCCESS
             : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  if (dptr == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = Allocate(bytesize);
  if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *dptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  if (dstDevice == 0) return CUDA_ERROR_INVALID_VALUE;
  std::memset(reinterpret_cast<void*>(dstDevice), uc, N);
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  if (pp == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
  if (Flags &
      ~(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pp = Allocate(bytesize);
  return *pp == nullptr ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
  if (pdptr == nullptr || p == nullptr || Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  *pdptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void** kernelParams, void** extra) {
  if (f != reinterpret_cast<CUfunction>(&g_function) &&
      f != reinterpret_cast<CUfunction>(&g_calibrate_function) &&
      f != reinterpret_cast<CUfunction>(&g_wait_function)) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (gridDimX * gridDimY * gridDimZ == 0 || blockDimX * blockDimY * blockDimZ == 0 ||
      blockDimX * blockDimY * blockDimZ > 1024 || sharedMemBytes > 48 * 1024) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (f == reinterpret_cast<CUfunction>(&g_calibrate_function)) {
    // No parameters: the real driver takes null or an empty list.
    if (extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
    return Status(fake_cudart::EnqueueKernel(reinterpret_cast<cudaStream_t>(hStream),
                                             "vprof_calibrate", [] {}));
  }
  if (f == reinterpret_cast<CUfunction>(&g_wait_function)) {
    if (kernelParams == nullptr || extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
    uint64_t ns = 0;
    std::memcpy(&ns, kernelParams[0], sizeof ns);
    return Status(fake_cudart::EnqueueKernel(
        reinterpret_cast<cudaStream_t>(hStream), "vprof_calibrate_wait",
        [ns] { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }));
  }
  if (kernelParams == nullptr || extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  const unsigned char* data;
  uint64_t bytes, sums, slot, tag;
  std::memcpy(&data, kernelParams[0], sizeof data);
  std::memcpy(&bytes, kernelParams[1], sizeof bytes);
  std::memcpy(&sums, kernelParams[2], sizeof sums);
  std::memcpy(&slot, kernelParams[3], sizeof slot);
  std::memcpy(&tag, kernelParams[4], sizeof tag);
  if (sums == 0 || slot == 0 || (data == nullptr && bytes > 0)) return CUDA_ERROR_INVALID_VALUE;
  return Status(fake_cudart::EnqueueKernel(
      reinterpret_cast<cudaStream_t>(hStream), "vprof_fingerprint",
      [=] { RunFingerprint(data, bytes, reinterpret_cast<uint64_t*>(slot), tag); }));
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
  if (hGraph == nullptr || numNodes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const size_t count = fakeCudartGraphNodes(hGraph, nullptr, 0);
  if (nodes == nullptr) {
    *numNodes = count;
    return CUDA_SUCCESS;
  }
  std::vector<FakeGraphNode> found(count);
  fakeCudartGraphNodes(hGraph, found.data(), found.size());
  const size_t given = std::min(*numNodes, count);
  const std::lock_guard<std::mutex> lock(g_nodes_lock);
  for (size_t i = 0; i < given; ++i) {
    nodes[i] = reinterpret_cast<CUgraphNode>(&g_nodes.emplace_back(found[i]));
  }
  *numNodes = given;
  return CUDA_SUCCESS;
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
  const FakeGraphNode* node = FindNode(hNode);
  if (node == nullptr || type == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *type = node->kind == kFakeGraphKernel ? CU_GRAPH_NODE_TYPE_KERNEL
          : node->kind == kFakeGraphFill ? CU_GRAPH_NODE_TYPE_MEMSET
                                         : CU_GRAPH_NODE_TYPE_MEMCPY;
  return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  const FakeGraphNode* node = FindNode(hNode);
  if (node == nullptr || node->kernel_name == nullptr || nodeParams == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *nodeParams = CUDA_KERNEL_NODE_PARAMS{};
  nodeParams->func = reinterpret_cast<CUfunction>(hNode);
  nodeParams->gridDimX = nodeParams->gridDimY = nodeParams->gridDimZ = 1;
  nodeParams->blockDimX = nodeParams->blockDimY = nodeParams->blockDimZ = 1;
  return CUDA_SUCCESS;
}

CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  const FakeGraphNode* node = FindNode(hfunc);
  if (node == nullptr || node->kernel_name == nullptr || name == nullptr) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  *name = node->kernel_name;
  return CUDA_SUCCESS;
}

}  // extern "C"
#pragma GCC visibility pop
