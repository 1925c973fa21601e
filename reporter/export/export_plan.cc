#include "reporter/export/export_plan.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "reporter/report/build.h"
#include "reporter/report/process_rank.h"
#include "reporter/trace/clock_alignment.h"
#include "reporter/trace/trace_reader.h"

namespace vprof::reporter {
namespace {

// The first packet; ReadProcessRecords read it too but keeps only what the
// report needs.
vprof::trace::RunHeader ReadRunHeader(const std::string& path) {
  TraceReader reader(path);
  vprof::trace::TracePacket packet;
  if (reader.Next(&packet) && packet.has_run_header()) return packet.run_header();
  return {};
}

int32_t WorldSizeOf(const vprof::trace::RunHeader& header, const ProcessRecord& record) {
  if (header.rank().has_world_size() && header.rank().world_size() > 0) {
    return header.rank().world_size();
  }
  uint32_t largest = 0;
  for (const auto& [comm_id, membership] : record.communicators) {
    largest = std::max(largest, membership.nranks);
  }
  return static_cast<int32_t>(largest);
}

}  // namespace

std::string DisplayName(const ExportProcess& process) {
  const std::string where = " (" + process.host + " pid " + std::to_string(process.pid) + ")";
  return process.rank ? "rank " + std::to_string(*process.rank) + where : "non-rank" + where;
}

ExportPlan PlanExport(const std::vector<std::string>& paths) {
  const ProcessRecords gathered = ReadProcessRecords(paths, ClockChoice::kByHosts);
  ExportPlan plan;
  plan.realtime = gathered.time_source.aligned_to_realtime;

  // A process left on its own clock (no clock pairs) cannot say where the
  // others' origin is; it only sets the origin when every process is like it.
  int64_t earliest_aligned = std::numeric_limits<int64_t>::max();
  int64_t earliest_any = std::numeric_limits<int64_t>::max();
  std::string earliest_aligned_path, earliest_any_path;
  size_t ranked = 0;
  std::vector<size_t> gpu_processes;  // indexes in plan.processes
  for (const ProcessRecord& record : gathered.records) {
    if (!record.problem.empty()) plan.problems.push_back(record.path + ": " + record.problem);
    if (!record.opened) continue;
    const vprof::trace::RunHeader header = ReadRunHeader(record.path);
    plan.processes.push_back({record.path, record.host, record.pid, ResolveRank(record).rank,
                              WorldSizeOf(header, record), record.clock_offset_ns});
    ranked += plan.processes.back().rank.has_value();
    if (record.gpu.kernels.count > 0) gpu_processes.push_back(plan.processes.size() - 1);
    const int64_t start = static_cast<int64_t>(header.start_ns()) + record.clock_offset_ns;
    if (start < earliest_any) {
      earliest_any = start;
      earliest_any_path = record.path;
    }
    if (!record.clock_unaligned && start < earliest_aligned) {
      earliest_aligned = start;
      earliest_aligned_path = record.path;
    }
  }
  if (plan.processes.empty()) return plan;
  // A job of one GPU process and no ranks (a plain training script: no NCCL, no RANK) is rank 0
  // of one, so that the per-rank formats (HTA) have it.
  if (ranked == 0 && gpu_processes.size() == 1) plan.processes[gpu_processes[0]].rank = 0;

  const bool any_aligned = !earliest_aligned_path.empty();
  plan.origin_ns = any_aligned ? earliest_aligned : earliest_any;
  if (plan.realtime) {
    plan.origin_unix_ns = plan.origin_ns;
  } else if (const auto offset =
                 ScanMedianClockOffset(any_aligned ? earliest_aligned_path : earliest_any_path)) {
    plan.origin_unix_ns = plan.origin_ns + *offset;
  }
  plan.earliest_start_ns = earliest_any - plan.origin_ns;
  for (ExportProcess& process : plan.processes) process.shift_ns -= plan.origin_ns;

  std::stable_sort(plan.processes.begin(), plan.processes.end(),
                   [](const ExportProcess& a, const ExportProcess& b) {
                     // Ranks first (an empty optional sorts last), then file order.
                     return std::make_tuple(!a.rank.has_value(), a.rank.value_or(0)) <
                            std::make_tuple(!b.rank.has_value(), b.rank.value_or(0));
                   });
  return plan;
}

}  // namespace vprof::reporter
