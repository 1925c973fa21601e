#include "reporter/drift/run_fingerprints.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "reporter/trace/trace_directory.h"
#include "reporter/trace/trace_reader.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {
namespace {

namespace pb = vprof::trace;

struct CallKey {
  uint64_t comm_id;
  uint64_t seq;
  int32_t peer;
  bool operator==(const CallKey&) const = default;
};
struct CallKeyHash {
  size_t operator()(const CallKey& k) const {
    return std::hash<uint64_t>()(k.comm_id * 1000003u ^ k.seq * 31u ^
                                 static_cast<uint32_t>(k.peer));
  }
};

void ReadHeader(const pb::RunHeader& h, RankFingerprints* r) {
  r->host = h.host();
  if (h.rank().has_rank() && h.rank().rank() >= 0) r->rank = h.rank().rank();
  r->audit = h.settings().audit();
  r->audit_every = h.settings().audit_every();
  r->audit_min_bytes = h.settings().audit_min_bytes();
  r->nccl_version = h.versions().nccl();
  r->cuda_runtime = h.versions().cuda_runtime();
  r->cuda_driver = h.versions().cuda_driver();
  for (const auto& v : h.env()) {
    if (!v.redacted() && v.name().starts_with("NCCL_")) r->nccl_env[v.name()] = v.value();
  }
}

RankFingerprints ReadTrace(const std::string& path) {
  RankFingerprints r;
  r.file = path;
  TraceReader reader(path);
  pb::TracePacket p;
  std::unordered_map<uint64_t, std::string> names;
  std::unordered_map<uint64_t, size_t> comm_index;
  std::unordered_map<CallKey, std::pair<size_t, size_t>, CallKeyHash> calls;  // comm, call
  auto comm_of = [&](uint64_t comm_id) -> CommunicatorCalls& {
    auto [it, added] = comm_index.emplace(comm_id, r.comms.size());
    if (added) r.comms.push_back({comm_id, 0, 0, "", {}});
    return r.comms[it->second];
  };
  std::vector<pb::CollectiveFingerprint> fingerprints;
  bool footer = false;
  while (reader.Next(&p)) {
    switch (p.data_case()) {
      case pb::TracePacket::kRunHeader:
        ReadHeader(p.run_header(), &r);
        break;
      case pb::TracePacket::kInternedString:
        names[p.interned_string().iid()] = p.interned_string().str();
        break;
      case pb::TracePacket::kCommunicator: {
        CommunicatorCalls& c = comm_of(p.communicator().comm_id());
        c.nranks = p.communicator().nranks();
        c.rank = p.communicator().rank();
        c.created_by = names[p.communicator().created_by_iid()];
        if (r.nccl_version == 0) r.nccl_version = p.communicator().nccl_version();
        break;
      }
      case pb::TracePacket::kEventBatch:
        for (const pb::NcclEvent& e : p.event_batch().nccl()) {
          if (e.comm_id() == 0 || e.seq() == 0) continue;
          CommunicatorCalls& c = comm_of(e.comm_id());
          if (c.nranks == 0) {
            c.nranks = e.comm_size();
            c.rank = e.comm_rank();
          }
          FingerprintedCall call;
          call.function = names[e.function_iid()];
          call.seq = e.seq();
          call.peer = e.has_peer() ? e.peer() : -1;
          call.count = e.count();
          call.datatype = e.has_datatype() ? e.datatype() : -1;
          call.red_op = e.has_red_op() ? e.red_op() : -1;
          call.root = e.has_root() ? e.root() : -1;
          call.enter_ns = e.enter_ns();
          call.exit_ns = e.exit_ns();
          calls[{e.comm_id(), call.seq, call.peer}] = {comm_index[e.comm_id()], c.calls.size()};
          c.calls.push_back(std::move(call));
        }
        break;
      case pb::TracePacket::kFingerprints:
        for (const auto& f : p.fingerprints().fingerprint()) fingerprints.push_back(f);
        break;
      case pb::TracePacket::kFingerprintStatus:
        r.status_state = p.fingerprint_status().state();
        r.status_detail = p.fingerprint_status().detail();
        r.fingerprint_version = p.fingerprint_status().version();
        break;
      case pb::TracePacket::kFooter:
        footer = true;
        break;
      default:
        break;
    }
  }
  // Fingerprints come after their calls' events: joined once everything is read.
  for (const auto& f : fingerprints) {
    const auto found = calls.find({f.comm_id(), f.seq(), f.has_peer() ? f.peer() : -1});
    if (found == calls.end()) continue;
    FingerprintedCall& call = r.comms[found->second.first].calls[found->second.second];
    call.state = f.state();
    if (f.has_input()) call.input = f.input();
    if (f.has_output()) call.output = f.output();
  }
  for (CommunicatorCalls& c : r.comms) {
    std::sort(c.calls.begin(), c.calls.end(), [](const auto& a, const auto& b) {
      return std::tie(a.seq, a.peer) < std::tie(b.seq, b.peer);
    });
  }
  if (reader.problem() != ReadProblem::kNone || !footer) {
    r.whole = false;
    r.problem = reader.problem() != ReadProblem::kNone ? reader.problem_detail()
                                                       : "no footer: the trace was cut short";
  }
  if (r.rank < 0 && !r.comms.empty()) {
    // No RANK in the environment: the rank in the largest communicator.
    const auto largest = std::max_element(r.comms.begin(), r.comms.end(),
                                          [](auto& a, auto& b) { return a.nranks < b.nranks; });
    r.rank = static_cast<int32_t>(largest->rank);
  }
  return r;
}

}  // namespace

bool LoadRunFingerprints(const std::string& directory, RunFingerprints* run, std::ostream& err,
                         int* status) {
  const std::optional<std::vector<std::string>> paths = ListTraceFilesOrSay(directory, err, status);
  if (!paths) return false;
  run->directory = directory;
  for (const std::string& path : *paths) {
    RankFingerprints r = ReadTrace(path);
    if (r.comms.empty()) continue;  // a launcher, or a process without NCCL calls
    run->ranks.push_back(std::move(r));
  }
  std::sort(run->ranks.begin(), run->ranks.end(),
            [](const auto& a, const auto& b) { return a.rank < b.rank; });
  return true;
}

}  // namespace vprof::reporter
