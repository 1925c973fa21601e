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

// The handle of an object is its address, as CUDA's opaque handles are pointers. Both are
// called with the runtime's mutex held.
template <typename Handle, typename Object>
Handle Insert(std::unordered_map<Handle, std::shared_ptr<Object>>& table,
              std::shared_ptr<Object> object) {
  const auto handle = reinterpret_cast<Handle>(object.get());
  table.emplace(handle, std::move(object));
  return handle;
}

template <typename Handle, typename Object>
std::shared_ptr<Object> Lookup(const std::unordered_map<Handle, std::shared_ptr<Object>>& table,
                               Handle handle) {
  const auto it = table.find(handle);
  return it == table.end() ? nullptr : it->second;
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
  return Lookup(streams_, handle);
}

cudaStream_t Runtime::CreateStream() {
  std::shared_ptr<Stream> stream = Stream::Start();
  std::lock_guard lock(mutex_);
  return Insert(streams_, std::move(stream));
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
  return Lookup(events_, handle);
}

cudaEvent_t Runtime::CreateEvent(bool timing_enabled) {
  auto event = std::make_shared<Event>(timing_enabled);
  std::lock_guard lock(mutex_);
  return Insert(events_, std::move(event));
}

bool Runtime::DestroyEvent(cudaEvent_t handle) {
  std::lock_guard lock(mutex_);
  return events_.erase(handle) == 1;
}

cudaGraph_t Runtime::AddGraph(std::shared_ptr<Graph> graph) {
  std::lock_guard lock(mutex_);
  return Insert(graphs_, std::move(graph));
}

std::shared_ptr<Graph> Runtime::FindGraph(cudaGraph_t handle) {
  std::lock_guard lock(mutex_);
  return Lookup(graphs_, handle);
}

bool Runtime::DestroyGraph(cudaGraph_t handle) {
  std::lock_guard lock(mutex_);
  return graphs_.erase(handle) == 1;
}

cudaGraphExec_t Runtime::AddGraphExec(std::shared_ptr<GraphExec> exec) {
  std::lock_guard lock(mutex_);
  return Insert(graph_execs_, std::move(exec));
}

std::shared_ptr<GraphExec> Runtime::FindGraphExec(cudaGraphExec_t handle) {
  std::lock_guard lock(mutex_);
  return Lookup(graph_execs_, handle);
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
