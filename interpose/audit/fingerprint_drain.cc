#include "interpose/audit/fingerprint_drain.h"

#include <vector>

#include "interpose/audit/collective_audit.h"
#include "interpose/audit/fingerprinter.h"
#include "interpose/core/fingerprint_hash.h"
#include "interpose/core/load_order.h"
#include "interpose/nccl/nccl_functions.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

// One call's fingerprints as they come in.
struct Pending {
  uint64_t comm_id;
  uint64_t seq;
  uint32_t handle[2];  // input, output; 0 once read (or never asked for)
  uint64_t value[2];
  uint8_t state[2];  // FingerprintState, then the schema's state once read
  bool has_value[2];
  uint16_t function;
  bool has_peer;
  int32_t peer;
};

// Writer thread only (and the exit handler holding the flush lock), in call
// order. Never destroyed: a destructor registered at load would run at exit
// before vprof's own exit handler, which still adds to it.
LoadFirst<std::vector<Pending>> g_pending VPROF_LOAD_FIRST;
uint64_t g_status_written = 0;

constexpr size_t kFingerprintRoom = 96;

// The schema's FingerprintState for one buffer.
uint64_t SchemaState(uint8_t state) {
  switch (static_cast<FingerprintState>(state)) {
    case FingerprintState::kLaunched:
      return sf::FingerprintState::FINGERPRINTED;
    case FingerprintState::kSkippedGraphCapture:
      return sf::FingerprintState::FINGERPRINT_SKIPPED_GRAPH_CAPTURE;
    case FingerprintState::kSkippedPoolFull:
      return sf::FingerprintState::FINGERPRINT_SKIPPED_POOL_FULL;
    default:
      return sf::FingerprintState::FINGERPRINT_FAILED;
  }
}

// Reads what the GPU has written; true when nothing of `p` is outstanding.
bool Poll(Pending& p) {
  bool done = true;
  for (int i = 0; i < 2; ++i) {
    if (!p.handle[i]) continue;
    uint64_t value = 0;
    switch (ReadFingerprint(p.handle[i], &value)) {
      case FingerprintRead::kPending:
        done = false;
        continue;
      case FingerprintRead::kDone:
        p.value[i] = value;
        p.has_value[i] = true;
        break;
      case FingerprintRead::kAbandoned:
        p.state[i] = static_cast<uint8_t>(FingerprintState::kFailed);
        break;
    }
    p.handle[i] = 0;
  }
  return done;
}

// The call's state: the first buffer's that did not go as asked, if any.
uint64_t CallState(const Pending& p, bool incomplete) {
  if (incomplete) return sf::FingerprintState::FINGERPRINT_INCOMPLETE;
  for (int i = 0; i < 2; ++i) {
    if (p.state[i] && p.state[i] != static_cast<uint8_t>(FingerprintState::kLaunched)) {
      return SchemaState(p.state[i]);
    }
  }
  return sf::FingerprintState::FINGERPRINTED;
}

void PutFingerprint(ProtoEncoder& enc, const Pending& p, bool incomplete) {
  namespace k = sf::CollectiveFingerprint;
  size_t m = enc.BeginNested(sf::FingerprintBatch::kFingerprint);
  enc.AddVarint(k::kCommId, p.comm_id);
  enc.AddVarint(k::kSeq, p.seq);
  enc.AddVarint(k::kFunctionIid, NcclFunctionIid(p.function));
  if (p.has_peer) enc.AddInt32(k::kPeer, p.peer);
  enc.AddVarint(k::kState, CallState(p, incomplete));
  if (p.has_value[0]) enc.AddFixed64(k::kInput, p.value[0]);
  if (p.has_value[1]) enc.AddFixed64(k::kOutput, p.value[1]);
  enc.EndNested(m);
}

bool PutStatus(TraceWriter& w) {
  const FingerprintStatusView s = FingerprintStatus();
  if (s.generation == g_status_written) return true;
  if (!w.EnsureRoom(512)) return false;
  ProtoEncoder& enc = w.encoder();
  auto t = w.BeginPacket(sf::TracePacket::kFingerprintStatus);
  enc.AddVarint(sf::FingerprintStatus::kState, static_cast<uint64_t>(s.state));
  if (*s.detail) enc.AddString(sf::FingerprintStatus::kDetail, s.detail);
  enc.AddVarint(sf::FingerprintStatus::kVersion, fingerprint::kFingerprintVersion);
  w.EndPacket(t);
  g_status_written = s.generation;
  return true;
}

}  // namespace

void ResetFingerprintsInChild() {
  g_pending.RenewInChild();  // the parent's writer may have been growing it
  g_status_written = FingerprintStatus().generation;
  ResetFingerprinterInChild(CollectiveAuditOn());
}

void NoteFingerprints(const NcclRecord& r) {
  if (!r.fp_input_state && !r.fp_output_state) return;
  Pending p{};
  p.comm_id = r.comm_id;
  p.seq = r.seq;
  p.function = r.function;
  p.has_peer = r.has & NcclRecord::kHasPeer;
  p.peer = r.peer;
  p.handle[0] = r.fp_input;
  p.handle[1] = r.fp_output;
  p.state[0] = r.fp_input_state;
  p.state[1] = r.fp_output_state;
  g_pending->push_back(p);
}

bool DrainFingerprints(TraceWriter& w, bool final) {
  if (!PutStatus(w)) return false;
  ProtoEncoder& enc = w.encoder();
  bool open = false;
  TraceWriter::PacketTokens t{};
  // Every call whose fingerprints are in, in call order; one still waiting
  // (its stream behind, or stopped) holds back no other.
  std::vector<Pending>& pending = *g_pending;
  size_t kept = 0;
  for (size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    const bool done = Poll(p);
    if (!done && !final) {
      pending[kept++] = p;
      continue;
    }
    if (!open || enc.capacity() - enc.size() < kFingerprintRoom) {
      if (open) w.EndPacket(t);
      open = false;
      if (!w.EnsureRoom(kFingerprintRoom * 4)) return false;
      t = w.BeginPacket(sf::TracePacket::kFingerprints);
      open = true;
    }
    PutFingerprint(enc, p, !done);
  }
  pending.resize(kept);
  if (open) w.EndPacket(t);
  return true;
}

}  // namespace vprof
