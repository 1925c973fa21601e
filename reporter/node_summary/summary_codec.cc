#include "reporter/node_summary/summary_codec.h"

#include <algorithm>
#include <filesystem>

#include "reporter/node_summary/summary_gpu_codec.h"
#include "reporter/node_summary/summary_phase_codec.h"
#include "reporter/node_summary/summary_plugin_codec.h"

namespace vprof::reporter {
namespace {

using vprof::summary::OpTotals;
using vprof::summary::Partial;
using vprof::summary::Process;
using vprof::summary::TeardownTotals;

InputState DecodeState(const std::string& name) {
  for (const InputState state : {InputState::kWhole, InputState::kCut, InputState::kCorrupt,
                                 InputState::kUnreadable, InputState::kNewerFormat}) {
    if (InputStateName(state) == name) return state;
  }
  return InputState::kCorrupt;  // written by a reporter that knows more states
}

}  // namespace

NcclFunction DecodeFunction(const std::string& name) {
  if (name == NcclFunctionName(NcclFunction::kSendRecvPair)) return NcclFunction::kSendRecvPair;
  return NcclFunctionFromName(name);
}

Process EncodeProcess(const ProcessRecord& record, const ParticipantStats& participant) {
  Process process;
  process.set_file(record.file());
  process.set_opened(record.opened);
  process.set_host(record.host);
  process.set_pid(record.pid);
  if (record.header_rank) process.set_header_rank(*record.header_rank);
  process.set_nccl_events(record.nccl_events);
  process.set_failed_calls(record.failed_calls);
  process.set_dropped_events(record.dropped_events);
  process.set_write_errors(record.write_errors);
  if (record.end_reason) process.set_end_reason(*record.end_reason);
  process.set_signal(record.signal);
  process.set_state(std::string(InputStateName(record.state)));
  process.set_problem(record.problem);
  process.set_unreadable_packets(record.unreadable_packets);
  process.set_missing_packets(record.missing_packets);
  for (const auto& [comm_id, membership] : record.communicators) {
    vprof::summary::Membership& out = *process.add_communicators();
    out.set_comm_id(comm_id);
    out.set_nranks(membership.nranks);
    out.set_rank(membership.rank);
    out.set_created_by(membership.created_by);
    out.set_parent_comm_id(membership.parent_comm_id);
    out.set_create_ns(membership.create_ns);
    if (membership.cuda_device >= 0) out.set_cuda_device(membership.cuda_device);
  }
  process.set_clock_sample_count(record.clock_samples.count);
  process.set_clock_min_offset_ns(record.clock_samples.min_offset_ns);
  process.set_clock_max_offset_ns(record.clock_samples.max_offset_ns);
  process.set_clock_offset_ns(record.clock_offset_ns);
  process.set_clock_unaligned(record.clock_unaligned);
  process.set_collectives(participant.collectives);
  process.set_last_arrivals(participant.last_arrivals);
  process.set_total_lateness_ns(participant.total_lateness_ns);
  process.set_total_lead_ns(participant.total_lead_ns);
  if (participant.longest_lead.lead_ns > 0) {
    const LeadExample& lead = participant.longest_lead;
    vprof::summary::LeadExample& out = *process.mutable_longest_lead();
    out.set_lead_ns(lead.lead_ns);
    out.set_enter_ns(lead.enter_ns);
    out.set_comm_id(lead.comm_id);
    out.set_op(std::string(NcclFunctionName(lead.op)));
    out.set_size_bytes(lead.size_bytes);
  }
  *process.mutable_gpu() = EncodeGpu(record.gpu);
  for (const auto& [name, value] : record.nccl_env) {
    vprof::trace::EnvVar& variable = *process.add_nccl_env();
    variable.set_name(name);
    variable.set_value(value);
  }
  if (record.ld_preload) process.set_ld_preload(*record.ld_preload);
  process.set_wrapper_collectives(record.wrapper_collectives);
  process.set_wrapper_one_rank_collectives(record.wrapper_one_rank_collectives);
  process.set_wrapper_p2p(record.wrapper_p2p);
  process.set_wrapper_p2p_collectives(record.wrapper_p2p_collectives);
  for (const auto& [shape, calls] : record.collective_shapes.calls) {
    vprof::summary::CollectiveShapeCalls& row = *process.add_collective_shapes();
    row.set_function(std::string(NcclFunctionName(shape.function)));
    row.set_datatype(shape.datatype);
    row.set_red_op(shape.red_op);
    row.set_count(shape.count);
    row.set_comm_size(shape.comm_size);
    row.set_calls(calls);
  }
  process.set_collective_shape_calls_left_out(record.collective_shapes.calls_left_out);
  for (const auto& [kind, dropped] : record.footer_dropped) {
    vprof::summary::KindDropped& row = *process.add_footer_dropped();
    row.set_kind(kind);
    row.set_dropped(dropped);
  }
  *process.mutable_nccl_plugin() = EncodePlugin(record.nccl_plugin);
  *process.mutable_nvtx_phases() = EncodeNvtxPhases(record.nvtx_phases);
  if (record.inferred_phase_input) {
    *process.mutable_inferred_phase_input() =
        EncodeInferredPhaseInput(*record.inferred_phase_input);
  }
  return process;
}

ProcessRecord DecodeProcess(const Process& process, const std::string& directory) {
  ProcessRecord record;
  record.path = (std::filesystem::path(directory) / process.file()).string();
  record.opened = process.opened();
  record.host = process.host();
  record.pid = process.pid();
  if (process.has_header_rank()) record.header_rank = process.header_rank();
  record.nccl_events = process.nccl_events();
  record.failed_calls = process.failed_calls();
  record.dropped_events = process.dropped_events();
  record.write_errors = process.write_errors();
  if (process.has_end_reason()) {
    record.end_reason = static_cast<vprof::trace::EndReason>(process.end_reason());
  }
  record.signal = process.signal();
  record.state = DecodeState(process.state());
  record.problem = process.problem();
  record.unreadable_packets = process.unreadable_packets();
  record.missing_packets = process.missing_packets();
  for (const vprof::summary::Membership& in : process.communicators()) {
    record.communicators[in.comm_id()] = {
        in.nranks(),         in.rank(),      in.created_by(),
        in.parent_comm_id(), in.create_ns(), in.has_cuda_device() ? in.cuda_device() : -1};
  }
  record.clock_samples = {process.clock_sample_count(), process.clock_min_offset_ns(),
                          process.clock_max_offset_ns()};
  record.clock_offset_ns = process.clock_offset_ns();
  record.clock_unaligned = process.clock_unaligned();
  record.gpu = DecodeGpu(process.gpu());
  for (const auto& variable : process.nccl_env()) {
    record.nccl_env[variable.name()] = variable.value();
  }
  if (process.has_ld_preload()) record.ld_preload = process.ld_preload();
  record.wrapper_collectives = process.wrapper_collectives();
  record.wrapper_one_rank_collectives = process.wrapper_one_rank_collectives();
  record.wrapper_p2p = process.wrapper_p2p();
  record.wrapper_p2p_collectives = process.wrapper_p2p_collectives();
  for (const auto& row : process.collective_shapes()) {
    record.collective_shapes.Add({DecodeFunction(row.function()), row.datatype(), row.red_op(),
                                  row.count(), row.comm_size()},
                                 row.calls());
  }
  record.collective_shapes.calls_left_out = process.collective_shape_calls_left_out();
  for (const auto& row : process.footer_dropped()) {
    record.footer_dropped[row.kind()] = row.dropped();
  }
  record.nccl_plugin = DecodePlugin(process.nccl_plugin());
  record.nvtx_phases = DecodeNvtxPhases(process.nvtx_phases());
  record.inferred_phase_input = DecodeInferredPhaseInput(process);
  return record;
}

ParticipantStats DecodeParticipant(const Process& process) {
  const vprof::summary::LeadExample& lead = process.longest_lead();
  return {process.collectives(),
          process.last_arrivals(),
          process.total_lateness_ns(),
          process.total_lead_ns(),
          {lead.lead_ns(), lead.enter_ns(), lead.comm_id(), DecodeFunction(lead.op()),
           lead.size_bytes()}};
}

OpTotals EncodeOpTotals(const OpKey& key, const OpStats& stats) {
  OpTotals totals;
  totals.set_comm_id(key.comm_id);
  totals.set_op(std::string(NcclFunctionName(key.op)));
  totals.set_bucket_log2(key.bucket.log2);
  totals.set_comm_size(stats.comm_size);
  totals.set_count(stats.count);
  totals.set_total_time_ns(stats.total_time_ns);
  totals.set_total_bytes(stats.total_bytes);
  totals.set_total_arrival_skew_ns(stats.total_arrival_skew_ns);
  totals.set_max_arrival_skew_ns(stats.max_arrival_skew_ns);
  totals.set_total_exit_skew_ns(stats.total_exit_skew_ns);
  totals.set_max_exit_skew_ns(stats.max_exit_skew_ns);
  for (const auto& [process, times] : stats.last_arrivals) {
    totals.add_last_process(process);
    totals.add_last_times(times);
  }
  return totals;
}

OpKey DecodeOpKey(const OpTotals& totals) {
  return {totals.comm_id(), DecodeFunction(totals.op()), SizeBucket{totals.bucket_log2()}};
}

std::optional<OpStats> DecodeOpStats(const OpTotals& totals,
                                     std::span<const uint32_t> global_index) {
  if (totals.last_process_size() != totals.last_times_size()) return std::nullopt;
  OpStats stats;
  stats.comm_size = totals.comm_size();
  stats.count = totals.count();
  stats.total_time_ns = totals.total_time_ns();
  stats.total_bytes = totals.total_bytes();
  stats.total_arrival_skew_ns = totals.total_arrival_skew_ns();
  stats.max_arrival_skew_ns = totals.max_arrival_skew_ns();
  stats.total_exit_skew_ns = totals.total_exit_skew_ns();
  stats.max_exit_skew_ns = totals.max_exit_skew_ns();
  for (int i = 0; i < totals.last_process_size(); ++i) {
    if (totals.last_process(i) >= global_index.size()) return std::nullopt;
    stats.last_arrivals[global_index[totals.last_process(i)]] += totals.last_times(i);
  }
  return stats;
}

TeardownTotals EncodeTeardown(uint64_t comm_id, NcclFunction function,
                              const LifecycleStats& calls) {
  TeardownTotals totals;
  totals.set_comm_id(comm_id);
  totals.set_function(std::string(NcclFunctionName(function)));
  totals.set_calls(calls.calls);
  totals.set_total_ns(calls.total_ns);
  totals.set_max_ns(calls.max_ns);
  return totals;
}

LifecycleStats DecodeTeardown(const TeardownTotals& totals) {
  return {totals.calls(), totals.total_ns(), totals.max_ns()};
}

Partial EncodePartial(const PendingCollective& pending) {
  Partial partial;
  partial.set_comm_id(pending.comm_id);
  partial.set_seq(pending.seq);
  partial.set_function(std::string(NcclFunctionName(pending.function)));
  partial.set_comm_size(pending.comm_size);
  partial.set_size_bytes(pending.size_bytes);
  if (pending.sender_receiver) {
    partial.set_sender(pending.sender_receiver->first);
    partial.set_receiver(pending.sender_receiver->second);
  }
  const int64_t first_enter =
      std::min_element(pending.arrivals.begin(), pending.arrivals.end(),
                       [](const Arrival& a, const Arrival& b) { return a.enter_ns < b.enter_ns; })
          ->enter_ns;
  partial.set_first_enter_ns(first_enter);
  for (const Arrival& arrival : pending.arrivals) {
    partial.add_process(arrival.process);
    partial.add_comm_rank(arrival.comm_rank);
    partial.add_enter_offset_ns(arrival.enter_ns - first_enter);
    partial.add_exit_offset_ns(arrival.exit_ns - first_enter);
  }
  return partial;
}

std::optional<std::vector<CollectiveCall>> DecodePartial(const Partial& partial,
                                                         std::span<const uint32_t> global_index) {
  const int members = partial.process_size();
  if (members == 0 || partial.comm_rank_size() != members ||
      partial.enter_offset_ns_size() != members || partial.exit_offset_ns_size() != members) {
    return std::nullopt;
  }
  const NcclFunction function = DecodeFunction(partial.function());
  std::optional<int32_t> peer;
  // A send/recv partial holds one side: its peer is the other one.
  if (partial.has_sender() && partial.has_receiver()) {
    peer = static_cast<int32_t>(function == NcclFunction::kSend ? partial.receiver()
                                                                : partial.sender());
  }
  std::vector<CollectiveCall> calls;
  for (int i = 0; i < members; ++i) {
    if (partial.process(i) >= global_index.size()) return std::nullopt;
    const Arrival arrival{global_index[partial.process(i)], partial.comm_rank(i),
                          partial.first_enter_ns() + partial.enter_offset_ns(i),
                          partial.first_enter_ns() + partial.exit_offset_ns(i)};
    calls.push_back({partial.comm_id(), partial.seq(), function, partial.comm_size(), peer,
                     partial.size_bytes(), arrival});
  }
  return calls;
}

}  // namespace vprof::reporter
