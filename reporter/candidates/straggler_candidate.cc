// A straggler: the rank that enters collectives last, holding the others. Its
// figure is its lead (collective_timing.h) summed over the collectives it
// entered last, per step: the time the collectives would have started sooner
// had it arrived with the next-latest rank. What it did instead comes from
// comparing its measured steps and NVTX phases with the other ranks'.
#include <optional>
#include <string>
#include <vector>

#include "reporter/base/units.h"
#include "reporter/base/upper_median.h"
#include "reporter/candidates/candidate_detectors.h"
#include "reporter/candidates/step_figures.h"
#include "reporter/collectives/nccl_function.h"

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

}  // namespace

void DetectStragglers(const Report& report, std::vector<DetectedCandidate>& out) {
  const RankReport* late = nullptr;
  const RankReport* runner_up = nullptr;
  for (const RankReport& rank : report.ranks) {
    if (!late || rank.total_lead_ns > late->total_lead_ns) {
      runner_up = late;
      late = &rank;
    } else if (!runner_up || rank.total_lead_ns > runner_up->total_lead_ns) {
      runner_up = &rank;
    }
  }
  const TraceWindows windows = TraceWindowsOf(report);
  const int64_t steps = static_cast<int64_t>(windows.count);
  if (!late || late->total_lead_ns / steps < kMinLeadPerStepNs) return;

  const std::string name = RankName(late->rank, late->file);
  CandidateReport candidate;
  candidate.kind = "straggler";
  candidate.title = "The other ranks wait for " + name + " at collectives";
  candidate.scope = CandidateScope::kFullStep;
  candidate.exposed_ns = late->total_lead_ns / steps;
  candidate.total_ns = candidate.exposed_ns;
  candidate.count = late->last_arrivals / windows.count;
  if (report.steps && report.steps->median_step_ns && *report.steps->median_step_ns > 0) {
    candidate.step_share = static_cast<double>(candidate.exposed_ns) /
                           static_cast<double>(*report.steps->median_step_ns);
  }
  candidate.evidence.push_back(
      name + " entered " + std::to_string(late->last_arrivals) + " of " +
      std::to_string(late->collectives) + " collectives last; the others waited " +
      FormatDurationNs(candidate.exposed_ns) + " " + windows.text +
      " for it alone (each time its enter − the next-latest rank's enter, host call times); "
      "mean lateness " +
      FormatDurationNs(late->mean_lateness_ns));
  // What it did instead: only a difference that could explain a quarter of the wait, so
  // that noise between equal ranks is not offered as the cause.
  const int64_t explains_ns = candidate.exposed_ns / 4;
  for (const std::string& excess :
       {StepExcess(report, *late, explains_ns), PhaseExcess(report, *late, explains_ns * steps)}) {
    if (!excess.empty()) candidate.evidence.push_back(excess);
  }
  if (runner_up && runner_up->total_lead_ns > 0) {
    candidate.evidence.push_back("next: " + RankName(runner_up->rank, runner_up->file) + ", " +
                                 FormatDurationNs(runner_up->total_lead_ns / steps) + " per step");
  }
  const LeadExample& longest = late->longest_lead;
  if (const std::optional<int64_t> bound = ClockErrorBound(report)) {
    const int64_t mean_lead = late->total_lead_ns / static_cast<int64_t>(late->last_arrivals);
    candidate.evidence.push_back(
        "across hosts: mean lead " + FormatDurationNs(mean_lead) +
        (mean_lead <= *bound ? " is within" : " exceeds") + " the clock alignment's error bound ±" +
        FormatDurationNs(*bound) +
        (mean_lead <= *bound ? ": the clocks cannot tell this lateness from their error" : ""));
  }
  candidate.evidence.push_back(
      "an upper bound of the step gain: the others may have had work to do while they waited; "
      "the part they did not shows in their exposed communication and waiting idle");
  if (longest.lead_ns > 0) {
    candidate.examples.push_back({late->rank, late->file, "comm " + FormatHexId(longest.comm_id),
                                  std::string(NcclFunctionName(longest.op)) + " of " +
                                      FormatBytes(longest.size_bytes) + ", its longest lead",
                                  longest.enter_ns - longest.lead_ns, longest.lead_ns});
  }
  out.push_back({ChangeKind::kRebalanceLateRank, std::move(candidate)});
}

}  // namespace vprof::reporter
