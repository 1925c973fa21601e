#include "reporter/node_summary/summary_phase_codec.h"

#include "reporter/node_summary/summary_gpu_codec.h"

namespace vprof::reporter {

vprof::summary::NvtxPhaseTotals EncodeNvtxPhases(const NvtxPhaseRecord& record) {
  vprof::summary::NvtxPhaseTotals totals;
  totals.set_ranges(record.ranges);
  totals.set_first_start_ns(record.first_start_ns);
  totals.set_last_end_ns(record.last_end_ns);
  totals.set_nccl_ranges(record.nccl_ranges);
  totals.set_dropped(record.dropped);
  for (const auto& [key, phase_totals] : record.phases) {
    vprof::summary::NvtxPhase& row = *totals.add_phases();
    row.set_name(key.name);
    row.set_unmatched(key.unmatched);
    row.set_count(phase_totals.count);
    row.set_total_ns(phase_totals.total_ns);
    row.set_longest_ns(phase_totals.longest_ns);
    row.set_depth(phase_totals.depth);
  }
  return totals;
}

NvtxPhaseRecord DecodeNvtxPhases(const vprof::summary::NvtxPhaseTotals& totals) {
  NvtxPhaseRecord record;
  record.ranges = totals.ranges();
  record.first_start_ns = totals.first_start_ns();
  record.last_end_ns = totals.last_end_ns();
  record.nccl_ranges = totals.nccl_ranges();
  record.dropped = totals.dropped();
  for (const auto& row : totals.phases()) {
    record.phases[{row.name(), row.unmatched()}] = {row.count(), row.total_ns(), row.longest_ns(),
                                                    row.depth()};
  }
  return record;
}

vprof::summary::InferredPhaseInput EncodeInferredPhaseInput(const InferredPhaseInput& input) {
  vprof::summary::InferredPhaseInput encoded;
  encoded.set_role(static_cast<uint32_t>(input.role.role));
  encoded.set_role_rule(input.role.rule);
  encoded.set_first_kernel_start_ns(input.first_kernel_start_ns);
  encoded.set_last_kernel_end_ns(input.last_kernel_end_ns);
  encoded.set_kernel_busy_ns(input.kernel_busy_ns);
  EncodeNamedTotals(input.off_main_thread_kernels, *encoded.mutable_off_main_thread_kernels());
  EncodeNamedTotals(input.forward_only_kernels, *encoded.mutable_forward_only_kernels());
  return encoded;
}

std::optional<InferredPhaseInput> DecodeInferredPhaseInput(const vprof::summary::Process& process) {
  if (!process.has_inferred_phase_input()) return std::nullopt;
  const vprof::summary::InferredPhaseInput& encoded = process.inferred_phase_input();
  if (encoded.role() > static_cast<uint32_t>(ProcessRole::kTrain)) return std::nullopt;
  InferredPhaseInput input;
  input.role = {static_cast<ProcessRole>(encoded.role()), encoded.role_rule()};
  input.first_kernel_start_ns = encoded.first_kernel_start_ns();
  input.last_kernel_end_ns = encoded.last_kernel_end_ns();
  input.kernel_busy_ns = encoded.kernel_busy_ns();
  input.off_main_thread_kernels = DecodeNamedTotals(encoded.off_main_thread_kernels());
  input.forward_only_kernels = DecodeNamedTotals(encoded.forward_only_kernels());
  return input;
}

}  // namespace vprof::reporter
