// The writer's side of the collective fingerprints: the calls whose
// fingerprints the GPU has not written yet, and the FingerprintBatch packets
// of those it has (schema CollectiveFingerprint), with the FingerprintStatus
// when it changes. Writer thread only, with the flush lock held.
#pragma once

#include "interpose/core/nccl_record.h"
#include "interpose/core/trace_writer.h"

namespace vprof {

// A drained NcclRecord: a call with fingerprints waits here for the GPU.
void NoteFingerprints(const NcclRecord& r);

// Writes the calls whose every fingerprint is in, in the order they were
// called. `final` (the trace ends): also those still waiting, marked
// FINGERPRINT_INCOMPLETE, since nothing waits for the GPU. False when the
// trace could not be written.
bool DrainFingerprints(TraceWriter& w, bool final);

// In a forked child: the parent's calls are not the child's, and their slots
// are not mapped there (ResetFingerprinterInChild).
void ResetFingerprintsInChild();

}  // namespace vprof
