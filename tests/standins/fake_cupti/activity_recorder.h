// Turns what the fake CUDA runtime reports (fake_cudart/activity_hooks.h) into CUPTI activity
// records: which kinds are enabled, correlation ids, the per-thread external correlation
// stacks, and the conversion of times onto the client's clock.
#pragma once

#include <cupti.h>

#include <cstdint>

#include "activity_buffers.h"

namespace fake_cupti {

ActivityBuffers& Buffers();

// Enables a kind; on first use also registers the sink with the fake libcudart.so.13 if the
// process has loaded it (the fake CUPTI, like the real one, does not load the runtime itself).
// Enabling DEVICE writes one record per fake GPU at once, as CUPTI does.
CUptiResult EnableKind(CUpti_ActivityKind kind);
// Disables a kind: work that starts afterwards leaves no record of it, as with CUPTI, which
// vprof asks this of at a deep window's end.
CUptiResult DisableKind(CUpti_ActivityKind kind);
// Whether a kind is enabled now.
bool KindEnabled(CUpti_ActivityKind kind);
void SetTimestampCallback(CUpti_TimestampCallbackFunc callback);

// The record of one API (cuptiActivityEnableRuntimeApi/DriverApi): written for that API even
// while its domain's kind is off. Enabling RUNTIME records every runtime call, whatever was
// selected; the fake runtime makes no driver calls.
CUptiResult EnableApi(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, bool enable);
// How many APIs' records are selected now, runtime and driver together.
size_t SelectedApiCount();
// CUPTI's name of an API (cupti_*_cbid.h), or nullptr for an id it does not know.
const char* CallbackName(CUpti_CallbackDomain domain, uint32_t cbid);

// The subscriber's callback, and whether its one callback the fake issues is enabled: the
// creation of a context (CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED), which
// the fake runtime reports once, as CUDA initialises.
void SetSubscriberCallback(CUpti_CallbackFunc callback, void* userdata);
void EnableContextCreatedCallback(bool enable);
// The second callback the fake issues, at each cudaGraphInstantiate: CUPTI_CBID_RESOURCE_
// GRAPHEXEC_CREATED, with the graph and the executable graph in a CUpti_GraphData.
void EnableGraphExecCreatedCallback(bool enable);
// cuptiGetGraphId (exec false) and cuptiGetGraphExecId (exec true) of an instantiated graph.
CUptiResult GraphId(const void* handle, bool exec, uint32_t* id);

// A launch's runtime record (when recorded), handed over to the client at once: what a teardown
// that flushes hands over (cupti_api.cc, FAKE_CUPTI_TEARDOWN_DELIVERS).
void DeliverOneLaunch();

CUptiResult PushExternalId(CUpti_ExternalCorrelationKind kind, uint64_t id);
CUptiResult PopExternalId(CUpti_ExternalCorrelationKind kind, uint64_t* last_id);

}  // namespace fake_cupti
