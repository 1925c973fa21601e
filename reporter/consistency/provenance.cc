#include "reporter/consistency/provenance.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <tuple>

#include "reporter/base/fingerprint.h"
#include "reporter/consistency/actual_layout.h"
#include "reporter/consistency/coverage.h"
#include "reporter/consistency/nccl_selection.h"

namespace vprof::reporter {
namespace {

// NCCL_* variables that change what NCCL prints or how it is reached, not how
// it moves data; they stay out of what a run requested (and its fingerprint).
// NCCL_ASYNC_ERROR_HANDLING, NCCL_BLOCKING_WAIT and NCCL_DESYNC_DEBUG are
// PyTorch's older names for its own watchdog settings. NCCL_VERSION is what a
// container image (NVIDIA's) records of the NCCL it ships, not a setting.
constexpr std::string_view kNotRequests[] = {"NCCL_DEBUG",
                                             "NCCL_DEBUG_FILE",
                                             "NCCL_DEBUG_SUBSYS",
                                             "NCCL_DEBUG_TIMESTAMP_FORMAT",
                                             "NCCL_DEBUG_TIMESTAMP_LEVELS",
                                             "NCCL_PROFILER_PLUGIN",
                                             "NCCL_COMM_ID",
                                             "NCCL_ASYNC_ERROR_HANDLING",
                                             "NCCL_BLOCKING_WAIT",
                                             "NCCL_DESYNC_DEBUG",
                                             "NCCL_VERSION"};

constexpr std::string_view kEvidenceAxis = "evidence";

bool IsRequest(std::string_view name) {
  return std::find(std::begin(kNotRequests), std::end(kNotRequests), name) ==
         std::end(kNotRequests);
}

const std::string* EnvOf(const ProcessRecord& record, const std::string& name) {
  const auto found = record.nccl_env.find(name);
  return found == record.nccl_env.end() ? nullptr : &found->second;
}

std::optional<uint32_t> UnsignedOf(const std::string* text) {
  uint32_t value = 0;
  if (text == nullptr) return std::nullopt;
  const auto parsed = std::from_chars(text->data(), text->data() + text->size(), value);
  if (parsed.ec != std::errc() || parsed.ptr != text->data() + text->size()) return std::nullopt;
  return value;
}

std::string Joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

std::string ChannelRangeText(const std::optional<uint32_t>& min,
                             const std::optional<uint32_t>& max) {
  if (min && max) return std::to_string(*min) + ".." + std::to_string(*max) + " channels";
  if (min) return "≥ " + std::to_string(*min) + " channels";
  return "≤ " + std::to_string(*max) + " channels";
}

// Mismatches summed over processes, keyed by what they are.
class MismatchTable {
 public:
  explicit MismatchTable(const std::set<ConsistencyAxis>& declared_fallbacks)
      : declared_fallbacks_(declared_fallbacks) {}

  // A difference along `axis`: a declared fallback when the contract names
  // the axis, else an undeclared one.
  void Fallback(ConsistencyAxis axis, std::string source, std::string requested, std::string actual,
                uint64_t count, size_t process) {
    const bool declared = declared_fallbacks_.contains(axis);
    Add(std::string(ConsistencyAxisName(axis)),
        declared ? "declared_fallback" : "undeclared_fallback", std::move(source),
        std::move(requested), std::move(actual), count, process);
  }

  void Add(std::string axis, std::string kind, std::string source, std::string requested,
           std::string actual, uint64_t count, std::optional<size_t> process) {
    Totals& totals = rows_[{std::move(axis), std::move(kind), std::move(source),
                            std::move(requested), std::move(actual)}];
    totals.count += count;
    if (process) totals.processes.insert(*process);
  }

  std::vector<ConsistencyMismatch> Result() const {
    std::vector<ConsistencyMismatch> mismatches;
    for (const auto& [key, totals] : rows_) {
      const auto& [axis, kind, source, requested, actual] = key;
      mismatches.push_back({axis, kind, source, requested, actual, totals.count,
                            static_cast<uint32_t>(totals.processes.size()),
                            kind != "declared_fallback"});
    }
    std::stable_sort(mismatches.begin(), mismatches.end(),
                     [](const ConsistencyMismatch& a, const ConsistencyMismatch& b) {
                       return a.violation > b.violation;
                     });
    return mismatches;
  }

