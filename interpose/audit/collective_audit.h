// The NCCL wrappers' side of the collective fingerprints: which calls are
// fingerprinted (VPROF_AUDIT, VPROF_AUDIT_EVERY, VPROF_AUDIT_MIN_BYTES), and
// when each fingerprint is launched on the call's stream: the input just
// before the collective, the output just after. Inside an ncclGroupStart /
// ncclGroupEnd pair NCCL launches nothing until the outermost ncclGroupEnd,
// so there the inputs' fingerprints go just before it and the outputs' just
// after it; until then they wait in a per-thread list.
//
// Everything here runs on the calling thread, takes no lock (but the
// fingerprinter's set-up lock on a context's first use) and allocates only
// a thread's group list, once.
#pragma once

#include <nccl.h>

#include <cstdint>

#include "common/settings.h"
#include "interpose/core/nccl_record.h"
#include "interpose/nccl/nccl_calls.h"

namespace vprof {

// At initialisation, before any NCCL call is recorded.
void ConfigureCollectiveAudit(const Settings& settings);
bool CollectiveAuditOn();

// Around the real call of any wrapped function: `r` is the record Before()
// filled; `b` the call's buffers (none for calls without). Sets the record's
// fp_* fields.
void AuditBeforeCall(NcclRecord& r, const CallBuffers& b);
void AuditAfterCall(const NcclRecord& r, const CallBuffers& b, ncclResult_t result);

}  // namespace vprof
