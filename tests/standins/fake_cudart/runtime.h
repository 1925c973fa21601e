// Process-wide state of the fake CUDA runtime: the live streams, events, graphs and executable
// graphs behind the opaque handles the API hands out, and the default stream.
//
// The runtime is heap-allocated and never freed: stream workers may still run while the process
// exits, so nothing they touch may be destroyed by static destructors. A forked child gets a
// fresh, empty runtime (the parent's worker threads do not exist in the child), so a child can
// ignore CUDA or start using it anew; handles inherited from the parent are invalid there.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <unordered_map>

#include "event.h"
#include "graph.h"
#include "stream.h"

namespace fake_cudart {

class Runtime {
 public:
  static Runtime& Get();

  // 0, cudaStreamLegacy and cudaStreamPerThread all name the one default stream.
  // Returns null for a handle that is not a live stream.
  std::shared_ptr<Stream> FindStream(cudaStream_t handle);
  cudaStream_t CreateStream();
  // Returns false for a handle that is not a live, user-created stream. Work already queued on
  // the stream still runs; the stream is freed when its worker has retired.
  bool DestroyStream(cudaStream_t handle);

  std::shared_ptr<Event> FindEvent(cudaEvent_t handle);
  cudaEvent_t CreateEvent(bool timing_enabled);
  bool DestroyEvent(cudaEvent_t handle);

  // Graphs built by stream capture, and their instantiations. Find: null for a handle that is
  // not live; Destroy: false for one.
  cudaGraph_t AddGraph(std::shared_ptr<Graph> graph);
  std::shared_ptr<Graph> FindGraph(cudaGraph_t handle);
  bool DestroyGraph(cudaGraph_t handle);
  cudaGraphExec_t AddGraphExec(std::shared_ptr<GraphExec> exec);
  std::shared_ptr<GraphExec> FindGraphExec(cudaGraphExec_t handle);
  // Launches already queued still run: they hold the executable graph.
  bool DestroyGraphExec(cudaGraphExec_t handle);

  // Waits for the default stream (if it was ever used) and every live stream.
  void SynchronizeDevice();

 private:
  std::shared_ptr<Stream> DefaultStreamLocked();

  std::mutex mutex_;
  std::shared_ptr<Stream> default_stream_;  // started on first use
  std::unordered_map<cudaStream_t, std::shared_ptr<Stream>> streams_;
  std::unordered_map<cudaEvent_t, std::shared_ptr<Event>> events_;
  std::unordered_map<cudaGraph_t, std::shared_ptr<Graph>> graphs_;
  std::unordered_map<cudaGraphExec_t, std::shared_ptr<GraphExec>> graph_execs_;
};

}  // namespace fake_cudart
