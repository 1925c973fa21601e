#include "reporter/consistency/coverage.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "reporter/base/units.h"
#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {
namespace {

constexpr std::string_view kBypassedPreload =
    "calls bypassed the preload (dlsym on a library handle, as vLLM's PyNccl does)";
constexpr std::string_view kNotPreloaded =
    "vprof not preloaded (entered through NCCL_PROFILER_PLUGIN/CUDA_INJECTION64_PATH only)";
constexpr std::string_view kPluginNotTold =
    "NCCL did not report them to the plugin (COLL/P2P events not activated, or a plugin context "
    "that failed to initialise)";
constexpr std::string_view kSecondNccl =
    "NCCL kernels from a second NCCL library that did not load the plugin (vLLM's PyNccl can "
    "load its own libnccl)";
// Communicators vprof finds on first use, created by a function it does not
// wrap, get an id only their process knows: no other member can match it.
constexpr std::string_view kAdoptedCommunicator = "(adopted";

std::string Count(uint64_t n, std::string_view what) {
  return std::to_string(n) + " " + std::string(what);
}

// The wrappers were in the process: it has their events, or LD_PRELOAD names
// libvprof (a process whose NCCL was all reached through a handle).
bool WrappersPreloaded(const ProcessRecord& record) {
  if (record.nccl_events > 0) return true;
  if (!record.ld_preload) return false;
  std::string_view list = *record.ld_preload;
  while (!list.empty()) {
    const size_t end = list.find_first_of(": ");
    const std::string_view entry = list.substr(0, end);
    if (std::filesystem::path(entry).filename().string().find("vprof") != std::string::npos) {
      return true;
    }
    list = end == std::string_view::npos ? std::string_view() : list.substr(end + 1);
  }
  return false;
}

std::string DroppedCause(uint64_t wrapper_events, uint64_t plugin_events, uint64_t gpu_records) {
  std::vector<std::string> parts;
  if (wrapper_events > 0) parts.push_back(Count(wrapper_events, "wrapper events"));
  if (plugin_events > 0) parts.push_back(Count(plugin_events, "plugin events"));
  if (gpu_records > 0) parts.push_back(Count(gpu_records, "CUPTI records"));
  std::string text = "records dropped (";
  for (size_t i = 0; i < parts.size(); ++i) text += (i > 0 ? ", " : "") + parts[i];
  return text + ")";
}

std::string GraphReplayCause(uint64_t graph_kernels) {
  return "CUDA graph replays (" + Count(graph_kernels, "NCCL kernels") +
         " launched by CUDA graphs: a captured collective is seen once, its replays never)";
}

// Records of one kind a process dropped: the Footer's total for the kind when
// it has one (it includes what the batches reported), else the batches' sum.
uint64_t DroppedOf(const ProcessRecord& record, const std::string& kind, uint64_t batches_sum) {
  const auto total = record.footer_dropped.find(kind);
  return total == record.footer_dropped.end() ? batches_sum : total->second;
}

std::optional<int32_t> CoverageRank(const ProcessRecord& record, const ProcessReport& process) {
  if (process.rank) return process.rank;
  if (record.header_rank) return record.header_rank;
  const NcclPluginContext* largest = nullptr;
  for (const auto& [id, context] : record.nccl_plugin.contexts) {
    if (context.described && (largest == nullptr || context.nranks > largest->nranks)) {
      largest = &context;
    }
  }
  if (largest == nullptr) return std::nullopt;
  return static_cast<int32_t>(largest->rank);
}

CoverageProcess CoverageOf(const ProcessRecord& record, const ProcessReport& process) {
  const NcclPluginRecord& plugin = record.nccl_plugin;
  CoverageProcess row;
  row.file = process.file;
  row.rank = CoverageRank(record, process);
  row.wrapper_collectives = record.wrapper_collectives;
  row.wrapper_one_rank_collectives = record.wrapper_one_rank_collectives;
  row.wrapper_p2p = record.wrapper_p2p;
  row.wrapper_p2p_collectives = record.wrapper_p2p_collectives;
  row.plugin_attached = plugin.attached();
  row.plugin_version = plugin.injection ? plugin.injection->version() : 0;
  row.plugin_collectives = plugin.coll_events;
  row.plugin_p2p = plugin.p2p_events;
  row.plugin_graph_captured = plugin.graph_captured_events;
  row.gpu_captured = record.gpu.batches > 0;
  row.nccl_kernels = record.gpu.nccl.nccl_kernels;
  row.nccl_graph_kernels = record.gpu.nccl_graph_kernels;
  row.custom_allreduce_kernels = CustomAllReduceKernels(record.gpu);
  row.ipc_calls = record.gpu.ipc_calls;
  row.peer_copies = record.gpu.peer_copies;
  // Without a Footer, dropped_events is the EventBatches' sum.
  row.dropped_wrapper_events =
      DroppedOf(record, "nccl", record.end_reason ? 0 : record.dropped_events);
  row.dropped_plugin_events = DroppedOf(record, "nccl_plugin", plugin.dropped);
  row.dropped_gpu_records = DroppedOf(record, "cupti", record.gpu.dropped_records);
  return row;
}

// Finds the gaps of one process.
class ProcessGaps {
 public:
  ProcessGaps(const ProcessRecord& record, const CoverageProcess& row,
              std::vector<CoverageGap>& gaps)
      : record_(record), row_(row), gaps_(gaps) {}

