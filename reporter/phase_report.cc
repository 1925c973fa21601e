#include "reporter/phase_report.h"

#include <algorithm>
#include <tuple>

#include "reporter/mean_ns.h"

namespace vprof::reporter {
namespace {

PhaseReport ToPhaseReport(const PhaseKey& key, const PhaseTotals& totals, int64_t span_ns) {
  PhaseReport phase;
  phase.name = key.name;
  phase.unmatched = key.unmatched;
  phase.count = totals.count;
  phase.total_ns = totals.total_ns;
  phase.mean_ns = MeanNs(totals.total_ns, totals.count);
  if (span_ns > 0) {
    phase.span_share = static_cast<double>(totals.total_ns) / static_cast<double>(span_ns);
  }
  return phase;
}

}  // namespace

std::vector<ProcessPhasesReport> PhaseReports(const std::vector<ProcessRecord>& records,
                                              const std::vector<ProcessReport>& processes) {
  std::vector<ProcessPhasesReport> reports;
  for (size_t i = 0; i < records.size(); ++i) {
    const NvtxPhaseRecord& nvtx = records[i].nvtx_phases;
    if (nvtx.ranges == 0) continue;
    ProcessPhasesReport& report = reports.emplace_back();
    report.rank = processes[i].rank;
    report.file = processes[i].file;
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
  std::stable_sort(reports.begin(), reports.end(),
                   [](const ProcessPhasesReport& a, const ProcessPhasesReport& b) {
                     return std::make_tuple(!a.rank, a.rank.value_or(0), a.file) <
                            std::make_tuple(!b.rank, b.rank.value_or(0), b.file);
                   });
  return reports;
}

}  // namespace vprof::reporter
