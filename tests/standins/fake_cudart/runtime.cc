#include "runtime.h"

#include <pthread.h>

#include <vector>

#include "injection.h"

namespace fake_cudart {
namespace {

Runtime* g_runtime = nullptr;

// Runs when the library is loaded, before any API call can reach Runtime::Get().
__attribute__((constructor)) void CreateRuntime() {
  g_runtime = new Runtime();
  // The child of a fork has only the forking thread: the parent's workers and any lock they
  // held are gone, so the child starts from an empty runtime. The old one is deliberately leaked.
  pthread_atfork(nullptr, nullptr, [] { g_runtime = new Runtime(); });
}

}  // namespace

// Every stream, event and device operation reaches the runtime through here, so
// this is where CUDA initialises (and loads CUDA_INJECTION64_PATH).
Runtime& Runtime::Get() {
  InitializeOnce();
  return *g_runtime;
}

std::shared_ptr<Stream> Runtime::DefaultStreamLocked() {
  if (!default_stream_) default_stream_ = Stream::Start();
  return default_stream_;
}

std::shared_ptr<Stream> Runtime::FindStream(cudaStream_t handle) {
  std::lock_guard lock(mutex_);
  if (handle == nullptr || handle == cudaStreamLegacy || handle == cudaStreamPerThread) {
    return DefaultStreamLocked();
  }
  const auto it = streams_.find(handle);
  return it == streams_.end() ? nullptr : it->second;
}

cudaStream_t Runtime::CreateStream() {
  std::shared_ptr<Stream> stream = Stream::Start();
  const auto handle = reinterpret_cast<cudaStream_t>(stream.get());
  std::lock_guard lock(mutex_);
  streams_.emplace(handle, std::move(stream));
  return handle;
}

bool Runtime::DestroyStream(cudaStream_t handle) {
  std::shared_ptr<Stream> stream;
  {
    std::lock_guard lock(mutex_);
    const auto it = streams_.find(handle);
    if (it == streams_.end()) return false;
    stream = std::move(it->second);
    streams_.erase(it);
  }
  stream->Enqueue(RetireOp{});
  return true;
}

std::shared_ptr<Event> Runtime::FindEvent(cudaEvent_t handle) {
  std::lock_guard lock(mutex_);
  const auto it = events_.find(handle);
  return it == events_.end() ? nullptr : it->second;
}

cudaEvent_t Runtime::CreateEvent(bool timing_enabled) {
  auto event = std::make_shared<Event>(timing_enabled);
  const auto handle = reinterpret_cast<cudaEvent_t>(event.get());
  std::lock_guard lock(mutex_);
  events_.emplace(handle, std::move(event));
  return handle;
}

bool Runtime::DestroyEvent(cudaEvent_t handle) {
  std::lock_guard lock(mutex_);
  return events_.erase(handle) == 1;
}

cudaGraph_t Runtime::AddGraph(std::shared_ptr<Graph> graph) {
  const auto handle = reinterpret_cast<cudaGraph_t>(graph.get());
  std::lock_guard lock(mutex_);
  graphs_.emplace(handle, std::move(graph));
  return handle;
}

std::shared_ptr<Graph> Runtime::FindGraph(cudaGraph_t handle) {
  std::lock_guard lock(mutex_);
  const auto it = graphs_.find(handle);
  return it == graphs_.end() ? nullptr : it->second;
}

bool Runtime::DestroyGraph(cudaGraph_t handle) {
  std::lock_guard lock(mutex_);
  return graphs_.erase(handle) == 1;
}

cudaGraphExec_t Runtime::AddGraphExec(std::shared_ptr<GraphExec> exec) {
  const auto handle = reinterpret_cast<cudaGraphExec_t>(exec.get());
  std::lock_guard lock(mutex_);
  graph_execs_.emplace(handle, std::move(exec));
  return handle;
}

std::shared_ptr<GraphExec> Runtime::FindGraphExec(cudaGraphExec_t handle) {
  std::lock_guard lock(mutex_);
  const auto it = graph_execs_.find(handle);
  return it == graph_execs_.end() ? nullptr : it->second;
}

bool Runtime::DestroyGraphExec(cudaGraphExec_t handle) {
  std::lock_guard lock(mutex_);
  return graph_execs_.erase(handle) == 1;
}

void Runtime::SynchronizeDevice() {
  std::vector<std::shared_ptr<Stream>> streams;
  {
    std::lock_guard lock(mutex_);
    if (default_stream_) streams.push_back(default_stream_);
    for (const auto& [handle, stream] : streams_) streams.push_back(stream);
  }
  for (const auto& stream : streams) stream->Synchronize();
}

}  // namespace fake_cudart