  void Find() {
    const uint64_t wrapper_calls =
        row_.wrapper_collectives + row_.wrapper_p2p + row_.wrapper_p2p_collectives;
    const uint64_t plugin_ops = row_.plugin_collectives + row_.plugin_p2p;
    if (row_.plugin_attached) {
      CompareWithPlugin(row_.wrapper_collectives, row_.plugin_collectives, "collectives");
      // All-to-all, gather and scatter reach the plugin as several P2P
      // events each: point-to-point counts cannot be compared then.
      if (row_.wrapper_p2p_collectives == 0) {
        CompareWithPlugin(row_.wrapper_p2p, row_.plugin_p2p, "point-to-point operations");
      }
      if (row_.gpu_captured && row_.nccl_kernels > plugin_ops) {
        KernelsExceed(
            "kernels_exceed_plugin", plugin_ops, "operations the plugin reported",
            {row_.dropped_plugin_events > 0 ? DroppedCause(0, row_.dropped_plugin_events, 0)
                                            : std::string(kSecondNccl)});
      }
    } else if (RanNcclWork(record_)) {
      Add("plugin_not_attached", "NCCL work without NCCL profiler-plugin events",
          {PluginNotAttachedCause(record_.nccl_plugin)});
      if (row_.gpu_captured && row_.nccl_kernels > wrapper_calls) {
        KernelsExceed("kernels_exceed_wrappers", wrapper_calls, "calls the wrappers saw",
                      {std::string(WrappersPreloaded(record_) ? kBypassedPreload : kNotPreloaded)});
      }
    }
    // Replays recorded whole hide their nodes: a captured collective's replays are in no count.
    if (row_.plugin_graph_captured > 0 && record_.gpu.graph_replays.count > 0) {
      Add("graph_replays_unseen",
          Count(row_.plugin_graph_captured, "collectives captured into CUDA graphs") + ", " +
              Count(record_.gpu.graph_replays.count, "graph replays recorded whole"),
          {"replays recorded whole (the light default): the kernels of the collectives they "
           "replay are in no count; VPROF_CUPTI_KINDS=all or a deep window counts them"});
    }
    const uint64_t dropped =
        row_.dropped_wrapper_events + row_.dropped_plugin_events + row_.dropped_gpu_records;
    if (dropped > 0) {
      Add("records_dropped", Count(dropped, "records lost to full buffers"),
          {DroppedCause(row_.dropped_wrapper_events, row_.dropped_plugin_events,
                        row_.dropped_gpu_records)});
    }
  }

 private:
  void Add(std::string kind, std::string detail, std::vector<std::string> causes) {
    CoverageGap gap;
    gap.kind = std::move(kind);
    gap.file = row_.file;
    gap.rank = row_.rank;
    gap.detail = std::move(detail);
    gap.causes = std::move(causes);
    gaps_.push_back(std::move(gap));
  }

