// The figures of the report's flat records, a table each (figure.h): what
// the JSON report writes for each record, in order, and which of them
// `vprof diff` compares. A record's lists and nested objects follow its
// figures and are written by hand (reporter/render/json/).
#pragma once

#include <array>

#include "reporter/gpu/gpu_report.h"
#include "reporter/model/candidate_report.h"
#include "reporter/model/figure.h"
#include "reporter/model/report.h"
#include "reporter/steps/comm_roles.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// Whose row it is, in every list of processes: ranks[], phases[].
inline constexpr std::string_view kRankKey = "rank";
inline constexpr std::string_view kFileKey = "file";

// phases[]: a process's NVTX (or inferred) phases; its phases[] follow.
inline constexpr std::array<Figure<ProcessPhasesReport>, 9> kProcessPhasesFigures{{
    {kRankKey, &ProcessPhasesReport::rank},
    {kFileKey, &ProcessPhasesReport::file},
    {"source",
     [](const ProcessPhasesReport& process) -> std::string_view {
       return process.inferred ? "inferred" : "nvtx";
     }},
    {"role", &ProcessPhasesReport::role},
    {"role_rule", &ProcessPhasesReport::role_rule},
    {"ranges", &ProcessPhasesReport::ranges, FigureUnit::kCount},
    {"span_ns", &ProcessPhasesReport::span_ns, FigureUnit::kNs},
    {"nccl_ranges", &ProcessPhasesReport::nccl_ranges},
    {"dropped", &ProcessPhasesReport::dropped},
}};

// phases[].phases[]
inline constexpr std::array<Figure<PhaseReport>, 8> kPhaseFigures{{
    {"phase", &PhaseReport::name},
    {"unmatched", &PhaseReport::unmatched},
    {"source", &PhaseReport::source},
    {"count", &PhaseReport::count, FigureUnit::kCount},
    {"total_ns", &PhaseReport::total_ns, FigureUnit::kNs},
    {"mean_ns", &PhaseReport::mean_ns, FigureUnit::kNs},
    {"span_share", &PhaseReport::span_share, FigureUnit::kShare},
    {"depth", &PhaseReport::depth},
}};

// ranks[]: arrival at matched collectives; its longest_lead follows.
inline constexpr std::array<Figure<RankReport>, 6> kRankFigures{{
    {kRankKey, &RankReport::rank},
    {kFileKey, &RankReport::file},
    {"collectives", &RankReport::collectives, FigureUnit::kCount},
    {"last_arrivals", &RankReport::last_arrivals, FigureUnit::kCount},
    {"mean_lateness_ns", &RankReport::mean_lateness_ns, FigureUnit::kNs},
    {"total_lead_ns", &RankReport::total_lead_ns},
}};

// processes[].gpu.kernel_classes[]
inline constexpr std::array<Figure<KernelClassReport>, 5> kKernelClassFigures{{
    {"class", &KernelClassReport::kernel_class},
    {"count", &KernelClassReport::count, FigureUnit::kCount},
    {"total_ns", &KernelClassReport::total_ns, FigureUnit::kNs},
    {"mean_ns", &KernelClassReport::mean_ns, FigureUnit::kNs},
    {"share", &KernelClassReport::share, FigureUnit::kShare},
}};

// processes[].gpu.capture: how GPU activity was captured; buffers left
// unread at exit (when any) and the launch-cost calibration follow.
inline constexpr std::array<Figure<GpuCaptureReport>, 12> kGpuCaptureFigures{{
    {"state",
     [](const GpuCaptureReport& c) -> std::string_view { return GpuCaptureStateName(c.state); }},
    {"detail", &GpuCaptureReport::detail},
    {"cupti_path", &GpuCaptureReport::cupti_path},
    {"cupti_version", &GpuCaptureReport::cupti_version},
    {"timestamp_source", &GpuCaptureReport::timestamp_source},
    {"cuda_injection_found", &GpuCaptureReport::cuda_injection_found},
    {"mode", &GpuCaptureReport::mode},
    {"api_records",
     [](const GpuCaptureReport& c) -> std::string_view { return ApiRecordsName(c.api_records); }},
    {"selected_runtime_apis", &GpuCaptureReport::selected_runtime_apis},
    {"selected_driver_apis", &GpuCaptureReport::selected_driver_apis},
    {"hw_trace",
     [](const GpuCaptureReport& c) -> std::string_view { return HwTraceStateName(c.hw_trace); }},
    {"hw_trace_detail", &GpuCaptureReport::hw_trace_detail},
}};

