#include "reporter/render/text/steps_text.h"

#include <iomanip>
#include <map>
#include <sstream>
#include <string_view>

#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/render/report_tables.h"
#include "reporter/render/short_kernel_name.h"
#include "reporter/render/spread_over_ranks.h"
#include "reporter/render/text/table_text.h"
#include "reporter/steps/full_steps.h"
#include "reporter/steps/memory_summary.h"

namespace vprof::reporter {
namespace {

std::string RankText(const std::optional<int32_t>& rank) {
  return rank ? std::to_string(*rank) : "-";
}

// "same_stream 1.20 ms, other 3.00 µs"; "-" when nothing was exposed.
std::string ReasonsText(const SegmentTimes& times) {
  std::string text;
  for (const auto& [reason, ns] : times.exposed_by_reason_ns) {
    if (!text.empty()) text += ", ";
    text += std::string(ExposureReasonName(reason)) + " " + FormatDurationNs(ns);
  }
  return text.empty() ? "-" : text;
}

std::string BucketsText(const RankStepsReport& rank) {
  if (!rank.bucket_plan_stable) return "-";
  const size_t per_step = rank.steps.front().buckets.size();
  return std::to_string(per_step) + (*rank.bucket_plan_stable ? " stable" : " changing");
}

struct SegmentFigure {
  std::string_view name;
  int64_t SegmentTimes::*ns;
};
constexpr SegmentFigure kSplitFigures[] = {
    {"window", &SegmentTimes::window_ns},
    {"compute", &SegmentTimes::compute_ns},
    {"exposed", &SegmentTimes::exposed_comm_ns},
    {"overlapped", &SegmentTimes::overlapped_comm_ns},
    {"copy", &SegmentTimes::copy_ns},
    {"idle", &SegmentTimes::idle_ns},
    {"blocking", &SegmentTimes::exposed_comm_blocking_ns},
    {"idle-fill", &SegmentTimes::exposed_comm_idle_fill_ns},
    {"host-bound", &SegmentTimes::idle_host_bound_ns},
    {"waiting", &SegmentTimes::idle_waiting_ns},
};
// A phase's figures when folded: the four that say most.
constexpr SegmentFigure kPhaseFigures[] = {
    {"window", &SegmentTimes::window_ns},
    {"compute", &SegmentTimes::compute_ns},
    {"exposed", &SegmentTimes::exposed_comm_ns},
    {"idle", &SegmentTimes::idle_ns},
};

// One row: `label`, then the least, median and most of `values` over the ranks.
void AddFoldedRow(ReportTable& table, std::string label, RankValues values) {
  const std::optional<SpreadOverRanks> spread = SpreadOver(std::move(values));
  if (!spread) return;
  table.rows.push_back({std::move(label), DurationOfRankText(spread->least, spread->least_rank),
                        FormatDurationNs(spread->median),
                        DurationOfRankText(spread->most, spread->most_rank)});
}

ReportTable FoldedTable() {
  return UntitledTable({{"figure"}, {"least", true}, {"median", true}, {"most", true}});
}

// The time split and the why table of many ranks, folded; then the ranks'
// bucket plans counted and the exposed time by reason summed.
void WriteFoldedSplit(const StepsReport& steps, std::ostream& out) {
  ReportTable table = FoldedTable();
  for (const SegmentFigure& figure : kSplitFigures) {
    RankValues values;
    for (const RankStepsReport& rank : steps.ranks) {
      values.emplace_back(rank.total.*figure.ns, rank.rank);
    }
    AddFoldedRow(table, std::string(figure.name), std::move(values));
  }
  TextTableOf(table).Write(out, "  ");
  size_t stable = 0;
  size_t changing = 0;
  SegmentTimes all;
  for (const RankStepsReport& rank : steps.ranks) {
    stable += rank.bucket_plan_stable == true;
    changing += rank.bucket_plan_stable == false;
    for (const auto& [reason, ns] : rank.total.exposed_by_reason_ns) {
      all.exposed_by_reason_ns[reason] += ns;
    }
  }
  WriteWrapped(out,
               "buckets: " + std::to_string(stable) + " ranks stable, " + std::to_string(changing) +
                   " changing, " + std::to_string(steps.ranks.size() - stable - changing) +
                   " without buckets; exposed by reason, all ranks: " + ReasonsText(all),
               "  ", "    ");
}

// The phases inside the steps of many ranks, folded: per phase (by name),
// its window, compute, exposed and idle over the ranks that have it. Whether
// any rank has phases.
bool AddFoldedPhases(const StepsReport& steps, ReportTable& table) {
  std::map<std::string, std::vector<std::pair<const SegmentTimes*, std::optional<int32_t>>>>
      by_phase;
  for (const RankStepsReport& rank : steps.ranks) {
    for (const StepPhaseReport& phase : rank.phases) {
      by_phase[phase.phase].emplace_back(&phase.times, rank.rank);
    }
  }
  for (const auto& [phase, ranks] : by_phase) {
    for (const SegmentFigure& figure : kPhaseFigures) {
      RankValues values;
      for (const auto& [times, rank] : ranks) values.emplace_back(times->*figure.ns, rank);
      AddFoldedRow(
          table,
          phase + " " + std::string(figure.name) + " (" + std::to_string(ranks.size()) + " ranks)",
          std::move(values));
    }
  }
  return !by_phase.empty();
}

void WriteTimeSplit(const StepsReport& steps, std::ostream& out) {
  ReportTable table = UntitledTable({{"rank", true},
                                     {"steps", true},
                                     {"window", true},
                                     {"compute", true},
                                     {"exposed", true},
                                     {"overlapped", true},
                                     {"copy", true},
                                     {"idle", true},
                                     {"file"}});
  for (const RankStepsReport& rank : steps.ranks) {
    const SegmentTimes& total = rank.total;
    table.rows.push_back(
        {RankText(rank.rank), std::to_string(rank.steps.size()), FormatDurationNs(total.window_ns),
         FormatDurationNs(total.compute_ns), FormatDurationNs(total.exposed_comm_ns),
         FormatDurationNs(total.overlapped_comm_ns), FormatDurationNs(total.copy_ns),
         FormatDurationNs(total.idle_ns), rank.file});
  }
  TextTableOf(table).Write(out, "  ");
}

void WriteWhy(const StepsReport& steps, std::ostream& out) {
  ReportTable table = UntitledTable({{"rank", true},
                                     {"blocking", true},
                                     {"idle-fill", true},
                                     {"host-bound", true},
                                     {"waiting", true},
                                     {"buckets"},
                                     {"exposed by reason"}});
  for (const RankStepsReport& rank : steps.ranks) {
    const SegmentTimes& total = rank.total;
    table.rows.push_back({RankText(rank.rank), FormatDurationNs(total.exposed_comm_blocking_ns),
                          FormatDurationNs(total.exposed_comm_idle_fill_ns),
                          FormatDurationNs(total.idle_host_bound_ns),
                          FormatDurationNs(total.idle_waiting_ns), BucketsText(rank),
                          ReasonsText(total)});
  }
  TextTableOf(table).Write(out, "  ");
}

void WriteFullSteps(const StepsReport& steps, std::ostream& out) {
  ReportTable table = UntitledTable(
      {{"step", true}, {"duration", true}, {"slowest rank", true}, {"max exposed comm", true}});
  for (const FullStepReport* step : ListedFullSteps(steps.full_steps)) {
    table.rows.push_back({std::to_string(StepNumber(steps, step->step)),
                          FormatDurationNs(step->duration_ns), RankText(step->slowest_rank),
                          FormatDurationNs(step->max_exposed_comm_ns)});
  }
  TextTableOf(table).Write(out, "  ");
}

void WritePhases(const StepsReport& steps, std::ostream& out) {
  const bool folded = steps.ranks.size() > kFoldAbove;
  ReportTable table = folded ? FoldedTable()
                             : UntitledTable({{"rank", true},
                                              {"phase"},
                                              {"window", true},
                                              {"compute", true},
                                              {"exposed", true},
                                              {"overlapped", true},
                                              {"copy", true},
                                              {"idle", true}});
  bool any = false;
  if (folded) any = AddFoldedPhases(steps, table);
  for (const RankStepsReport& rank : steps.ranks) {
    if (folded) break;
    for (const StepPhaseReport& phase : rank.phases) {
      any = true;
      const SegmentTimes& times = phase.times;
      table.rows.push_back({RankText(rank.rank), phase.phase, FormatDurationNs(times.window_ns),
                            FormatDurationNs(times.compute_ns),
                            FormatDurationNs(times.exposed_comm_ns),
                            FormatDurationNs(times.overlapped_comm_ns),
                            FormatDurationNs(times.copy_ns), FormatDurationNs(times.idle_ns)});
    }
  }
  if (!any) return;
  out << "\n";
  WriteWrapped(out,
               "Phases inside the measured steps (NVTX phase ranges), in GPU time: the GPU work "
               "launched inside a phase's ranges, from its first start to its last end; phases "
               "overlap on the GPU, so they need not add up to the step. \"Phases (NVTX)\" gives "
               "the same ranges' host time, which is shorter when they only queue work",
               "  ", "  ");
  TextTableOf(table).Write(out, "  ");
}

// The first rank's buckets in its first measured step: the plan the others
// are compared with.
void WriteBuckets(const StepsReport& steps, const RankStepsReport& rank, std::ostream& out) {
  const RankStepReport& step = rank.steps.front();
  if (step.buckets.empty()) return;
  out << "\n";
  WriteWrapped(out,
               "Gradient buckets of rank " + RankText(rank.rank) + ", step " +
                   std::to_string(StepNumber(steps, step.step)) +
                   " (backward's reductions in issue order; offset from the window start):",
               "  ", "  ");
  ReportTable table = UntitledTable({{"#", true},
                                     {"op"},
                                     {"comm"},
                                     {"bytes", true},
                                     {"offset", true},
                                     {"gpu", true},
                                     {"exposed", true}});
  for (const BucketReport& bucket : step.buckets) {
    table.rows.push_back({std::to_string(bucket.index), std::string(NcclFunctionName(bucket.op)),
                          bucket.comm_id == 0 ? "-" : FormatHexId(bucket.comm_id),
                          FormatBytes(bucket.bytes), FormatDurationNs(bucket.offset_ns),
                          FormatDurationNs(bucket.gpu_ns), FormatDurationNs(bucket.exposed_ns)});
  }
  TextTableOf(table).Write(out, "  ");
}

// Signed byte counts: held memory is negative when the capture saw releases of
// memory allocated before it began.
std::string SignedBytes(int64_t bytes) {
  return bytes < 0 ? "-" + FormatBytes(static_cast<uint64_t>(-bytes))
                   : FormatBytes(static_cast<uint64_t>(bytes));
}

std::string PerStep(double count) {
  std::ostringstream text;
  text << std::setprecision(3) << count;
  return text.str();
}

// Memory per phase, of every rank, or folded of the first with figures (the JSON report has
// every rank's).
void WritePhaseMemory(const StepsReport& steps, std::ostream& out) {
  const bool folded = steps.ranks.size() > kFoldAbove;
  ReportTable table = UntitledTable({{"rank"},
                                     {"phase"},
                                     {"steps", true},
                                     {"held peak", true},
                                     {"at step", true},
                                     {"held low", true},
                                     {"in use peak", true},
                                     {"samples", true}});
  bool any = false;
  for (const RankStepsReport& rank : steps.ranks) {
    if (folded && any) break;  // folded: the first rank with figures only
    for (const PhaseMemoryReport& phase : rank.phase_memory) {
      if (!phase.held && !phase.device_memory) continue;
      any = true;
      const auto held = [&](auto figure) {
        return phase.held ? figure(*phase.held) : std::string("-");
      };
      table.rows.push_back(
          {RankText(rank.rank), phase.phase + (phase.from_nvtx ? "" : " (inferred)"),
           std::to_string(phase.steps),
           held([](const PhaseMemoryReport::Held& h) { return SignedBytes(h.peak_bytes); }),
           held([&](const PhaseMemoryReport::Held& h) {
             return std::to_string(StepNumber(steps, h.peak_step));
           }),
           held([](const PhaseMemoryReport::Held& h) { return SignedBytes(h.low_bytes); }),
           phase.device_memory ? FormatBytes(phase.device_memory->peak_used_bytes) : "-",
           std::to_string(phase.device_memory ? phase.device_memory->samples : 0)});
    }
  }
  if (!any) return;
  out << "\n";
  WriteWrapped(out,
               std::string("GPU memory by phase") +
                   (folded ? ", of the first rank with figures" : "") +
                   ": held from CUDA (allocated less released since the capture began) at any "
                   "instant of the phase's host span in a step (NVTX: its ranges' first start to "
                   "last end; inferred: its work's first launch to last), most and least over "
                   "the measured steps; in use: NVML's samples of the rank's GPU in those spans "
                   "(spans shorter than the sampling interval often hold none)",
               "  ", "  ");
  TextTableOf(table).Write(out, "  ");
}

// NVML's samples of the rank's GPU, or why there are none.
void WriteDeviceMemoryNote(const StepsReport& steps, const RankStepsReport& rank,
                           std::ostream& out) {
  if (!rank.memory_unavailable.empty()) {
    WriteWrapped(out,
                 "rank " + RankText(rank.rank) +
                     " GPU memory in use: not sampled: " + rank.memory_unavailable,
                 "  ", "    ");
  }
  if (!rank.device_memory) return;
  const RankDeviceMemory& device = *rank.device_memory;
  const uint64_t peak = device.sampled.peak_used_bytes;
  WriteWrapped(out,
               "rank " + RankText(rank.rank) + " GPU " + std::to_string(device.device) +
                   " memory in use (the whole device, every process's; " +
                   std::to_string(device.sampled.samples) +
                   " samples in the measured steps, every " +
                   FormatDurationNs(static_cast<int64_t>(device.interval_ns)) + "): peak " +
                   FormatBytes(peak) + " of " + FormatBytes(device.total_bytes) + " (step " +
                   std::to_string(StepNumber(steps, device.peak_step)) + "; headroom " +
                   FormatBytes(device.headroom_bytes()) + "), low " +
                   FormatBytes(device.sampled.low_used_bytes),
               "  ", "    ");
}

// Memory moved out and back, per measured step (mean over all of them).
void WriteTransfersNote(const RankStepsReport& rank, std::ostream& out) {
  StepTransfers sum;
  bool any = false;
  for (const RankStepReport& step : rank.steps) {
    if (!step.transfers) continue;
    any = true;
    sum += *step.transfers;
  }
  if (!any) return;
  const auto steps = static_cast<int64_t>(rank.steps.size());
  const auto per_step = [&](uint64_t bytes) {
    return FormatBytes(bytes / static_cast<uint64_t>(steps));
  };
  std::string line = "rank " + RankText(rank.rank) +
                     " memory moved out and back per step (copies of 1 MiB or more, GPU time): "
                     "to host " +
                     per_step(sum.to_host_bytes) + " in " +
                     FormatDurationNs(sum.to_host_ns / steps) + ", to device " +
                     per_step(sum.to_device_bytes) + " in " +
                     FormatDurationNs(sum.to_device_ns / steps);
  if (sum.unmaps + sum.maps > 0) {
    line += "; virtual memory: " +
            PerStep(static_cast<double>(sum.unmaps) / static_cast<double>(steps)) + " unmaps and " +
            PerStep(static_cast<double>(sum.maps) / static_cast<double>(steps)) + " maps, " +
            FormatDurationNs(sum.map_call_ns / steps) + " in the calls";
  }
  WriteWrapped(out, line, "  ", "    ");
}

void WriteMemoryNote(const StepsReport& steps, const RankStepsReport& rank, std::ostream& out) {
  WriteDeviceMemoryNote(steps, rank, out);
  WriteTransfersNote(rank, out);
  const std::optional<RankMemorySummary> memory = SummarizeMemory(rank);
  if (!memory) return;
  std::string line = "rank " + RankText(rank.rank) +
                     " GPU memory held from CUDA (allocated less released since the capture "
                     "began): peak " +
                     SignedBytes(memory->peak_bytes) + " (step " +
                     std::to_string(StepNumber(steps, memory->peak_step)) + "), low " +
                     SignedBytes(memory->low_bytes) + "; per step " + PerStep(memory->allocations) +
                     " allocations (" +
                     FormatBytes(static_cast<uint64_t>(memory->allocated_bytes)) + "), " +
                     PerStep(memory->releases) + " releases, " + FormatDurationNs(memory->api_ns) +
                     " in allocation calls";
  if (rank.memory_events_dropped > 0) {
    line += "; " + std::to_string(rank.memory_events_dropped) +
            " memory events beyond the kept ones are not counted";
  }
  WriteWrapped(out, line, "  ", "    ");
}

void WriteRankNotes(const StepsReport& steps, const RankStepsReport& rank, std::ostream& out) {
  std::string line = "rank " + RankText(rank.rank) + " streams:";
  for (const StreamRoleReport& stream : rank.streams) {
    line += " " + std::to_string(stream.stream) + " " + stream.role + " (";
    if (stream.kernels > 0) line += std::to_string(stream.kernels) + " kernels, ";
    if (stream.graph_replays > 0) {
      line += std::to_string(stream.graph_replays) + " graph replays recorded whole, ";
    }
    line += FormatDurationNs(stream.busy_ns) + " busy);";
  }
  if (rank.max_connections_one) line += " CUDA_DEVICE_MAX_CONNECTIONS=1;";
  if (rank.longest_exposed_comm) {
    line += " longest exposed communication: " + ShortKernelName(rank.longest_exposed_comm->name) +
            " " + rank.longest_exposed_comm->id + " (" +
            FormatDurationNs(rank.longest_exposed_comm->duration_ns) + ");";
  }
  if (rank.longest_idle_gap) {
    line += " longest idle gap: " + FormatDurationNs(rank.longest_idle_gap->duration_ns) +
            " before " + ShortKernelName(rank.longest_idle_gap->name) + " " +
            rank.longest_idle_gap->id + ";";
  }
  if (rank.late_records > 0) {
    line += " " + std::to_string(rank.late_records) + " GPU records came after their step closed;";
  }
  if (rank.unlaunched_records > 0) {
    line += " " + std::to_string(rank.unlaunched_records) +
            " GPU records without their launch record, in no step;";
  }
  if (rank.steps_missing_phase_ranges > 0) {
    line += " phases of " + std::to_string(rank.steps_missing_phase_ranges) +
            " steps may be short (phase ranges dropped for room);";
  }
  line.pop_back();
  WriteWrapped(out, line, "  ", "    ");
  WriteMemoryNote(steps, rank, out);
}

}  // namespace

void WriteStepsText(const Report& report, std::ostream& out) {
  if (!report.steps) return;
  const StepsReport& steps = *report.steps;
  out << "\nSteps (per rank: one process over each step's GPU window; full step: across ranks)\n";
  const std::string source =
      steps.source == StepSource::kNvtx ? "NVTX ranges matching " + steps.pattern : steps.pattern;
  WriteWrapped(out, "source: " + std::string(StepSourceName(steps.source)) + ": " + source, "  ",
               "    ");
  if (steps.graph_replays_recorded_whole > 0) {
    WriteWrapped(out,
                 "caveat: " + std::to_string(steps.graph_replays_recorded_whole) +
                     " CUDA-graph replays were recorded whole, their kernels unseen: an optimizer "
                     "inside a graph ends no step here, so steps inside graphs are not found; NVTX "
                     "step ranges, VPROF_CUPTI_KINDS=all or a deep window find them",
                 "  ", "    ");
  }
  if (!steps.problem.empty()) {
    WriteWrapped(out, "no steps: " + steps.problem, "  ", "    ");
    return;
  }
  out << "  window: " << steps.window << "\n";
  WriteWrapped(out,
               "summed over the measured steps; compute + exposed + copy + idle = window; "
               "overlapped communication ran under compute and is not part of the sum",
               "  ", "  ");
  const bool folded = steps.ranks.size() > kFoldAbove;
  if (folded) {
    WriteWrapped(out,
                 std::to_string(steps.ranks.size()) +
                     " ranks, folded: each figure's least, median and most over the ranks, "
                     "with the rank that had the least and the most (the JSON report has "
                     "every rank's)",
                 "  ", "  ");
  } else {
    WriteTimeSplit(steps, out);
    out << "\n";
  }
  WriteWrapped(out,
               "exposed communication: blocking when the next compute kernel was already queued "
               "before it ended, else idle-fill; idle: host-bound when the work that ended the "
               "gap was launched after it began, else waiting; buckets: reductions per step, "
               "stable when every step issues the same sizes",
               "  ", "  ");
  if (folded) {
    WriteFoldedSplit(steps, out);
  } else {
    WriteWhy(steps, out);
  }
  out << "\n";
  WriteWrapped(
      out, "Full steps (earliest rank start to latest rank end), " + FullStepsSentence(steps) + ":",
      "  ", "    ");
  WriteFullSteps(steps, out);
  for (const std::optional<ReportTable>& table : {LedgerTable(steps), LateRanksTable(steps)}) {
    if (!table) continue;
    out << "\n";
    WriteWrapped(out, table->title + " (" + table->scope + "): " + table->note + ":", "  ", "    ");
    TextTableOf(*table).Write(out, "  ");
  }
  WritePhases(steps, out);
  WritePhaseMemory(steps, out);
  if (!steps.ranks.empty()) WriteBuckets(steps, steps.ranks.front(), out);
  out << "\n";
  if (steps.ranks.size() <= kFoldAbove) {
    for (const RankStepsReport& rank : steps.ranks) WriteRankNotes(steps, rank, out);
    return;
  }
  size_t written = 0;
  size_t lost = 0;
  for (size_t i = 0; i < steps.ranks.size(); ++i) {
    const bool lost_records = steps.ranks[i].lost_records();
    lost += lost_records;
    if (i == 0 || (lost_records && lost <= kFoldAbove)) {
      WriteRankNotes(steps, steps.ranks[i], out);
      ++written;
    }
  }
  const std::string lost_text =
      lost == 0 ? "no rank lost records"
                : std::to_string(lost) + " ranks lost records, the first " +
                      std::to_string(std::min(lost, kFoldAbove)) + " of them shown above";
  WriteWrapped(out,
               "notes of " + std::to_string(steps.ranks.size() - written) +
                   " more ranks (streams, longest exposed communication and idle gap) are in the "
                   "JSON report; " +
                   lost_text + " (late, without a launch record, or short of phase ranges)",
               "  ", "    ");
}

}  // namespace vprof::reporter
