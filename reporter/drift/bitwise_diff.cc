#include "reporter/drift/bitwise_diff.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "reporter/gpu/export_names.h"

namespace vprof::reporter {
namespace {

constexpr int32_t kFingerprinted = 1;  // schema FingerprintState FINGERPRINTED

// One call as both runs made it on every rank: the unit the comparison walks.
struct Instance {
  uint64_t order_ns = UINT64_MAX;  // when the first rank made it (A's clock, else B's)
  DriftCall call;
  // Per rank position: the call in A and in B, null when that run did not make it.
  std::map<size_t, std::pair<const FingerprintedCall*, const FingerprintedCall*>> ranks;
};

std::string CommLabel(uint32_t index, const CommunicatorCalls& c) {
  return "#" + std::to_string(index + 1) + " (" +
         (c.created_by.empty() ? std::string("communicator") : c.created_by) + ", " +
         std::to_string(c.nranks) + " ranks)";
}

// The key of an instance: a collective is one call on every rank; a send or
// receive is its rank's own, with its peer.
using InstanceKey = std::tuple<uint32_t, uint64_t, int32_t, int32_t>;  // comm, seq, rank, peer

void AddCalls(const RankFingerprints& rank, size_t position, bool is_a,
              std::map<InstanceKey, Instance>* out) {
  for (size_t k = 0; k < rank.comms.size(); ++k) {
    const CommunicatorCalls& c = rank.comms[k];
    for (const FingerprintedCall& call : c.calls) {
      const bool p2p = call.peer >= 0;
      const InstanceKey key{static_cast<uint32_t>(k), call.seq, p2p ? rank.rank : -1, call.peer};
      Instance& in = (*out)[key];
      if (in.call.function.empty()) {
        in.call = {static_cast<uint32_t>(k), CommLabel(static_cast<uint32_t>(k), c), call.function,
                   call.seq, call.peer};
      }
      auto& pair = in.ranks[position];
      (is_a ? pair.first : pair.second) = &call;
      // A's times order the walk; a call only B made goes where B's clock puts it.
      if (is_a || in.order_ns == UINT64_MAX) in.order_ns = std::min(in.order_ns, call.enter_ns);
    }
  }
}

std::string RankList(const std::vector<int32_t>& ranks) {
  std::string out;
  for (int32_t r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

// "on rank 2", "on ranks 0, 3".
std::string OnRanks(const std::vector<int32_t>& ranks) {
  return (ranks.size() == 1 ? "on rank " : "on ranks ") + RankList(ranks);
}

// What differs in the call's description, empty when nothing does.
std::string MetadataChange(const FingerprintedCall& a, const FingerprintedCall& b,
                           DriftClass* drift) {
  if (a.datatype != b.datatype) {
    *drift = DriftClass::kRepresentation;
    return "dtype " + std::string(NcclDataTypeName(a.datatype)) + " in A, " +
           std::string(NcclDataTypeName(b.datatype)) + " in B";
  }
  *drift = DriftClass::kMetadata;
  if (a.function != b.function) return "function " + a.function + " in A, " + b.function + " in B";
  if (a.count != b.count) {
    return "count " + std::to_string(a.count) + " in A, " + std::to_string(b.count) + " in B";
  }
  if (a.red_op != b.red_op) {
    return "reduction op " + NcclRedOpName(a.red_op) + " in A, " + NcclRedOpName(b.red_op) +
           " in B";
  }
  if (a.root != b.root) {
    return "root " + std::to_string(a.root) + " in A, " + std::to_string(b.root) + " in B";
  }
  *drift = DriftClass::kNone;
  return "";
}

std::string Version(uint32_t v) { return v ? std::to_string(v) : ""; }

void CompareSettings(const RunFingerprints& a, const RunFingerprints& b, BitwiseDiff* diff) {
  const RankFingerprints& ra = a.ranks.front();
  const RankFingerprints& rb = b.ranks.front();
  std::set<std::string> names;
  for (const auto& [name, value] : ra.nccl_env) names.insert(name);
  for (const auto& [name, value] : rb.nccl_env) names.insert(name);
  for (const std::string& name : names) {
    const auto fa = ra.nccl_env.find(name);
    const auto fb = rb.nccl_env.find(name);
    const std::string va = fa == ra.nccl_env.end() ? "" : fa->second;
    const std::string vb = fb == rb.nccl_env.end() ? "" : fb->second;
    if (va != vb) diff->settings.push_back({name, va, vb});
  }
  const std::tuple<const char*, uint32_t, uint32_t> versions[] = {
      {"NCCL version", ra.nccl_version, rb.nccl_version},
      {"CUDA runtime version", ra.cuda_runtime, rb.cuda_runtime},
      {"CUDA driver version", ra.cuda_driver, rb.cuda_driver}};
  for (const auto& [name, va, vb] : versions) {
    if (va && vb && va != vb) diff->settings.push_back({name, Version(va), Version(vb)});
    if ((va == 0) != (vb == 0)) {
      diff->settings_recorded_once.push_back({name, va ? 'A' : 'B', Version(va ? va : vb)});
    }
  }
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    if (a.ranks[i].host != b.ranks[i].host) {
      diff->settings.push_back(
          {"host of rank " + std::to_string(a.ranks[i].rank), a.ranks[i].host, b.ranks[i].host});
    }
  }
}

bool Fingerprinted(const RunFingerprints& run) {
  return std::any_of(run.ranks.begin(), run.ranks.end(),
                     [](const RankFingerprints& r) { return r.audit == "fingerprint"; });
}

std::string Ranks(const RunFingerprints& run) {
  std::vector<int32_t> ranks;
  for (const auto& r : run.ranks) ranks.push_back(r.rank);
  return RankList(ranks);
}

bool CheckComparable(const RunFingerprints& a, const RunFingerprints& b, std::string* error) {
  for (const auto* run : {&a, &b}) {
    const char* name = run == &a ? "A" : "B";
    if (run->ranks.empty()) {
      *error = std::string(name) + " (" + run->directory + "): no process made NCCL calls";
      return false;
    }
    if (!Fingerprinted(*run)) {
      *error = std::string(name) + " (" + run->directory +
               "): its collectives were not fingerprinted (run it with VPROF_AUDIT=fingerprint)";
      return false;
    }
  }
  if (Ranks(a) != Ranks(b)) {
    *error = "A (" + a.directory + ") has ranks " + Ranks(a) + ", B (" + b.directory +
             ") has ranks " + Ranks(b) + ": not two runs of one job";
    return false;
  }
  const RankFingerprints& ra = a.ranks.front();
  const RankFingerprints& rb = b.ranks.front();
  if (ra.audit_every != rb.audit_every || ra.audit_min_bytes != rb.audit_min_bytes) {
    *error = "the runs fingerprinted different calls: A every " + std::to_string(ra.audit_every) +
             " of at least " + std::to_string(ra.audit_min_bytes) + " bytes, B every " +
             std::to_string(rb.audit_every) + " of at least " + std::to_string(rb.audit_min_bytes) +
             " (VPROF_AUDIT_EVERY, VPROF_AUDIT_MIN_BYTES)";
    return false;
  }
  if (ra.fingerprint_version && rb.fingerprint_version &&
      ra.fingerprint_version != rb.fingerprint_version) {
    *error = "fingerprint version " + std::to_string(ra.fingerprint_version) + " in A, " +
             std::to_string(rb.fingerprint_version) + " in B: values are not comparable";
    return false;
  }
  return true;
}

// What one call's comparison found: kNone when it agrees.
struct Verdict {
  bool compared = true;  // false: a side was not fingerprinted
  DriftClass drift = DriftClass::kNone;
  std::vector<int32_t> ranks;
  std::string detail;
};

Verdict Judge(const Instance& in, const RunFingerprints& a) {
  std::vector<int32_t> missing, metadata, inputs, outputs;
  DriftClass meta_class = DriftClass::kNone;
  std::string meta_detail;
  bool fingerprinted = true;
  for (const auto& [position, pair] : in.ranks) {
    const int32_t rank = a.ranks[position].rank;
    if (!pair.first || !pair.second) {
      missing.push_back(rank);
      continue;
    }
    DriftClass c = DriftClass::kNone;
    const std::string change = MetadataChange(*pair.first, *pair.second, &c);
    if (!change.empty()) {
      metadata.push_back(rank);
      if (meta_detail.empty() || c == DriftClass::kRepresentation) {
        meta_class = c;
        meta_detail = change;
      }
      continue;
    }
    if (pair.first->state != kFingerprinted || pair.second->state != kFingerprinted) {
      fingerprinted = false;
      continue;
    }
    if (pair.first->input != pair.second->input) inputs.push_back(rank);
    if (pair.first->output != pair.second->output) outputs.push_back(rank);
  }
  if (!missing.empty()) {
    return {true, DriftClass::kMetadata, missing,
            std::string("made in ") + (in.ranks.begin()->second.first ? "A" : "B") + " only, " +
                OnRanks(missing)};
  }
  if (!metadata.empty())
    return {true, meta_class, metadata, meta_detail + ", " + OnRanks(metadata)};
  if (!fingerprinted) return {false, DriftClass::kNone, {}, ""};
  if (!inputs.empty())
    return {true, DriftClass::kUpstream, inputs, "inputs differ " + OnRanks(inputs)};
  if (!outputs.empty()) {
    return {true, DriftClass::kReduction, outputs,
            "inputs agree on every rank; outputs differ " + OnRanks(outputs)};
  }
  return {};
}

// When a call returned; its entry where the trace has no exit time.
uint64_t ReturnNs(const FingerprintedCall& c) { return std::max(c.exit_ns, c.enter_ns); }

// The window of GPU work before `first` on the first rank it differs on, from
// the last call there that agreed (`last_agreed`, per rank position).
void SetWindow(const Instance& first, const std::vector<const Instance*>& last_agreed,
               const RunFingerprints& a, const RunFingerprints& b, BitwiseDiff* diff) {
  const int32_t rank = diff->ranks_differing.front();
  size_t position = 0;
  while (position < a.ranks.size() && a.ranks[position].rank != rank) ++position;
  const auto found = first.ranks.find(position);
  if (found == first.ranks.end() || !found->second.first || !found->second.second) {
    diff->no_window = "the call was made in one run only on rank " + std::to_string(rank);
    return;
  }
  DriftWindow w;
  w.rank = rank;
  w.file_a = a.ranks[position].file;
  w.file_b = b.ranks[position].file;
  w.through = first.call;
  w.a_until_ns = ReturnNs(*found->second.first);
  w.b_until_ns = ReturnNs(*found->second.second);
  if (const Instance* before = last_agreed[position]) {
    const auto& [in_a, in_b] = before->ranks.at(position);
    w.after = before->call;
    w.a_after_ns = ReturnNs(*in_a);
    w.b_after_ns = ReturnNs(*in_b);
  }
  diff->window = std::move(w);
}

// The alignment profile the observed axes make (docs/drift-audit.md).
std::string ProfileOf(const std::set<DriftClass>& axes) {
  if (axes.count(DriftClass::kMetadata)) return "A5";
  switch (axes.size()) {
    case 0:
      return "A0";
    case 1:
      return *axes.begin() == DriftClass::kUpstream    ? "A1"
             : *axes.begin() == DriftClass::kReduction ? "A2"
                                                       : "A3";
    case 2:
      return "A4";
    default:
      return "A5";
  }
}

}  // namespace

std::optional<DriftClass> ForbiddenAxis(const std::string& profile,
                                        const std::set<DriftClass>& axes) {
  if (profile == "A5") return std::nullopt;
  const std::map<std::string, DriftClass> only = {{"A1", DriftClass::kUpstream},
                                                  {"A2", DriftClass::kReduction},
                                                  {"A3", DriftClass::kRepresentation}};
  size_t allowed_seen = 0;
  for (DriftClass axis : axes) {
    if (profile == "A4" && axis != DriftClass::kMetadata && ++allowed_seen <= 2) continue;
    const auto found = only.find(profile);
    if (found != only.end() && found->second == axis) continue;
    return axis;
  }
  return std::nullopt;
}

const char* DriftClassName(DriftClass c) {
  switch (c) {
    case DriftClass::kNone:
      return "none";
    case DriftClass::kRepresentation:
      return "representation";
    case DriftClass::kMetadata:
      return "metadata";
    case DriftClass::kUpstream:
      return "upstream";
    case DriftClass::kReduction:
      return "reduction";
  }
  return "none";
}

bool CompareFingerprints(const RunFingerprints& a, const RunFingerprints& b, BitwiseDiff* diff,
                         std::string* error) {
  if (!CheckComparable(a, b, error)) return false;
  diff->dir_a = a.directory;
  diff->dir_b = b.directory;
  diff->ranks = static_cast<uint32_t>(a.ranks.size());
  std::map<InstanceKey, Instance> by_key;
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    AddCalls(a.ranks[i], i, true, &by_key);
    AddCalls(b.ranks[i], i, false, &by_key);
    diff->inputs_whole = diff->inputs_whole && a.ranks[i].whole && b.ranks[i].whole;
  }
  std::vector<const Instance*> order;
  for (const auto& [key, in] : by_key) order.push_back(&in);
  std::stable_sort(order.begin(), order.end(),
                   [](const Instance* x, const Instance* y) { return x->order_ns < y->order_ns; });
  CompareSettings(a, b, diff);