// processes[].gpu.capture.launch_cost: the calibration of vprof's own cost.
inline constexpr std::array<Figure<LaunchCostReport>, 8> kLaunchCostFigures{{
    {"rounds", &LaunchCostReport::rounds},
    {"launches_per_round", &LaunchCostReport::launches_per_round},
    {"bare_launch_ns", &LaunchCostReport::bare_launch_ns},
    {"traced_launch_ns", &LaunchCostReport::traced_launch_ns},
    {"failure", &LaunchCostReport::failure},
    {"bare_kernel_gpu_ns", &LaunchCostReport::bare_kernel_gpu_ns},
    {"traced_kernel_gpu_ns", &LaunchCostReport::traced_kernel_gpu_ns},
    {"gpu_failure", &LaunchCostReport::gpu_failure},
}};

// processes[].gpu.top_kernels[]
inline constexpr std::array<Figure<KernelReport>, 5> kKernelFigures{{
    {"name", &KernelReport::name},
    {"class", &KernelReport::kernel_class},
    {"count", &KernelReport::count},
    {"total_ns", &KernelReport::total_ns},
    {"mean_ns", &KernelReport::mean_ns},
}};

// processes[].gpu.nccl_linkage: NCCL calls linked to their kernels; its ops[] follow.
inline constexpr std::array<Figure<NcclLinkageReport>, 7> kNcclLinkageFigures{{
    {"calls", &NcclLinkageReport::calls},
    {"grouped_calls", &NcclLinkageReport::grouped_calls},
    {"linked_calls", &NcclLinkageReport::linked_calls},
    {"linked_kernels", &NcclLinkageReport::linked_kernels},
    {"linked_kernels_without_call", &NcclLinkageReport::linked_kernels_without_call},
    {"nccl_kernels", &NcclLinkageReport::nccl_kernels},
    {"unlinked_nccl_kernels", &NcclLinkageReport::unlinked_nccl_kernels},
}};

// processes[].gpu.nccl_linkage.ops[]
inline constexpr std::array<Figure<NcclFunctionGpuReport>, 8> kNcclFunctionGpuFigures{{
    {"op", &NcclFunctionGpuReport::op},
    {"calls", &NcclFunctionGpuReport::calls},
    {"linked_calls", &NcclFunctionGpuReport::linked_calls},
    {"kernels", &NcclFunctionGpuReport::kernels},
    {"gpu_time_total_ns", &NcclFunctionGpuReport::gpu_time_total_ns},
    {"gpu_time_mean_ns", &NcclFunctionGpuReport::gpu_time_mean_ns},
    {"host_time_total_ns", &NcclFunctionGpuReport::host_time_total_ns},
    {"host_time_mean_ns", &NcclFunctionGpuReport::host_time_mean_ns},
}};

// processes[].gpu.stream_waits; its edges[] follow.
inline constexpr std::array<Figure<StreamWaitReport>, 4> kStreamWaitFigures{{
    {"event_records", &StreamWaitReport::event_records},
    {"waits", &StreamWaitReport::waits},
    {"matched_waits", &StreamWaitReport::matched_waits},
    {"distinct_edges", &StreamWaitReport::distinct_edges},
}};

// processes[].gpu.stream_waits.edges[]
inline constexpr std::array<Figure<StreamEdgeReport>, 3> kStreamEdgeFigures{{
    {"record_stream", &StreamEdgeReport::record_stream},
    {"wait_stream", &StreamEdgeReport::wait_stream},
    {"count", &StreamEdgeReport::count},
}};

