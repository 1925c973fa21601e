#include "interpose/audit/collective_audit.h"

#include <new>

#include "interpose/audit/fingerprinter.h"
#include "interpose/core/log.h"
#include "interpose/nccl/nccl_functions.h"

namespace vprof {
namespace {

bool g_on = false;
uint64_t g_every = 1;
uint64_t g_min_bytes = 0;

// A fingerprint whose launch waits for the end of this thread's group.
struct Deferred {
  FingerprintHandle handle;
  const void* data;
  uint64_t bytes;
  void* stream;
  bool output;
};
constexpr uint32_t kMaxDeferred = 1024;

// Allocated on the thread's first group (thread_local storage stays small:
// libvprof may be loaded with dlopen, where static TLS is scarce).
struct GroupList {
  Deferred items[kMaxDeferred];
  uint32_t size = 0;
};
thread_local GroupList* t_group = nullptr;

bool Defer(const Deferred& d) {
  if (!t_group) t_group = new (std::nothrow) GroupList;
  if (!t_group || t_group->size == kMaxDeferred) {
    VPROF_WARN_ONCE(
        "collective fingerprints: more than {} calls in one NCCL group; the rest are "
        "not fingerprinted",
        kMaxDeferred);
    return false;
  }
  t_group->items[t_group->size++] = d;
  return true;
}

// Reserves a slot for one buffer and launches it now, or at the group's end.
void Start(const void* data, uint64_t bytes, void* stream, bool output, uint32_t* handle,
           uint8_t* state) {
  FingerprintRequest q = ReserveFingerprint(stream);
  *state = static_cast<uint8_t>(q.state);
  *handle = q.handle;
  if (!q.handle) return;
  if (NcclGroupDepth() > 0) {
    if (!Defer({q.handle, data, bytes, stream, output})) AbandonFingerprint(q.handle);
  } else if (!output) {
    LaunchFingerprint(q.handle, data, bytes, stream);
  }
}

// The outermost ncclGroupEnd: the group's inputs before it, outputs after it.
void LaunchGroup(bool outputs, bool launched) {
  if (!t_group) return;
  for (uint32_t i = 0; i < t_group->size; ++i) {
    const Deferred& d = t_group->items[i];
    if (d.output != outputs) continue;
    if (launched) {
      LaunchFingerprint(d.handle, d.data, d.bytes, d.stream);
    } else {
      AbandonFingerprint(d.handle);
    }
  }
  if (outputs) t_group->size = 0;
}

}  // namespace

void ConfigureCollectiveAudit(const Settings& settings) {
  g_on = settings.audit_fingerprints;
  g_every = settings.audit_every;
  g_min_bytes = settings.audit_min_bytes;
}

bool CollectiveAuditOn() { return g_on; }

void AuditBeforeCall(NcclRecord& r, const CallBuffers& b) {
  if (r.function == static_cast<uint16_t>(NcclFn::kGroupEnd)) {
    // r.group_depth: the nesting before this ncclGroupEnd.
    if (r.group_depth == 1) LaunchGroup(false, true);
    return;
  }
  if (!b.input && !b.output) return;
  if (r.seq == 0 || r.seq % g_every != 0) return;
  if ((b.input_bytes > b.output_bytes ? b.input_bytes : b.output_bytes) < g_min_bytes) return;
  auto* stream = reinterpret_cast<void*>(r.stream);
  if (b.input) Start(b.input, b.input_bytes, stream, false, &r.fp_input, &r.fp_input_state);
  if (b.output) Start(b.output, b.output_bytes, stream, true, &r.fp_output, &r.fp_output_state);
}

void AuditAfterCall(const NcclRecord& r, const CallBuffers& b, ncclResult_t result) {
  if (r.function == static_cast<uint16_t>(NcclFn::kGroupEnd)) {
    if (r.group_depth == 1) LaunchGroup(true, NcclAccepted(result));
    return;
  }
  if (NcclGroupDepth() > 0) return;  // launched, or abandoned, at the group's end
  // An input's fingerprint already launched is left to finish even when the
  // collective failed: a slot is given back only before its kernel is queued.
  if (!r.fp_output) return;
  if (NcclAccepted(result)) {
    LaunchFingerprint(r.fp_output, b.output, b.output_bytes, reinterpret_cast<void*>(r.stream));
  } else {
    AbandonFingerprint(r.fp_output);
  }
}

}  // namespace vprof
