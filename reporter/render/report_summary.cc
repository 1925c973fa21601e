#include "reporter/render/report_summary.h"

#include <algorithm>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>

#include "reporter/base/units.h"
#include "reporter/candidates/step_figures.h"
#include "reporter/render/launch_cost_text.h"
#include "reporter/steps/deep_capture.h"
#include "reporter/steps/full_steps.h"
#include "reporter/steps/memory_summary.h"

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
  return std::to_string(steps.full_steps.size()) + " full steps measured (" + steps.window +
         "): median " + FormatDurationNs(*steps.median_step_ns) + ", p90 " +
         FormatDurationNs(spread.p90_ns) + ", shortest " + FormatDurationNs(spread.shortest_ns) +
         ", longest " + FormatDurationNs(spread.longest_ns) + " (step " +
         std::to_string(spread.longest_step) + ")";
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
  std::string text = c.kind + ": " + FormatDurationNs(c.exposed_ns) + " per step";
  if (c.step_share) text += " (" + FormatPercent(*c.step_share) + " of the median step)";
  text += ", " + std::string(CandidateScopeName(c.scope)) + ", strict " +
          std::string(StrictTagName(c.strict)) + " (" + c.rule_id + " " + c.change + ")";
  return text;
}

// The rank most often last into collectives, from the Ranks table; empty
// without collectives across ranks.
std::string LastArrivalText(const Report& report) {
  const RankReport* most = nullptr;
  for (const RankReport& rank : report.ranks) {
    if (!most || rank.last_arrivals > most->last_arrivals) most = &rank;
  }
  if (!most || most->last_arrivals == 0 || report.ranks.size() < 2) return "";
  return RankName(most->rank, most->file) + " entered " + std::to_string(most->last_arrivals) +
         " of " + std::to_string(most->collectives) + " collectives last, mean lateness " +
         FormatDurationNs(most->mean_lateness_ns);
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
    if (std::string deep = DeepCaptureSentence(*report.steps); !deep.empty()) return deep;
    if (std::string cost = LaunchCostSentence(*report.steps); !cost.empty()) return cost;
  }
  const std::string failure = CalibrationFailureText(report);
  const std::string unmeasured =
      failure.empty() ? "not measured by this capture (deep windows that hold whole NVTX steps "
                        "measure it, VPROF_DEEP; README, \"Overhead\")"
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
        " held from CUDA (" + RankName(*highest) + ", step " + std::to_string(peak->peak_step) +
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
                    RankName(*fullest) + ", step " + std::to_string(device.peak_step) +
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
  // Computed once for the step line and the shares; empty without full steps (full_steps.h).
  const FullStepSpread spread =
      report.steps ? SpreadOf(report.steps->full_steps) : FullStepSpread{};
  if (report.steps && !report.steps->full_steps.empty() && report.steps->median_step_ns) {
    lines.push_back({"Step", StepText(*report.steps, spread), "full-steps", "Full steps"});
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
    if (summary.shares) {
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
  if (report.steps) {
    if (const std::string memory = MemoryText(*report.steps); !memory.empty()) {
      lines.push_back({"GPU memory", memory, "segments", "Steps"});
    }
  }
  if (const std::string last = LastArrivalText(report); !last.empty()) {
    lines.push_back({"Straggler", last, "collectives", "Ranks"});
  }
  lines.push_back({"Capture", HealthText(report, summary), "processes", "Processes"});
  lines.push_back({"vprof's own cost", SelfCostText(report), "processes", "Processes"});
  return summary;
}

}  // namespace vprof::reporter