// A span of a process's timeline, named as `vprof export` names it.
inline constexpr std::array<Figure<SpanRef>, 4> kSpanFigures{{
    {"id", &SpanRef::id},
    {"name", &SpanRef::name},
    {"start_ns", &SpanRef::start_ns},
    {"duration_ns", &SpanRef::duration_ns},
}};

// steps.ranks[].deep_capture and steps.deep_without_steps[]: what a deep
// schedule left of the steps.
inline constexpr std::array<Figure<DeepCaptureReport>, 5> kDeepCaptureFigures{{
    {"schedule", &DeepCaptureReport::schedule},
    {"windows", &DeepCaptureReport::windows},
    {"shallow_steps", &DeepCaptureReport::shallow_steps},
    {"deep_median_step_ns", &DeepCaptureReport::deep_median_ns},
    {"shallow_median_step_ns", &DeepCaptureReport::shallow_median_ns},
}};

// steps.ranks[].steps[].memory: memory held from CUDA in a step's window.
inline constexpr std::array<Figure<StepMemory>, 8> kStepMemoryFigures{{
    {"start_bytes", &StepMemory::start_bytes},
    {"peak_bytes", &StepMemory::peak_bytes},
    {"low_bytes", &StepMemory::low_bytes},
    {"allocations", &StepMemory::allocations},
    {"allocated_bytes", &StepMemory::allocated_bytes},
    {"releases", &StepMemory::releases},
    {"released_bytes", &StepMemory::released_bytes},
    {"api_ns", &StepMemory::api_ns},
}};

// steps.ranks[].steps[].transfers: large device-host copies, unmaps and maps.
inline constexpr std::array<Figure<StepTransfers>, 9> kStepTransferFigures{{
    {"to_host_copies", &StepTransfers::to_host_copies},
    {"to_host_bytes", &StepTransfers::to_host_bytes},
    {"to_host_ns", &StepTransfers::to_host_ns},
    {"to_device_copies", &StepTransfers::to_device_copies},
    {"to_device_bytes", &StepTransfers::to_device_bytes},
    {"to_device_ns", &StepTransfers::to_device_ns},
    {"unmaps", &StepTransfers::unmaps},
    {"maps", &StepTransfers::maps},
    {"map_call_ns", &StepTransfers::map_call_ns},
}};

// device_memory (a rank's steps, a step, a phase's spans): NVML's samples.
inline constexpr std::array<Figure<SampledDeviceMemory>, 3> kSampledMemoryFigures{{
    {"samples", &SampledDeviceMemory::samples},
    {"peak_used_bytes", &SampledDeviceMemory::peak_used_bytes},
    {"low_used_bytes", &SampledDeviceMemory::low_used_bytes},
}};

// A window's GPU time by what the GPU did (steps' totals, a step, a segment);
// exposed communication by reason and by communicator follow.
inline constexpr std::array<Figure<SegmentTimes>, 10> kSegmentFigures{{
    {"window_ns", &SegmentTimes::window_ns, FigureUnit::kNs},
    {"compute_ns", &SegmentTimes::compute_ns, FigureUnit::kNs},
    {"exposed_comm_ns", &SegmentTimes::exposed_comm_ns, FigureUnit::kNs},
    {"exposed_comm_blocking_ns", &SegmentTimes::exposed_comm_blocking_ns},
    {"exposed_comm_idle_fill_ns", &SegmentTimes::exposed_comm_idle_fill_ns},
    {"overlapped_comm_ns", &SegmentTimes::overlapped_comm_ns, FigureUnit::kNs},
    {"copy_ns", &SegmentTimes::copy_ns, FigureUnit::kNs},
    {"idle_ns", &SegmentTimes::idle_ns, FigureUnit::kNs},
    {"idle_host_bound_ns", &SegmentTimes::idle_host_bound_ns},
    {"idle_waiting_ns", &SegmentTimes::idle_waiting_ns},
}};