  bool diverged = false;
  std::vector<const Instance*> last_agreed(a.ranks.size(), nullptr);
  for (const Instance* in : order) {
    const Verdict v = Judge(*in, a);
    if (!v.compared) {
      ++diff->not_compared;
      continue;
    }
    ++diff->compared;
    if (v.drift == DriftClass::kNone) {
      if (!diff->first) {
        ++diff->agreed;
        diff->last_agreeing = in->call;
        for (const auto& [position, pair] : in->ranks) last_agreed[position] = in;
      }
      continue;
    }
    ++diff->differing;
    // Once values have diverged, later inputs differ because earlier outputs did: only the
    // first upstream difference is an axis of its own; the other classes show wherever they
    // occur (a reduction difference needs equal inputs, so it cannot be propagated).
    if (v.drift != DriftClass::kUpstream || !diverged) {
      diff->axes.insert(v.drift);
      diff->axis_first.try_emplace(v.drift, in->call);
    }
    diverged = true;
    if (diff->first) continue;
    diff->drift = v.drift;
    diff->first = in->call;
    diff->ranks_differing = v.ranks;
    diff->detail = v.detail;
    SetWindow(*in, last_agreed, a, b, diff);
  }
  diff->profile = ProfileOf(diff->axes);
  return true;
}

}  // namespace vprof::reporter
