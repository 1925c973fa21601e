// Unit tests of the fake CUDA runtime: stream order, event semantics, copies, errors, fork.
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
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