// steps.ranks[]: a rank's steps; what was measured of them follows.
inline constexpr std::array<Figure<RankStepsReport>, 8> kRankStepsFigures{{
    {kRankKey, &RankStepsReport::rank},
    {kFileKey, &RankStepsReport::file},
    {"steps_found", &RankStepsReport::steps_found},
    {"late_records", &RankStepsReport::late_records},
    {"unlaunched_records", &RankStepsReport::unlaunched_records},
    {"steps_missing_phase_ranges", &RankStepsReport::steps_missing_phase_ranges},
    {"max_connections_one", &RankStepsReport::max_connections_one},
    {"bucket_plan_stable", &RankStepsReport::bucket_plan_stable},
}};

// steps.full_steps[]: a step across ranks; the rank whose ledger it took follows.
inline constexpr std::array<Figure<FullStepReport>, 5> kFullStepFigures{{
    {"step", &FullStepReport::step},
    {"start_ns", &FullStepReport::start_ns},
    {"duration_ns", &FullStepReport::duration_ns},
    {"slowest_rank", &FullStepReport::slowest_rank},
    {"max_exposed_comm_ns", &FullStepReport::max_exposed_comm_ns},
}};

// steps.ledger; the steps each rank's ledger gave, its lines and the late
// ranks follow.
inline constexpr std::array<Figure<StepsLedger>, 5> kLedgerFigures{{
    {"steps", &StepsLedger::steps},
    {"mean_step_ns", &StepsLedger::mean_step_ns, FigureUnit::kNs},
    {"mean_window_ns", &StepsLedger::mean_window_ns},
    {"matched_collectives", &StepsLedger::matched_collectives},
    {"unmatched_collectives", &StepsLedger::unmatched_collectives},
}};

// steps.ledger.late_ranks[], after the late rank's rank and file.
inline constexpr std::array<Figure<LateRank>, 10> kLateRankFigures{{
    {"straggler", &LateRank::straggler},
    {"wait_per_step_ns", &LateRank::wait_per_step_ns},
    {"last", &LateRank::last},
    {"collectives", &LateRank::collectives},
    {"expected_last", &LateRank::expected_last},
    {"p_value", &LateRank::p_value},
    {"role", [](const LateRank& late) -> std::string_view { return CommRoleName(late.role); }},
    {"last_in_role", &LateRank::last_in_role},
    {"role_collectives", &LateRank::role_collectives},
    {"phase", &LateRank::phase},
}};

// candidates[]: what the candidate is and what it buys; its evidence and
// examples follow, then kCandidateRuleFigures.
inline constexpr std::array<Figure<CandidateReport>, 18> kCandidateFigures{{
    {"rank_order", &CandidateReport::rank_order, FigureUnit::kCount},
    {"kind", &CandidateReport::kind},
    {"title", &CandidateReport::title},
    {"change", &CandidateReport::change},
    {"scope",
     [](const CandidateReport& c) -> std::string_view { return CandidateScopeName(c.scope); }},
    {kRankKey, &CandidateReport::rank},
    {"phase", &CandidateReport::phase},
    {"role", &CandidateReport::role},
    {"exposed_ns", &CandidateReport::exposed_ns, FigureUnit::kNs},
    {"step_share", &CandidateReport::step_share, FigureUnit::kShare},
    {"count", &CandidateReport::count, FigureUnit::kCount},
    {"total_ns", &CandidateReport::total_ns, FigureUnit::kNs},
    {"vprof_cost_ns", &CandidateReport::vprof_cost_ns},
    {"projected_saving_ns", &CandidateReport::projected_saving_ns},
    {"projected_share", &CandidateReport::projected_share},
    {"replayed_saving_ns", &CandidateReport::replayed_saving_ns},
    {"projection", &CandidateReport::projection},
    {"projection_withheld", &CandidateReport::projection_withheld},
}};

// candidates[]: the strict tag and the rule that decided it.
inline constexpr std::array<Figure<CandidateReport>, 4> kCandidateRuleFigures{{
    {"strict", [](const CandidateReport& c) -> std::string_view { return StrictTagName(c.strict); },
     FigureUnit::kText},
    {"rule_id", &CandidateReport::rule_id},
    {"rule", &CandidateReport::rule},
    {"contract_declares", &CandidateReport::contract_declares},
}};

}  // namespace vprof::reporter
