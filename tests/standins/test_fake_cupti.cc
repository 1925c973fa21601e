// The fake libcupti.so.13 driven directly, over the fake CUDA runtime's real (simulated) work.
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "monotonic_clock.h"
#include "test_cupti_client.h"

// Stand-in kernels, named through dladdr (the executable exports its symbols); noipa keeps the
// identical bodies apart.
extern "C" {
__attribute__((visibility("default"), noipa)) void cupti_test_kernel_a(uint64_t) {}
__attribute__((visibility("default"), noipa)) void cupti_test_kernel_b(uint64_t) {}
__attribute__((visibility("default"), noipa)) void cupti_test_kernel_c(uint64_t) {}
}

namespace {

using cupti_test::BufferCompleted;
using cupti_test::BufferRequested;
using cupti_test::ClientClock;
using cupti_test::g_completed;
using cupti_test::g_give_no_buffer;
using cupti_test::RecordsOfKind;

cudaError_t Launch(void (*kernel)(uint64_t), uint64_t duration_ns, cudaStream_t stream) {
  void* args[] = {&duration_ns};
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), args, 0, stream);
}

}  // namespace

// One test case: CUPTI state (subscriber, enabled kinds) is process-wide and never reset.
TEST_CASE("fake CUPTI records the fake runtime's kernels, correlations and waits") {
  CUpti_SubscriberHandle first, second;
  REQUIRE(cuptiSubscribe(&first, nullptr, nullptr) == CUPTI_SUCCESS);
  REQUIRE(cuptiSubscribe(&second, nullptr, nullptr) ==
          CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);

  REQUIRE(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted) == CUPTI_SUCCESS);
  REQUIRE(cuptiActivityRegisterTimestampCallback(ClientClock) == CUPTI_SUCCESS);
  // DEVICE writes one record per GPU of the fake runtime when enabled; a second enable none.
  REQUIRE(setenv("FAKE_CUDA_DEVICES", "2", 1) == 0);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_KERNEL, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
        CUPTI_ACTIVITY_KIND_CUDA_EVENT, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_DEVICE}) {
    REQUIRE(cuptiActivityEnable(kind) == CUPTI_SUCCESS);
  }

  cudaStream_t compute, comm;
  cudaEvent_t ready;
  REQUIRE(cudaStreamCreate(&compute) == cudaSuccess);
  REQUIRE(cudaStreamCreate(&comm) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) == cudaSuccess);

  const uint64_t before_ns = ClientClock();
  REQUIRE(Launch(cupti_test_kernel_a, 2'000'000, compute) == cudaSuccess);
  REQUIRE(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 42) ==
          CUPTI_SUCCESS);
  REQUIRE(Launch(cupti_test_kernel_b, 4'000'000, compute) == cudaSuccess);
  uint64_t popped = 0;
  REQUIRE(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped) ==
          CUPTI_SUCCESS);
  REQUIRE(popped == 42);
  REQUIRE(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped) ==
          CUPTI_ERROR_QUEUE_EMPTY);
  REQUIRE(cudaEventRecord(ready, compute) == cudaSuccess);
  REQUIRE(cudaStreamWaitEvent(comm, ready, 0) == cudaSuccess);
  REQUIRE(Launch(cupti_test_kernel_c, 1'000'000, comm) == cudaSuccess);
  // A copy from device 0 to device 1; device 2 does not exist (FAKE_CUDA_DEVICES=2).
  std::vector<char> peer_src(4096, 'x'), peer_dst(4096, 0);
  REQUIRE(cudaMemcpyPeerAsync(peer_dst.data(), 1, peer_src.data(), 0, peer_src.size(), comm) ==
          cudaSuccess);
  REQUIRE(cudaMemcpyPeerAsync(peer_dst.data(), 2, peer_src.data(), 0, peer_src.size(), comm) ==
          cudaErrorInvalidDevice);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(peer_dst == peer_src);

  // Not forced: the one partly filled buffer stays with CUPTI.
  REQUIRE(cuptiActivityFlushAll(0) == CUPTI_SUCCESS);
  REQUIRE(g_completed.empty());
  REQUIRE(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) == CUPTI_SUCCESS);
  REQUIRE(g_completed.size() == 1);

  const auto kernels = RecordsOfKind<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_KERNEL);
  REQUIRE(kernels.size() == 3);
  const std::string names[] = {"cupti_test_kernel_a", "cupti_test_kernel_b", "cupti_test_kernel_c"};
  const uint64_t durations_ns[] = {2'000'000, 4'000'000, 1'000'000};
  for (size_t i = 0; i < 3; ++i) {
    INFO("kernel " << i);
    REQUIRE(kernels[i].name != nullptr);
    CHECK(kernels[i].name == names[i]);
    const uint64_t took_ns = kernels[i].end - kernels[i].start;
    CHECK(took_ns == durations_ns[i]);
    CHECK(kernels[i].start >= before_ns);  // on the client's clock
  }
  CHECK(kernels[0].streamId == kernels[1].streamId);
  CHECK(kernels[2].streamId != kernels[0].streamId);
  CHECK(kernels[2].start >= kernels[1].end);  // the wait held the second stream

  // Real CUPTI reports a copy between GPUs under MEMCPY2 only, never MEMCPY.
  const auto peer_copies = RecordsOfKind<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2);
  REQUIRE(peer_copies.size() == 1);
  CHECK(peer_copies[0].copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
  CHECK(peer_copies[0].bytes == 4096);
  CHECK(peer_copies[0].srcDeviceId == 0);
  CHECK(peer_copies[0].dstDeviceId == 1);
  CHECK(peer_copies[0].streamId == kernels[2].streamId);
  CHECK(peer_copies[0].start >= kernels[2].end);  // after the kernel queued before it
  CHECK(RecordsOfKind<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY).empty());

  // One RUNTIME record per call that queued work, in the order of the calls, carrying the
  // correlation id of the work it queued (the failed peer copy queued nothing), then the
  // synchronisation's own.
  const auto calls = RecordsOfKind<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  REQUIRE(calls.size() == 7);
  const uint32_t expected_cbids[] = {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020};
  for (size_t i = 0; i < calls.size(); ++i) {
    INFO("call " << i);
    CHECK(calls[i].cbid == expected_cbids[i]);
    CHECK(calls[i].start >= before_ns);
    CHECK(calls[i].processId == static_cast<uint32_t>(getpid()));
  }
  CHECK(calls[0].correlationId == kernels[0].correlationId);
  CHECK(calls[1].correlationId == kernels[1].correlationId);
  CHECK(calls[4].correlationId == kernels[2].correlationId);
  CHECK(calls[5].correlationId == peer_copies[0].correlationId);
  // A kernel starts no earlier than the call that queued it.
  CHECK(calls[4].start <= kernels[2].start);
  const char* name = nullptr;
  REQUIRE(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, calls[5].cbid, &name) == CUPTI_SUCCESS);
  CHECK(std::string(name) == "cudaMemcpyPeerAsync_v4000");  // CUPTI's names carry the version
  REQUIRE(cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                               &name) == CUPTI_SUCCESS);
  CHECK(std::string(name) == "cuLaunchKernel");
  CHECK(calls[6].correlationId > calls[5].correlationId);
  // Ids outside the header's are refused, as by CUPTI.
  CHECK(cuptiActivityEnableRuntimeApi(0, 1) == CUPTI_ERROR_INVALID_PARAMETER);
  CHECK(cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_SIZE, 1) ==
        CUPTI_ERROR_INVALID_PARAMETER);
  CHECK(cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 1) == CUPTI_SUCCESS);
  CHECK(cuptiActivityEnableHWTrace(1) == CUPTI_ERROR_NOT_INITIALIZED);  // too early, once
  CHECK(cuptiActivityEnableHWTrace(1) == CUPTI_ERROR_NOT_SUPPORTED);    // a Hopper

  const auto external =
      RecordsOfKind<CUpti_ActivityExternalCorrelation>(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
  REQUIRE(external.size() == 1);
  CHECK(external[0].externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
  CHECK(external[0].externalId == 42);
  CHECK(external[0].correlationId == kernels[1].correlationId);
  CHECK(kernels[0].correlationId != kernels[1].correlationId);

  const auto records = RecordsOfKind<CUpti_ActivityCudaEvent2>(CUPTI_ACTIVITY_KIND_CUDA_EVENT);
  const auto waits =
      RecordsOfKind<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  REQUIRE(records.size() == 1);
  REQUIRE(waits.size() == 1);
  CHECK(records[0].streamId == kernels[0].streamId);
  CHECK(waits[0].type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT);
  CHECK(waits[0].streamId == kernels[2].streamId);
  CHECK(waits[0].cudaEventId == records[0].eventId);
  CHECK(waits[0].cudaEventSyncId == records[0].cudaEventSyncId);
  CHECK(waits[0].cudaEventSyncId != 0);

  const auto devices = RecordsOfKind<CUpti_ActivityDevice5>(CUPTI_ACTIVITY_KIND_DEVICE);
  REQUIRE(devices.size() == 2);  // FAKE_CUDA_DEVICES=2
  for (uint32_t i = 0; i < 2; ++i) {
    INFO("device " << i);
    CHECK(devices[i].id == i);
    // fa4ec0de-0000-0000-0000-0000000000NN, NN the ordinal (README of the stand-ins).
    const unsigned char expected[16] = {
        0xfa, 0x4e, 0xc0, 0xde, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<unsigned char>(i)};
    CHECK(std::memcmp(devices[i].uuid.bytes, expected, 16) == 0);
    REQUIRE(devices[i].name != nullptr);
    CHECK(std::string(devices[i].name) == "Fake GPU (CPU stand-in)");
    CHECK(devices[i].isCudaVisible == 1);
    CHECK(devices[i].computeCapabilityMajor == 9);
    CHECK(devices[i].globalMemorySize == 80ull * 1024 * 1024 * 1024);
    CHECK(devices[i].numMultiprocessors == 132);
  }

  size_t dropped = 99;
  REQUIRE(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS);
  CHECK(dropped == 0);

  // Without a buffer from the client, records are dropped and counted: each launch loses its
  // RUNTIME record and its kernel record, 2 x 2, and the synchronisation its RUNTIME record.
  g_give_no_buffer = true;
  REQUIRE(Launch(cupti_test_kernel_a, 0, compute) == cudaSuccess);
  REQUIRE(Launch(cupti_test_kernel_a, 0, compute) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS);
  CHECK(dropped == 5);
  REQUIRE(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS);
  CHECK(dropped == 0);  // reset when read, as in CUPTI

  // Copies within one device carry their direction (cudaMemcpyDefault resolved by where the
  // pointers lie) and the kind of memory on each side: the device's (cudaMalloc's), pinned
  // (cudaMallocHost's, from anywhere inside it) or pageable host memory.
  g_give_no_buffer = false;
  g_completed.clear();
  std::vector<char> pageable(4096, 'p');
  void* device_memory = nullptr;
  void* pinned_memory = nullptr;
  REQUIRE(cudaMalloc(&device_memory, 4096) == cudaSuccess);
  REQUIRE(cudaMallocHost(&pinned_memory, 4096) == cudaSuccess);
  char* device = static_cast<char*>(device_memory);
  char* pinned = static_cast<char*>(pinned_memory);
  REQUIRE(cudaMemcpyAsync(device, pageable.data(), 4096, cudaMemcpyHostToDevice, comm) ==
          cudaSuccess);
  REQUIRE(cudaMemcpyAsync(pinned + 16, device, 64, cudaMemcpyDefault, comm) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(device + 2048, device, 1024, cudaMemcpyDefault, comm) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(pageable.data(), pinned, 128, cudaMemcpyHostToHost, comm) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(pinned[16] == 'p');
  REQUIRE(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) == CUPTI_SUCCESS);
  const auto copies = RecordsOfKind<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  REQUIRE(copies.size() == 4);
  struct Expected {
    uint8_t copy_kind, src_kind, dst_kind;
    uint64_t bytes;
  };
  const Expected expected[] = {
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
       CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 4096},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
       CUPTI_ACTIVITY_MEMORY_KIND_PINNED, 64},
      {CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
       CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 1024},
      {CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
       CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, 128},
  };
  for (size_t i = 0; i < 4; ++i) {
    INFO("copy " << i);
    CHECK(copies[i].copyKind == expected[i].copy_kind);
    CHECK(copies[i].srcKind == expected[i].src_kind);
    CHECK(copies[i].dstKind == expected[i].dst_kind);
    CHECK(copies[i].bytes == expected[i].bytes);
  }
  // Only what cudaMallocHost gave is freed by cudaFreeHost.
  CHECK(cudaFreeHost(pageable.data()) == cudaErrorInvalidValue);
  CHECK(cudaFreeHost(pinned_memory) == cudaSuccess);
  CHECK(cudaFree(device_memory) == cudaSuccess);
}
