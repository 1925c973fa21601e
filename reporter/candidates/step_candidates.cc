// Candidates from the step analysis: exposed communication (tensor-parallel
// and gradient buckets apart), host-bound idle and exposed copies.
#include <algorithm>
#include <map>
#include <set>

#include "reporter/base/units.h"
#include "reporter/candidates/candidate_detectors.h"
#include "reporter/candidates/step_figures.h"

namespace vprof::reporter {
namespace {

// Kind, title and the figure's own lines, common to every step candidate.
CandidateReport FromFigure(const StepsReport& steps, const StepFigure& figure,
                           std::string_view kind, std::string_view title,
                           std::string_view measured) {
  CandidateReport report;
  report.kind = kind;
  report.title = title;
  report.scope = figure.scope;
  report.exposed_ns = figure.per_step_ns;
  const std::string per_step = FormatDurationNs(figure.per_step_ns) + " " + std::string(measured);
  if (figure.scope == CandidateScope::kFullStep) {
    if (steps.median_step_ns && *steps.median_step_ns > 0) {
      report.step_share =
          static_cast<double>(figure.per_step_ns) / static_cast<double>(*steps.median_step_ns);
    }
    std::string line = per_step + " per step on the critical path: mean over " +
                       std::to_string(figure.steps) + " full steps (" + steps.window +
                       ") of each step's slowest rank";
    if (figure.rank) {
      line += "; " + RankName(figure.rank->rank, figure.rank->file) + " slowest in " +
              std::to_string(figure.slowest_in);
    }
    report.evidence.push_back(line);
  } else {
    report.evidence.push_back("no full steps across ranks: " + per_step + " per step on " +
                              RankName(figure.rank->rank, figure.rank->file) +
                              " alone (actor window, " + std::to_string(figure.steps) +
                              " steps), not a full-step gain");
  }
  return report;
}

std::set<uint64_t> BucketCommunicators(const StepsReport& steps) {
  std::set<uint64_t> ids;
  for (const RankStepsReport& rank : steps.ranks) {
    for (const RankStepReport& step : rank.steps) {
      for (const BucketReport& bucket : step.buckets) ids.insert(bucket.comm_id);
    }
  }
  return ids;
}

int64_t ExposedOn(const SegmentTimes& times, const std::set<uint64_t>& buckets, bool bucket_side) {
  int64_t sum = 0;
  for (const auto& [comm_id, ns] : times.exposed_by_comm_ns) {
    if (buckets.contains(comm_id) == bucket_side) sum += ns;
  }
  return sum;
}

const CommunicatorReport* CommunicatorOf(const Report& report, uint64_t comm_id) {
  for (const CommunicatorReport& comm : report.communicators) {
    if (comm.comm_id == comm_id) return &comm;
  }
  return nullptr;
}

// "comm 0x1f (size 4; 300 ncclAllReduce over the trace): 25.0 ms per step".
std::string CommunicatorLine(const Report& report, uint64_t comm_id, int64_t per_step_ns) {
  const CommunicatorReport* comm = CommunicatorOf(report, comm_id);
  if (comm_id == 0 || !comm) {
    return "communication kernels linked to no intercepted call (comm " + FormatHexId(comm_id) +
           "): " + FormatDurationNs(per_step_ns) + " per step";
  }
  std::map<std::string, uint64_t> ops;
  for (const OpReport& op : comm->ops) ops[op.op] += op.count;
  std::string line = "comm " + FormatHexId(comm_id) + " (size " + std::to_string(comm->size);
  for (const auto& [op, count] : ops) line += "; " + std::to_string(count) + " " + op;
  return line + " over the trace): " + FormatDurationNs(per_step_ns) + " per step";
}

// The communication candidate of one side (buckets or not); none without exposure.
void DetectCommunication(const Report& report, const std::set<uint64_t>& buckets, bool bucket_side,
                         std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const auto side = [&](const SegmentTimes& t) { return ExposedOn(t, buckets, bucket_side); };
  const std::optional<StepFigure> figure = MeasureOnSteps(steps, side);
  if (!figure || figure->per_step_ns <= 0) return;
  CandidateReport candidate =
      bucket_side ? FromFigure(steps, *figure, "gradient_buckets",
                               "Gradient-bucket reductions not hidden behind backward",
                               "of exposed bucket communication")
                  : FromFigure(steps, *figure, "tp_communication",
                               "Tensor-parallel communication not hidden behind compute",
                               "of exposed communication outside gradient buckets");

  std::set<uint64_t> comm_ids;
  for (const RankStepsReport& rank : steps.ranks) {
    for (const auto& [comm_id, ns] : rank.total.exposed_by_comm_ns) {
      if (buckets.contains(comm_id) == bucket_side && ns > 0) comm_ids.insert(comm_id);
    }
  }
  const TraceWindows windows = TraceWindowsOf(report);
  uint64_t collectives = 0;
  int64_t gpu_ns_per_rank = 0;
  for (uint64_t comm_id : comm_ids) {
    const std::optional<StepFigure> own = MeasureOnSteps(steps, [&](const SegmentTimes& t) {
      const auto it = t.exposed_by_comm_ns.find(comm_id);
      return it == t.exposed_by_comm_ns.end() ? int64_t{0} : it->second;
    });
    candidate.evidence.push_back(CommunicatorLine(report, comm_id, own ? own->per_step_ns : 0));
    const CommunicatorReport* comm = CommunicatorOf(report, comm_id);
    if (comm_id == 0 || !comm) continue;
    const auto members = static_cast<int64_t>(std::max<size_t>(1, comm->ranks_seen.size()));
    for (const OpReport& op : comm->ops) {
      collectives += op.count;
      gpu_ns_per_rank += op.gpu_time_total_ns / members;
    }
  }
  candidate.count = collectives / windows.count;
  candidate.total_ns = gpu_ns_per_rank / static_cast<int64_t>(windows.count);
  if (collectives > 0) {
    // The count over the trace: fewer collectives than windows would read "0 per step".
    candidate.evidence.push_back(std::to_string(collectives) + " collectives over the trace, " +
                                 FormatDurationNs(candidate.total_ns) + " of GPU time per rank " +
                                 windows.text);
  }
  const RankStepsReport* rank = figure->rank;
  if (rank && !rank->total.exposed_by_reason_ns.empty()) {
    std::string line = "why not overlapped on " + RankName(rank->rank, rank->file) +
                       " (all communication, per step):";
    const auto count = static_cast<int64_t>(std::max<size_t>(1, rank->steps.size()));
    for (const auto& [reason, ns] : rank->total.exposed_by_reason_ns) {
      line += " " + std::string(ExposureReasonName(reason)) + " " + FormatDurationNs(ns / count);
    }
    candidate.evidence.push_back(line);
  }
  if (bucket_side) {
    for (const RankStepsReport& each : steps.ranks) {
      if (!each.bucket_plan_stable) continue;
      const size_t count = each.steps.empty() ? 0 : each.steps.front().buckets.size();
      candidate.evidence.push_back(RankName(each.rank, each.file) + ": " + std::to_string(count) +
                                   " buckets in its first measured step; bucket plan " +
                                   (*each.bucket_plan_stable ? "stable" : "NOT stable") +
                                   " across steps");
      break;
    }
  } else if (report.consistency && report.consistency->custom_allreduce_kernels.count > 0) {
    candidate.evidence.push_back(
        "custom all-reduce already ran " +
        std::to_string(report.consistency->custom_allreduce_kernels.count) + " kernels");
  }
  // The longest exposed kernel of a rank goes to the side that exposed more there.
  candidate.examples =
      StepExamples(steps, rank, [&](const RankStepsReport& each) -> const std::optional<SpanRef>* {
        const bool more_on_buckets =
            ExposedOn(each.total, buckets, true) > ExposedOn(each.total, buckets, false);
        return more_on_buckets == bucket_side ? &each.longest_exposed_comm : nullptr;
      });
  out.push_back({bucket_side ? ChangeKind::kOverlapSameBuckets : ChangeKind::kCustomAllReduce,
                 std::move(candidate)});
}

void DetectHostIdle(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const std::optional<StepFigure> figure =
      MeasureOnSteps(steps, [](const SegmentTimes& t) { return t.idle_host_bound_ns; });
  if (!figure || figure->per_step_ns <= 0) return;
  CandidateReport candidate =
      FromFigure(steps, *figure, "host_idle", "GPU idle until the host launched the next work",
                 "of GPU idle while the host had not launched the next work");
  const std::optional<StepFigure> idle =
      MeasureOnSteps(steps, [](const SegmentTimes& t) { return t.idle_ns; });
  const std::optional<StepFigure> waiting =
      MeasureOnSteps(steps, [](const SegmentTimes& t) { return t.idle_waiting_ns; });
  candidate.total_ns = idle->per_step_ns;
  candidate.evidence.push_back("all GPU idle " + FormatDurationNs(idle->per_step_ns) +
                               " per step, of which " + FormatDurationNs(waiting->per_step_ns) +
                               " waiting on a stream or event (not host-bound)");
  // vprof's launch cost lands in this figure: the host launched later by it.
  if (figure->rank && figure->rank->launch_cost) {
    const LaunchCostEstimate& cost = *figure->rank->launch_cost;
    candidate.vprof_cost_ns = std::min(cost.per_step_ns(), figure->per_step_ns);
    candidate.evidence.push_back(
        "vprof's own cost: recording adds " +
        FormatDurationNs(static_cast<int64_t>(cost.added_per_launch_ns)) +
        " to each launch (calibrated as CUDA started), at least " +
        FormatDurationNs(cost.per_step_ns()) + " of host time per step on this rank" +
        (cost.upper_per_step_ns() > cost.per_step_ns()
             ? " and at most " + FormatDurationNs(*cost.upper_per_step_ns()) +
                   " (its launches as recorded, less a bare launch)"
             : std::string()) +
        ": this idle holds it where the GPU waited for those launches");
    if (cost.per_step_ns() >= figure->per_step_ns) candidate.title += " (within vprof's own cost)";
  }
  candidate.examples = StepExamples(
      steps, figure->rank, [](const RankStepsReport& each) { return &each.longest_idle_gap; });
  if (!candidate.examples.empty()) {
    candidate.evidence.push_back(
        "examples: each rank's longest idle gap (its start and length; the id and name "
        "of the GPU work that ended it)");
  }
  out.push_back({ChangeKind::kCudaGraphCapture, std::move(candidate)});
}

const ProcessReport* ProcessOf(const Report& report, const std::string& file) {
  for (const ProcessReport& process : report.processes) {
    if (process.file == file) return &process;
  }
  return nullptr;
}

void DetectCopies(const Report& report, std::vector<DetectedCandidate>& out) {
  const StepsReport& steps = *report.steps;
  const std::optional<StepFigure> figure =
      MeasureOnSteps(steps, [](const SegmentTimes& t) { return t.copy_ns; });
  if (!figure || figure->per_step_ns <= 0) return;
  CandidateReport candidate =
      FromFigure(steps, *figure, "copies", "Copies with neither compute nor communication",
                 "of copies with the GPU otherwise idle");
  const ProcessReport* process = figure->rank ? ProcessOf(report, figure->rank->file) : nullptr;
  if (process) {
    const TraceWindows windows = TraceWindowsOf(report);
    const GpuReport& gpu = process->gpu;
    candidate.count = (gpu.memcpy.count + gpu.memset.count) / windows.count;
    candidate.total_ns =
        (gpu.memcpy.total_ns + gpu.memset.total_ns) / static_cast<int64_t>(windows.count);
    candidate.evidence.push_back(
        RankName(process->rank, process->file) + ": " + std::to_string(gpu.memcpy.count) +
        " memcpy (" + FormatBytes(gpu.memcpy.bytes) + ", " + FormatDurationNs(gpu.memcpy.total_ns) +
        ") and " + std::to_string(gpu.memset.count) + " memset over the trace");
  }
  out.push_back({ChangeKind::kAsyncPinnedCopies, std::move(candidate)});
}

}  // namespace

void DetectStepCandidates(const Report& report, std::vector<DetectedCandidate>& out) {
  const std::set<uint64_t> buckets = BucketCommunicators(*report.steps);
  DetectCommunication(report, buckets, false, out);
  DetectCommunication(report, buckets, true, out);
  DetectHostIdle(report, out);
  DetectCopies(report, out);
}

}  // namespace vprof::reporter
