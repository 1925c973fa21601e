#include "reporter/render/text/consistency_text.h"

#include <map>
#include <utility>
#include <vector>

#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/render/text/table_text.h"

namespace vprof::reporter {
namespace {

std::string CountAndTime(const ActivityTotals& totals) {
  if (totals.count == 0) return "-";
  return std::to_string(totals.count) + ", " + FormatDurationNs(totals.total_ns);
}

// Copies move bytes: "2, 4.00 MiB, 4.00 µs".
std::string CountBytesAndTime(const ActivityTotals& totals) {
  if (totals.count == 0) return "-";
  return std::to_string(totals.count) + ", " + FormatBytes(totals.bytes) + ", " +
         FormatDurationNs(totals.total_ns);
}

std::string RankText(const std::optional<int32_t>& rank) {
  return rank ? std::to_string(*rank) : "-";
}

std::string PluginText(const CoverageProcess& row) {
  if (!row.plugin_attached) return "no";
  return row.plugin_version == 0 ? "yes" : "v" + std::to_string(row.plugin_version);
}

// "wrappers/plugin"; all-to-all, gather and scatter calls as "(+N)".
std::string SeenBoth(uint64_t wrappers, uint64_t extra_wrappers, uint64_t plugin,
                     bool plugin_attached) {
  std::string text = std::to_string(wrappers);
  if (extra_wrappers > 0) text += "(+" + std::to_string(extra_wrappers) + ")";
  return text + "/" + (plugin_attached ? std::to_string(plugin) : "-");
}

void WriteCoverageTable(const CoverageReport& coverage, std::ostream& out) {
  ReportTable table = UntitledTable({{"rank", true},
                                     {"coll w/p", true},
                                     {"p2p w/p", true},
                                     {"kernels", true},
                                     {"graph", true},
                                     {"plugin"},
                                     {"custom AR", true},
                                     {"IPC calls", true},
                                     {"peer copies", true},
                                     {"file"}});
  for (const CoverageProcess& row : coverage.processes) {
    table.rows.push_back(
        {RankText(row.rank),
         SeenBoth(row.wrapper_collectives, 0, row.plugin_collectives, row.plugin_attached),
         SeenBoth(row.wrapper_p2p, row.wrapper_p2p_collectives, row.plugin_p2p,
                  row.plugin_attached),
         row.gpu_captured ? std::to_string(row.nccl_kernels) : "-",
         row.gpu_captured ? std::to_string(row.nccl_graph_kernels) : "-", PluginText(row),
         CountAndTime(row.custom_allreduce_kernels), CountAndTime(SumOf(row.ipc_calls)),
         CountBytesAndTime(row.peer_copies), row.file});
  }
  TextTableOf(table).Write(out, "  ");
  for (const CoverageProcess& row : coverage.processes) {
    if (row.wrapper_one_rank_collectives == 0) continue;
    WriteWrapped(out,
                 "rank " + RankText(row.rank) + ", " + row.file + ": " +
                     std::to_string(row.wrapper_one_rank_collectives) +
                     " of its collectives on one-rank communicators: NCCL runs them as a local "
                     "copy and may report no plugin event and launch no kernel for them",
                 "  ", "    ");
  }
  for (const CoverageProcess& row : coverage.processes) {
    if (row.ipc_calls.empty()) continue;
    std::string text;
    for (const auto& [api, totals] : row.ipc_calls) {
      text += (text.empty() ? "" : "; ") + api + " ×" + std::to_string(totals.count) + " " +
              FormatDurationNs(totals.total_ns);
    }
    WriteWrapped(out, "rank " + RankText(row.rank) + ", " + row.file + ": " + text,
                 "  IPC: ", "    ");
  }
}

std::string GapSubject(const CoverageGap& gap) {
  if (!gap.file.empty()) return "rank " + RankText(gap.rank) + ", " + gap.file;
  std::string subject = "communicator " + gap.comm_id +
                        (gap.comm_id_source == "nccl" ? " (NCCL commHash" : " (vprof id");
  if (!gap.comm_name.empty()) subject += " " + gap.comm_name;
  return subject + ")";
}

void WriteCoverage(const CoverageReport& coverage, std::ostream& out) {
  out << '\n';
  WriteWrapped(out,
               "(NCCL work per process: w = API wrappers, p = NCCL profiler plugin; kernels = "
               "CUPTI NCCL kernels, graph = those of them CUDA graphs launched)",
               "Coverage ", "  ");
  if (coverage.processes.empty()) {
    out << "  no process took part in communication\n";
  } else {
    WriteCoverageTable(coverage, out);
  }
  if (coverage.gaps.empty()) {
    out << "  no gaps: every count agrees\n";
    return;
  }
  for (const CoverageGap& gap : coverage.gaps) {
    WriteWrapped(out, GapSubject(gap) + ": " + gap.kind + ": " + gap.detail, "  ! ", "    ");
    for (const std::string& cause : gap.causes) WriteWrapped(out, cause, "    cause: ", "      ");
  }
}

std::string SettingsText(const ConsistencyReport& consistency) {
  std::string text;
  for (const RequestedSetting& setting : consistency.requested_env) {
    std::string values;
    for (const std::string& value : setting.values) values += (values.empty() ? "" : "|") + value;
    text += (text.empty() ? "" : "; ") + setting.name + "=" + values;
    if (setting.processes_unset > 0 || setting.values.size() > 1) {
      text += " (" + std::to_string(setting.processes_set) + " of " +
              std::to_string(setting.processes_set + setting.processes_unset) + " processes)";
    }
  }
  return text.empty() ? "no NCCL_* settings" : text;
}

void WriteActualTable(const ConsistencyReport& consistency, std::ostream& out) {
  if (consistency.actual_algorithms.empty()) return;
  ReportTable table =
      UntitledTable({{"func"}, {"algo"}, {"proto"}, {"channels", true}, {"count", true}});
  for (const auto& [use, count] : consistency.actual_algorithms) {
    table.rows.push_back(
        {use.func, use.algo, use.proto, std::to_string(use.channels), std::to_string(count)});
  }
  TextTableOf(table).Write(out, "    ");
}

// "0-3,5, 2 unranked": ranks as runs of consecutive numbers (`ranks` ascending).
std::string RanksText(const std::vector<int32_t>& ranks, uint32_t unranked) {
  std::string text;
  for (size_t i = 0; i < ranks.size();) {
    size_t last = i;
    while (last + 1 < ranks.size() && ranks[last + 1] == ranks[last] + 1) ++last;
    text += (text.empty() ? "" : ",") + std::to_string(ranks[i]);
    if (last > i) text += "-" + std::to_string(ranks[last]);
    i = last + 1;
  }
  if (unranked > 0) text += (text.empty() ? "" : ", ") + std::to_string(unranked) + " unranked";
  return text;
}

// Collectives by shape: a rank whose count differs has a row of its own.
void WriteCollectiveShapes(const ConsistencyReport& consistency, std::ostream& out) {
  if (consistency.collective_shapes.empty()) return;
  WriteWrapped(out,
               "by shape (function, data type, reduction, elements per call, communicator size: "
               "the ranks that issued it; the fingerprint holds these, not the calls)",
               "    collectives ", "      ");
  ReportTable table = UntitledTable({{"function"},
                                     {"dtype"},
                                     {"red op"},
                                     {"count", true},
                                     {"size", true},
                                     {"ranks"},
                                     {"calls", true}});
  for (const CollectiveShapeReport& shape : consistency.collective_shapes) {
    table.rows.push_back({shape.function, shape.datatype, shape.red_op, std::to_string(shape.count),
                          std::to_string(shape.comm_size),
                          RanksText(shape.ranks, shape.unranked_processes),
                          std::to_string(shape.calls)});
  }
  TextTableOf(table).Write(out, "      ");
  if (consistency.collective_calls_left_out > 0) {
    WriteWrapped(out,
                 std::to_string(consistency.collective_calls_left_out) +
                     " calls of shapes past a process's 4,096 are in no row",
                 "      ", "      ");
  }
}

// "rank 1: node2, CUDA device 3 (GPU-…)" each, or with more processes than
// kFoldAbove, a line per host with its ranks.
void WritePlacement(const ConsistencyReport& consistency, std::ostream& out) {
  if (consistency.placement.empty()) return;
  out << "    placement (the fingerprint holds which ranks share a host, and their devices):\n";
  const auto device = [](const RankPlacement& row) {
    std::string text = row.cuda_device < 0 ? "CUDA device unknown"
                                           : "CUDA device " + std::to_string(row.cuda_device);
    if (!row.gpu_uuid.empty()) text += " (" + row.gpu_uuid + ")";
    return text;
  };
  if (consistency.placement.size() <= kFoldAbove) {
    for (const RankPlacement& row : consistency.placement) {
      const std::string who = row.rank ? "rank " + std::to_string(*row.rank) : row.file;
      WriteWrapped(out, who + ": " + row.host + ", " + device(row), "      ", "        ");
    }
    return;
  }
  std::map<std::string, std::pair<std::vector<int32_t>, uint32_t>> by_host;
  for (const RankPlacement& row : consistency.placement) {
    auto& [ranks, unranked] = by_host[row.host];
    if (row.rank) {
      ranks.push_back(*row.rank);
    } else {
      ++unranked;
    }
  }
  for (const auto& [host, ranks] : by_host) {
    WriteWrapped(out, host + ": ranks " + RanksText(ranks.first, ranks.second), "      ",
                 "        ");
  }
}

// "nccl_algo undeclared_fallback: NCCL_ALGO requested Ring; actual AllReduce TREE (4×, 1 process)"
std::string MismatchText(const ConsistencyMismatch& mismatch) {
  std::string text = mismatch.axis + " " + mismatch.kind + ": " + mismatch.source + " requested " +
                     mismatch.requested + "; actual " + mismatch.actual + " (";
  if (mismatch.count > 0) text += std::to_string(mismatch.count) + "×, ";
  if (mismatch.processes == 0) return text + "the run)";
  return text + std::to_string(mismatch.processes) +
         (mismatch.processes == 1 ? " process)" : " processes)");
}

void WriteConsistency(const ConsistencyReport& consistency, std::ostream& out) {
  std::string heading = "mode " + std::string(ConsistencyModeName(consistency.mode));
  if (consistency.mode_source == "flag") heading += " (--strict)";
  if (consistency.mode_source == "contract") heading += " (contract)";
  if (!consistency.contract_file.empty()) heading += "; contract " + consistency.contract_file;
  out << '\n';
  WriteWrapped(out, heading, "Consistency (requested vs actual): ", "  ");
  WriteWrapped(out,
               consistency.requested_fingerprint + " (NCCL_* of " +
                   std::to_string(consistency.communication_processes) + " processes" +
                   (consistency.contract ? ", contract)" : ")"),
               "  requested: ", "    ");
  WriteWrapped(out, SettingsText(consistency), "    ", "    ");
  WriteWrapped(out,
               consistency.actual_fingerprint + " (profiler-plugin events of " +
                   std::to_string(consistency.plugin_processes) + " of " +
                   std::to_string(consistency.communication_processes) + " processes)",
               "  actual:    ", "    ");
  WriteActualTable(consistency, out);
  out << "    custom all-reduce kernels: " << CountAndTime(consistency.custom_allreduce_kernels)
      << '\n';
  WriteCollectiveShapes(consistency, out);
  WritePlacement(consistency, out);
  if (consistency.mode == ConsistencyMode::kOff) {
    out << "  nothing compared: consistency is off\n";
    return;
  }
  if (consistency.mismatches.empty()) {
    out << "  mismatches: none\n";
  } else {
    out << "  mismatches: " << consistency.mismatches.size() << " (" << consistency.violations
        << (consistency.violations == 1 ? " violation)\n" : " violations)\n");
  }
  for (const ConsistencyMismatch& mismatch : consistency.mismatches) {
    WriteWrapped(out, MismatchText(mismatch), mismatch.violation ? "  ! " : "  - ", "    ");
  }
  if (consistency.failed()) {
    WriteWrapped(out,
                 "the run differs from what it requested or declared, or cannot be shown not to",
                 "  strict: ", "    ");
  }
}

}  // namespace

void WriteConsistencySections(const Report& report, std::ostream& out) {
  if (!report.coverage || !report.consistency) {
    out << '\n';
    WriteWrapped(out,
                 "not checked (no trace records the NCCL profiler plugin; --strict or --contract "
                 "checks anyway)",
                 "Coverage and consistency: ", "  ");
    return;
  }
  WriteCoverage(*report.coverage, out);
  WriteConsistency(*report.consistency, out);
}

}  // namespace vprof::reporter
