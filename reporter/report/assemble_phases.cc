#include "reporter/report/assemble_phases.h"

#include <algorithm>
#include <tuple>

#include "reporter/base/mean_ns.h"
#include "reporter/report/assemble_inferred_phases.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kNvtxSource = "nvtx";

PhaseReport ToPhaseReport(const PhaseKey& key, const PhaseTotals& totals, int64_t span_ns) {
  PhaseReport phase;
  phase.name = key.name;
  phase.unmatched = key.unmatched;
  phase.source = std::string(kNvtxSource);
  phase.count = totals.count;
  phase.total_ns = totals.total_ns;
  phase.mean_ns = MeanNs(totals.total_ns, totals.count);
  phase.depth = totals.depth;
  if (span_ns > 0) {
    phase.span_share = static_cast<double>(totals.total_ns) / static_cast<double>(span_ns);
  }
  return phase;
}

void AddNvtxPhases(const NvtxPhaseRecord& nvtx, ProcessPhasesReport& report) {
  report.ranges = nvtx.ranges;
  report.span_ns = nvtx.span_ns();
  report.nccl_ranges = nvtx.nccl_ranges;
  report.dropped = nvtx.dropped;
  for (const auto& [key, totals] : nvtx.phases) {
    report.phases.push_back(ToPhaseReport(key, totals, report.span_ns));
  }
  std::stable_sort(report.phases.begin(), report.phases.end(),
                   [](const PhaseReport& a, const PhaseReport& b) {
                     return std::make_tuple(a.unmatched, -a.total_ns, a.name) <
                            std::make_tuple(b.unmatched, -b.total_ns, b.name);
                   });
}

}  // namespace

std::vector<ProcessPhasesReport> PhaseReports(const std::vector<ProcessRecord>& records,
                                              const std::vector<ProcessReport>& processes,
                                              std::span<const InferredPhaseInput> inputs) {
  const bool inputs_known = inputs.size() == records.size();
  const std::set<uint64_t> weight_sync =
      inputs_known ? WeightSyncCommunicators(records, inputs) : std::set<uint64_t>{};
  std::vector<ProcessPhasesReport> reports;
  for (size_t i = 0; i < records.size(); ++i) {
    const NvtxPhaseRecord& nvtx = records[i].nvtx_phases;
    // Ranges that name no phase (a benchmark's one "measured" range) say nothing of phases:
    // such a process is inferred like one without ranges.
    const bool any_phase = std::any_of(nvtx.phases.begin(), nvtx.phases.end(),
                                       [](const auto& phase) { return !phase.first.unmatched; });
    const bool infer = !any_phase && inputs_known && records[i].gpu.ran_kernels();
    if (nvtx.ranges == 0 && !infer) continue;
    ProcessPhasesReport& report = reports.emplace_back();
    report.rank = processes[i].rank;
    report.file = processes[i].file;
    if (inputs_known) {
      report.role = std::string(ProcessRoleName(inputs[i].role.role));
      report.role_rule = inputs[i].role.rule;
    }
    if (infer) {
      report.inferred = true;
      report.span_ns = inputs[i].kernel_span_ns();
      report.phases = InferredPhaseRows(records[i], inputs[i], weight_sync);
    } else {
      AddNvtxPhases(nvtx, report);
    }
  }
  std::stable_sort(reports.begin(), reports.end(),
                   [](const ProcessPhasesReport& a, const ProcessPhasesReport& b) {
                     return std::make_tuple(!a.rank, a.rank.value_or(0), a.file) <
                            std::make_tuple(!b.rank, b.rank.value_or(0), b.file);
                   });
  return reports;
}

}  // namespace vprof::reporter
