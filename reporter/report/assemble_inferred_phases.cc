#include "reporter/report/assemble_inferred_phases.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "reporter/base/mean_ns.h"
#include "reporter/base/saturating_ns.h"
#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"
#include "reporter/phases/inferred_phase.h"

namespace vprof::reporter {
namespace {

bool IsBroadcast(NcclFunction op) {
  return op == NcclFunction::kBroadcast || op == NcclFunction::kBcast;
}

// Count and time by (phase, rule), both static strings (inferred_phase.h).
using InferredTotals = std::map<std::pair<std::string_view, std::string_view>, PhaseTotals>;

void Add(InferredTotals& totals, InferredPhase phase, uint64_t count, int64_t total_ns) {
  if (count == 0 && total_ns == 0) return;  // a split's empty side
  PhaseTotals& row = totals[{phase.phase, phase.rule}];
  row.count += count;
  row.total_ns = SaturatingAdd(row.total_ns, total_ns);
}

PhaseReport ToRow(std::string_view phase, std::string_view rule, const PhaseTotals& totals,
                  int64_t span_ns) {
  PhaseReport row;
  row.name = std::string(phase);
  row.source = std::string(kInferredSourcePrefix) + std::string(rule);
  row.count = totals.count;
  row.total_ns = totals.total_ns;
  row.mean_ns = MeanNs(totals.total_ns, totals.count);
  if (span_ns > 0) {
    row.span_share = static_cast<double>(totals.total_ns) / static_cast<double>(span_ns);
  }
  return row;
}

}  // namespace

std::set<uint64_t> WeightSyncCommunicators(const std::vector<ProcessRecord>& records,
                                           std::span<const InferredPhaseInput> inputs) {
  struct CommunicatorSeen {
    bool train_member = false;
    bool rollout_member = false;
    bool any_collective = false;
    bool only_broadcasts = true;
  };
  std::map<uint64_t, CommunicatorSeen> seen;
  for (size_t i = 0; i < records.size() && i < inputs.size(); ++i) {
    const ProcessRole role = inputs[i].role.role;
    for (const auto& [comm_id, membership] : records[i].communicators) {
      CommunicatorSeen& comm = seen[comm_id];
      comm.train_member |= role == ProcessRole::kTrain;
      comm.rollout_member |= role == ProcessRole::kRollout;
    }
    for (const auto& [key, linked] : records[i].gpu.nccl.collectives) {
      CommunicatorSeen& comm = seen[key.comm_id];
      comm.any_collective = true;
      comm.only_broadcasts &= IsBroadcast(key.op);
    }
  }
  std::set<uint64_t> weight_sync;
  for (const auto& [comm_id, comm] : seen) {
    if ((comm.train_member && comm.rollout_member) ||
        (comm.any_collective && comm.only_broadcasts)) {
      weight_sync.insert(comm_id);
    }
  }
  return weight_sync;
}

std::vector<PhaseReport> InferredPhaseRows(const ProcessRecord& record,
                                           const InferredPhaseInput& input,
                                           const std::set<uint64_t>& weight_sync_communicators) {
  const ProcessRole role = input.role.role;
  InferredTotals totals;
  // NCCL kernels linked to a call are split by their communicator's use;
  // the rest (linked to no call with a communicator) keep kUnknown.
  PhaseTotals unlinked_nccl;
  // Compute from two threads is split by thread; from one, it stays one.
  // Compute: what the table would call backward off the main thread (not
  // communication or optimizer kernels, whichever thread launched them).
  const bool two_threads =
      std::any_of(input.off_main_thread_kernels.begin(), input.off_main_thread_kernels.end(),
                  [&](const auto& kernel) {
                    return InferredPhaseOf(role, KernelClassOf(kernel.first),
                                           CommunicatorUse::kUnknown, LaunchThread::kOther)
                               .phase == kBackwardPhase;
                  });
  for (const auto& [name, kernels] : record.gpu.kernels_by_name) {
    const std::string_view kernel_class = KernelClassOf(name);
    if (kernel_class == kNcclKernelClass) {
      unlinked_nccl.count += kernels.count;
      unlinked_nccl.total_ns = SaturatingAdd(unlinked_nccl.total_ns, kernels.total_ns);
      continue;
    }
    if (!two_threads) {
      Add(totals, InferredPhaseOf(role, kernel_class, CommunicatorUse::kUnknown), kernels.count,
          kernels.total_ns);
      continue;
    }
    // The kernels' totals, split: other threads', then of the rest, the
    // forward-only passes', then the main thread's forward.
    ActivityTotals rest = kernels;
    // `name` by an init-capture: clang 14 (the fuzz build) cannot capture a
    // structured binding.
    const auto add_part = [&, &kernel_name = name](
                              const std::map<std::string, ActivityTotals>& parts,
                              LaunchThread thread) {
      const auto part = parts.find(kernel_name);
      if (part == parts.end()) return;
      const uint64_t count = std::min(part->second.count, rest.count);
      const int64_t total_ns = std::min(part->second.total_ns, rest.total_ns);
      Add(totals, InferredPhaseOf(role, kernel_class, CommunicatorUse::kUnknown, thread), count,
          total_ns);
      rest.count -= count;
      rest.total_ns -= total_ns;
    };
    add_part(input.off_main_thread_kernels, LaunchThread::kOther);
    add_part(input.forward_only_kernels, LaunchThread::kMainForwardOnly);
    Add(totals, InferredPhaseOf(role, kernel_class, CommunicatorUse::kUnknown, LaunchThread::kMain),
        rest.count, rest.total_ns);
  }
  for (const auto& [key, linked] : record.gpu.nccl.collectives) {
    const CommunicatorUse use =
        weight_sync_communicators.contains(key.comm_id) && IsBroadcast(key.op)
            ? CommunicatorUse::kWeightSync
            : CommunicatorUse::kGeneral;
    Add(totals, InferredPhaseOf(role, kNcclKernelClass, use), linked.kernels, linked.gpu_ns);
    unlinked_nccl.count -= std::min(unlinked_nccl.count, linked.kernels);
    unlinked_nccl.total_ns -= std::min(unlinked_nccl.total_ns, linked.gpu_ns);
  }
  if (unlinked_nccl.count > 0 || unlinked_nccl.total_ns > 0) {
    Add(totals, InferredPhaseOf(role, kNcclKernelClass, CommunicatorUse::kUnknown),
        unlinked_nccl.count, unlinked_nccl.total_ns);
  }
  for (const auto& [api, calls] : record.gpu.ipc_calls) {
    Add(totals, InferredPhaseOf(role, kIpcApiClass, CommunicatorUse::kUnknown), calls.count,
        calls.total_ns);
  }

  const int64_t span_ns = input.kernel_span_ns();
  std::vector<PhaseReport> rows;
  for (const auto& [phase_rule, phase_totals] : totals) {
    rows.push_back(ToRow(phase_rule.first, phase_rule.second, phase_totals, span_ns));
  }
  if (span_ns > 0) {
    rows.push_back(ToRow(kIdlePhase, kIdleRule,
                         {0, std::max<int64_t>(0, span_ns - input.kernel_busy_ns)}, span_ns));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PhaseReport& a, const PhaseReport& b) {
    return std::make_tuple(-a.total_ns, a.name, a.source) <
           std::make_tuple(-b.total_ns, b.name, b.source);
  });
  return rows;
}

}  // namespace vprof::reporter