 private:
  // (axis, kind, source, requested, actual)
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  struct Totals {
    uint64_t count = 0;
    std::set<size_t> processes;
  };
  const std::set<ConsistencyAxis>& declared_fallbacks_;
  std::map<Key, Totals> rows_;
};

// One process held to its own environment.
void CheckAgainstEnvironment(const ProcessRecord& record, size_t process, MismatchTable& table) {
  const std::string* algo = EnvOf(record, "NCCL_ALGO");
  const std::string* proto = EnvOf(record, "NCCL_PROTO");
  const std::string* nvls = EnvOf(record, "NCCL_NVLS_ENABLE");
  const std::string* collnet = EnvOf(record, "NCCL_COLLNET_ENABLE");
  const std::optional<uint32_t> max_channels = UnsignedOf(EnvOf(record, "NCCL_MAX_NCHANNELS"));
  const std::optional<NcclSelection> algos =
      algo ? std::optional(NcclSelection::Parse(*algo)) : std::nullopt;
  const std::optional<NcclSelection> protos =
      proto ? std::optional(NcclSelection::Parse(*proto)) : std::nullopt;
  for (const auto& [use, count] : record.nccl_plugin.algorithms) {
    const std::string algorithm = NormalizeNcclName(use.algo);
    if (algos && !algos->Allows(use.func, use.algo)) {
      table.Fallback(ConsistencyAxis::kNcclAlgo, "NCCL_ALGO", *algo, use.func + " " + use.algo,
                     count, process);
    }
    if (nvls && *nvls == "0" && (algorithm == "NVLS" || algorithm == "NVLSTREE")) {
      table.Fallback(ConsistencyAxis::kNcclAlgo, "NCCL_NVLS_ENABLE", "0 (NVLS off)",
                     use.func + " " + use.algo, count, process);
    }
    if (collnet && *collnet == "0" && algorithm.starts_with("COLLNET")) {
      table.Fallback(ConsistencyAxis::kNcclAlgo, "NCCL_COLLNET_ENABLE", "0 (CollNet off)",
                     use.func + " " + use.algo, count, process);
    }
    if (protos && !protos->Allows(use.func, use.proto)) {
      table.Fallback(ConsistencyAxis::kNcclProto, "NCCL_PROTO", *proto, use.func + " " + use.proto,
                     count, process);
    }
    // NCCL_MIN_NCHANNELS is not checked: NCCL uses fewer channels than that
    // for small messages by design.
    if (max_channels && use.channels > *max_channels) {
      table.Fallback(ConsistencyAxis::kNcclChannels, "NCCL_MAX_NCHANNELS",
                     ChannelRangeText(std::nullopt, max_channels),
                     use.func + " on " + std::to_string(use.channels) + " channels", count,
                     process);
    }
  }
}

// One process held to the contract's NCCL declarations.
void CheckAgainstContract(const ProcessRecord& record, size_t process, const RunContract& contract,
                          MismatchTable& table) {
  for (const auto& [use, count] : record.nccl_plugin.algorithms) {
    if (!contract.nccl_algorithms.empty() &&
        !contract.nccl_algorithms.contains(NormalizeNcclName(use.algo))) {
      table.Fallback(ConsistencyAxis::kNcclAlgo, "contract nccl.algorithms",
                     Joined(contract.nccl_algorithms), use.func + " " + use.algo, count, process);
    }
    if (!contract.nccl_protocols.empty() &&
        !contract.nccl_protocols.contains(NormalizeNcclName(use.proto))) {
      table.Fallback(ConsistencyAxis::kNcclProto, "contract nccl.protocols",
                     Joined(contract.nccl_protocols), use.func + " " + use.proto, count, process);
    }
    if ((contract.min_channels && use.channels < *contract.min_channels) ||
        (contract.max_channels && use.channels > *contract.max_channels)) {
      table.Fallback(ConsistencyAxis::kNcclChannels, "contract nccl.channels",
                     ChannelRangeText(contract.min_channels, contract.max_channels),
                     use.func + " on " + std::to_string(use.channels) + " channels", count,
                     process);
    }
    if (contract.all_reduce_backend == AllReduceBackend::kCustomAllReduce &&
        NormalizeNcclName(use.func) == "ALLREDUCE") {
      table.Fallback(ConsistencyAxis::kAllReduceBackend, "contract all_reduce_backend",
                     "custom_allreduce", "AllReduce on NCCL", count, process);
    }
  }
}

// vLLM's custom all-reduce: forbidden unless the contract allows it (a run
// without a contract allows it except in strict mode); a switch away from a
// declared NCCL backend otherwise.
void CheckCustomAllReduce(const ProcessRecord& record, size_t process,
                          const std::optional<RunContract>& contract, ConsistencyMode mode,
                          MismatchTable& table) {
  const uint64_t kernels = CustomAllReduceKernels(record.gpu).count;
  if (kernels == 0) return;
  const bool allowed =
      contract ? contract->custom_allreduce_allowed : mode != ConsistencyMode::kStrict;
  if (!allowed) {
    table.Add(std::string(ConsistencyAxisName(ConsistencyAxis::kAllReduceBackend)), "not_allowed",
              contract ? "contract custom_allreduce_allowed" : "strict mode",
              "no custom all-reduce", "custom all-reduce kernels", kernels, process);
  } else if (contract && contract->all_reduce_backend == AllReduceBackend::kNccl) {
    table.Fallback(ConsistencyAxis::kAllReduceBackend, "contract all_reduce_backend", "nccl",
                   "custom all-reduce kernels", kernels, process);
  }
}

// Strict runs fail closed: a process whose NCCL work no plugin event shows
// cannot be shown to have run as requested; with no plugin evidence at all,
// nothing can.
void CheckEvidence(const std::vector<ProcessRecord>& records,
                   const std::vector<size_t>& communicating, MismatchTable& table) {
  const std::string requested = "NCCL profiler-plugin events";
  const bool any = std::any_of(communicating.begin(), communicating.end(),
                               [&](size_t i) { return records[i].nccl_plugin.attached(); });
  if (communicating.empty()) {
    table.Add(std::string(kEvidenceAxis), "no_evidence", "strict mode", requested,
              "no traced process took part in communication", 0, std::nullopt);
  }
  for (const size_t i : communicating) {
    const NcclPluginRecord& plugin = records[i].nccl_plugin;
    if (plugin.attached() || (any && !RanNcclWork(records[i]))) continue;
    table.Add(std::string(kEvidenceAxis), "no_evidence", "strict mode", requested,
              PluginNotAttachedCause(plugin), 0, i);
  }
}

std::vector<RequestedSetting> RequestedEnvironment(const std::vector<ProcessRecord>& records,
                                                   const std::vector<size_t>& communicating) {
  std::map<std::string, std::pair<std::set<std::string>, uint32_t>> settings;
  for (const size_t i : communicating) {
    for (const auto& [name, value] : records[i].nccl_env) {
      if (!IsRequest(name)) continue;
      auto& [values, processes] = settings[name];
      values.insert(value);
      ++processes;
    }
  }
  std::vector<RequestedSetting> requested;
  for (const auto& [name, setting] : settings) {
    const auto& [values, processes] = setting;
    requested.push_back({name,
                         {values.begin(), values.end()},
                         processes,
                         static_cast<uint32_t>(communicating.size()) - processes});
  }
  return requested;
}

// {"contract": …, "nccl_env": {"NCCL_ALGO": ["Ring"], …}}; a variable some
// processes did not set lists null after its values.
JsonNode RequestedJson(const ConsistencyReport& report) {
  JsonNode env = JsonNode::EmptyObject();
  for (const RequestedSetting& setting : report.requested_env) {
    JsonNode values = JsonNode::EmptyArray();
    for (const std::string& value : setting.values) values.Append(JsonNode::Text(value));
    if (setting.processes_unset > 0) values.Append(JsonNode());
    env.Set(setting.name, std::move(values));
  }
  return JsonNode::EmptyObject()
      .Set("contract", report.contract.value_or(JsonNode()))
      .Set("nccl_env", std::move(env));
}

// {"custom_allreduce": …, "nccl": [{"algo", "channels", "func", "proto"}, …],
// "plugin_evidence": …}: which ways of communicating ran, not how often.
JsonNode ActualJson(const ConsistencyReport& report) {
  JsonNode uses = JsonNode::EmptyArray();
  for (const auto& [use, count] : report.actual_algorithms) {
    uses.Append(JsonNode::EmptyObject()
                    .Set("func", JsonNode::Text(use.func))
                    .Set("algo", JsonNode::Text(use.algo))
                    .Set("proto", JsonNode::Text(use.proto))
                    .Set("channels", JsonNode::Integer(use.channels)));
  }
  return JsonNode::EmptyObject()
      .Set("collectives", CollectiveShapesJson(report.collective_shapes))
      .Set("custom_allreduce", JsonNode::Boolean(report.custom_allreduce_kernels.count > 0))
      .Set("nccl", std::move(uses))
      .Set("placement", PlacementJson(report.placement))
      .Set("plugin_evidence", JsonNode::Boolean(report.plugin_processes > 0));
}

}  // namespace

ConsistencyReport CompareRequestedWithActual(const std::vector<ProcessRecord>& records,
                                             const std::vector<ProcessReport>& processes,
                                             const ConsistencyOptions& options) {
  ConsistencyReport report;
  const std::optional<RunContract>& contract = options.contract;
  report.mode = options.strict ? ConsistencyMode::kStrict
                : contract     ? contract->consistency
                               : ConsistencyMode::kAuto;
  report.mode_source = options.strict ? "flag" : contract ? "contract" : "default";
  if (contract) {
    report.contract_file = contract->file;
    report.contract = contract->ToJson();
  }

  std::vector<size_t> communicating;
  for (size_t i = 0; i < records.size(); ++i) {
    if (TakesPartInCommunication(records[i])) communicating.push_back(i);
  }
  report.communication_processes = static_cast<uint32_t>(communicating.size());
  for (const size_t i : communicating) {
    const ProcessRecord& record = records[i];
    if (record.nccl_plugin.attached()) ++report.plugin_processes;
    for (const auto& [use, count] : record.nccl_plugin.algorithms) {
      report.actual_algorithms[use] += count;
    }
    const ActivityTotals custom = CustomAllReduceKernels(record.gpu);
    report.custom_allreduce_kernels.count += custom.count;
    report.custom_allreduce_kernels.total_ns += custom.total_ns;
  }
  report.requested_env = RequestedEnvironment(records, communicating);
  report.requested_fingerprint = Fingerprint(RequestedJson(report));
  report.collective_shapes =
      CollectiveShapesOf(records, processes, communicating, report.collective_calls_left_out);
  report.placement = PlacementOf(records, processes, communicating);
  report.actual_fingerprint = Fingerprint(ActualJson(report));
  if (report.mode == ConsistencyMode::kOff) return report;

  static const std::set<ConsistencyAxis> kNoFallbacks;
  MismatchTable table(contract ? contract->fallback_axes : kNoFallbacks);
  for (const size_t i : communicating) {
    CheckAgainstEnvironment(records[i], i, table);
    if (contract) CheckAgainstContract(records[i], i, *contract, table);
    CheckCustomAllReduce(records[i], i, contract, report.mode, table);
  }
  if (report.mode == ConsistencyMode::kStrict) CheckEvidence(records, communicating, table);
  report.mismatches = table.Result();
  report.violations = static_cast<uint64_t>(
      std::count_if(report.mismatches.begin(), report.mismatches.end(),
                    [](const ConsistencyMismatch& mismatch) { return mismatch.violation; }));
  return report;
}

}  // namespace vprof::reporter
