// A straggler: a rank the others wait for at their collectives, named only
// when it is last in more of them than chance allows and the wait matters
// (ledger.h: a one-sided binomial test, and a share of the step). With
// steps, its figure is the others' exposed wait for it in the step ledger;
// without, its lead (collective_timing.h: its enter − the next-latest
// rank's) over the collectives it entered last, per step. What it did
// instead comes from comparing its measured steps and NVTX phases with the
// other ranks'.
#include <optional>
#include <string>
#include <vector>

#include "reporter/base/binomial_tail.h"
#include "reporter/base/rank_name.h"
#include "reporter/base/units.h"
#include "reporter/base/upper_median.h"
#include "reporter/candidates/candidate_detectors.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/steps/comm_roles.h"
#include "reporter/steps/ledger.h"

namespace vprof::reporter {
namespace {

// A lead below this per step is noise of the host, not a straggler.
constexpr int64_t kMinLeadPerStepNs = 10'000;

struct Component {
  const char* name;
  const char* meaning;
  int64_t SegmentTimes::*field;
};

constexpr Component kComponents[] = {
    {"host-bound idle", "its host launched the work late", &SegmentTimes::idle_host_bound_ns},
    {"compute", "its GPU had more work", &SegmentTimes::compute_ns},
    {"waiting idle", "its GPU waited on a stream or event", &SegmentTimes::idle_waiting_ns},
    {"copies", "its GPU copied more", &SegmentTimes::copy_ns},
};

// The part of the late rank's measured steps that most exceeds the other
// ranks' median per step by at least `min_excess_ns`; empty when none does or
// there are no steps.
std::string StepExcess(const Report& report, const RankReport& late, int64_t min_excess_ns) {
  if (!report.steps) return "";
  const RankStepsReport* own = nullptr;
  std::vector<const RankStepsReport*> others;
  for (const RankStepsReport& rank : report.steps->ranks) {
    if (rank.steps.empty()) continue;
    if (rank.file == late.file) {
      own = &rank;
    } else {
      others.push_back(&rank);
    }
  }
  if (!own || others.empty()) return "";
  const Component* worst = nullptr;
  int64_t worst_excess = min_excess_ns - 1, worst_own = 0, worst_others = 0;
  for (const Component& component : kComponents) {
    std::vector<int64_t> values;
    for (const RankStepsReport* rank : others) {
      values.push_back(rank->total.*component.field / static_cast<int64_t>(rank->steps.size()));
    }
    const int64_t median = UpperMedian(values);
    const int64_t mine = own->total.*component.field / static_cast<int64_t>(own->steps.size());
    if (mine - median > worst_excess) {
      worst = &component;
      worst_excess = mine - median;
      worst_own = mine;
      worst_others = median;
    }
  }
  if (!worst) return "";
  return std::string("in its measured steps: ") + worst->name + " " + FormatDurationNs(worst_own) +
         " per step against " + FormatDurationNs(worst_others) +
         " on the other ranks (median): " + worst->meaning;
}

// The NVTX phase whose total most exceeds the other ranks' median by at least
// `min_excess_ns` over the trace; empty when none does.
std::string PhaseExcess(const Report& report, const RankReport& late, int64_t min_excess_ns) {
  const ProcessPhasesReport* own = nullptr;
  for (const ProcessPhasesReport& process : report.phases) {
    if (process.file == late.file && !process.inferred) own = &process;
  }
  if (!own) return "";
  std::string best;
  int64_t best_excess = min_excess_ns - 1;
  for (const PhaseReport& phase : own->phases) {
    std::vector<int64_t> values;
    for (const ProcessPhasesReport& process : report.phases) {
      if (&process == own || process.inferred || !process.rank) continue;
      for (const PhaseReport& other : process.phases) {
        if (other.name == phase.name) values.push_back(other.total_ns);
      }
    }
    if (values.empty()) continue;
    const int64_t median = UpperMedian(values);
    if (phase.total_ns - median > best_excess) {
      best_excess = phase.total_ns - median;
      best = "NVTX phase \"" + phase.name + "\": " + FormatDurationNs(phase.total_ns) +
             " over the trace against " + FormatDurationNs(median) +
             " on the other ranks (median), host range time";
    }
  }
  return best;
}

// The error bound of the clock alignment when the ranks' times were moved
// from several hosts' clocks onto one (the largest sample spread, which node
// summaries carry too); none on one host.
std::optional<int64_t> ClockErrorBound(const Report& report) {
  if (!report.time_source.aligned_to_realtime) return std::nullopt;
  return report.time_source.clock_error_bound_ns;
}

// The evidence both kinds of straggler share: what it did instead, the
// clocks across hosts, its longest lead as the example.
void AddLateRankEvidence(const Report& report, const RankReport* late, int64_t wait_per_step_ns,
                         int64_t steps, CandidateReport& candidate) {
  // Only a difference that could explain a quarter of the wait, so that noise
  // between equal ranks is not offered as the cause.
  const int64_t explains_ns = wait_per_step_ns / 4;
  if (!late) return;
  for (const std::string& excess :
       {StepExcess(report, *late, explains_ns), PhaseExcess(report, *late, explains_ns * steps)}) {
    if (!excess.empty()) candidate.evidence.push_back(excess);
  }
  if (const std::optional<int64_t> bound = ClockErrorBound(report); bound && late->last_arrivals) {
    const int64_t mean_lead = late->total_lead_ns / static_cast<int64_t>(late->last_arrivals);
    candidate.evidence.push_back(
        "across hosts: mean lead " + FormatDurationNs(mean_lead) +
        (mean_lead <= *bound ? " is within" : " exceeds") + " the clock alignment's error bound ±" +
        FormatDurationNs(*bound) +
        (mean_lead <= *bound ? ": the clocks cannot tell this lateness from their error" : ""));
  }
  const LeadExample& longest = late->longest_lead;
  if (longest.lead_ns > 0) {
    candidate.examples.push_back({late->rank, late->file, "comm " + FormatHexId(longest.comm_id),
                                  std::string(NcclFunctionName(longest.op)) + " of " +
                                      FormatBytes(longest.size_bytes) + ", its longest lead",
                                  longest.enter_ns - longest.lead_ns, longest.lead_ns});
  }
}

const RankReport* RankReportOf(const Report& report, const std::string& file) {
  for (const RankReport& rank : report.ranks) {
    if (rank.file == file) return &rank;
  }
  return nullptr;
}

}  // namespace

std::string ChanceText(uint64_t last, uint64_t collectives, double expected, double p_value) {
  return "last at " + std::to_string(last) + " of its " + std::to_string(collectives) +
         " collectives, where chance gives " + FormatNumber(expected) +
         (p_value < 1 ? " (one-sided binomial p = " + FormatNumber(p_value) + ")" : "");
}

void DetectLedgerStragglers(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const StepsLedger& ledger = *steps.ledger;
  for (const LateRank& late : ledger.late) {
    if (!late.straggler) continue;
    const RankStepsReport& rank = steps.ranks[late.index];
    const std::string name = RankName(rank.rank, rank.file);
    CandidateReport candidate;
    candidate.kind = "straggler";
    candidate.title = "The other ranks wait for " + name + " at collectives";
    candidate.scope = ledger.full_steps ? CandidateScope::kFullStep : CandidateScope::kActorWindow;
    candidate.exposed_ns = late.wait_per_step_ns;
    candidate.total_ns = late.wait_per_step_ns;
    candidate.count = late.last / std::max<uint64_t>(1, ledger.steps);
    candidate.rank = rank.rank;
    candidate.phase = late.phase;
    candidate.role = CommRoleName(late.role);
    if (ledger.full_steps && ledger.mean_step_ns > 0) {
      candidate.step_share =
          static_cast<double>(late.wait_per_step_ns) / static_cast<double>(ledger.mean_step_ns);
    }
    candidate.evidence.push_back(name + " arrived " + LateRankText(late));
    candidate.evidence.push_back(
        "the others' GPUs waited for it " + FormatDurationNs(late.wait_per_step_ns) +
        " per step with nothing else to run, from the step ledger: in each collective, a "
        "member's kernel is longer than the last member's by its wait for that one");
    AddLateRankEvidence(report, RankReportOf(report, rank.file), late.wait_per_step_ns,
                        static_cast<int64_t>(TraceWindowsOf(report).count), candidate);
    out.push_back({ChangeKind::kRebalanceLateRank, std::move(candidate),
                   [index = late.index](const LedgerLine& line) {
                     return line.cause == LedgerCause::kWaitForRank && line.late == index;
                   }});
  }
}

void DetectStragglers(const Report& report, std::vector<DetectedCandidate>& out) {
  // Without steps: host call times. Each rank's chance of entering a
  // collective last is one in the ranks.
  const TraceWindows windows = TraceWindowsOf(report);
  const int64_t steps = static_cast<int64_t>(windows.count);
  const double chance = report.ranks.empty() ? 0 : 1.0 / static_cast<double>(report.ranks.size());
  for (const RankReport& late : report.ranks) {
    const double p_value = BinomialUpperTail(late.last_arrivals, late.collectives, chance);
    if (late.total_lead_ns / steps < kMinLeadPerStepNs ||
        p_value >= kStragglerFalseAlarm / static_cast<double>(report.ranks.size())) {
      continue;
    }
    const std::string name = RankName(late.rank, late.file);
    CandidateReport candidate;
    candidate.kind = "straggler";
    candidate.title = "The other ranks wait for " + name + " at collectives";
    candidate.scope = CandidateScope::kFullStep;
    candidate.exposed_ns = late.total_lead_ns / steps;
    candidate.total_ns = candidate.exposed_ns;
    candidate.count = late.last_arrivals / windows.count;
    candidate.rank = late.rank;
    candidate.evidence.push_back(
        name + " entered " +
        ChanceText(late.last_arrivals, late.collectives,
                   chance * static_cast<double>(late.collectives), p_value) +
        "; the others waited " + FormatDurationNs(candidate.exposed_ns) + " " + windows.text +
        " for it alone (each time its enter − the next-latest rank's enter, host call times)");
    candidate.evidence.push_back(
        "an upper bound of the step gain: the others may have had work to do while they waited");
    AddLateRankEvidence(report, &late, candidate.exposed_ns, steps, candidate);
    out.push_back({ChangeKind::kRebalanceLateRank, std::move(candidate)});
  }
}

}  // namespace vprof::reporter
