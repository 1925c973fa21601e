#include "fingerprint_drain.h"

#include <vector>

#include "collective_audit.h"
#include "fingerprint_hash.h"
#include "fingerprinter.h"
#include "nccl_functions.h"
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

std::vector<Pending> g_pending;  // writer thread only, in call order
uint64_t g_status_written = 0;

constexpr size_t kFingerprintRoom = 96;

// The schema's FingerprintState for one buffer.
uint64_t schema_state(uint8_t state) {
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
bool poll(Pending& p) {
  bool done = true;
  for (int i = 0; i < 2; ++i) {
    if (!p.handle[i]) continue;
    uint64_t value = 0;
    switch (read_fingerprint(p.handle[i], &value)) {
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
uint64_t call_state(const Pending& p, bool incomplete) {
  if (incomplete) return sf::FingerprintState::FINGERPRINT_INCOMPLETE;
  for (int i = 0; i < 2; ++i) {
    if (p.state[i] && p.state[i] != static_cast<uint8_t>(FingerprintState::kLaunched)) {
      return schema_state(p.state[i]);
    }
  }
  return sf::FingerprintState::FINGERPRINTED;
}

void put_fingerprint(ProtoEncoder& enc, const Pending& p, bool incomplete) {
  namespace k = sf::CollectiveFingerprint;
  size_t m = enc.begin_nested(sf::FingerprintBatch::kFingerprint);
  enc.add_varint(k::kCommId, p.comm_id);
  enc.add_varint(k::kSeq, p.seq);
  enc.add_varint(k::kFunctionIid, nccl_function_iid(p.function));
  if (p.has_peer) enc.add_int32(k::kPeer, p.peer);
  enc.add_varint(k::kState, call_state(p, incomplete));
  if (p.has_value[0]) enc.add_fixed64(k::kInput, p.value[0]);
  if (p.has_value[1]) enc.add_fixed64(k::kOutput, p.value[1]);
  enc.end_nested(m);
}

bool put_status(TraceWriter& w) {
  const FingerprintStatusView s = fingerprint_status();
  if (s.generation == g_status_written) return true;
  if (!w.ensure_room(512)) return false;
  ProtoEncoder& enc = w.encoder();
  auto t = w.begin_packet(sf::TracePacket::kFingerprintStatus);
  enc.add_varint(sf::FingerprintStatus::kState, static_cast<uint64_t>(s.state));
  if (*s.detail) enc.add_string(sf::FingerprintStatus::kDetail, s.detail);
  enc.add_varint(sf::FingerprintStatus::kVersion, fingerprint::kFingerprintVersion);
  w.end_packet(t);
  g_status_written = s.generation;
  return true;
}

}  // namespace

void reset_fingerprints_in_child() {
  g_pending.clear();
  g_status_written = fingerprint_status().generation;
  reset_fingerprinter_in_child(collective_audit_on());
}

void note_fingerprints(const NcclRecord& r) {
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
  g_pending.push_back(p);
}

bool drain_fingerprints(TraceWriter& w, bool final) {
  if (!put_status(w)) return false;
  ProtoEncoder& enc = w.encoder();
  bool open = false;
  TraceWriter::PacketTokens t{};
  // Every call whose fingerprints are in, in call order; one still waiting
  // (its stream behind, or stopped) holds back no other.
  size_t kept = 0;
  for (size_t i = 0; i < g_pending.size(); ++i) {
    Pending& p = g_pending[i];
    const bool done = poll(p);
    if (!done && !final) {
      g_pending[kept++] = p;
      continue;
    }
    if (!open || enc.capacity() - enc.size() < kFingerprintRoom) {
      if (open) w.end_packet(t);
      open = false;
      if (!w.ensure_room(kFingerprintRoom * 4)) return false;
      t = w.begin_packet(sf::TracePacket::kFingerprints);
      open = true;
    }
    put_fingerprint(enc, p, !done);
  }
  g_pending.resize(kept);
  if (open) w.end_packet(t);
  return true;
}

}  // namespace vprof
