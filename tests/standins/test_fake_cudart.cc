// Unit tests of the fake CUDA runtime: stream order, event semantics, copies, errors, fork, and
// graphs built by stream capture.
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "monotonic_clock.h"
#include "test_fork_ranks.h"

namespace {

constexpr uint64_t kMs = 1'000'000;

// Stand-in kernels only need distinct addresses.
void TestKernel(uint64_t) {}

void Launch(uint64_t duration_ns, cudaStream_t stream) {
  void* args[] = {&duration_ns};
  REQUIRE(cudaLaunchKernel(reinterpret_cast<const void*>(&TestKernel), dim3(1), dim3(1), args, 0,
                           stream) == cudaSuccess);
}

cudaStream_t NewStream() {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  return stream;
}

cudaEvent_t NewEvent() {
  cudaEvent_t event = nullptr;
  REQUIRE(cudaEventCreate(&event) == cudaSuccess);
  return event;
}

float ElapsedMs(cudaEvent_t start, cudaEvent_t end) {
  float ms = -1;
  REQUIRE(cudaEventElapsedTime(&ms, start, end) == cudaSuccess);
  return ms;
}

}  // namespace

TEST_CASE("kernels on one stream run one after another for their durations", "[fake_cudart]") {
  cudaStream_t stream = NewStream();
  cudaEvent_t start = NewEvent();
  cudaEvent_t end = NewEvent();
  REQUIRE(cudaEventRecord(start, stream) == cudaSuccess);
  for (int i = 0; i < 3; ++i) Launch(10 * kMs, stream);
  REQUIRE(cudaEventRecord(end, stream) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(ElapsedMs(start, end) >= 30.0f);
  CHECK(ElapsedMs(start, end) < 60.0f);
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  cudaStreamDestroy(stream);
}

TEST_CASE("a stream waiting on an event runs its later work after the event", "[fake_cudart]") {
  cudaStream_t a = NewStream();
  cudaStream_t b = NewStream();
  cudaEvent_t start = NewEvent();
  cudaEvent_t a_done = NewEvent();
  cudaEvent_t b_done = NewEvent();
  REQUIRE(cudaEventRecord(start, a) == cudaSuccess);
  Launch(20 * kMs, a);
  REQUIRE(cudaEventRecord(a_done, a) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(b, a_done, 0) == cudaSuccess);
  Launch(1 * kMs, b);
  REQUIRE(cudaEventRecord(b_done, b) == cudaSuccess);

  // B's work is queued behind A's 20 ms kernel.
  CHECK(cudaEventQuery(b_done) == cudaErrorNotReady);
  REQUIRE(cudaStreamSynchronize(b) == cudaSuccess);
  CHECK(cudaEventQuery(a_done) == cudaSuccess);
  const float a_ms = ElapsedMs(start, a_done);
  const float b_ms = ElapsedMs(start, b_done);
  CHECK(a_ms >= 20.0f);
  CHECK(b_ms >= a_ms + 1.0f);
  for (cudaEvent_t e : {start, a_done, b_done}) cudaEventDestroy(e);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

TEST_CASE("cudaStreamWaitEvent waits for the record that was most recent at the call",
          "[fake_cudart]") {
  cudaStream_t slow = NewStream();
  cudaStream_t idle = NewStream();
  cudaStream_t waiter = NewStream();
  cudaEvent_t event = NewEvent();

  SECTION("re-recording after the wait does not release the waiter early") {
    Launch(30 * kMs, slow);
    REQUIRE(cudaEventRecord(event, slow) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(waiter, event, 0) == cudaSuccess);
    REQUIRE(cudaEventRecord(event, idle) == cudaSuccess);  // completes at once
    const uint64_t before = standins::MonotonicNs();
    REQUIRE(cudaStreamSynchronize(waiter) == cudaSuccess);
    CHECK(standins::MonotonicNs() - before >= 25 * kMs);
  }
  SECTION("re-recording after the wait does not hold the waiter back") {
    REQUIRE(cudaEventRecord(event, idle) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(waiter, event, 0) == cudaSuccess);
    Launch(200 * kMs, slow);
    REQUIRE(cudaEventRecord(event, slow) == cudaSuccess);
    const uint64_t before = standins::MonotonicNs();
    REQUIRE(cudaStreamSynchronize(waiter) == cudaSuccess);
    CHECK(standins::MonotonicNs() - before < 100 * kMs);
    REQUIRE(cudaStreamSynchronize(slow) == cudaSuccess);
  }
  SECTION("an event never recorded is not waited for") {
    REQUIRE(cudaStreamWaitEvent(waiter, event, 0) == cudaSuccess);
    CHECK(cudaEventQuery(event) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(event) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(waiter) == cudaSuccess);
  }
  cudaEventDestroy(event);
  for (cudaStream_t s : {slow, idle, waiter}) cudaStreamDestroy(s);
}

TEST_CASE("copies and fills run in stream order with the kernels", "[fake_cudart]") {
  cudaStream_t stream = NewStream();
  void* device = nullptr;
  REQUIRE(cudaMalloc(&device, 1024) == cudaSuccess);
  CHECK(reinterpret_cast<uintptr_t>(device) % 256 == 0);
  std::vector<unsigned char> host(1024, 7);

  Launch(10 * kMs, stream);
  REQUIRE(cudaMemsetAsync(device, 0x5a, 1024, stream) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(host.data(), device, 1024, cudaMemcpyDeviceToHost, stream) ==
          cudaSuccess);
  CHECK(host[0] == 7);  // still queued behind the kernel
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(host[0] == 0x5a);
  CHECK(host[1023] == 0x5a);

  std::vector<unsigned char> source(1024, 3);
  REQUIRE(cudaMemcpy(device, source.data(), 1024, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(static_cast<unsigned char*>(device)[512] == 3);
  CHECK(cudaMemcpy(device, source.data(), 16, static_cast<cudaMemcpyKind>(9)) ==
        cudaErrorInvalidMemcpyDirection);
  cudaGetLastError();
  REQUIRE(cudaFree(device) == cudaSuccess);
  cudaStreamDestroy(stream);
}

TEST_CASE("the default stream handles name one stream", "[fake_cudart]") {
  cudaEvent_t start = NewEvent();
  cudaEvent_t end = NewEvent();
  REQUIRE(cudaEventRecord(start, nullptr) == cudaSuccess);
  Launch(5 * kMs, cudaStreamLegacy);
  Launch(5 * kMs, cudaStreamPerThread);
  REQUIRE(cudaEventRecord(end, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(ElapsedMs(start, end) >= 10.0f);
  cudaEventDestroy(start);
  cudaEventDestroy(end);
}

TEST_CASE("a destroyed stream still finishes its queued work", "[fake_cudart]") {
  cudaStream_t stream = NewStream();
  cudaEvent_t done = NewEvent();
  Launch(10 * kMs, stream);
  REQUIRE(cudaEventRecord(done, stream) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  REQUIRE(cudaEventSynchronize(done) == cudaSuccess);
  CHECK(cudaEventQuery(done) == cudaSuccess);
  CHECK(cudaStreamDestroy(stream) == cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  cudaEventDestroy(done);
}

TEST_CASE("event timing and error reporting follow the CUDA rules", "[fake_cudart]") {
  cudaEvent_t untimed = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
  cudaEvent_t timed = NewEvent();
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, timed, timed) == cudaErrorInvalidResourceHandle);  // unrecorded
  REQUIRE(cudaEventRecord(untimed, nullptr) == cudaSuccess);
  REQUIRE(cudaEventRecord(timed, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaEventElapsedTime(&ms, untimed, timed) == cudaErrorInvalidResourceHandle);

  // The last error is sticky per thread until cudaGetLastError reads it.
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaEventCreateWithFlags(&untimed, 0x80) == cudaErrorInvalidValue);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(std::string(cudaGetErrorName(cudaErrorInvalidValue)) == "cudaErrorInvalidValue");
  CHECK(std::string(cudaGetErrorString(cudaSuccess)) == "no error");
  CHECK(cudaLaunchKernel(nullptr, dim3(1), dim3(1), nullptr, 0, nullptr) ==
        cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  cudaEventDestroy(untimed);
  cudaEventDestroy(timed);
}

TEST_CASE("devices and versions", "[fake_cudart]") {
  int count = 0;
  unsetenv("FAKE_CUDA_DEVICES");
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 8);
  setenv("FAKE_CUDA_DEVICES", "2", 1);
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 2);
  CHECK(cudaSetDevice(1) == cudaSuccess);
  int device = -1;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  CHECK(device == 1);
  CHECK(cudaSetDevice(2) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  unsetenv("FAKE_CUDA_DEVICES");
  REQUIRE(cudaSetDevice(0) == cudaSuccess);

  int version = 0;
  REQUIRE(cudaRuntimeGetVersion(&version) == cudaSuccess);
  CHECK(version == CUDART_VERSION);
  REQUIRE(cudaDriverGetVersion(&version) == cudaSuccess);
  CHECK(version >= CUDART_VERSION);
}

TEST_CASE("a forked child can ignore CUDA or start using it anew", "[fake_cudart]") {
  cudaStream_t parent_stream = NewStream();
  Launch(20 * kMs, parent_stream);  // a worker is busy while we fork
  const std::vector<int> codes = standins_test::RunRanks(2, [&](int child) {
    if (child == 0) return 0;  // does not touch CUDA at all
    cudaStream_t stream = nullptr;
    if (cudaStreamCreate(&stream) != cudaSuccess) return 1;
    uint64_t duration_ns = 1 * kMs;
    void* args[] = {&duration_ns};
    if (cudaLaunchKernel(reinterpret_cast<const void*>(&TestKernel), dim3(1), dim3(1), args, 0,
                         stream) != cudaSuccess ||
        cudaStreamSynchronize(stream) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
      return 2;
    }
    // The parent's handles mean nothing in the child.
    return cudaStreamSynchronize(parent_stream) == cudaErrorInvalidResourceHandle ? 0 : 3;
  });
  CHECK(codes == standins_test::AllZero(2));
  REQUIRE(cudaStreamSynchronize(parent_stream) == cudaSuccess);
  cudaStreamDestroy(parent_stream);
}

namespace {

// Ends a capture and instantiates its graph, which is destroyed at once: the executable graph
// holds a copy of the nodes.
cudaGraphExec_t EndAndInstantiate(cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE(graph != nullptr);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(exec != nullptr);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  return exec;
}

}  // namespace

TEST_CASE("captured work runs only when its graph is launched, once per launch", "[fake_cudart]") {
  cudaStream_t stream = NewStream();
  unsigned char* device = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&device), 256) == cudaSuccess);
  std::fill_n(device, 256, 0);  // "device" memory is host memory

  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  const uint64_t captured_at = standins::MonotonicNs();
  Launch(10 * kMs, stream);
  REQUIRE(cudaMemsetAsync(device, 0x5a, 256, stream) == cudaSuccess);
  Launch(15 * kMs, stream);
  const cudaGraphExec_t exec = EndAndInstantiate(stream);
  // Nothing ran: the stream had nothing to wait for (run, the kernels would have held it 25 ms)
  // and the bytes are untouched.
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(standins::MonotonicNs() - captured_at < 25 * kMs);
  CHECK(device[0] == 0);
  CHECK(device[255] == 0);

  cudaEvent_t start = NewEvent();
  cudaEvent_t end = NewEvent();
  REQUIRE(cudaEventRecord(start, stream) == cudaSuccess);
  for (int launch = 0; launch < 3; ++launch) {
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
  }
  REQUIRE(cudaEventRecord(end, stream) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(device[0] == 0x5a);
  CHECK(device[255] == 0x5a);
  // Three replays of 10 + 15 ms of kernels.
  CHECK(ElapsedMs(start, end) >= 75.0f);
  CHECK(ElapsedMs(start, end) < 150.0f);

  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  REQUIRE(cudaFree(device) == cudaSuccess);
  cudaStreamDestroy(stream);
}

TEST_CASE("launches of one executable graph run one at a time, whatever their streams",
          "[fake_cudart]") {
  cudaStream_t capture = NewStream();
  cudaStream_t a = NewStream();
  cudaStream_t b = NewStream();
  REQUIRE(cudaStreamBeginCapture(capture, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  Launch(20 * kMs, capture);
  const cudaGraphExec_t exec = EndAndInstantiate(capture);
  const uint64_t before = standins::MonotonicNs();
  REQUIRE(cudaGraphLaunch(exec, a) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, b) == cudaSuccess);
  // Destroying it with launches in flight lets them finish.
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(b) == cudaSuccess);
  CHECK(standins::MonotonicNs() - before >= 40 * kMs);
  REQUIRE(cudaStreamSynchronize(a) == cudaSuccess);
  for (cudaStream_t s : {capture, a, b}) cudaStreamDestroy(s);
}

// The error codes are CUDA 13's, measured on an H200.
TEST_CASE("graph calls refuse bad arguments as CUDA does", "[fake_cudart]") {
  cudaStream_t stream = NewStream();
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;

  CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorIllegalState);  // not capturing
  CHECK(cudaGetLastError() == cudaErrorIllegalState);
  CHECK(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal) ==
        cudaErrorStreamCaptureUnsupported);  // the default stream cannot capture
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState);
  // Without a place for the graph, the capture ends and its graph is dropped.
  CHECK(cudaStreamEndCapture(stream, nullptr) == cudaSuccess);
  CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorIllegalState);
  cudaGetLastError();
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
  Launch(1 * kMs, stream);
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE(graph != nullptr);

  CHECK(cudaGraphInstantiate(nullptr, graph, 0) == cudaErrorInvalidValue);
  CHECK(cudaGraphInstantiate(&exec, nullptr, 0) == cudaErrorInvalidValue);
  CHECK(cudaGraphInstantiate(&exec, graph, 0x100) == cudaErrorInvalidValue);  // unknown flag
  CHECK(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagUpload) ==
        cudaErrorInvalidValue);  // cudaGraphInstantiateWithParams only
  CHECK(cudaGraphInstantiate(&exec, graph,
                             cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                 cudaGraphInstantiateFlagDeviceLaunch) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  cudaGraphExec_t other_exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&other_exec, graph, cudaGraphInstantiateFlagUseNodePriority) ==
          cudaSuccess);
  REQUIRE(cudaGraphExecDestroy(other_exec) == cudaSuccess);
  REQUIRE(cudaGraphInstantiate(&exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch) ==
          cudaSuccess);

  CHECK(cudaGraphLaunch(nullptr, stream) == cudaErrorInvalidValue);
  CHECK(cudaGraphLaunch(exec, reinterpret_cast<cudaStream_t>(&exec)) ==
        cudaErrorInvalidResourceHandle);
  cudaGetLastError();

  // Graph launches, event records and waits and synchronisations cannot be captured: the
  // capture breaks, later work is refused, and the capture ends without a graph.
  cudaEvent_t event = NewEvent();
  REQUIRE(cudaEventRecord(event, nullptr) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const auto breaks_capture = [&](const char* what, auto&& call, cudaError_t expected) {
    INFO(what);
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed) == cudaSuccess);
    CHECK(call() == expected);
    CHECK(cudaGetLastError() == expected);
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&TestKernel), dim3(1), dim3(1), nullptr, 0,
                           stream) == cudaErrorStreamCaptureInvalidated);
    cudaGraph_t broken = reinterpret_cast<cudaGraph_t>(&event);
    CHECK(cudaStreamEndCapture(stream, &broken) == cudaErrorStreamCaptureInvalidated);
    CHECK(broken == nullptr);
    cudaGetLastError();
  };
  breaks_capture(
      "graph launch", [&] { return cudaGraphLaunch(exec, stream); },
      cudaErrorStreamCaptureUnsupported);
  breaks_capture(
      "graph launch of nothing", [&] { return cudaGraphLaunch(nullptr, stream); },
      cudaErrorStreamCaptureUnsupported);
  breaks_capture(
      "event record", [&] { return cudaEventRecord(event, stream); },
      cudaErrorStreamCaptureUnsupported);
  breaks_capture(
      "wait for an event recorded outside", [&] { return cudaStreamWaitEvent(stream, event, 0); },
      cudaErrorStreamCaptureIsolation);
  breaks_capture(
      "synchronisation", [&] { return cudaStreamSynchronize(stream); },
      cudaErrorStreamCaptureUnsupported);
  // The stream works as before once capture has ended.
  REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);

  CHECK(std::string(cudaGetErrorName(cudaErrorStreamCaptureInvalidated)) ==
        "cudaErrorStreamCaptureInvalidated");
  REQUIRE(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphExecDestroy(exec) == cudaErrorInvalidValue);
  CHECK(cudaGraphLaunch(exec, stream) == cudaErrorInvalidValue);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaErrorInvalidValue);
  CHECK(cudaGraphDestroy(nullptr) == cudaErrorInvalidValue);
  CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaErrorInvalidValue);  // destroyed
  cudaGetLastError();
  cudaEventDestroy(event);
  cudaStreamDestroy(stream);
}
