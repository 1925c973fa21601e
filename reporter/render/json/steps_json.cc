#include "reporter/render/json/steps_json.h"

#include "reporter/base/units.h"
#include "reporter/model/report_figures.h"
#include "reporter/render/json/figures_json.h"
#include "reporter/render/json/json_keys.h"
#include "reporter/steps/comm_roles.h"
#include "reporter/steps/ledger.h"

namespace vprof::reporter {

namespace keys = json_keys;

namespace {

void WriteTimes(JsonWriter& json, std::string_view key, const SegmentTimes& times) {
  json.Key(key);
  json.BeginObject();
  WriteFigures<SegmentTimes>(json, times, kSegmentFigures);
  json.Key("exposed_by_reason_ns");
  json.BeginObject();
  for (const auto& [reason, ns] : times.exposed_by_reason_ns) {
    json.Field(ExposureReasonName(reason), ns);
  }
  json.EndObject();
  // Communicator ids as hex strings: JSON numbers cannot hold 64 bits.
  json.Objects("exposed_by_comm_ns", times.exposed_by_comm_ns, [&](const auto& row) {
    const auto& [comm_id, ns] = row;
    json.Field("comm_id", comm_id == 0 ? std::string() : FormatHexId(comm_id));
    json.Field("exposed_ns", ns);
  });
  json.EndObject();
}

// A rank of StepsReport::ranks by index: its rank and trace file.
void WriteRankOf(JsonWriter& json, const StepsReport& steps, uint32_t index) {
  const RankStepsReport& rank = steps.ranks[index];
  json.Field("rank", rank.rank);
  json.Field("file", rank.file);
}

void WriteLedger(JsonWriter& json, const StepsReport& steps, const StepsLedger& ledger) {
  json.BeginObject();
  WriteFigures<StepsLedger>(json, ledger, kLedgerFigures);
  json.Key(keys::ledger::kLedgerSteps);
  json.BeginArray();
  for (uint32_t i = 0; i < ledger.ledger_steps.size(); ++i) {
    if (ledger.ledger_steps[i] == 0) continue;
    json.BeginObject(JsonWriter::Layout::kOneLine);
    WriteRankOf(json, steps, i);
    json.Field("steps", ledger.ledger_steps[i]);
    json.EndObject();
  }
  json.EndArray();
  json.Objects(
      keys::ledger::kLines, ledger.lines,
      [&](const LedgerLine& line) {
        json.Field(keys::ledger::kName, LedgerLineName(steps, line));
        json.Field("cause", LedgerCauseName(line.cause));
        json.Field("role",
                   line.cause == LedgerCause::kWaitForRank || line.cause == LedgerCause::kTransfer
                       ? CommRoleName(line.role)
                       : std::string_view());
        json.Field("phase", line.phase);
        json.Field("late_rank",
                   line.late ? steps.ranks[*line.late].rank : std::optional<int32_t>());
        json.Field(keys::ledger::kPerStepNs, line.per_step_ns);
        json.Field("share", line.share);
      },
      JsonWriter::Layout::kOneLine);
  json.Objects(
      "late_ranks", ledger.late,
      [&](const LateRank& late) {
        WriteRankOf(json, steps, late.index);
        WriteFigures<LateRank>(json, late, kLateRankFigures);
      },
      JsonWriter::Layout::kOneLine);
  json.EndObject();
}

void WriteBucket(JsonWriter& json, const BucketReport& bucket) {
  json.BeginObject();
  json.Field("index", bucket.index);
  json.Field("op", NcclFunctionName(bucket.op));
  json.Field("comm_id", bucket.comm_id == 0 ? std::string() : FormatHexId(bucket.comm_id));
  json.Field("bytes", bucket.bytes);
  json.Field("offset_ns", bucket.offset_ns);
  json.Field("gpu_ns", bucket.gpu_ns);
  json.Field("exposed_ns", bucket.exposed_ns);
  json.EndObject();
}

void WriteSpan(JsonWriter& json, std::string_view key, const std::optional<SpanRef>& span) {
  json.Key(key);
  if (!span) return json.Null();
  json.BeginObject();
  WriteFigures<SpanRef>(json, *span, kSpanFigures);
  json.EndObject();
}

// null when the process recorded GPU activity for its whole run.
void WriteDeepCapture(JsonWriter& json, const std::optional<DeepCaptureReport>& deep) {
  json.Key("deep_capture");
  if (!deep) return json.Null();
  json.BeginObject();
  WriteFigures<DeepCaptureReport>(json, *deep, kDeepCaptureFigures);
  json.EndObject();
}

void WriteLaunchCost(JsonWriter& json, const std::optional<LaunchCostEstimate>& cost) {
  json.Key("launch_cost");
  if (!cost) return json.Null();
  json.BeginObject();
  json.Field("added_per_launch_ns", cost->added_per_launch_ns);
  json.Field("bare_per_launch_ns", cost->bare_per_launch_ns);
  json.Field("added_gpu_per_kernel_ns", cost->added_gpu_per_kernel_ns);
  json.Field("launches", cost->launches);
  json.Field("steps", cost->steps);
  json.Field("per_step_ns", cost->per_step_ns());
  json.Field("recorded_launch_call_ns", cost->recorded_launch_call_ns);
  json.Field("upper_per_step_ns", cost->upper_per_step_ns());
  json.EndObject();
}

void WriteMemory(JsonWriter& json, const std::optional<StepMemory>& memory) {
  json.Key(keys::rank_step::kMemory);
  if (!memory) {
    json.Null();
    return;
  }
  json.BeginObject();
  WriteFigures<StepMemory>(json, *memory, kStepMemoryFigures);
  json.EndObject();
}

// Large device↔host copies and virtual-memory unmaps/maps in a step; null without.
void WriteTransfers(JsonWriter& json, const std::optional<StepTransfers>& transfers) {
  json.Key(keys::rank_step::kTransfers);
  if (!transfers) {
    json.Null();
    return;
  }
  json.BeginObject(JsonWriter::Layout::kOneLine);
  WriteFigures<StepTransfers>(json, *transfers, kStepTransferFigures);
  json.EndObject();
}

void WriteSampled(JsonWriter& json, const SampledDeviceMemory& memory) {
  WriteFigures<SampledDeviceMemory>(json, memory, kSampledMemoryFigures);
}

// "device_memory": NVML's samples in a step or a phase's spans, on one line; null without.
void WriteSampledInWindow(JsonWriter& json, const std::optional<SampledDeviceMemory>& memory) {
  json.Key(keys::device_memory::kDeviceMemory);
  if (!memory) {
    json.Null();
    return;
  }
  json.BeginObject(JsonWriter::Layout::kOneLine);
  WriteSampled(json, *memory);
  json.EndObject();
}

// NVML's samples of the rank's GPU over its measured steps; null without.
void WriteDeviceMemory(JsonWriter& json, const std::optional<RankDeviceMemory>& device) {
  json.Key(keys::device_memory::kDeviceMemory);
  if (!device) {
    json.Null();
    return;
  }
  json.BeginObject();
  json.Field("device", device->device);
  json.Field("interval_ns", device->interval_ns);
  WriteSampled(json, device->sampled);
  json.Field("peak_step", device->peak_step);
  json.Field("total_bytes", device->total_bytes);
  json.Field(keys::device_memory::kHeadroomBytes, device->headroom_bytes());
  json.EndObject();
}

// Memory per phase over the measured steps, a line each.
void WritePhaseMemory(JsonWriter& json, const std::vector<PhaseMemoryReport>& phases) {
  json.Objects(
      keys::rank_steps::kPhaseMemory, phases,
      [&](const PhaseMemoryReport& phase) {
        json.Field(keys::phase_memory::kPhase, phase.phase);
        json.Field(keys::phase_memory::kFromNvtx, phase.from_nvtx);
        json.Field("steps", phase.steps);
        json.Key(keys::phase_memory::kHeld);
        if (phase.held) {
          json.BeginObject(JsonWriter::Layout::kOneLine);
          json.Field(keys::phase_memory::kPeakBytes, phase.held->peak_bytes);
          json.Field("peak_step", phase.held->peak_step);
          json.Field(keys::phase_memory::kLowBytes, phase.held->low_bytes);
          json.EndObject();
        } else {
          json.Null();
        }
        WriteSampledInWindow(json, phase.device_memory);
      },
      JsonWriter::Layout::kOneLine);
}

void WriteRank(JsonWriter& json, const RankStepsReport& rank) {
  json.BeginObject();
  WriteFigures<RankStepsReport>(json, rank, kRankStepsFigures);
  WriteDeepCapture(json, rank.deep_capture);
  WriteLaunchCost(json, rank.launch_cost);
  WriteTimes(json, keys::rank_steps::kTotal, rank.total);
  // A row per step, each on one line: a job of 1,024 ranks has a million.
  json.Objects(
      keys::rank_steps::kSteps, rank.steps,
      [&](const RankStepReport& step) {
        json.Field("step", step.step);
        json.Field("launches", step.launches);
        json.Field("start_ns", step.start_ns);
        json.Field("end_ns", step.end_ns);
        WriteTimes(json, "times", step.times);
        json.Array("buckets", step.buckets,
                   [&](const BucketReport& bucket) { WriteBucket(json, bucket); });
        WriteMemory(json, step.memory);
        WriteTransfers(json, step.transfers);
        WriteSampledInWindow(json, step.device_memory);
      },
      JsonWriter::Layout::kOneLine);
  json.Field("memory_events_dropped", rank.memory_events_dropped);
  WriteDeviceMemory(json, rank.device_memory);
  json.Field(keys::rank_steps::kMemoryUnavailable, rank.memory_unavailable);
  json.Field(keys::rank_steps::kAllocationCalls, rank.allocation_calls);
  json.Field(keys::rank_steps::kAllocationCallNs, rank.allocation_call_ns);
  WritePhaseMemory(json, rank.phase_memory);
  json.Objects("streams", rank.streams, [&](const StreamRoleReport& stream) {
    json.Field("stream", stream.stream);
    json.Field("role", stream.role);
    json.Field("kernels", stream.kernels);
    if (stream.graph_replays > 0) json.Field("graph_replays", stream.graph_replays);
    json.Field("busy_ns", stream.busy_ns);
  });
  json.Objects("phases", rank.phases, [&](const StepPhaseReport& phase) {
    json.Field("phase", phase.phase);
    json.Field("from_nvtx", phase.from_nvtx);
    WriteTimes(json, "times", phase.times);
  });
  WriteSpan(json, "longest_exposed_comm", rank.longest_exposed_comm);
  WriteSpan(json, "longest_idle_gap", rank.longest_idle_gap);
  json.EndObject();
}

}  // namespace

// "steps": null when no process has GPU kernel records (as "coverage" is null
// when nothing was checked) outside a deep schedule; otherwise an object, with
// "problem" non-empty when no steps were found.
void WriteStepsJson(JsonWriter& json, const Report& report) {
  json.Key(keys::report::kSteps);
  if (!report.steps) return json.Null();
  const StepsReport& steps = *report.steps;
  json.BeginObject();
  json.Field("source", StepSourceName(steps.source));
  json.Field("pattern", steps.pattern);
  json.Field(keys::steps::kProblem, steps.problem);
  if (steps.graph_replays_recorded_whole > 0) {
    json.Field("graph_replays_recorded_whole", steps.graph_replays_recorded_whole);
  }
  if (!steps.deep_without_steps.empty()) {
    json.Objects(
        "deep_without_steps", steps.deep_without_steps,
        [&](const DeepCaptureReport& deep) {
          WriteFigures<DeepCaptureReport>(json, deep, kDeepCaptureFigures);
        },
        JsonWriter::Layout::kOneLine);
  }
  json.Field(keys::steps::kWindow, steps.window);
  json.Field("steps_found", steps.steps_found);
  json.Field("warmup_steps", steps.warmup_steps);
  json.Field("before_profiler_start_excluded", steps.before_profiler_start_excluded);
  json.Field("before_graph_replays_excluded", steps.before_graph_replays_excluded);
  json.Field("first_step_number", steps.first_number);
  json.Field("program_step_numbers", steps.program_numbers);
  json.Field("first_measured", steps.first_measured);
  json.Field("last_measured", steps.last_measured);
  json.Field(keys::steps::kMedianStepNs, steps.median_step_ns);
  json.Objects(
      "full_steps", steps.full_steps,
      [&](const FullStepReport& step) {
        WriteFigures<FullStepReport>(json, step, kFullStepFigures);
        json.Field("ledger_rank", step.ledger_rank ? steps.ranks[*step.ledger_rank].rank
                                                   : std::optional<int32_t>());
      },
      JsonWriter::Layout::kOneLine);
  json.Key("replay");
  if (steps.replay) {
    const ReplayCheck& replay = *steps.replay;
    json.BeginObject(JsonWriter::Layout::kOneLine);
    json.Field("steps", replay.steps);
    json.Field("measured_ns", replay.measured_ns);
    json.Field("replayed_ns", replay.replayed_ns);
    json.Field("error", replay.error);
    json.Field("assumed_waits", replay.assumed_waits);
    json.Field("assumed_syncs", replay.assumed_syncs);
    json.Field("unexplained_starts", replay.unexplained_starts);
    json.Field("unexplained_ns", replay.unexplained_ns);
    json.Field("collectives_apart", replay.collectives_apart);
    json.Field("withheld", replay.withheld);
    json.EndObject();
  } else {
    json.Null();
  }
  json.Key(keys::steps::kLedger);
  if (steps.ledger) {
    WriteLedger(json, steps, *steps.ledger);
  } else {
    json.Null();
  }
  json.Array(keys::steps::kRanks, steps.ranks,
             [&](const RankStepsReport& rank) { WriteRank(json, rank); });
  json.EndObject();
}

}  // namespace vprof::reporter
