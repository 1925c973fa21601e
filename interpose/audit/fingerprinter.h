// Fingerprints of collectives' buffers on the GPU (VPROF_AUDIT=fingerprint):
// vprof's kernel (fingerprint_kernel.cu, embedded as a fatbin) launched
// through the driver API on the collective's own stream, so the program's
// stream order and results stay as they are and nothing waits for the GPU.
//
// Each fingerprint has a result slot: a pair of 64-bit words in host-mapped
// memory that the kernel writes (value, then the slot's tag), so the writer
// thread reads finished values without a CUDA call. A slot belongs to the
// thread that reserved it until the writer has read it; when every slot of
// a context is in flight the fingerprint is dropped and counted, never
// waited for.
//
// Nothing touches CUDA until the first collective to fingerprint: then the
// kernel is loaded and the slots are allocated once per CUDA context (under a
// mutex that is never held across a launch). Any failure turns fingerprints
// off for that context with one warning; the collective itself always runs.
#pragma once

#include <cstdint>

namespace vprof {

// What became of one buffer's fingerprint (schema FingerprintState).
enum class FingerprintState : uint8_t {
  kNone = 0,      // not asked for
  kLaunched = 1,  // a slot holds it (handle != 0)
  kSkippedGraphCapture = 2,
  kSkippedPoolFull = 3,
  kFailed = 4,
};

// A reserved slot: 0 is none.
using FingerprintHandle = uint32_t;

struct FingerprintRequest {
  FingerprintHandle handle = 0;
  FingerprintState state = FingerprintState::kNone;
};

// Reserves a slot in the context of `stream` (a cudaStream_t / CUstream). The
// fingerprint is launched later with LaunchFingerprint, or given back with
// AbandonFingerprint. A stream that is capturing a CUDA graph gets no slot
// (kSkippedGraphCapture): vprof's kernel must not become part of the graph.
FingerprintRequest ReserveFingerprint(void* stream);

// Launches the fingerprint of `bytes` bytes at `data` (device memory) into the
// reserved slot, on `stream`. False when the driver refused the launch (the
// slot is then given back and the state is kFailed).
bool LaunchFingerprint(FingerprintHandle handle, const void* data, uint64_t bytes, void* stream);

// Gives back a reserved slot whose launch will never come (the collective
// failed, or its group was never launched).
void AbandonFingerprint(FingerprintHandle handle);

// Writer thread: reads a launched fingerprint. kPending while the GPU has
// not written it; kDone with *value, or kAbandoned, free the slot.
enum class FingerprintRead : uint8_t { kPending, kDone, kAbandoned };
FingerprintRead ReadFingerprint(FingerprintHandle handle, uint64_t* value);

// Whether the fingerprinter found the driver and loaded its kernel, for the
// trace's FingerprintStatus (schema FingerprintStatusState), and why not.
// Changes at most once per context; `generation` counts the changes so the
// writer knows when to write the status again.
struct FingerprintStatusView {
  int32_t state = 0;
  const char* detail = "";
  uint64_t generation = 0;
};
FingerprintStatusView FingerprintStatus();

// In a forked child (single-threaded): CUDA belongs to the parent, and the
// slots' pinned memory is not mapped in the child (CUDA marks it
// MADV_DONTFORK), so the child fingerprints nothing; `say_why` (auditing is
// on): its trace's FingerprintStatus says so.
void ResetFingerprinterInChild(bool say_why);

}  // namespace vprof
