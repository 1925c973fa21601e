// The exported CUPTI entry points vprof calls (cupti/cupti_functions.def), with the signatures
// of the real cupti.h. Activity comes from the fake CUDA runtime's work (activity_recorder.h).
#include <cupti.h>

#include <atomic>

#include "activity_recorder.h"

namespace {

// CUPTI allows one subscriber per process; the handle is only ever compared, never read.
std::atomic<bool> g_subscribed{false};
int g_subscriber;

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version) {
  if (version == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  if (str == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
    case CUPTI_SUCCESS:
      *str = "CUPTI_SUCCESS";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_INVALID_PARAMETER:
      *str = "CUPTI_ERROR_INVALID_PARAMETER";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_INVALID_KIND:
      *str = "CUPTI_ERROR_INVALID_KIND";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_MAX_LIMIT_REACHED:
      *str = "CUPTI_ERROR_MAX_LIMIT_REACHED";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_QUEUE_EMPTY:
      *str = "CUPTI_ERROR_QUEUE_EMPTY";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
      return CUPTI_SUCCESS;
    default:
      *str = "CUPTI_ERROR_UNKNOWN";
      return CUPTI_SUCCESS;
  }
}

// The fake writes RUNTIME records only for the calls that queue the work it reports, so only
// those are named.
CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char** name) {
  if (name == nullptr || domain != CUPTI_CB_DOMAIN_RUNTIME_API) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      *name = "cudaLaunchKernel";
      return CUPTI_SUCCESS;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
      *name = "cudaMemcpyAsync";
      return CUPTI_SUCCESS;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000:
      *name = "cudaMemcpyPeerAsync";
      return CUPTI_SUCCESS;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
      *name = "cudaMemsetAsync";
      return CUPTI_SUCCESS;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
      *name = "cudaEventRecord";
      return CUPTI_SUCCESS;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
      *name = "cudaStreamWaitEvent";
      return CUPTI_SUCCESS;
    default:
      return CUPTI_ERROR_INVALID_PARAMETER;
  }
}

// The callback is never called: the fake has no callback API, only the subscriber slot.
CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc, void*) {
  if (subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (g_subscribed.exchange(true)) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  return fake_cupti::EnableKind(kind);
}

CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                               CUpti_BuffersCallbackCompleteFunc funcBufferCompleted) {
  if (funcBufferRequested == nullptr || funcBufferCompleted == nullptr) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  fake_cupti::Buffers().SetCallbacks(funcBufferRequested, funcBufferCompleted);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI
cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp) {
  fake_cupti::SetTimestampCallback(funcTimestamp);
  return CUPTI_SUCCESS;
}

// Records lie back to back, each rounded up to 8 bytes; a record's size follows from its kind.
CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t validBufferSizeBytes,
                                                CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t offset = 0;
  if (*record != nullptr) {
    const size_t size = fake_cupti::RecordSize((*record)->kind);
    if (size == 0) return CUPTI_ERROR_INVALID_KIND;
    offset = reinterpret_cast<uint8_t*>(*record) - buffer +
             (size + fake_cupti::kRecordAlignment - 1) / fake_cupti::kRecordAlignment *
                 fake_cupti::kRecordAlignment;
  }
  if (offset >= validBufferSizeBytes) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  return CUPTI_SUCCESS;
}

// One global queue: context and stream are not told apart.
CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *dropped = fake_cupti::Buffers().TakeDropped();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
  fake_cupti::Buffers().Flush((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                            uint64_t id) {
  return fake_cupti::PushExternalId(kind, id);
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                           uint64_t* lastId) {
  return fake_cupti::PopExternalId(kind, lastId);
}

}  // extern "C"
#pragma GCC visibility pop
