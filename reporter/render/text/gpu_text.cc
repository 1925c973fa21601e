#include "reporter/render/text/gpu_text.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>
#include <vector>

#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/render/short_kernel_name.h"
#include "reporter/render/text/table_text.h"

namespace vprof::reporter {
namespace {

std::string ProcessLabel(const ProcessReport& process) {
  if (!process.is_rank) return "non-rank, " + process.file;
  return "rank " + (process.rank ? std::to_string(*process.rank) : "?") + ", " + process.file;
}

std::string CaptureText(const GpuReport& gpu) {
  if (!gpu.capture) return "no capture status written (GPU records present)";
  const GpuCaptureReport& capture = *gpu.capture;
  std::string state(GpuCaptureStateName(capture.state));
  std::replace(state.begin(), state.end(), '_', ' ');
  std::string text = "capture " + state;
  if (!capture.detail.empty()) text += ": " + capture.detail;
  if (!capture.timestamp_source.empty()) text += "; timestamps: " + capture.timestamp_source;
  if (!capture.cuda_injection_found.empty()) {
    text += "; CUDA_INJECTION64_PATH was " + capture.cuda_injection_found;
  }
  if (!capture.mode.empty()) text += "; VPROF_CUPTI_KINDS " + capture.mode;
  if (capture.api_records == ApiRecords::kSelected) {
    text += " (API records of launches, copies, memsets, events, waits, syncs and CUDA IPC only: " +
            std::to_string(capture.selected_runtime_apis) + " runtime and " +
            std::to_string(capture.selected_driver_apis) + " driver APIs)";
  }
  if (capture.hw_trace == HwTraceState::kOn) text += "; kernel timestamps from hardware events";
  if (capture.hw_trace == HwTraceState::kNotSupported) {
    text += "; hardware kernel timestamps not supported here (" + capture.hw_trace_detail + ")";
  }
  if (capture.buffers_unread_at_exit > 0) {
    const uint32_t n = capture.buffers_unread_at_exit;
    text += "; " + FormatCount(n, "activity buffer", "activity buffers") +
            " left unread at exit (CUPTI handed " + (n == 1 ? "it" : "them") +
            " over too late to read before its teardown; their records are not in this trace)";
  }
  return text;
}

// "API calls 12" with what the count covers when not every call was recorded.
std::string ApiCallsText(const GpuReport& gpu) {
  std::string text = "API calls " + std::to_string(gpu.api_calls);
  if (!gpu.capture) return text;
  if (gpu.capture->api_records == ApiRecords::kSelected) return text + " (selected APIs only)";
  if (gpu.capture->api_records == ApiRecords::kNone) return "API calls not recorded";
  return text;
}

// "(peer 2, 1.0 MiB, 3.0 ms)": the copies between two GPUs among the memcpys;
// nothing when there were none.
// " (pageable 3, 12 MiB, 4.1 ms; peer 2, ...)": the copies of each kind there were.
std::string CopyKindsText(const GpuReport& gpu) {
  std::string text;
  for (const auto& [name, totals] :
       {std::pair{"pageable", &gpu.pageable_copies}, std::pair{"pinned", &gpu.pinned_copies},
        std::pair{"peer", &gpu.peer_copies}}) {
    if (totals->count == 0) continue;
    text += (text.empty() ? " (" : "; ") + std::string(name) + " " + std::to_string(totals->count) +
            ", " + FormatBytes(totals->bytes) + ", " + FormatDurationNs(totals->total_ns);
  }
  return text.empty() ? text : text + ")";
}

// "syncs 3, 1.2 ms", or that the capture plan did not record them.
std::string SyncsText(const GpuReport& gpu) {
  if (gpu.capture && !gpu.capture->records_syncs) return "syncs not recorded";
  return "syncs " + std::to_string(gpu.syncs.count) + ", " + FormatDurationNs(gpu.syncs.total_ns);
}

// vprof's own kernels, which no other figure includes.
std::string VprofKernelsText(const ActivityTotals& own) {
  if (own.count == 0) return "";
  return "; vprof's fingerprint kernels " + std::to_string(own.count) + ", " +
         FormatDurationNs(own.total_ns) + " (in no figure above)";
}

// CUDA-graph replays recorded whole, whose nodes no other figure counts.
std::string GraphReplaysText(const GpuReport& gpu) {
  const ActivityTotals& replays = gpu.graph_replays;
  if (replays.count == 0) return "";
  const uint64_t unlisted = gpu.graph_replays_unlisted;
  std::string ran;
  if (unlisted < replays.count) {
    const GraphNodes& nodes = gpu.graph_replay_nodes;
    ran = ", running " + std::to_string(nodes.kernels) + " kernels, " +
          std::to_string(nodes.memsets) + " memsets and " + std::to_string(nodes.memcpys) +
          " copies by their graphs' node lists";
    if (unlisted > 0) ran += ", " + std::to_string(unlisted) + " replays of graphs not listed";
  } else {
    ran = ", their graphs' node lists not recorded";
  }
  return "; CUDA-graph replays recorded whole " + std::to_string(replays.count) + ", " +
         FormatDurationNs(replays.total_ns) + ran +
         " (their kernels' times and their copies are in no figure here; "
         "VPROF_CUPTI_KINDS=all or a deep window records each)";
}

void WriteTotals(const GpuReport& gpu, std::ostream& out) {
  WriteWrapped(out,
               "kernels " + std::to_string(gpu.kernels.count) + ", " +
                   FormatDurationNs(gpu.kernels.total_ns) + GraphReplaysText(gpu) + "; memcpy " +
                   std::to_string(gpu.memcpy.count) + ", " + FormatBytes(gpu.memcpy.bytes) + ", " +
                   FormatDurationNs(gpu.memcpy.total_ns) + CopyKindsText(gpu) + "; memset " +
                   std::to_string(gpu.memset.count) + ", " + FormatBytes(gpu.memset.bytes) + "; " +
                   SyncsText(gpu) + "; " + ApiCallsText(gpu) + "; CUPTI dropped records " +
                   std::to_string(gpu.dropped_records) + ", overhead " +
                   FormatDurationNs(gpu.cupti_overhead_ns) + VprofKernelsText(gpu.vprof_kernels),
               "    ", "      ");
}

void WriteKernelClasses(const GpuReport& gpu, std::ostream& out) {
  if (gpu.kernel_classes.empty()) return;
  ReportTable table =
      UntitledTable({{"class"}, {"count", true}, {"total", true}, {"mean", true}, {"share", true}});
  for (const KernelClassReport& row : gpu.kernel_classes) {
    table.rows.push_back({row.kernel_class, std::to_string(row.count),
                          FormatDurationNs(row.total_ns), FormatDurationNs(row.mean_ns),
                          FormatPercent(row.share)});
  }
  TextTableOf(table).Write(out, "    ");
}

void WriteTopKernels(const GpuReport& gpu, std::ostream& out) {
  if (gpu.top_kernels.empty()) return;
  ReportTable table =
      UntitledTable({{"top kernels"}, {"class"}, {"count", true}, {"total", true}, {"mean", true}});
  for (const KernelReport& row : gpu.top_kernels) {
    table.rows.push_back({ShortKernelName(row.name), row.kernel_class, std::to_string(row.count),
                          FormatDurationNs(row.total_ns), FormatDurationNs(row.mean_ns)});
  }
  TextTableOf(table).Write(out, "    ");
}

// Nothing for a process without NCCL calls or kernels.
void WriteLinkage(const NcclLinkageReport& nccl, std::ostream& out) {
  if (nccl.calls == 0 && nccl.nccl_kernels == 0 && nccl.linked_kernels == 0 && nccl.ops.empty()) {
    return;
  }
  WriteWrapped(out,
               std::to_string(nccl.calls) + " collective and send/recv calls (" +
                   std::to_string(nccl.grouped_calls) + " in groups, launched by ncclGroupEnd), " +
                   std::to_string(nccl.linked_calls) + " linked to kernels; " +
                   std::to_string(nccl.linked_kernels) + " kernels linked to intercepted calls (" +
                   std::to_string(nccl.linked_kernels_without_call) +
                   " whose call was not read); " + std::to_string(nccl.nccl_kernels) +
                   " NCCL kernels, " + std::to_string(nccl.unlinked_nccl_kernels) +
                   " not linked to an intercepted call",
               "    NCCL linkage: ", "      ");
  if (nccl.ops.empty()) return;
  ReportTable table = UntitledTable({{"op"},
                                     {"calls", true},
                                     {"linked", true},
                                     {"kernels", true},
                                     {"gpu total", true},
                                     {"gpu mean", true},
                                     {"host mean", true}});
  for (const NcclFunctionGpuReport& op : nccl.ops) {
    table.rows.push_back({op.op, std::to_string(op.calls), std::to_string(op.linked_calls),
                          std::to_string(op.kernels), FormatDurationNs(op.gpu_time_total_ns),
                          op.gpu_time_mean_ns ? FormatDurationNs(*op.gpu_time_mean_ns) : "-",
                          FormatDurationNs(op.host_time_mean_ns)});
  }
  TextTableOf(table).Write(out, "    ");
}

void WriteStreamWaits(const GpuReport& gpu, std::ostream& out) {
  if (gpu.capture && (!gpu.capture->records_event_records || !gpu.capture->records_syncs)) {
    WriteWrapped(out,
                 "not recorded (the light default leaves out SYNCHRONIZATION and CUDA_EVENT; "
                 "VPROF_CUPTI_KINDS=all records them)",
                 "    stream waits: ", "      ");
    return;
  }
  const StreamWaitReport& waits = gpu.stream_waits;
  if (waits.event_records == 0 && waits.waits == 0) return;
  std::string text = std::to_string(waits.event_records) + " event records, " +
                     std::to_string(waits.waits) + " waits, " +
                     std::to_string(waits.matched_waits) + " matched to a record";
  if (!waits.top_edges.empty()) {
    text += "; record stream → waiting stream:";
    for (const StreamEdgeReport& edge : waits.top_edges) {
      if (&edge != &waits.top_edges.front()) text += ",";
      text += " " + std::to_string(edge.record_stream) + "→" + std::to_string(edge.wait_stream) +
              " ×" + std::to_string(edge.count);
    }
    if (waits.distinct_edges > waits.top_edges.size()) {
      text += " and " + std::to_string(waits.distinct_edges - waits.top_edges.size()) + " more";
    }
  }
  WriteWrapped(out, text, "    stream waits: ", "      ");
}

void WriteProcessGpu(const ProcessReport& process, std::ostream& out) {
  const GpuReport& gpu = process.gpu;
  if (!gpu.captured()) {
    out << "  " << ProcessLabel(process) << ": no GPU capture\n";
    return;
  }
  WriteWrapped(out, ProcessLabel(process) + ": " + CaptureText(gpu), "  ", "    ");
  if (gpu.batches == 0) return;
  WriteTotals(gpu, out);
  WriteKernelClasses(gpu, out);
  WriteTopKernels(gpu, out);
  WriteLinkage(gpu.nccl, out);
  WriteStreamWaits(gpu, out);
}

// One row's figures for one of the two GPU time lines.
struct GpuTimeFigures {
  std::optional<int64_t> time_ns;
  uint64_t calls = 0;
  std::optional<double> busbw_gbps;
};

// "<size> <time> (<calls> <unit>, busbw <GB/s>); ..." over the rows that have
// a time, under `lead`; nothing when none has.
void WriteGpuTimeLine(std::span<const OpReport> rows, GpuTimeFigures (*figures_of)(const OpReport&),
                      std::string_view unit, std::string_view lead, std::ostream& out) {
  std::string text;
  for (const OpReport& row : rows) {
    const GpuTimeFigures figures = figures_of(row);
    if (!figures.time_ns) continue;
    if (!text.empty()) text += "; ";
    text += row.bucket.Label() + " " + FormatDurationNs(*figures.time_ns) + " (" +
            std::to_string(figures.calls) + " " + std::string(unit);
    if (figures.busbw_gbps) text += ", busbw " + FormatGBps(*figures.busbw_gbps);
    text += ")";
  }
  if (!text.empty()) WriteWrapped(out, text, lead, "      ");
}

// A capture that did not run as asked, or lost records.
bool CaptureTroubled(const GpuReport& gpu) {
  return gpu.dropped_records > 0 || (gpu.capture && gpu.capture->state != GpuCaptureState::kActive);
}

// The processes (indices) whose blocks a report of many shows: the first
// with GPU records, those with the least and the most kernel time, and up to
// kFoldAbove whose capture is troubled; in process order.
std::vector<size_t> GpuBlocksShown(const std::vector<ProcessReport>& processes) {
  std::vector<size_t> with_records;
  std::vector<size_t> shown;
  size_t troubled = 0;
  for (size_t i = 0; i < processes.size(); ++i) {
    const GpuReport& gpu = processes[i].gpu;
    if (gpu.batches > 0) with_records.push_back(i);
    if (CaptureTroubled(gpu) && troubled++ < kFoldAbove) shown.push_back(i);
  }
  if (!with_records.empty()) {
    const auto kernel_ns = [&](size_t a, size_t b) {
      return processes[a].gpu.kernels.total_ns < processes[b].gpu.kernels.total_ns;
    };
    shown.push_back(with_records.front());
    shown.push_back(*std::min_element(with_records.begin(), with_records.end(), kernel_ns));
    shown.push_back(*std::max_element(with_records.begin(), with_records.end(), kernel_ns));
  }
  std::sort(shown.begin(), shown.end());
  shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
  return shown;
}

// "1024 processes with GPU capture, 3 shown below: the first with GPU records,
// the least and the most kernel time, and those whose capture dropped records
// or did not run (20, 4 of them not shown); kernel time per process: least
// 4.15 s, median 4.18 s, most 4.21 s; 0 without GPU capture; the JSON report has
// every process".
std::string GpuSummaryText(const std::vector<ProcessReport>& processes, size_t shown) {
  std::vector<int64_t> kernel_ns;
  size_t captured = 0;
  size_t troubled = 0;
  for (const ProcessReport& process : processes) {
    captured += process.gpu.captured();
    troubled += CaptureTroubled(process.gpu);
    if (process.gpu.batches > 0) kernel_ns.push_back(process.gpu.kernels.total_ns);
  }
  std::sort(kernel_ns.begin(), kernel_ns.end());
  std::string text = std::to_string(captured) + " processes with GPU capture, " +
                     std::to_string(shown) +
                     " shown below: the first with GPU records, the least and the most kernel "
                     "time, and those whose capture dropped records or did not run (" +
                     (troubled == 0 ? std::string("none") : std::to_string(troubled));
  if (troubled > kFoldAbove) {
    text += ", " + std::to_string(troubled - kFoldAbove) + " of them not shown";
  }
  text += ")";
  if (!kernel_ns.empty()) {
    text += "; kernel time per process: least " + FormatDurationNs(kernel_ns.front()) +
            ", median " + FormatDurationNs(kernel_ns[kernel_ns.size() / 2]) + ", most " +
            FormatDurationNs(kernel_ns.back());
  }
  return text + "; " + std::to_string(processes.size() - captured) +
         " without GPU capture; the JSON report has every process";
}

}  // namespace

void WriteGpuSection(const Report& report, std::ostream& out) {
  const bool any = std::any_of(report.processes.begin(), report.processes.end(),
                               [](const ProcessReport& process) { return process.gpu.captured(); });
  if (!any) {
    out << "\nGPU: no GPU capture in any process\n";
    return;
  }
  out << "\nGPU (CUPTI: times are GPU execution times; gpu mean = kernel time per linked call)\n";
  if (report.processes.size() <= kFoldAbove) {
    for (const ProcessReport& process : report.processes) WriteProcessGpu(process, out);
    return;
  }
  const std::vector<size_t> shown = GpuBlocksShown(report.processes);
  WriteWrapped(out, GpuSummaryText(report.processes, shown.size()), "  ", "    ");
  for (const size_t process : shown) WriteProcessGpu(report.processes[process], out);
}

void WriteOpGpuTime(std::span<const OpReport> rows, std::ostream& out) {
  WriteGpuTimeLine(
      rows,
      [](const OpReport& row) {
        return GpuTimeFigures{row.gpu_time_mean_ns, row.gpu_linked_calls, row.gpu_busbw_gbps};
      },
      "calls", "    GPU kernel time per linked call (busbw in GB/s from it): ", out);
  WriteGpuTimeLine(
      rows,
      [](const OpReport& row) {
        return GpuTimeFigures{row.collective_gpu_median_ns, row.collective_gpu_calls,
                              row.collective_busbw_gbps};
      },
      "collectives",
      "    collective GPU time, last rank's start to last end, median (busbw from it): ", out);
}

}  // namespace vprof::reporter