  void CompareWithPlugin(uint64_t wrappers, uint64_t plugin, std::string_view what) {
    const std::string detail =
        "the plugin saw " + Count(plugin, what) + ", the wrappers " + std::to_string(wrappers);
    if (plugin > wrappers) {
      std::vector<std::string> causes;
      if (row_.dropped_wrapper_events > 0) {
        causes.push_back(DroppedCause(row_.dropped_wrapper_events, 0, 0));
      }
      if (plugin - wrappers > row_.dropped_wrapper_events) {
        causes.emplace_back(WrappersPreloaded(record_) ? kBypassedPreload : kNotPreloaded);
      }
      Add("plugin_exceeds_wrappers", detail, std::move(causes));
    } else if (wrappers > plugin) {
      // NCCL reports no plugin event for a collective on a one-rank communicator: when the plugin
      // reported none on such a communicator, those calls explain the difference up to their
      // number.
      const uint64_t one_rank = what == "collectives" && PluginOneRankCollectives() == 0
                                    ? row_.wrapper_one_rank_collectives
                                    : 0;
      if (wrappers - plugin <= one_rank) return;
      std::vector<std::string> causes;
      if (row_.dropped_plugin_events > 0) {
        causes.push_back(DroppedCause(0, row_.dropped_plugin_events, 0));
      }
      if (wrappers - plugin > row_.dropped_plugin_events) causes.emplace_back(kPluginNotTold);
      Add("wrappers_exceed_plugin", detail, std::move(causes));
    }
  }

  // COLL events the plugin reported on one-rank communicators.
  uint64_t PluginOneRankCollectives() const {
    uint64_t events = 0;
    for (const auto& [id, context] : record_.nccl_plugin.contexts) {
      if (context.nranks != 1) continue;
      for (const auto& [function, counts] : context.ops) events += counts.coll;
    }
    return events;
  }

  // More NCCL kernels than operations `seen` explains: graph replays first,
  // then `otherwise` for what they do not cover.
  void KernelsExceed(std::string kind, uint64_t seen, std::string_view seen_what,
                     std::vector<std::string> otherwise) {
    const uint64_t excess = row_.nccl_kernels - seen;
    std::vector<std::string> causes;
    if (row_.nccl_graph_kernels > 0) causes.push_back(GraphReplayCause(row_.nccl_graph_kernels));
    if (excess > row_.nccl_graph_kernels) {
      causes.insert(causes.end(), otherwise.begin(), otherwise.end());
    }
    Add(std::move(kind), Count(row_.nccl_kernels, "NCCL kernels") + ", " + Count(seen, seen_what),
        std::move(causes));
  }

