#include "activity_hooks.h"

#include <dlfcn.h>

#include <atomic>

#include "monotonic_clock.h"

namespace fake_cudart {
namespace {

std::atomic<const FakeActivitySink*> g_sink{nullptr};

const FakeActivitySink* Sink() { return g_sink.load(std::memory_order_acquire); }

}  // namespace

uint32_t ReportQueued(uint32_t cbid) {
  const FakeActivitySink* sink = Sink();
  return sink != nullptr ? sink->queued(cbid) : 0;
}

void ReportCalled(uint32_t cbid) {
  if (const FakeActivitySink* sink = Sink()) sink->called(cbid);
}

void ReportKernel(const void* func, const char* name, uint32_t stream_id, uint32_t correlation_id,
                  uint32_t graph_id, uint64_t graph_node_id, uint64_t start_ns, uint64_t end_ns) {
  const FakeActivitySink* sink = Sink();
  if (sink == nullptr) return;
  sink->kernel(KernelRecordName(func, name), stream_id, correlation_id, graph_id, graph_node_id,
               start_ns, end_ns);
}

const char* KernelRecordName(const void* func, const char* name) {
  // The kernel's symbol, as CUPTI reports a kernel by its (mangled) symbol name. dli_sname
  // points into the library's string table, valid while the library stays loaded.
  Dl_info info{};
  if (name == nullptr && func != nullptr && dladdr(func, &info) != 0) name = info.dli_sname;
  return name;
}

void ReportGraphInstantiated(const void* graph, uint32_t graph_id, const void* graph_exec,
                             uint32_t graph_exec_id) {
  if (const FakeActivitySink* sink = Sink()) {
    sink->graph_instantiated(graph, graph_id, graph_exec, graph_exec_id);
  }
}

void ReportMemcpy(uint64_t bytes, int direction, bool src_pinned, bool dst_pinned,
                  uint32_t stream_id, uint32_t correlation_id, uint32_t graph_id,
                  uint64_t graph_node_id, uint64_t start_ns, uint64_t end_ns) {
  if (const FakeActivitySink* sink = Sink()) {
    sink->memcpy(bytes, direction, src_pinned, dst_pinned, stream_id, correlation_id, graph_id,
                 graph_node_id, start_ns, end_ns);
  }
}

void ReportPeerMemcpy(uint64_t bytes, uint32_t src_device, uint32_t dst_device, uint32_t stream_id,
                      uint32_t correlation_id, uint32_t graph_id, uint64_t graph_node_id,
                      uint64_t start_ns, uint64_t end_ns) {
  if (const FakeActivitySink* sink = Sink()) {
    sink->peer_memcpy(bytes, src_device, dst_device, stream_id, correlation_id, graph_id,
                      graph_node_id, start_ns, end_ns);
  }
}

void ReportGraphReplay(uint32_t graph_id, uint32_t stream_id, uint32_t correlation_id,
                       uint64_t start_ns, uint64_t end_ns) {
  if (const FakeActivitySink* sink = Sink()) {
    sink->graph_replay(graph_id, stream_id, correlation_id, start_ns, end_ns);
  }
}

void ReportEventRecord(uint32_t event_id, uint64_t sync_id, uint32_t stream_id,
                       uint32_t correlation_id, uint64_t completion_ns) {
  if (const FakeActivitySink* sink = Sink()) {
    sink->event_record(event_id, sync_id, stream_id, correlation_id, completion_ns);
  }
}

void ReportStreamWait(uint32_t event_id, uint64_t sync_id, uint32_t stream_id,
                      uint32_t correlation_id, uint64_t start_ns, uint64_t end_ns) {
  if (const FakeActivitySink* sink = Sink()) {
    sink->stream_wait(event_id, sync_id, stream_id, correlation_id, start_ns, end_ns);
  }
}

void ReportMemory(uint32_t cbid, bool released, uint64_t address, uint64_t bytes, uint32_t device,
                  uint64_t called_ns) {
  if (const FakeActivitySink* sink = Sink()) {
    sink->memory(cbid, released, address, bytes, device, called_ns);
  }
}

void ReportContextCreated() {
  if (const FakeActivitySink* sink = Sink()) sink->context_created();
}

}  // namespace fake_cudart

extern "C" __attribute__((visibility("default"))) void fakeCudartSetActivitySink(
    const FakeActivitySink* sink) {
  fake_cudart::g_sink.store(sink, std::memory_order_release);
}
