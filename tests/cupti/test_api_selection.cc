// Which API records the light capture keeps, by CUPTI's callback names, and the walk that enables
// them one API at a time through a CuptiLibrary whose functions are the test's.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "cupti/api_selection.h"

namespace {

TEST_CASE(
    "launches, copies, memsets, events, waits, syncs, IPC, profiler and allocation calls are "
    "selected") {
  for (const char* name : {"cudaLaunchKernel_v7000",
                           "cudaLaunchKernelExC_ptsz_v11060",
                           "cuLaunchKernelEx",
                           "cudaGraphLaunch_v10000",
                           "cuGraphLaunch",
                           "cudaLaunchHostFunc_v10000",
                           "cudaMemcpyAsync_v3020",
                           "cuMemcpyDtoDAsync_v2",
                           "cuMemcpyBatchAsync_v2",
                           "cudaMemsetAsync_v3020",
                           "cuMemsetD32Async",
                           "cudaEventRecord_v3020",
                           "cuEventRecordWithFlags",
                           "cudaStreamWaitEvent_v3020",
                           "cudaStreamSynchronize_v3020",
                           "cuCtxSynchronize",
                           "cudaDeviceSynchronize_v3020",
                           "cudaIpcOpenMemHandle_v4010",
                           "cuIpcGetMemHandle",
                           "cudaProfilerStart_v4000",
                           "cuProfilerStop",
                           "cudaMalloc_v3020",
                           "cudaFree_v3020",
                           "cudaMallocAsync_v11020",
                           "cudaFreeAsync_v11020",
                           "cuMemAlloc_v2",
                           "cuMemFree_v2",
                           "cuMemAllocAsync",
                           "cuMemCreate",
                           "cuMemRelease",
                           "cuMemMap",
                           "cuMemUnmap"}) {
    INFO(name);
    CHECK(vprof::IsSelectedApi(name));
  }
}

TEST_CASE("queries, address reservations and graph building are not") {
  for (const char* name :
       {"cudaGetDevice_v3020", "cuCtxGetCurrent", "cudaStreamIsCapturing_v10000",
        "cudaGetLastError_v3020", "cudaMemGetInfo_v3020", "cuMemGetInfo_v2", "cuMemAddressReserve",
        "cuMemSetAccess", "cudaEventQuery_v3020", "cudaGraphAddMemcpyNode_v10000",
        "cuGraphAddMemsetNode", "cudaGraphAddEventRecordNode_v11010",
        "cudaGraphExecMemcpyNodeSetParams_v11000", "cuStreamBeginCapture", "cuFuncGetAttribute"}) {
    INFO(name);
    CHECK_FALSE(vprof::IsSelectedApi(name));
  }
}

// A CUPTI with a few APIs per domain; records which ids vprof enabled.
const std::map<uint32_t, std::string> kRuntime = {{5, "cudaGetDevice_v3020"},
                                                  {17, "cudaLaunchKernel_v7000"},
                                                  {30, "cudaMemcpyAsync_v3020"},
                                                  {40, "cudaGraphAddMemcpyNode_v10000"},
                                                  {41, "cudaStreamSynchronize_v3020"}};
const std::map<uint32_t, std::string> kDriver = {
    {3, "cuCtxGetCurrent"}, {9, "cuLaunchKernelEx"}, {12, "cuIpcOpenMemHandle_v2"}};
std::set<uint32_t> g_runtime_enabled, g_driver_enabled;
uint32_t g_refuse_runtime = 0;

CUptiResult CUPTIAPI callback_name(CUpti_CallbackDomain domain, uint32_t cbid, const char** name) {
  const auto& table = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? kRuntime : kDriver;
  const auto it = table.find(cbid);
  if (it == table.end()) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = it->second.c_str();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI enable_runtime(CUpti_CallbackId cbid, uint8_t enable) {
  if (cbid == g_refuse_runtime) return CUPTI_ERROR_NOT_INITIALIZED;
  if (enable) g_runtime_enabled.insert(cbid);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI enable_driver(CUpti_CallbackId cbid, uint8_t enable) {
  if (enable) g_driver_enabled.insert(cbid);
  return CUPTI_SUCCESS;
}

vprof::CuptiLibrary test_cupti() {
  vprof::CuptiLibrary cupti;
  cupti.cuptiGetCallbackName = callback_name;
  cupti.cuptiActivityEnableRuntimeApi = enable_runtime;
  cupti.cuptiActivityEnableDriverApi = enable_driver;
  return cupti;
}

TEST_CASE("every selected API of both domains is enabled, and only those") {
  g_runtime_enabled.clear();
  g_driver_enabled.clear();
  g_refuse_runtime = 0;
  const vprof::ApiSelection selection = vprof::EnableSelectedApis(test_cupti(), true);
  CHECK(g_runtime_enabled == std::set<uint32_t>{17, 30, 41});
  CHECK(g_driver_enabled == std::set<uint32_t>{9, 12});
  CHECK(selection.runtime == 3);
  CHECK(selection.driver == 2);
  CHECK(selection.error.empty());
}

TEST_CASE("a refused API is not counted and the first refusal is named") {
  g_runtime_enabled.clear();
  g_driver_enabled.clear();
  g_refuse_runtime = 30;
  const vprof::ApiSelection selection = vprof::EnableSelectedApis(test_cupti(), true);
  CHECK(g_runtime_enabled == std::set<uint32_t>{17, 41});
  CHECK(selection.runtime == 2);
  CHECK(selection.error.find("cudaMemcpyAsync_v3020") != std::string::npos);
}

}  // namespace
