// Communicator churn: process groups destroyed and rebuilt with the same
// members (vime's offload mode does it every step), each rebuild paying
// NCCL's init and destroy again.
#include <algorithm>
#include <map>

#include "reporter/base/rank_name.h"
#include "reporter/base/units.h"
#include "reporter/candidates/candidate_detectors.h"

namespace vprof::reporter {
namespace {

bool IsDestroy(std::string_view function) {
  return function == "ncclCommDestroy" || function == "ncclCommAbort";
}

// The members by trace file: the same processes, whatever comm ranks they got.
std::vector<std::string> MemberKey(const CommunicatorReport& comm) {
  std::vector<std::string> key;
  for (const CommMemberReport& member : comm.members) key.push_back(member.file);
  std::sort(key.begin(), key.end());
  return key;
}

}  // namespace

void DetectCommunicatorChurn(const Report& report, std::vector<DetectedCandidate>& out) {
  std::map<std::vector<std::string>, std::vector<const CommunicatorReport*>> groups;
  for (const CommunicatorReport& comm : report.communicators) {
    if (!comm.members.empty()) groups[MemberKey(comm)].push_back(&comm);
  }
  CandidateReport candidate;
  candidate.kind = "communicator_churn";
  candidate.title = "Communicators destroyed and rebuilt with the same members";
  candidate.scope = CandidateScope::kOperator;
  int64_t per_rank_ns = 0;
  uint64_t rebuilt = 0;
  for (const auto& [members, comms] : groups) {
    uint64_t destroyed = 0;
    int64_t group_ns = 0;
    for (const CommunicatorReport* comm : comms) {
      bool was_destroyed = false;
      for (const LifecycleReport& call : comm->lifecycle) {
        was_destroyed = was_destroyed || (IsDestroy(call.function) && call.calls > 0);
        group_ns += call.total_ns / static_cast<int64_t>(members.size());
      }
      destroyed += was_destroyed ? 1 : 0;
    }
    if (comms.size() < kChurnMinCommunicators || destroyed == 0) continue;
    per_rank_ns += group_ns;
    rebuilt += comms.size();
    candidate.evidence.push_back(std::to_string(comms.size()) + " communicators with the same " +
                                 std::to_string(members.size()) + " members (" + members.front() +
                                 ", ...), " + std::to_string(destroyed) +
                                 " destroyed: " + FormatDurationNs(group_ns) +
                                 " of init/destroy per member over the trace");
  }
  if (rebuilt == 0 || per_rank_ns <= 0) return;
  const TraceWindows windows = TraceWindowsOf(report);
  candidate.exposed_ns = per_rank_ns / static_cast<int64_t>(windows.count);
  candidate.total_ns = candidate.exposed_ns;
  candidate.count = rebuilt / windows.count;
  candidate.evidence.insert(candidate.evidence.begin(),
                            "operator scope: host time of ncclCommInit*/Split/Destroy/Abort per "
                            "member " +
                                windows.text + ", not a step gain");
  out.push_back({ChangeKind::kReuseCommunicators, std::move(candidate)});
}

}  // namespace vprof::reporter
