// The exported CUPTI entry points vprof calls (cupti/cupti_functions.def), with the
// signatures of the real cupti.h. Activity comes from the fake CUDA runtime's work
// (activity_recorder.h).
#include <cupti.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "activity_recorder.h"

namespace {

// CUPTI allows one subscriber per process; the handle is only ever compared, never read.
std::atomic<bool> g_subscribed{false};
int g_subscriber;

// At exit the real libcupti's static objects are destroyed, in the order of exit's handlers:
// before the handlers registered ahead of its loading. A call that reaches its state after
// that crashed the process on an H200. The fake plays that teardown: a call of the functions
// below once it began aborts with a line that names the function. It lasts
// FAKE_CUPTI_TEARDOWN_MS (default 0), so that a thread calling in now and then is caught.
// With FAKE_CUPTI_KINDS_AT_EXIT=1 it first prints the kinds still enabled, by number, on one
// line, and how many APIs' records are still selected on another: "fake CUPTI kinds at exit: 1
// 10" and "fake CUPTI selected APIs at exit: 309". With FAKE_CUPTI_TEARDOWN_DELIVERS=1 it hands one
// more buffer over once it began, holding a launch's record, as a teardown that flushes would.
std::atomic<bool> g_torn_down{false};

void PrintKindsAtExit() {
  const char* wanted = std::getenv("FAKE_CUPTI_KINDS_AT_EXIT");
  if (wanted == nullptr || std::string_view(wanted) != "1") return;
  std::string line = "fake CUPTI kinds at exit:";
  for (int kind = CUPTI_ACTIVITY_KIND_INVALID + 1; kind < CUPTI_ACTIVITY_KIND_COUNT; ++kind) {
    if (fake_cupti::KindEnabled(static_cast<CUpti_ActivityKind>(kind))) {
      line += " " + std::to_string(kind);
    }
  }
  line += "\nfake CUPTI selected APIs at exit: " + std::to_string(fake_cupti::SelectedApiCount());
  line += "\n";
  (void)!write(2, line.data(), line.size());
}

struct Teardown {
  ~Teardown() {
    PrintKindsAtExit();
    g_torn_down.store(true);
    const char* delivers = std::getenv("FAKE_CUPTI_TEARDOWN_DELIVERS");
    if (delivers != nullptr && std::string_view(delivers) == "1") fake_cupti::DeliverOneLaunch();
    const char* ms = std::getenv("FAKE_CUPTI_TEARDOWN_MS");
    const long n = ms != nullptr ? std::atol(ms) : 0;
    if (n > 0) {
      const timespec pause{n / 1000, (n % 1000) * 1000000};
      nanosleep(&pause, nullptr);
    }
  }
} g_teardown;

void RequireAlive(const char* function) {
  if (!g_torn_down.load()) return;
  char line[160];
  const int n = std::snprintf(
      line, sizeof line, "fake CUPTI: %s called during libcupti's teardown at exit\n", function);
  if (n > 0) (void)!write(2, line, static_cast<size_t>(n));
  std::abort();
}

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
    case CUPTI_ERROR_NOT_SUPPORTED:
      *str = "CUPTI_ERROR_NOT_SUPPORTED";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_NOT_INITIALIZED:
      *str = "CUPTI_ERROR_NOT_INITIALIZED";
      return CUPTI_SUCCESS;
    case CUPTI_ERROR_NOT_COMPATIBLE:
      *str = "CUPTI_ERROR_NOT_COMPATIBLE";
      return CUPTI_SUCCESS;
    default:
      *str = "CUPTI_ERROR_UNKNOWN";
      return CUPTI_SUCCESS;
  }
}

// CUPTI's names for every API of the toolkit's headers, in both domains.
CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
                                          const char** name) {
  RequireAlive("cuptiGetCallbackName");
  if (name == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *name = fake_cupti::CallbackName(domain, cbid);
  return *name != nullptr ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

// The callback is called only for the one callback the fake issues (cuptiEnableCallback).
CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* userdata) {
  if (subscriber == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (g_subscribed.exchange(true)) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  fake_cupti::SetSubscriberCallback(callback, userdata);
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber);
  return CUPTI_SUCCESS;
}

// The creation of a context and the instantiation of a graph are the callbacks the fake issues;
// asking for another is refused as CUPTI refuses what it does not know.
CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  if (subscriber != reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber)) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
    fake_cupti::EnableContextCreatedCallback(enable != 0);
    return CUPTI_SUCCESS;
  }
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
    fake_cupti::EnableGraphExecCreatedCallback(enable != 0);
    return CUPTI_SUCCESS;
  }
  return CUPTI_ERROR_NOT_SUPPORTED;
}

CUptiResult CUPTIAPI cuptiGetGraphId(CUgraph graph, uint32_t* pId) {
  RequireAlive("cuptiGetGraphId");
  return fake_cupti::GraphId(graph, false, pId);
}

CUptiResult CUPTIAPI cuptiGetGraphExecId(CUgraphExec graphExec, uint32_t* pId) {
  RequireAlive("cuptiGetGraphExecId");
  return fake_cupti::GraphId(graphExec, true, pId);
}

// FAKE_CUPTI_NO_GRAPH_TRACE=1 plays a libcupti older than whole-graph records, which refuses the
// kind as unknown. FAKE_CUPTI_REFUSE_KIND=N refuses kind N as incompatible, as CUPTI does a kind
// that conflicts with one enabled before it.
CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  RequireAlive("cuptiActivityEnable");
  const char* no_graph_trace = std::getenv("FAKE_CUPTI_NO_GRAPH_TRACE");
  if (kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE && no_graph_trace != nullptr &&
      std::string_view(no_graph_trace) == "1") {
    return CUPTI_ERROR_INVALID_KIND;
  }
  const char* refused = std::getenv("FAKE_CUPTI_REFUSE_KIND");
  if (refused != nullptr && std::atoi(refused) == static_cast<int>(kind)) {
    return CUPTI_ERROR_NOT_COMPATIBLE;
  }
  return fake_cupti::EnableKind(kind);
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  RequireAlive("cuptiActivityDisable");
  return fake_cupti::DisableKind(kind);
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable) {
  RequireAlive("cuptiActivityEnableRuntimeApi");
  return fake_cupti::EnableApi(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, enable != 0);
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable) {
  RequireAlive("cuptiActivityEnableDriverApi");
  return fake_cupti::EnableApi(CUPTI_CB_DOMAIN_DRIVER_API, cbid, enable != 0);
}

// As on every GPU before Blackwell, unless FAKE_CUPTI_HW_TRACE=1 plays a Blackwell one. Like
// CUPTI 13, the first request (made while the driver initialises) is refused as too early.
CUptiResult CUPTIAPI cuptiActivityEnableHWTrace(uint8_t) {
  RequireAlive("cuptiActivityEnableHWTrace");
  static std::atomic<bool> asked{false};
  if (!asked.exchange(true)) return CUPTI_ERROR_NOT_INITIALIZED;
  const char* blackwell = std::getenv("FAKE_CUPTI_HW_TRACE");
  return blackwell != nullptr && std::string_view(blackwell) == "1" ? CUPTI_SUCCESS
                                                                    : CUPTI_ERROR_NOT_SUPPORTED;
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
  RequireAlive("cuptiActivityGetNextRecord");
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
  RequireAlive("cuptiActivityFlushAll");
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
