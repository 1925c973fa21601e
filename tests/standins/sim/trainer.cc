#include "trainer.h"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "grad_sync.h"
#include "sim_kernels.h"

namespace sim {
namespace {

constexpr size_t kMetricsElems = 1024;

// Frees the training buffers, the streams and the optimizer's graph on every exit path.
struct Resources {
  cudaStream_t compute = nullptr;
  // --graph-opt: the stream the optimizer's kernels are captured on, their graph and its
  // instantiation.
  cudaStream_t capture = nullptr;
  cudaGraph_t opt_graph = nullptr;
  cudaGraphExec_t opt_exec = nullptr;
  float* metrics_send = nullptr;
  float* metrics_recv = nullptr;
  float* weights = nullptr;
  char* peer_send = nullptr;  // peer_copy_bytes each, or none
  char* peer_recv = nullptr;
  float* tp_send = nullptr;  // tp_elems each, or none
  float* tp_recv = nullptr;
  float* shard_send = nullptr;  // shard_elems, and shard_elems per rank; or none
  float* shard_recv = nullptr;
  // input_bytes each, or none: the batch on the host (pageable, or cudaMallocHost's) and on the
  // device.
  char* input_host = nullptr;
  bool input_pinned = false;
  char* input_device = nullptr;
  float* grads = nullptr;  // --graph-step: the gradients each step zeroes first
  ~Resources() {
    cudaFree(metrics_send);
    cudaFree(metrics_recv);
    cudaFree(weights);
    cudaFree(grads);
    cudaFree(peer_send);
    cudaFree(peer_recv);
    cudaFree(tp_send);
    cudaFree(tp_recv);
    cudaFree(shard_send);
    cudaFree(shard_recv);
    cudaFree(input_device);
    if (input_pinned) {
      cudaFreeHost(input_host);
    } else {
      delete[] input_host;
    }
    if (opt_exec != nullptr) cudaGraphExecDestroy(opt_exec);
    if (opt_graph != nullptr) cudaGraphDestroy(opt_graph);
    if (capture != nullptr) cudaStreamDestroy(capture);
    if (compute != nullptr) cudaStreamDestroy(compute);
  }
};

bool Check(cudaError_t result, const char* what, std::string* error) {
  if (result == cudaSuccess) return true;
  *error = std::string(what) + ": " + cudaGetErrorString(result);
  return false;
}

bool Check(ncclResult_t result, const char* what, std::string* error) {
  if (result == ncclSuccess) return true;
  *error = std::string(what) + ": " + ncclGetErrorString(result);
  return false;
}

template <typename T>
bool Allocate(T** buffer, size_t elems, std::string* error) {
  return Check(cudaMalloc(reinterpret_cast<void**>(buffer), elems * sizeof(T)), "cudaMalloc",
               error);
}

bool AllGatherMetrics(const Communicators& comms, const Resources& res, CollectiveLog* log,
                      std::string* error) {
  std::fill_n(res.metrics_send, kMetricsElems, static_cast<float>(comms.rank));
  const ncclResult_t result =
      log->Record("ncclAllGather", "world", comms.nranks, kMetricsElems, sizeof(float), [&] {
        return ncclAllGather(res.metrics_send, res.metrics_recv, kMetricsElems, ncclFloat32,
                             comms.world, res.compute);
      });
  if (!Check(result, "ncclAllGather", error) ||
      !Check(cudaStreamSynchronize(res.compute), "cudaStreamSynchronize", error)) {
    return false;
  }
  for (size_t i = 0; i < kMetricsElems * comms.nranks; ++i) {
    if (res.metrics_recv[i] != static_cast<float>(i / kMetricsElems)) {
      *error = "all-gathered metrics element " + std::to_string(i) + " came from the wrong rank";
      return false;
    }
  }
  return true;
}

// A layer's collectives of the ground-truth options, on the compute stream: the tensor-parallel
// all-reduce after its kernel, the sharded parameters' all-gather before it.
bool TensorParallelAllReduce(const SimOptions& options, const Communicators& comms,
                             const Resources& res, CollectiveLog* log, std::string* error) {
  if (options.tp_elems == 0) return true;
  return Check(log->Record("ncclAllReduce", "tp", comms.nranks, options.tp_elems, sizeof(float),
                           [&] {
                             return ncclAllReduce(res.tp_send, res.tp_recv, options.tp_elems,
                                                  ncclFloat32, ncclSum, comms.tensor_parallel,
                                                  res.compute);
                           }),
               "ncclAllReduce (tensor parallel)", error);
}

bool GatherShards(const SimOptions& options, const Communicators& comms, const Resources& res,
                  CollectiveLog* log, std::string* error) {
  if (options.shard_elems == 0) return true;
  return Check(
      log->Record("ncclAllGather", "world", comms.nranks, options.shard_elems, sizeof(float),
                  [&] {
                    return ncclAllGather(res.shard_send, res.shard_recv, options.shard_elems,
                                         ncclFloat32, comms.world, res.compute);
                  }),
      "ncclAllGather (sharded parameters)", error);
}

// Once the compute stream is synchronized: the last layer's collectives gave every element.
bool CheckLayerCollectives(const SimOptions& options, const Communicators& comms,
                           const Resources& res, std::string* error) {
  for (size_t i = 0; i < options.tp_elems; ++i) {
    if (res.tp_recv[i] != static_cast<float>(comms.nranks)) {
      *error = "tensor-parallel all-reduce element " + std::to_string(i) + " is wrong";
      return false;
    }
  }
  for (size_t i = 0; i < options.shard_elems * comms.nranks; ++i) {
    if (res.shard_recv[i] != static_cast<float>(i / options.shard_elems)) {
      *error = "gathered parameter element " + std::to_string(i) + " came from the wrong rank";
      return false;
    }
  }
  return true;
}

// The host's own work before a launch in `step`, when it is slower than the GPU.
void HostGap(const SimOptions& options, int step) {
  if (options.launch_gap_us > 0 &&
      (options.launch_gap_steps == 0 || step <= options.launch_gap_steps)) {
    std::this_thread::sleep_for(std::chrono::microseconds(options.launch_gap_us));
  }
}

// Allocations a step makes at its start and frees at its end, once its work is done, as a
// caching allocator that empties its cache every step does.
bool Allocate(const SimOptions& options, std::vector<void*>* blocks, std::string* error) {
  constexpr size_t kBytes = size_t{1} << 20;
  for (int i = 0; i < options.alloc_per_step; ++i) {
    if (!Check(cudaMalloc(&blocks->emplace_back(), kBytes), "cudaMalloc", error)) return false;
  }
  return true;
}

bool Free(std::vector<void*>* blocks, std::string* error) {
  for (void* block : *blocks) {
    if (!Check(cudaFree(block), "cudaFree", error)) return false;
  }
  blocks->clear();
  return true;
}

bool BroadcastWeights(const SimOptions& options, const Communicators& comms, int step,
                      const Resources& res, CollectiveLog* log, std::string* error) {
  const float version = static_cast<float>(step);
  if (comms.rank == 0) std::fill_n(res.weights, options.sync_elems, version);
  const ncclResult_t result =
      log->Record("ncclBroadcast", "wsync", comms.nranks, options.sync_elems, sizeof(float), [&] {
        return ncclBroadcast(res.weights, res.weights, options.sync_elems, ncclFloat32, 0,
                             comms.weight_sync, res.compute);
      });
  if (!Check(result, "ncclBroadcast", error) ||
      !Check(cudaStreamSynchronize(res.compute), "cudaStreamSynchronize", error)) {
    return false;
  }
  if (std::any_of(res.weights, res.weights + options.sync_elems,
                  [&](float w) { return w != version; })) {
    *error = "broadcast weights differ from rank 0's at step " + std::to_string(step);
    return false;
  }
  return true;
}

// One NVTX range, pushed for the scope.
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

// The next device's buffer stands for memory on that GPU; the stand-in's devices share the
// host's memory, so only the record says which devices the copy joined.
bool CopyToNextDevice(const SimOptions& options, const Resources& res, std::string* error) {
  int device = 0;
  int devices = 1;
  if (!Check(cudaGetDevice(&device), "cudaGetDevice", error) ||
      !Check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount", error)) {
    return false;
  }
  return Check(cudaMemcpyPeerAsync(res.peer_recv, (device + 1) % devices, res.peer_send, device,
                                   options.peer_copy_bytes, res.compute),
               "cudaMemcpyPeerAsync", error);
}

bool AllocateInput(const SimOptions& options, Resources* res, std::string* error) {
  if (options.input_bytes == 0) return true;
  if (options.pinned_input) {
    if (!Check(cudaMallocHost(reinterpret_cast<void**>(&res->input_host), options.input_bytes),
               "cudaMallocHost", error)) {
      return false;
    }
    res->input_pinned = true;
  } else {
    res->input_host = new char[options.input_bytes]();
  }
  return Allocate(&res->input_device, options.input_bytes, error);
}

// The step's batch to the device, on the compute stream before forward's kernels.
bool UploadInput(const SimOptions& options, const Resources& res, std::string* error) {
  if (options.input_bytes == 0) return true;
  return Check(cudaMemcpyAsync(res.input_device, res.input_host, options.input_bytes,
                               cudaMemcpyHostToDevice, res.compute),
               "cudaMemcpyAsync", error);
}

// --graph-opt: captures the optimizer's kernels once into a CUDA graph and instantiates it, the
// way PyTorch's CUDA-graph users capture on a side stream and then replay the graph every step.
// Capturing runs nothing; the kernels run at each replay.
bool CaptureOptimizer(const SimOptions& options, Resources* res, std::string* error) {
  if (!Check(cudaStreamCreateWithFlags(&res->capture, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags", error) ||
      !Check(cudaStreamBeginCapture(res->capture, cudaStreamCaptureModeGlobal),
             "cudaStreamBeginCapture", error)) {
    return false;
  }
  bool launched = true;
  for (int k = 0; k < options.opt_kernels && launched; ++k) {
    launched = Check(LaunchKernel(sim_opt_kernel, options.opt_us, res->capture),
                     "optimizer capture", error);
  }
  // Ended also after a failed launch, so the stream is not left capturing.
  const cudaError_t ended = cudaStreamEndCapture(res->capture, &res->opt_graph);
  return launched && Check(ended, "cudaStreamEndCapture", error) &&
         Check(cudaGraphInstantiate(&res->opt_exec, res->opt_graph, 0), "cudaGraphInstantiate",
               error);
}

// The gradients --graph-step zeroes at each step's start.
constexpr size_t kGradElems = 1024;

// One step's work of --graph-step, queued on `stream` (run, or captured into a graph): the
// gradients zeroed (a fill), then the kernels.
bool LaunchWholeStep(const SimOptions& options, float* grads, cudaStream_t stream,
                     std::string* error) {
  bool launched =
      Check(cudaMemsetAsync(grads, 0, kGradElems * sizeof(float), stream), "zero_grad", error);
  for (int layer = 0; layer < options.layers && launched; ++layer) {
    launched = Check(LaunchKernel(sim_fwd_kernel, options.fwd_us, stream), "forward", error);
  }
  for (int layer = 0; layer < options.layers && launched; ++layer) {
    launched = Check(LaunchKernel(sim_bwd_kernel, options.bwd_us, stream), "backward", error);
  }
  for (int k = 0; k < options.opt_kernels && launched; ++k) {
    launched = Check(LaunchKernel(sim_multi_tensor_apply_kernel, options.opt_us, stream),
                     "optimizer", error);
  }
  return launched;
}

// Eager steps before the capture, as PyTorch's recipe warms a graph's work up.
constexpr int kEagerWarmupSteps = 2;

// --graph-step: kEagerWarmupSteps eager steps (the gradients zeroed, forward's and backward's
// kernels, then
// --opt-kernels kernels of a fused optimizer), then one step captured into a CUDA graph and
// replayed --steps times back to back, then synchronized: a training step run as one graph
// (torch.cuda.make_graphed_callables, or torch.compile's reduce-overhead mode around the whole
// step). No NVTX range and no collective: only the graph's node list says where the replays'
// steps are.
bool RunGraphSteps(const SimOptions& options, Resources* res, std::string* error) {
  if (!Allocate(&res->grads, kGradElems, error)) return false;
  for (int step = 0; step < kEagerWarmupSteps; ++step) {
    if (!LaunchWholeStep(options, res->grads, res->compute, error)) return false;
  }
  if (!Check(cudaStreamBeginCapture(res->compute, cudaStreamCaptureModeGlobal),
             "cudaStreamBeginCapture", error)) {
    return false;
  }
  const bool launched = LaunchWholeStep(options, res->grads, res->compute, error);
  // Ended also after a failed launch, so the stream is not left capturing.
  const cudaError_t ended = cudaStreamEndCapture(res->compute, &res->opt_graph);
  if (!launched || !Check(ended, "cudaStreamEndCapture", error) ||
      !Check(cudaGraphInstantiate(&res->opt_exec, res->opt_graph, 0), "cudaGraphInstantiate",
             error)) {
    return false;
  }
  for (int step = 1; step <= options.steps; ++step) {
    if (!Check(cudaGraphLaunch(res->opt_exec, res->compute), "cudaGraphLaunch", error)) {
      return false;
    }
  }
  return Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", error);
}

bool RunOptimizer(const SimOptions& options, const Resources& res, std::string* error) {
  const NvtxRange optimizer("optimizer");
  if (res.opt_exec != nullptr) {
    return Check(cudaGraphLaunch(res.opt_exec, res.compute), "cudaGraphLaunch", error);
  }
  for (int k = 0; k < options.opt_kernels; ++k) {
    if (!Check(LaunchKernel(sim_opt_kernel, options.opt_us, res.compute), "optimizer", error)) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool Train(const SimOptions& options, const Communicators& comms, CollectiveLog* log,
           std::string* error) {
  Resources res;
  if (!Check(cudaStreamCreateWithFlags(&res.compute, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags", error) ||
      !Allocate(&res.metrics_send, kMetricsElems, error) ||
      !Allocate(&res.metrics_recv, kMetricsElems * comms.nranks, error) ||
      !Allocate(&res.weights, options.sync_elems, error) ||
      (options.peer_copy_bytes > 0 &&
       (!Allocate(&res.peer_send, options.peer_copy_bytes, error) ||
        !Allocate(&res.peer_recv, options.peer_copy_bytes, error))) ||
      (options.tp_elems > 0 && (!Allocate(&res.tp_send, options.tp_elems, error) ||
                                !Allocate(&res.tp_recv, options.tp_elems, error))) ||
      (options.shard_elems > 0 &&
       (!Allocate(&res.shard_send, options.shard_elems, error) ||
        !Allocate(&res.shard_recv, options.shard_elems * comms.nranks, error))) ||
      !AllocateInput(options, &res, error) ||
      // No graph of no kernels: with --opt-kernels 0 there is nothing to replay.
      (options.graph_opt && options.opt_kernels > 0 && !CaptureOptimizer(options, &res, error))) {
    return false;
  }
  if (options.graph_step) return RunGraphSteps(options, &res, error);
  if (options.tp_elems > 0) std::fill_n(res.tp_send, options.tp_elems, 1.0f);
  if (options.shard_elems > 0) {
    std::fill_n(res.shard_send, options.shard_elems, static_cast<float>(comms.rank));
  }
  const bool straggler = comms.rank == options.slow_rank;
  std::vector<void*> blocks;  // alloc_per_step's, between a step's start and end
  const std::unique_ptr<GradientSync> grad_sync = GradientSync::Start(
      {comms.world, comms.rank, comms.nranks, options.buckets(), options.bucket_elems,
       straggler ? options.slow_ms : 0, log, options.shard_elems > 0},
      error);
  if (!grad_sync) return false;

  for (int step = 1; step <= options.steps; ++step) {
    const NvtxRange step_range("train_step " + std::to_string(step));
    if (straggler && options.late_start_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(options.late_start_ms));
    }
    {
      const NvtxRange forward("forward");
      if (!Allocate(options, &blocks, error) || !UploadInput(options, res, error)) return false;
      for (int layer = 0; layer < options.layers; ++layer) {
        if (!GatherShards(options, comms, res, log, error)) return false;
        HostGap(options, step);
        if (!Check(LaunchKernel(sim_fwd_kernel, options.fwd_us, res.compute), "forward", error) ||
            !TensorParallelAllReduce(options, comms, res, log, error)) {
          return false;
        }
      }
    }
    {
      const NvtxRange backward("backward");
      for (int done = 1; done <= options.layers; ++done) {
        HostGap(options, step);
        if (!Check(LaunchKernel(sim_bwd_kernel, options.bwd_us, res.compute), "backward", error) ||
            !TensorParallelAllReduce(options, comms, res, log, error)) {
          return false;
        }
        if ((done % options.bucket_layers == 0 || done == options.layers) &&
            !options.late_buckets &&
            !grad_sync->BucketReady((done - 1) / options.bucket_layers, res.compute, error)) {
          return false;
        }
      }
      for (int bucket = 0; options.late_buckets && bucket < options.buckets(); ++bucket) {
        if (!grad_sync->BucketReady(bucket, res.compute, error)) return false;
      }
      if (!grad_sync->Drain(error)) return false;
    }
    if (!AllGatherMetrics(comms, res, log, error) ||
        !CheckLayerCollectives(options, comms, res, error) || !Free(&blocks, error)) {
      return false;
    }
    if (!RunOptimizer(options, res, error)) return false;
    if (options.sync_every > 0 && step % options.sync_every == 0) {
      const NvtxRange update("update_weights");
      if (!BroadcastWeights(options, comms, step, res, log, error)) return false;
    }
    if (options.peer_copy_bytes > 0 && !CopyToNextDevice(options, res, error)) return false;
  }
  return Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", error);
}

}  // namespace sim
