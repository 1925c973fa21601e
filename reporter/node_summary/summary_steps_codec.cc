#include "reporter/node_summary/summary_steps_codec.h"

#include <optional>

#include "reporter/node_summary/summary_codec.h"
#include "reporter/node_summary/summary_replay_codec.h"

namespace vprof::reporter {
namespace {

using vprof::summary::NodeSteps;
using vprof::summary::RankSteps;

void EncodeTimes(const SegmentTimes& times, vprof::summary::StepTimes* out) {
  out->set_window_ns(times.window_ns);
  out->set_compute_ns(times.compute_ns);
  out->set_exposed_comm_ns(times.exposed_comm_ns);
  out->set_exposed_comm_blocking_ns(times.exposed_comm_blocking_ns);
  out->set_exposed_comm_idle_fill_ns(times.exposed_comm_idle_fill_ns);
  out->set_overlapped_comm_ns(times.overlapped_comm_ns);
  out->set_copy_ns(times.copy_ns);
  out->set_idle_ns(times.idle_ns);
  out->set_idle_host_bound_ns(times.idle_host_bound_ns);
  out->set_idle_waiting_ns(times.idle_waiting_ns);
  for (const auto& [reason, ns] : times.exposed_by_reason_ns) {
    vprof::summary::ReasonTime& row = *out->add_exposed_by_reason();
    row.set_reason(std::string(ExposureReasonName(reason)));
    row.set_ns(ns);
  }
  for (const auto& [comm_id, ns] : times.exposed_by_comm_ns) {
    vprof::summary::CommTime& row = *out->add_exposed_by_comm();
    row.set_comm_id(comm_id);
    row.set_ns(ns);
  }
}

SegmentTimes DecodeTimes(const vprof::summary::StepTimes& times) {
  SegmentTimes out;
  out.window_ns = times.window_ns();
  out.compute_ns = times.compute_ns();
  out.exposed_comm_ns = times.exposed_comm_ns();
  out.exposed_comm_blocking_ns = times.exposed_comm_blocking_ns();
  out.exposed_comm_idle_fill_ns = times.exposed_comm_idle_fill_ns();
  out.overlapped_comm_ns = times.overlapped_comm_ns();
  out.copy_ns = times.copy_ns();
  out.idle_ns = times.idle_ns();
  out.idle_host_bound_ns = times.idle_host_bound_ns();
  out.idle_waiting_ns = times.idle_waiting_ns();
  for (const auto& row : times.exposed_by_reason())
    out.exposed_by_reason_ns[ExposureReasonNamed(row.reason())] += row.ns();
  for (const auto& row : times.exposed_by_comm()) out.exposed_by_comm_ns[row.comm_id()] = row.ns();
  return out;
}

void EncodeSampled(const SampledDeviceMemory& memory, vprof::summary::SampledDeviceMemory* out) {
  out->set_samples(memory.samples);
  out->set_peak_used_bytes(memory.peak_used_bytes);
  out->set_low_used_bytes(memory.low_used_bytes);
}

SampledDeviceMemory DecodeSampled(const vprof::summary::SampledDeviceMemory& memory) {
  return {memory.samples(), memory.peak_used_bytes(), memory.low_used_bytes()};
}

void EncodeSpan(const SpanRef& span, vprof::summary::StepSpan* out) {
  out->set_id(span.id);
  out->set_name(span.name);
  out->set_start_ns(span.start_ns);
  out->set_duration_ns(span.duration_ns);
}

SpanRef DecodeSpan(const vprof::summary::StepSpan& span) {
  return {span.id(), span.name(), span.start_ns(), span.duration_ns()};
}

std::optional<StepSource> DecodeSource(const std::string& name) {
  for (const StepSource source : {StepSource::kNvtx, StepSource::kOptimizerKernels}) {
    if (StepSourceName(source) == name) return source;
  }
  return std::nullopt;
}

void EncodeDeepCapture(const DeepCaptureReport& deep, vprof::summary::DeepCapture& out) {
  out.set_schedule(deep.schedule);
  out.set_windows(deep.windows);
  out.set_shallow_steps(deep.shallow_steps);
  if (deep.deep_median_ns) out.set_deep_median_ns(*deep.deep_median_ns);
  if (deep.shallow_median_ns) out.set_shallow_median_ns(*deep.shallow_median_ns);
}

DeepCaptureReport DecodeDeepCapture(const vprof::summary::DeepCapture& deep) {
  DeepCaptureReport out;
  out.schedule = deep.schedule();
  out.windows = deep.windows();
  out.shallow_steps = deep.shallow_steps();
  if (deep.has_deep_median_ns()) out.deep_median_ns = deep.deep_median_ns();
  if (deep.has_shallow_median_ns()) out.shallow_median_ns = deep.shallow_median_ns();
  return out;
}

}  // namespace

void EncodePhaseTimes(const std::vector<PhaseTime>& times,
                      google::protobuf::RepeatedPtrField<vprof::summary::PhaseTime>& out) {
  for (const PhaseTime& time : times) {
    vprof::summary::PhaseTime& row = *out.Add();
    row.set_phase(time.phase);
    row.set_ns(time.ns);
  }
}

void EncodeCollective(const StepCollective& c, vprof::summary::StepCollective& out) {
  out.set_comm_id(c.comm_id);
  out.set_seq(c.seq);
  out.set_bytes(c.bytes);
  out.set_start_ns(c.start_ns);
  out.set_duration_ns(c.duration_ns);
  out.set_exposed_ns(c.exposed_ns);
  out.set_first_piece(c.first_piece);
  out.set_pieces(c.pieces);
  out.set_correlation_id(c.correlation_id);
  out.set_phase(c.phase);
  out.set_op(std::string(NcclFunctionName(c.function)));
  out.set_in_backward(c.in_backward);
}

// The ledger's inputs of one step (step_report.h), checked: every phase
// index names one of the rank's `phases`, every collective's pieces are
// among the step's. A problem naming the field, or "".
std::string DecodeLedgerInputs(const vprof::summary::RankStep& step, size_t phases,
                               RankStepReport& out) {
  const auto decode_times = [&](const auto& rows, std::vector<PhaseTime>& into,
                                std::string_view field) -> std::string {
    for (const vprof::summary::PhaseTime& row : rows) {
      if (row.phase() >= phases) {
        return "RankStep." + std::string(field) + ".phase: " + std::to_string(row.phase()) +
               ", not one of the rank's " + std::to_string(phases) + " phase names";
      }
      into.push_back({static_cast<PhaseIndex>(row.phase()), row.ns()});
    }
    return "";
  };
  if (std::string problem =
          decode_times(step.compute_by_phase(), out.compute_by_phase, "compute_by_phase");
      !problem.empty()) {
    return problem;
  }
  if (std::string problem =
          decode_times(step.host_idle_by_phase(), out.host_idle_by_phase, "host_idle_by_phase");
      !problem.empty()) {
    return problem;
  }
  if (step.exposed_pieces_size() % 2 != 0) {
    return "RankStep.exposed_pieces: an odd count (" + std::to_string(step.exposed_pieces_size()) +
           "), not from-to pairs";
  }
  for (int i = 0; i < step.exposed_pieces_size(); i += 2) {
    out.exposed_pieces.push_back({step.exposed_pieces(i), step.exposed_pieces(i + 1)});
  }
  for (const vprof::summary::StepCollective& c : step.collectives()) {
    if (c.phase() >= phases) {
      return "RankStep.collectives.phase: " + std::to_string(c.phase()) +
             ", not one of the rank's " + std::to_string(phases) + " phase names";
    }
    if (c.pieces() > UINT16_MAX ||
        uint64_t{c.first_piece()} + c.pieces() > out.exposed_pieces.size()) {
      return "RankStep.collectives: pieces " + std::to_string(c.first_piece()) + "+" +
             std::to_string(c.pieces()) + " beyond the step's " +
             std::to_string(out.exposed_pieces.size()) + " exposed pieces";
    }
    StepCollective& collective = out.collectives.emplace_back();
    collective.comm_id = c.comm_id();
    collective.seq = c.seq();
    collective.bytes = c.bytes();
    collective.start_ns = c.start_ns();
    collective.duration_ns = c.duration_ns();
    collective.exposed_ns = c.exposed_ns();
    collective.first_piece = c.first_piece();
    collective.correlation_id = c.correlation_id();
    collective.pieces = static_cast<uint16_t>(c.pieces());
    collective.phase = static_cast<PhaseIndex>(c.phase());
    collective.function = DecodeFunction(c.op());
    collective.in_backward = c.in_backward();
  }
  return "";
}

NodeSteps EncodeNodeSteps(const StepsReport& report) {
  NodeSteps steps;
  steps.set_source(std::string(StepSourceName(report.source)));
  steps.set_pattern(report.pattern);
  steps.set_steps_found(report.steps_found);
  steps.set_warmup_steps(report.warmup_steps);
  steps.set_before_profiler_start_excluded(report.before_profiler_start_excluded);
  steps.set_before_graph_replays_excluded(report.before_graph_replays_excluded);
  steps.set_first_measured(report.first_measured);
  steps.set_last_measured(report.last_measured);
  steps.set_window(report.window);
  steps.set_problem(report.problem);
  for (const DeepCaptureReport& deep : report.deep_without_steps) {
    EncodeDeepCapture(deep, *steps.add_deep_without_steps());
  }
  return steps;
}

std::string DecodeNodeSteps(const NodeSteps& steps, StepsReport& report) {
  const std::optional<StepSource> source = DecodeSource(steps.source());
  if (!source) {
    return "NodeSteps.source: '" + steps.source() + "' is neither " +
           std::string(StepSourceName(StepSource::kNvtx)) + " nor " +
           std::string(StepSourceName(StepSource::kOptimizerKernels));
  }
  // With no steps found, nothing is measured and first_measured stays 0.
  if (steps.steps_found() > 0 && steps.first_measured() < steps.warmup_steps()) {
    return "NodeSteps.first_measured: " + std::to_string(steps.first_measured()) +
           " is below warmup_steps " + std::to_string(steps.warmup_steps()) +
           " (the warmup steps are never measured)";
  }
  report.source = *source;
  report.pattern = steps.pattern();
  report.steps_found = steps.steps_found();
  report.warmup_steps = steps.warmup_steps();
  report.before_profiler_start_excluded = steps.before_profiler_start_excluded();
  report.before_graph_replays_excluded = steps.before_graph_replays_excluded();
  report.first_measured = steps.first_measured();
  report.last_measured = steps.last_measured();
  report.window = steps.window();
  report.problem = steps.problem();
  for (const vprof::summary::DeepCapture& deep : steps.deep_without_steps()) {
    report.deep_without_steps.push_back(DecodeDeepCapture(deep));
  }
  return "";
}

RankSteps EncodeRankSteps(const RankStepsReport& rank) {
  RankSteps steps;
  steps.set_steps_found(rank.steps_found);
  for (const std::string& phase : rank.phase_names) steps.add_phase_names(phase);
  for (const std::string& name : rank.replay_names) steps.add_replay_names(name);
  steps.set_late_records(rank.late_records);
  steps.set_unlaunched_records(rank.unlaunched_records);
  steps.set_steps_missing_phase_ranges(rank.steps_missing_phase_ranges);
  if (rank.deep_capture) EncodeDeepCapture(*rank.deep_capture, *steps.mutable_deep_capture());
  if (rank.launch_cost) {
    vprof::summary::LaunchCost& cost = *steps.mutable_launch_cost();
    cost.set_added_per_launch_ns(rank.launch_cost->added_per_launch_ns);
    cost.set_bare_per_launch_ns(rank.launch_cost->bare_per_launch_ns);
    cost.set_launches(rank.launch_cost->launches);
    cost.set_steps(rank.launch_cost->steps);
    cost.set_added_gpu_per_kernel_ns(rank.launch_cost->added_gpu_per_kernel_ns);
    cost.set_recorded_launch_call_ns(rank.launch_cost->recorded_launch_call_ns);
  }
  for (const RankStepReport& step : rank.steps) {
    vprof::summary::RankStep& out = *steps.add_steps();
    out.set_step(step.step);
    if (step.number) out.set_number(*step.number);
    out.set_launches(step.launches);
    out.set_start_ns(step.start_ns);
    out.set_end_ns(step.end_ns);
    EncodeTimes(step.times, out.mutable_times());
    EncodePhaseTimes(step.compute_by_phase, *out.mutable_compute_by_phase());
    EncodePhaseTimes(step.host_idle_by_phase, *out.mutable_host_idle_by_phase());
    for (const StepCollective& collective : step.collectives) {
      EncodeCollective(collective, *out.add_collectives());
    }
    for (const ExposedPiece& piece : step.exposed_pieces) {
      out.add_exposed_pieces(piece.from_ns);
      out.add_exposed_pieces(piece.to_ns);
    }
    EncodeReplayWork(step.replay, *out.mutable_replay());
    for (const BucketReport& bucket : step.buckets) {
      vprof::summary::StepBucket& row = *out.add_buckets();
      row.set_index(bucket.index);
      row.set_op(std::string(NcclFunctionName(bucket.op)));
      row.set_comm_id(bucket.comm_id);
      row.set_bytes(bucket.bytes);
      row.set_offset_ns(bucket.offset_ns);
      row.set_gpu_ns(bucket.gpu_ns);
      row.set_exposed_ns(bucket.exposed_ns);
    }
    if (step.memory) {
      vprof::summary::StepMemory& memory = *out.mutable_memory();
      memory.set_start_bytes(step.memory->start_bytes);
      memory.set_peak_bytes(step.memory->peak_bytes);
      memory.set_low_bytes(step.memory->low_bytes);
      memory.set_allocations(step.memory->allocations);
      memory.set_releases(step.memory->releases);
      memory.set_allocated_bytes(step.memory->allocated_bytes);
      memory.set_released_bytes(step.memory->released_bytes);
      memory.set_api_ns(step.memory->api_ns);
    }
    if (step.device_memory) EncodeSampled(*step.device_memory, out.mutable_device_memory());
    if (step.transfers) {
      const StepTransfers& t = *step.transfers;
      vprof::summary::StepTransfers& moved = *out.mutable_transfers();
      moved.set_to_host_copies(t.to_host_copies);
      moved.set_to_host_bytes(t.to_host_bytes);
      moved.set_to_host_ns(t.to_host_ns);
      moved.set_to_device_copies(t.to_device_copies);
      moved.set_to_device_bytes(t.to_device_bytes);
      moved.set_to_device_ns(t.to_device_ns);
      moved.set_unmaps(t.unmaps);
      moved.set_maps(t.maps);
      moved.set_map_call_ns(t.map_call_ns);
    }
  }
  steps.set_memory_events_dropped(rank.memory_events_dropped);
  if (rank.device_memory) {
    vprof::summary::RankDeviceMemory& device = *steps.mutable_device_memory();
    device.set_device(rank.device_memory->device);
    device.set_interval_ns(rank.device_memory->interval_ns);
    EncodeSampled(rank.device_memory->sampled, device.mutable_sampled());
    device.set_peak_step(rank.device_memory->peak_step);
    device.set_total_bytes(rank.device_memory->total_bytes);
  }
  steps.set_memory_unavailable(rank.memory_unavailable);
  steps.set_allocation_calls(rank.allocation_calls);
  steps.set_allocation_call_ns(rank.allocation_call_ns);
  for (const PhaseMemoryReport& phase : rank.phase_memory) {
    vprof::summary::PhaseMemory& row = *steps.add_phase_memory();
    row.set_phase(phase.phase);
    row.set_from_nvtx(phase.from_nvtx);
    row.set_steps(phase.steps);
    if (phase.held) {
      vprof::summary::PhaseHeldMemory& held = *row.mutable_held();
      held.set_peak_bytes(phase.held->peak_bytes);
      held.set_peak_step(phase.held->peak_step);
      held.set_low_bytes(phase.held->low_bytes);
    }
    if (phase.device_memory) EncodeSampled(*phase.device_memory, row.mutable_device_memory());
  }
  EncodeTimes(rank.total, steps.mutable_total());
  for (const StepPhaseReport& phase : rank.phases) {
    vprof::summary::StepPhaseTimes& row = *steps.add_phases();
    row.set_phase(phase.phase);
    row.set_from_nvtx(phase.from_nvtx);
    EncodeTimes(phase.times, row.mutable_times());
  }
  for (const StreamRoleReport& stream : rank.streams) {
    vprof::summary::StepStream& row = *steps.add_streams();
    row.set_stream(stream.stream);
    row.set_role(stream.role);
    row.set_kernels(stream.kernels);
    row.set_busy_ns(stream.busy_ns);
    row.set_graph_replays(stream.graph_replays);
  }
  if (rank.bucket_plan_stable) steps.set_bucket_plan_stable(*rank.bucket_plan_stable);
  steps.set_max_connections_one(rank.max_connections_one);
  if (rank.longest_exposed_comm) {
    EncodeSpan(*rank.longest_exposed_comm, steps.mutable_longest_exposed_comm());
  }
  if (rank.longest_idle_gap) EncodeSpan(*rank.longest_idle_gap, steps.mutable_longest_idle_gap());
  return steps;
}

std::string DecodeRankSteps(const RankSteps& steps, uint32_t first_measured,
                            RankStepsReport& rank) {
  // The full steps line ranks up by position: the i-th measured step of every
  // rank must be step first_measured + i.
  for (int i = 0; i < steps.steps_size(); ++i) {
    const uint32_t expected = first_measured + static_cast<uint32_t>(i);
    if (steps.steps(i).step() != expected) {
      return "RankSteps.steps[" + std::to_string(i) +
             "].step: " + std::to_string(steps.steps(i).step()) + ", expected " +
             std::to_string(expected) + " (the node's first measured step " +
             std::to_string(first_measured) + " plus " + std::to_string(i) + ")";
    }
  }
  if (steps.steps_size() > 0 &&
      steps.steps_found() < first_measured + static_cast<uint32_t>(steps.steps_size())) {
    return "RankSteps.steps_found: " + std::to_string(steps.steps_found()) + ", fewer than the " +
           std::to_string(first_measured + static_cast<uint32_t>(steps.steps_size())) +
           " the measured steps need";
  }
  if (steps.phase_names_size() > 0) {
    if (!steps.phase_names(0).empty()) {
      return "RankSteps.phase_names[0]: \"" + steps.phase_names(0) + "\", expected \"\" (no phase)";
    }
    rank.phase_names.assign(steps.phase_names().begin(), steps.phase_names().end());
  }
  rank.replay_names.assign(steps.replay_names().begin(), steps.replay_names().end());
  rank.steps_found = steps.steps_found();
  rank.late_records = steps.late_records();
  rank.unlaunched_records = steps.unlaunched_records();
  rank.steps_missing_phase_ranges = steps.steps_missing_phase_ranges();
  if (steps.has_deep_capture()) rank.deep_capture = DecodeDeepCapture(steps.deep_capture());
  if (steps.has_launch_cost()) {
    const vprof::summary::LaunchCost& cost = steps.launch_cost();
    rank.launch_cost = LaunchCostEstimate{cost.added_per_launch_ns(),
                                          cost.bare_per_launch_ns(),
                                          cost.added_gpu_per_kernel_ns(),
                                          cost.launches(),
                                          cost.steps(),
                                          cost.recorded_launch_call_ns()};
  }
  for (const vprof::summary::RankStep& step : steps.steps()) {
    RankStepReport& out = rank.steps.emplace_back();
    out.step = step.step();
    if (step.has_number()) out.number = step.number();
    out.launches = step.launches();
    out.start_ns = step.start_ns();
    out.end_ns = step.end_ns();
    out.times = DecodeTimes(step.times());
    if (std::string problem = DecodeLedgerInputs(step, rank.phase_names.size(), out);
        !problem.empty()) {
      return problem;
    }
    if (std::string problem = DecodeReplayWork(step.replay(), rank.replay_names.size(),
                                               rank.phase_names.size(), out.replay);
        !problem.empty()) {
      return problem;
    }
    for (const vprof::summary::StepBucket& bucket : step.buckets()) {
      out.buckets.push_back({bucket.index(), DecodeFunction(bucket.op()), bucket.comm_id(),
                             bucket.bytes(), bucket.offset_ns(), bucket.gpu_ns(),
                             bucket.exposed_ns()});
    }
    if (step.has_memory()) {
      const vprof::summary::StepMemory& memory = step.memory();
      out.memory =
          StepMemory{memory.start_bytes(),    memory.peak_bytes(), memory.low_bytes(),
                     memory.allocations(),    memory.releases(),   memory.allocated_bytes(),
                     memory.released_bytes(), memory.api_ns()};
    }
    if (step.has_device_memory()) out.device_memory = DecodeSampled(step.device_memory());
    if (step.has_transfers()) {
      const vprof::summary::StepTransfers& t = step.transfers();
      out.transfers = StepTransfers{
          t.to_host_copies(),  t.to_host_bytes(), t.to_host_ns(), t.to_device_copies(),
          t.to_device_bytes(), t.to_device_ns(),  t.unmaps(),     t.maps(),
          t.map_call_ns()};
    }
  }
  rank.memory_events_dropped = steps.memory_events_dropped();
  if (steps.has_device_memory()) {
    const vprof::summary::RankDeviceMemory& device = steps.device_memory();
    rank.device_memory =
        RankDeviceMemory{device.device(), device.interval_ns(), DecodeSampled(device.sampled()),
                         device.peak_step(), device.total_bytes()};
  }
  rank.memory_unavailable = steps.memory_unavailable();
  rank.allocation_calls = steps.allocation_calls();
  rank.allocation_call_ns = steps.allocation_call_ns();
  for (const vprof::summary::PhaseMemory& row : steps.phase_memory()) {
    PhaseMemoryReport& phase = rank.phase_memory.emplace_back();
    phase.phase = row.phase();
    phase.from_nvtx = row.from_nvtx();
    phase.steps = row.steps();
    if (row.has_held()) {
      phase.held = PhaseMemoryReport::Held{row.held().peak_bytes(), row.held().peak_step(),
                                           row.held().low_bytes()};
    }
    if (row.has_device_memory()) phase.device_memory = DecodeSampled(row.device_memory());
  }
  rank.total = DecodeTimes(steps.total());
  for (const vprof::summary::StepPhaseTimes& phase : steps.phases()) {
    rank.phases.push_back({phase.phase(), phase.from_nvtx(), DecodeTimes(phase.times())});
  }
  for (const vprof::summary::StepStream& stream : steps.streams()) {
    rank.streams.push_back({stream.stream(), stream.role(), stream.kernels(), stream.busy_ns(),
                            stream.graph_replays()});
  }
  if (steps.has_bucket_plan_stable()) rank.bucket_plan_stable = steps.bucket_plan_stable();
  rank.max_connections_one = steps.max_connections_one();
  if (steps.has_longest_exposed_comm()) {
    rank.longest_exposed_comm = DecodeSpan(steps.longest_exposed_comm());
  }
  if (steps.has_longest_idle_gap()) rank.longest_idle_gap = DecodeSpan(steps.longest_idle_gap());
  return "";
}

}  // namespace vprof::reporter