  const ProcessRecord& record_;
  const CoverageProcess& row_;
  std::vector<CoverageGap>& gaps_;
};

std::string AbsentCause(uint32_t missing, const std::string& comm) {
  return "vprof absent from " + std::to_string(missing) + " process(es) of communicator " + comm;
}

// Communicators as the wrappers saw them: a member without a trace.
void AddWrapperCommunicatorGaps(const std::vector<CommunicatorReport>& communicators,
                                std::vector<CoverageGap>& gaps) {
  for (const CommunicatorReport& comm : communicators) {
    if (comm.created_by.starts_with(kAdoptedCommunicator)) continue;
    if (comm.ranks_seen.size() >= comm.size) continue;
    const uint32_t missing = comm.size - static_cast<uint32_t>(comm.ranks_seen.size());
    CoverageGap gap;
    gap.kind = "processes_missing";
    gap.comm_id = FormatHexId(comm.comm_id);
    gap.comm_id_source = "vprof";
    gap.detail = "size " + std::to_string(comm.size) + ", " +
                 std::to_string(comm.ranks_seen.size()) + " members traced";
    gap.causes = {AbsentCause(missing, gap.comm_id)};
    gaps.push_back(std::move(gap));
  }
}

// Communicators as NCCL described them to the plugin (by commHash, which
// every member shares): a member without a trace.
void AddPluginCommunicatorGaps(const std::vector<ProcessRecord>& records,
                               std::vector<CoverageGap>& gaps) {
  struct Members {
    uint32_t nranks = 0;
    std::string name;
    std::set<uint32_t> ranks;
  };
  std::map<uint64_t, Members> by_hash;
  for (const ProcessRecord& record : records) {
    for (const auto& [id, context] : record.nccl_plugin.contexts) {
      if (!context.described) continue;
      Members& members = by_hash[context.comm_hash];
      members.nranks = std::max(members.nranks, context.nranks);
      if (members.name.empty()) members.name = context.name;
      members.ranks.insert(context.rank);
    }
  }
  for (const auto& [hash, members] : by_hash) {
    if (members.ranks.size() >= members.nranks) continue;
    const uint32_t missing = members.nranks - static_cast<uint32_t>(members.ranks.size());
    CoverageGap gap;
    gap.kind = "processes_missing";
    gap.comm_id = FormatHexId(hash);
    gap.comm_id_source = "nccl";
    gap.comm_name = members.name;
    gap.detail = "nranks " + std::to_string(members.nranks) + ", " +
                 std::to_string(members.ranks.size()) + " members traced";
    gap.causes = {AbsentCause(
        missing, gap.comm_id + (members.name.empty() ? std::string() : " (" + members.name + ")"))};
    gaps.push_back(std::move(gap));
  }
}

}  // namespace

bool RanNcclWork(const ProcessRecord& record) {
  return record.wrapper_collectives + record.wrapper_p2p + record.wrapper_p2p_collectives > 0 ||
         record.nccl_plugin.coll_events + record.nccl_plugin.p2p_events > 0 ||
         record.gpu.nccl.nccl_kernels > 0;
}

bool TakesPartInCommunication(const ProcessRecord& record) {
  return RanNcclWork(record) || record.nccl_events > 0 || !record.nccl_plugin.contexts.empty() ||
         CustomAllReduceKernels(record.gpu).count > 0 || !record.gpu.ipc_calls.empty() ||
         record.gpu.peer_copies.count > 0;
}

bool AnyPluginStatus(const std::vector<ProcessRecord>& records) {
  return std::any_of(records.begin(), records.end(),
                     [](const ProcessRecord& record) { return record.nccl_plugin.has_status(); });
}

ActivityTotals CustomAllReduceKernels(const GpuRecord& gpu) {
  ActivityTotals totals;
  for (const auto& [name, kernels] : gpu.kernels_by_name) {
    if (KernelClassOf(name) != kCustomAllReduceKernelClass) continue;
    totals.count += kernels.count;
    totals.total_ns += kernels.total_ns;
  }
  return totals;
}

std::string PluginNotAttachedCause(const NcclPluginRecord& plugin) {
  std::string text = "NCCL profiler plugin not attached: ";
  if (!plugin.injection) {
    return text + "the trace holds no status of the NCCL_PROFILER_PLUGIN hook";
  }
  const vprof::trace::InjectionStatus& status = *plugin.injection;
  text += status.detail().empty() ? "NCCL never called it" : status.detail();
  if (!status.found().empty()) {
    text += "; NCCL_PROFILER_PLUGIN was '" + status.found() + "' (another tool's)";
  } else if (!status.claimed()) {
    text += "; NCCL_PROFILER_PLUGIN was not set to vprof";
  }
  return text;
}

CoverageReport CheckCoverage(const std::vector<ProcessRecord>& records,
                             const std::vector<ProcessReport>& processes,
                             const std::vector<CommunicatorReport>& communicators) {
  CoverageReport report;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!TakesPartInCommunication(records[i])) continue;
    report.processes.push_back(CoverageOf(records[i], processes[i]));
    ProcessGaps(records[i], report.processes.back(), report.gaps).Find();
  }
  AddWrapperCommunicatorGaps(communicators, report.gaps);
  AddPluginCommunicatorGaps(records, report.gaps);
  return report;
}

}  // namespace vprof::reporter
