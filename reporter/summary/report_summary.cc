#include "reporter/summary/report_summary.h"

#include <algorithm>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>

#include "reporter/base/binomial_tail.h"
#include "reporter/base/rank_name.h"
#include "reporter/base/saturating_ns.h"
#include "reporter/base/units.h"
#include "reporter/candidates/candidate_detectors.h"
#include "reporter/steps/comm_roles.h"
#include "reporter/steps/deep_capture.h"
#include "reporter/steps/full_steps.h"
#include "reporter/steps/ledger.h"
#include "reporter/steps/memory_summary.h"
#include "reporter/summary/candidate_where.h"
#include "reporter/summary/launch_cost_text.h"
#include "reporter/summary/projection_text.h"

namespace vprof::reporter {
namespace {

constexpr size_t kTopCandidates = 3;

std::string Share(int64_t part_ns, int64_t whole_ns) {
  return whole_ns > 0 ? FormatPercent(static_cast<double>(part_ns) / static_cast<double>(whole_ns))
                      : "-";
}

// The rank the full step waits for most often; without full steps, the rank
// with the longest measured window.
std::optional<StepShares> SharesOf(const StepsReport& steps, const FullStepSpread& spread) {
  const RankStepsReport* chosen = nullptr;
  size_t slowest_in = 0;
  if (!spread.slowest_rank_steps.empty()) {
    const auto [rank, count] = spread.slowest_rank_steps.front();
    for (const RankStepsReport& each : steps.ranks) {
      if (each.rank == rank && !each.steps.empty()) chosen = &each;
    }
    slowest_in = count;
  }
  if (!chosen) {
    for (const RankStepsReport& each : steps.ranks) {
      if (!each.steps.empty() && (!chosen || each.total.window_ns > chosen->total.window_ns)) {
        chosen = &each;
      }
    }
  }
  if (!chosen) return std::nullopt;
  const auto n = static_cast<int64_t>(chosen->steps.size());
  const SegmentTimes& t = chosen->total;
  return StepShares{chosen->rank,
                    chosen->file,
                    slowest_in,
                    t.window_ns / n,
                    t.compute_ns / n,
                    t.exposed_comm_ns / n,
                    t.copy_ns / n,
                    t.idle_host_bound_ns / n,
                    t.idle_waiting_ns / n,
                    t.overlapped_comm_ns / n};
}

std::string StepText(const StepsReport& steps, const FullStepSpread& spread) {
  return std::to_string(steps.full_steps.size()) + " full steps measured, " + steps.window +
         ": median " + FormatDurationNs(*steps.median_step_ns) + ", p90 " +
         FormatDurationNs(spread.p90_ns) + ", shortest " + FormatDurationNs(spread.shortest_ns) +
         ", longest " + FormatDurationNs(spread.longest_ns) + " (step " +
         std::to_string(StepNumber(steps, spread.longest_step)) + ")";
}

std::string SharesText(const StepShares& s) {
  const int64_t w = s.window_ns;
  std::string text = RankName(s.rank, s.file);
  text += s.slowest_in > 0 ? " (the slowest in " + std::to_string(s.slowest_in) + " steps), "
                           : " (the longest window), ";
  text += FormatDurationNs(w) + " of GPU window per step: compute " + Share(s.compute_ns, w) +
          ", exposed communication " + Share(s.exposed_comm_ns, w) + ", copies " +
          Share(s.copy_ns, w) + ", host-bound idle " + Share(s.idle_host_bound_ns, w) +
          ", waiting idle " + Share(s.idle_waiting_ns, w) + "; communication under compute " +
          Share(s.overlapped_comm_ns, w);
  return text;
}

std::string CandidateText(const CandidateReport& c) {
  const std::string where = CandidateWhere(c);
  std::string text = c.kind + (where.empty() ? "" : " (" + where + ")") + ": " +
                     FormatDurationNs(c.exposed_ns) + " per step";
  if (c.step_share) text += " (" + FormatPercent(*c.step_share) + " of the step)";
  text += ", " + std::string(CandidateScopeName(c.scope)) + ", strict " +
          std::string(StrictTagName(c.strict)) + " (" + c.rule_id + " " + c.change + ")";
  if (c.projected_saving_ns) text += "; fixing it " + ProjectionText(c, false);
  return text;
}

// With a step ledger: the ranks it names stragglers, or that none is, with
// the rank the others waited for most. Without: the rank most often last
// into collectives by host call times, and whether that is more than chance.
// Empty without collectives across ranks.
std::string StragglerText(const Report& report) {
  if (report.steps && report.steps->ledger) {
    const StepsReport& steps = *report.steps;
    const std::vector<LateRank>& late = steps.ledger->late;
    if (late.empty()) return "";
    std::string named;
    for (const LateRank& each : late) {
      if (!each.straggler) continue;
      const RankStepsReport& rank = steps.ranks[each.index];
      named += (named.empty() ? "" : "; ") + RankName(rank.rank, rank.file) + " arrived " +
               LateRankText(each) + ": the others wait " + FormatDurationNs(each.wait_per_step_ns) +
               " per step";
    }
    if (!named.empty()) return named;
    const LateRank& most = *std::min_element(
        late.begin(), late.end(),
        [](const LateRank& a, const LateRank& b) { return a.p_value < b.p_value; });
    const RankStepsReport& rank = steps.ranks[most.index];
    return "none: lateness spread as by chance (the least likely by chance: " +
           RankName(rank.rank, rank.file) + ", " + LateRankText(most) +
           "; a rank is named when chance gives it less than " +
           FormatPercent(kStragglerFalseAlarm) + " over all ranks and the others wait " +
           FormatPercent(kStragglerMinShare) + " of the step or more)";
  }
  const RankReport* most = nullptr;
  for (const RankReport& rank : report.ranks) {
    if (!most || rank.last_arrivals > most->last_arrivals) most = &rank;
  }
  if (!most || most->last_arrivals == 0 || report.ranks.size() < 2) return "";
  const double chance = 1.0 / static_cast<double>(report.ranks.size());
  return RankName(most->rank, most->file) + " entered " +
         ChanceText(most->last_arrivals, most->collectives,
                    chance * static_cast<double>(most->collectives),
                    BinomialUpperTail(most->last_arrivals, most->collectives, chance)) +
         " (host call times), mean lateness " + FormatDurationNs(most->mean_lateness_ns);
}

// The measured steps hold at least this share of each rank's GPU time over
// the run, or the Summary says which part of the run it describes.
constexpr double kStepsHoldRun = 0.5;

// The rank whose measured steps hold the least of its GPU time over the run:
// their busy time (window less idle) against the process's kernel, replay,
// copy and memset time (work on streams that overlap counts twice there, so
// the share is at most this). Empty when every rank's steps hold kStepsHoldRun.
std::string OutsideStepsText(const Report& report) {
  const StepsReport& steps = *report.steps;
  double least = 1;
  std::string text;
  for (const RankStepsReport& rank : steps.ranks) {
    if (rank.steps.empty()) continue;
    for (const ProcessReport& process : report.processes) {
      if (process.file != rank.file) continue;
      const GpuReport& gpu = process.gpu;
      // Saturating: a hostile trace's durations reach INT64_MAX.
      const int64_t run_ns =
          SaturatingAdd(SaturatingAdd(gpu.kernels.total_ns, gpu.graph_replays.total_ns),
                        SaturatingAdd(gpu.memcpy.total_ns, gpu.memset.total_ns));
      const int64_t inside_ns = SaturatingSub(rank.total.window_ns, rank.total.idle_ns);
      if (run_ns <= 0) continue;
      const double share = static_cast<double>(inside_ns) / static_cast<double>(run_ns);
      if (share >= least) continue;
      least = share;
      text = "the measured steps hold " + FormatPercent(std::max(0.0, share)) + " of " +
             RankName(rank.rank, rank.file) + "'s GPU time over the run (" +
             FormatDurationNs(inside_ns) + " of " + FormatDurationNs(run_ns) +
             "): every figure here describes that part only";
      if (2.0 * static_cast<double>(gpu.graph_replays.total_ns) >
          static_cast<double>(run_ns) - static_cast<double>(inside_ns)) {
        text += "; most of the rest is CUDA-graph replays recorded whole (" +
                FormatDurationNs(gpu.graph_replays.total_ns) +
                "), in the steps left out or in replays that end no step (their graphs hold no "
                "optimizer kernel): an NVTX range around each step marks the steps wherever "
                "they run, and VPROF_CUPTI_KINDS=all records the replays' kernels";
      }
    }
  }
  return least < kStepsHoldRun ? text : "";
}

// "<what>: 6.11 ms per step on rank 0, 83.4% of the step, most in backward".
std::string CandidateTimeText(const CandidateReport& candidate) {
  return FormatDurationNs(candidate.exposed_ns) + " per step" +
         (candidate.rank ? " on rank " + std::to_string(*candidate.rank) : "") +
         (candidate.step_share ? ", " + FormatPercent(*candidate.step_share) + " of the step"
                               : "") +
         (candidate.phase.empty() ? "" : ", most in " + candidate.phase);
}

// The compute candidate where it holds more of the full step than `top`,
// a full-step waste ranked first for what fixing it saves: then compute, not
// that waste, is what bounds the step.
const CandidateReport* LargerCompute(const Report& report, const CandidateReport& top) {
  if (top.scope != CandidateScope::kFullStep || !top.step_share) return nullptr;
  for (const CandidateReport& candidate : report.candidates) {
    if (candidate.kind == "compute" && candidate.step_share &&
        *candidate.step_share > *top.step_share) {
      return &candidate;
    }
  }
  return nullptr;
}

// The first line: what bounds the step, where, how much, and the candidate
// that says so; where that is compute but a waste ranks first, that waste
// too.
std::string VerdictText(const Report& report) {
  if (report.candidates.empty()) {
    return report.steps && report.steps->ledger
               ? "nothing found to fix: no cause of the step's time passed a candidate's test"
               : "no step measured and no candidate found";
  }
  const CandidateReport& top = report.candidates.front();
  const std::string share =
      top.step_share ? ", " + FormatPercent(*top.step_share) + " of the step" : "";
  std::string text;
  if (top.kind == "straggler") {
    const LateRank* late = nullptr;
    if (report.steps && report.steps->ledger) {
      for (const LateRank& each : report.steps->ledger->late) {
        if (each.straggler && !late) late = &each;
      }
    }
    text = (top.rank ? "rank " + std::to_string(*top.rank) : std::string("a rank")) + " is late";
    if (late) {
      text += " at " + std::to_string(late->last_in_role) + " of its " +
              std::to_string(late->role_collectives) + " " +
              std::string(CommRoleAdjective(late->role)) + " collectives" +
              (late->phase.empty() ? "" : ", in " + late->phase);
    }
    text += ": the other ranks wait " + FormatDurationNs(top.exposed_ns) + " per step" + share;
  } else if (top.kind == "compute") {
    text = "GPU compute bounds the step: " + CandidateTimeText(top);
  } else if (const CandidateReport* compute = LargerCompute(report, top)) {
    text = "GPU compute bounds the step: " + CandidateTimeText(*compute) +
           "; the waste to fix first: " + top.title + ", " + CandidateTimeText(top);
  } else if (top.scope == CandidateScope::kFullStep) {
    text = top.title + " bounds the step: " + CandidateTimeText(top);
  } else {
    text = "no full-step figure; the largest: " + top.title + ", " +
           FormatDurationNs(top.exposed_ns) + " per step (" +
           std::string(CandidateScopeName(top.scope)) + ")";
  }
  return text;
}

// A step that moves the ledger's mean by itself (a compile step, a
// checkpoint): its excess over the median, spread over the steps, when that is
// at least a twentieth of the mean. The shares then lean toward that one step,
// which the reader should know before acting on them. Where it is the first
// measured step after the warmup, as a step that compiles or warms a cache
// is, the option that leaves it out too. Empty otherwise, and where the ledger
// is not over the full steps or there are too few for a median apart from the
// mean.
std::string OutlierText(const StepsReport& steps, const FullStepSpread& spread) {
  const StepsLedger& ledger = *steps.ledger;
  if (!ledger.full_steps || ledger.steps < 3 || ledger.steps != steps.full_steps.size() ||
      !steps.median_step_ns) {
    return "";
  }
  const int64_t excess = (spread.longest_ns - *steps.median_step_ns) / ledger.steps;
  if (excess * 20 < ledger.mean_step_ns) return "";
  std::string text = "; step " + std::to_string(StepNumber(steps, spread.longest_step)) +
                     " alone (" + FormatDurationNs(spread.longest_ns) + ", the median " +
                     FormatDurationNs(*steps.median_step_ns) + ") adds " +
                     FormatDurationNs(excess) + " to this mean";
  if (spread.longest_step == steps.first_measured) {
    // --warmup counts the steps after any left out before cudaProfilerStart.
    text += ": the first measured step; --warmup " + std::to_string(steps.warmup_steps + 1) +
            " leaves it out";
  }
  return text;
}

// Where the step goes, from the full steps' ledger: who gave it, the mean
// step, and each cause's share with its largest parts.
std::string LedgerText(const StepsReport& steps, const FullStepSpread& spread) {
  const StepsLedger& ledger = *steps.ledger;
  std::string text;
  std::vector<std::pair<uint32_t, size_t>> givers;
  for (size_t r = 0; r < ledger.ledger_steps.size(); ++r) {
    if (ledger.ledger_steps[r] > 0) givers.emplace_back(ledger.ledger_steps[r], r);
  }
  std::stable_sort(givers.begin(), givers.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < givers.size() && i < 3; ++i) {
    const RankStepsReport& rank = steps.ranks[givers[i].second];
    text += (i == 0 ? "" : ", ") + RankName(rank.rank, rank.file) + " in " +
            std::to_string(givers[i].first) + (i == 0 ? " of " + std::to_string(ledger.steps) : "");
  }
  text += ledger.full_steps ? " (the rank that ends the step" : " (one rank alone, no full steps";
  text += "), " + FormatDurationNs(ledger.mean_step_ns) + " per step:";
  // By cause, in the ledger's order; each with its three largest parts.
  std::vector<LedgerCause> causes;
  for (const LedgerLine& line : ledger.lines) {
    if (std::find(causes.begin(), causes.end(), line.cause) == causes.end()) {
      causes.push_back(line.cause);
    }
  }
  std::vector<std::pair<LedgerCause, double>> by_cause;
  for (const LedgerCause cause : causes) {
    double share = 0;
    for (const LedgerLine& line : ledger.lines) share += line.cause == cause ? line.share : 0;
    by_cause.emplace_back(cause, share);
  }
  std::stable_sort(by_cause.begin(), by_cause.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  bool first = true;
  for (const auto& [cause, share] : by_cause) {
    text += std::string(first ? " " : ", ") + std::string(LedgerCauseName(cause)) + " " +
            FormatPercent(share);
    first = false;
    size_t lines = 0;
    for (const LedgerLine& line : ledger.lines) lines += line.cause == cause;
    if (lines < 2 && cause != LedgerCause::kWaitForRank) continue;
    // The cause's parts by the one thing each names (the phase of compute, the role of a
    // transfer, the rank waited for), summed: lines that differ in another (the phase of a
    // wait) are one part here. The three largest.
    std::vector<std::pair<std::string, double>> parts;
    for (const LedgerLine& line : ledger.lines) {
      if (line.cause != cause) continue;
      std::string what = line.phase;
      if (cause == LedgerCause::kTransfer) what = std::string(CommRoleName(line.role));
      if (cause == LedgerCause::kWaitForRank && line.late) {
        const RankStepsReport& late = steps.ranks[*line.late];
        what = "for " + RankName(late.rank, late.file);
      }
      if (what.empty()) what = "no phase";
      const auto part = std::find_if(parts.begin(), parts.end(),
                                     [&](const auto& seen) { return seen.first == what; });
      if (part == parts.end()) {
        parts.emplace_back(std::move(what), line.share);
      } else {
        part->second += line.share;
      }
    }
    std::stable_sort(parts.begin(), parts.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string shown;
    for (size_t i = 0; i < parts.size() && i < 3; ++i) {
      shown += (i == 0 ? "" : ", ") + parts[i].first + " " + FormatPercent(parts[i].second);
    }
    if (!shown.empty()) text += " (" + shown + ")";
  }
  return text + OutlierText(steps, spread);
}

std::string HealthText(const Report& report, ReportSummary& summary) {
  std::set<std::string> hosts;
  for (const ProcessReport& process : report.processes) {
    hosts.insert(process.host);
    if (process.state != InputState::kWhole) ++summary.traces_not_whole;
    summary.dropped_records += process.dropped_events + process.gpu.dropped_records;
  }
  for (const ProcessPhasesReport& process : report.phases)
    summary.dropped_records += process.dropped;
  if (report.coverage) summary.coverage_gaps = report.coverage->gaps.size();
  std::string text = std::to_string(report.processes.size()) + " traces from " +
                     std::to_string(hosts.size()) + (hosts.size() == 1 ? " host" : " hosts") +
                     ", " +
                     (summary.traces_not_whole == 0
                          ? std::string("all whole")
                          : std::to_string(summary.traces_not_whole) + " cut or unreadable") +
                     "; " + std::to_string(summary.dropped_records) + " records dropped; ";
  text += !report.coverage             ? std::string("coverage not checked")
          : summary.coverage_gaps == 0 ? std::string("no coverage gaps")
                                       : std::to_string(summary.coverage_gaps) + " coverage gaps";
  return text;
}

// Why the launch-cost calibration failed, where it did: "in N of M GPU
// processes: <the first one's reason>"; empty when it failed nowhere.
std::string CalibrationFailureText(const Report& report) {
  size_t failed = 0, calibrated = 0;
  std::string first;
  for (const ProcessReport& process : report.processes) {
    const GpuCaptureReport* capture = process.gpu.capture ? &*process.gpu.capture : nullptr;
    if (!capture || !capture->launch_cost) continue;
    ++calibrated;
    if (capture->launch_cost->failure.empty()) continue;
    if (failed++ == 0) first = capture->launch_cost->failure;
  }
  if (failed == 0) return "";
  return "in " + std::to_string(failed) + " of " +
         FormatCount(calibrated, "GPU process", "GPU processes") + ": " + first;
}

std::string SelfCostText(const Report& report) {
  if (report.steps) {
    const std::string deep = DeepCaptureSentence(*report.steps);
    const std::string cost = LaunchCostSentence(*report.steps);
    if (!deep.empty() && !cost.empty()) return deep + "; " + cost;
    if (!deep.empty()) return deep;
    if (!cost.empty()) return cost;
  }
  const std::string failure = CalibrationFailureText(report);
  const std::string unmeasured =
      failure.empty() ? "not measured by this capture (deep windows that hold whole NVTX steps "
                        "measure it, VPROF_DEEP; docs/capture.md, \"Overhead\")"
                      : "not measured: the calibration at the first CUDA context failed " + failure;
  int64_t cupti_ns = 0;
  for (const ProcessReport& process : report.processes) cupti_ns += process.gpu.cupti_overhead_ns;
  if (cupti_ns > 0) {
    return "CUPTI reported " + FormatDurationNs(cupti_ns) +
           " of its own overhead over the trace; the rest of vprof's cost is " + unmeasured;
  }
  return unmeasured;
}

std::string RankName(const RankStepsReport& rank) {
  return rank.rank ? "rank " + std::to_string(*rank.rank) : rank.file;
}

// ", in <phase>" for the phases (of `rank`) whose `figure` is `peak`; ""
// when none is (a peak between phases, or no phases).
std::string PhasesAtPeak(
    const RankStepsReport& rank, uint64_t peak,
    const std::function<std::optional<uint64_t>(const PhaseMemoryReport&)>& figure) {
  std::string names;
  for (const PhaseMemoryReport& phase : rank.phase_memory) {
    if (figure(phase) != peak) continue;
    names += (names.empty() ? ", in " : " and ") + phase.phase;
  }
  return names;
}

// The highest peak of device memory held from CUDA over the ranks' measured
// steps (MEMORY2 records) and the rank with the most allocation-call time per
// step; the highest peak of a GPU's memory in use as NVML sampled it, with
// the headroom left; the ranks with neither, and why sampling failed. Empty
// when no rank has either and no sampling failed.
std::string MemoryText(const StepsReport& steps) {
  const RankStepsReport* highest = nullptr;
  const RankStepsReport* churning = nullptr;
  const RankStepsReport* fullest = nullptr;
  std::optional<RankMemorySummary> peak;
  std::optional<RankMemorySummary> churn;
  std::vector<std::string> without;
  std::string first_why_not;
  for (const RankStepsReport& rank : steps.ranks) {
    const std::optional<RankMemorySummary> memory = SummarizeMemory(rank);
    if (rank.device_memory && (!fullest || rank.device_memory->sampled.peak_used_bytes >
                                               fullest->device_memory->sampled.peak_used_bytes)) {
      fullest = &rank;
    }
    if (!memory) {
      if (!rank.device_memory) {
        without.push_back(RankName(rank));
        if (first_why_not.empty() && !rank.memory_unavailable.empty()) {
          first_why_not = RankName(rank) + ": " + rank.memory_unavailable;
        }
      }
      continue;
    }
    if (!peak || memory->peak_bytes > peak->peak_bytes) {
      peak = memory;
      highest = &rank;
    }
    if (!churn || memory->api_ns > churn->api_ns) {
      churn = memory;
      churning = &rank;
    }
  }
  // Said also when no rank has figures, if sampling failed on one: the
  // reader learns why there are none.
  if (!peak && !fullest && first_why_not.empty()) return "";
  std::vector<std::string> parts;
  if (peak) {
    std::ostringstream allocations;
    allocations << std::setprecision(3) << churn->allocations;
    parts.push_back(
        "peak " + FormatBytes(static_cast<uint64_t>(std::max<int64_t>(0, peak->peak_bytes))) +
        " held from CUDA (" + RankName(*highest) + ", step " +
        std::to_string(StepNumber(steps, peak->peak_step)) +
        PhasesAtPeak(*highest, static_cast<uint64_t>(std::max<int64_t>(0, peak->peak_bytes)),
                     [&](const PhaseMemoryReport& phase) -> std::optional<uint64_t> {
                       // The phase's peak must be the same step's, not an equal one elsewhere.
                       if (!phase.held || phase.held->peak_step != peak->peak_step) {
                         return std::nullopt;
                       }
                       return static_cast<uint64_t>(std::max<int64_t>(0, phase.held->peak_bytes));
                     }) +
        "); per step " + allocations.str() + " allocations and " + FormatDurationNs(churn->api_ns) +
        " in allocation calls (" + RankName(*churning) + ", the most)");
  }
  if (fullest) {
    const RankDeviceMemory& device = *fullest->device_memory;
    const uint64_t used = device.sampled.peak_used_bytes;
    parts.push_back("GPU " + std::to_string(device.device) + " in use at most " +
                    FormatBytes(used) + " of " + FormatBytes(device.total_bytes) + " (" +
                    RankName(*fullest) + ", step " +
                    std::to_string(StepNumber(steps, device.peak_step)) +
                    PhasesAtPeak(*fullest, used,
                                 [](const PhaseMemoryReport& phase) -> std::optional<uint64_t> {
                                   if (!phase.device_memory) return std::nullopt;
                                   return phase.device_memory->peak_used_bytes;
                                 }) +
                    ", whole device, sampled), headroom " + FormatBytes(device.headroom_bytes()));
  }
  if (!without.empty()) {
    parts.push_back("no memory figures for " + std::to_string(without.size()) + " ranks (" +
                    (first_why_not.empty() ? without.front() : first_why_not) +
                    (without.size() > 1 ? ", ..." : "") + ")");
  }
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : "; ") + part;
  return text;
}

}  // namespace

ReportSummary SummarizeReport(const Report& report) {
  ReportSummary summary;
  std::vector<SummaryLine>& lines = summary.lines;
  lines.push_back({"Verdict", VerdictText(report), "candidates",
                   report.candidates.empty() ? "Fast-path candidates" : "Candidate 1"});
  // Computed once for the step line and the shares; empty without full steps (full_steps.h).
  const FullStepSpread spread =
      report.steps ? SpreadOf(report.steps->full_steps) : FullStepSpread{};
  if (report.steps && !report.steps->full_steps.empty() && report.steps->median_step_ns) {
    lines.push_back({"Step", StepText(*report.steps, spread), "full-steps", "Full steps"});
    if (const std::string outside = OutsideStepsText(report); !outside.empty()) {
      lines.push_back({"Outside the steps", outside, "gpu-kernels", "Top GPU kernels"});
    }
  } else if (report.steps) {
    lines.push_back(
        {"Step",
         report.steps->problem.empty() ? "no full steps across the ranks" : report.steps->problem,
         "segments", "Steps"});
  } else {
    lines.push_back(
        {"Step", "no steps: no process has GPU kernel records", "processes", "Processes"});
  }
  if (report.steps) {
    summary.shares = SharesOf(*report.steps, spread);
    if (report.steps->ledger && report.steps->ledger->steps > 0) {
      lines.push_back(
          {"Where the step goes", LedgerText(*report.steps, spread), "ledger", "Step ledger"});
    } else if (summary.shares) {
      lines.push_back({"Where the step goes", SharesText(*summary.shares), "segments", "Steps"});
    }
  }
  for (size_t i = 0; i < std::min(kTopCandidates, report.candidates.size()); ++i) {
    lines.push_back({"Candidate " + std::to_string(i + 1), CandidateText(report.candidates[i]),
                     "candidates", "Fast-path candidates"});
  }
  if (report.candidates.empty()) {
    lines.push_back({"Candidates", "none found", "candidates", "Fast-path candidates"});
  }
  if (report.steps && report.steps->replay) {
    lines.push_back(
        {"Replay", ReplayCheckText(*report.steps->replay), "candidates", "Fast-path candidates"});
  }
  if (report.steps) {
    if (const std::string memory = MemoryText(*report.steps); !memory.empty()) {
      lines.push_back({"GPU memory", memory, "segments", "Steps"});
    }
  }
  if (const std::string late = StragglerText(report); !late.empty()) {
    lines.push_back({"Straggler", late,
                     report.steps && report.steps->ledger ? "ledger" : "collectives",
                     report.steps && report.steps->ledger ? "Step ledger" : "Ranks"});
  }
  lines.push_back({"Capture", HealthText(report, summary), "processes", "Processes"});
  lines.push_back({"vprof's own cost", SelfCostText(report), "processes", "Processes"});
  return summary;
}

}  // namespace vprof::reporter
