#include "reporter/diff/report_sections.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "reporter/model/report_figures.h"
#include "reporter/render/json/json_keys.h"

namespace vprof::reporter {

namespace keys = json_keys;

namespace {

// Reports of other versions or of analyses still being written may lack any
// key: every read below treats a missing key, a null and a value of another
// type alike, as absent.
const JsonNode* Member(const JsonNode& node, std::string_view key) {
  if (node.type() != JsonNode::Type::kObject) return nullptr;
  const auto found = node.object().find(std::string(key));
  if (found == node.object().end() || found->second.type() == JsonNode::Type::kNull) {
    return nullptr;
  }
  return &found->second;
}

const JsonNode::Array* ArrayAt(const JsonNode& node, std::string_view key) {
  const JsonNode* member = Member(node, key);
  return member && member->type() == JsonNode::Type::kArray ? &member->array() : nullptr;
}

std::optional<double> NumberAt(const JsonNode& node, std::string_view key) {
  const JsonNode* member = Member(node, key);
  if (!member || member->type() != JsonNode::Type::kNumber) return std::nullopt;
  return member->number();
}

std::optional<std::string> TextAt(const JsonNode& node, std::string_view key) {
  const JsonNode* member = Member(node, key);
  if (!member || member->type() != JsonNode::Type::kString) return std::nullopt;
  return member->text();
}

// Processes are matched by rank: file names hold pids, which differ between
// runs. A process without a rank keeps its file name.
std::string ProcessName(const JsonNode& process) {
  if (const std::optional<double> rank = NumberAt(process, kRankKey)) {
    return "rank " + std::to_string(static_cast<int64_t>(*rank));
  }
  return "file " + TextAt(process, kFileKey).value_or("?");
}

// Items in the order added; a name met again gets " #2", " #3", so that the
// n-th of a kind in one run meets the n-th in the other.
class ItemList {
 public:
  SideItem& Add(const std::string& name) {
    const int seen = ++seen_[name];
    items_.push_back({seen == 1 ? name : name + " #" + std::to_string(seen), {}});
    return items_.back();
  }
  std::vector<SideItem> Take() { return std::move(items_); }

 private:
  std::vector<SideItem> items_;
  std::map<std::string, int> seen_;
};

void AddNumber(SideItem& item, const JsonNode& node, std::string_view key, FigureUnit unit) {
  if (const std::optional<double> value = NumberAt(node, key)) {
    item.metrics.push_back({std::string(key), unit, *value});
  }
}

void AddText(SideItem& item, std::string_view name, std::string text) {
  item.metrics.push_back({std::string(name), FigureUnit::kText, std::move(text)});
}

struct KeyUnit {
  std::string_view key;
  FigureUnit unit;
};

void AddNumbers(SideItem& item, const JsonNode& node, const std::vector<KeyUnit>& keys) {
  for (const KeyUnit& key : keys) AddNumber(item, node, key.key, key.unit);
}

// The step ledger: the mean step, and each cause per step by its name
// ("waiting for rank 3 at gradient buckets in backward").
SideSection ReadLedger(const JsonNode& report) {
  const JsonNode* steps = Member(report, keys::report::kSteps);
  const JsonNode* ledger = steps ? Member(*steps, keys::steps::kLedger) : nullptr;
  if (!ledger) return std::nullopt;
  ItemList items;
  AddFigures<StepsLedger>(items.Add(std::string(kMeanStepItem)), *ledger, kLedgerFigures);
  if (const JsonNode::Array* lines = ArrayAt(*ledger, keys::ledger::kLines)) {
    for (const JsonNode& line : *lines) {
      const std::optional<std::string> name = TextAt(line, keys::ledger::kName);
      if (!name) continue;
      AddNumber(items.Add(*name), line, keys::ledger::kPerStepNs, FigureUnit::kNs);
    }
  }
  return items.Take();
}

SideSection ReadPhases(const JsonNode& report) {
  const JsonNode::Array* processes = ArrayAt(report, keys::report::kPhases);
  if (!processes) return std::nullopt;
  ItemList items;
  for (const JsonNode& process : *processes) {
    const std::string who = ProcessName(process);
    AddFigures<ProcessPhasesReport>(items.Add(who + ": all ranges"), process,
                                    kProcessPhasesFigures);
    const JsonNode::Array* phases = ArrayAt(process, keys::process_phases::kPhases);
    for (const JsonNode& phase : phases ? *phases : JsonNode::Array{}) {
      const JsonNode* unmatched = Member(phase, KeyOf(kPhaseFigures, &PhaseReport::unmatched));
      const bool is_unmatched =
          unmatched && unmatched->type() == JsonNode::Type::kBool && unmatched->boolean();
      SideItem& item = items.Add(
          who + ": " + TextAt(phase, KeyOf(kPhaseFigures, &PhaseReport::name)).value_or("?") +
          (is_unmatched ? " (unmatched)" : ""));
      AddFigures<PhaseReport>(item, phase, kPhaseFigures);
    }
  }
  return items.Take();
}

SideSection ReadSteps(const JsonNode& report) {
  const JsonNode* steps = Member(report, keys::report::kSteps);
  if (!steps) return std::nullopt;
  ItemList items;
  SideItem& run = items.Add("all ranks");
  if (std::optional<std::string> window = TextAt(*steps, keys::steps::kWindow)) {
    AddText(run, keys::steps::kWindow, std::move(*window));
  }
  AddNumber(run, *steps, keys::steps::kMedianStepNs, FigureUnit::kNs);
  if (std::optional<std::string> problem = TextAt(*steps, keys::steps::kProblem);
      problem && !problem->empty()) {
    AddText(run, keys::steps::kProblem, std::move(*problem));
  }
  const JsonNode::Array* ranks = ArrayAt(*steps, keys::steps::kRanks);
  for (const JsonNode& rank : ranks ? *ranks : JsonNode::Array{}) {
    SideItem& item = items.Add(ProcessName(rank));
    if (const JsonNode* total = Member(rank, keys::rank_steps::kTotal)) {
      AddFigures<SegmentTimes>(item, *total, kSegmentFigures);
    }
  }
  return items.Take();
}

// Per rank: the GPU's memory in use as sampled (peak, low, headroom), the
// allocation calls in the measured steps, and, where MEMORY2 was recorded,
// the most held from CUDA in any measured step; per rank and phase, the most
// and least held and the sampled peak in its spans.
SideSection ReadMemory(const JsonNode& report) {
  const JsonNode* steps = Member(report, keys::report::kSteps);
  const JsonNode::Array* ranks = steps ? ArrayAt(*steps, keys::steps::kRanks) : nullptr;
  if (!ranks) return std::nullopt;
  ItemList items;
  for (const JsonNode& rank : *ranks) {
    SideItem& item = items.Add(ProcessName(rank));
    if (const JsonNode* device = Member(rank, keys::device_memory::kDeviceMemory)) {
      AddNumbers(
          item, *device,
          {{KeyOf(kSampledMemoryFigures, &SampledDeviceMemory::peak_used_bytes),
            FigureUnit::kBytes},
           {KeyOf(kSampledMemoryFigures, &SampledDeviceMemory::low_used_bytes), FigureUnit::kBytes},
           {keys::device_memory::kHeadroomBytes, FigureUnit::kBytes}});
    }
    if (std::optional<std::string> why = TextAt(rank, keys::rank_steps::kMemoryUnavailable);
        why && !why->empty()) {
      AddText(item, keys::rank_steps::kMemoryUnavailable, std::move(*why));
    }
    AddNumbers(item, rank,
               {{keys::rank_steps::kAllocationCalls, FigureUnit::kCount},
                {keys::rank_steps::kAllocationCallNs, FigureUnit::kNs}});
    constexpr std::string_view kToHost = KeyOf(kStepTransferFigures, &StepTransfers::to_host_bytes);
    constexpr std::string_view kToDevice =
        KeyOf(kStepTransferFigures, &StepTransfers::to_device_bytes);
    double to_host = 0, to_device = 0;
    bool moved = false;
    std::optional<double> held;
    for (const JsonNode& step : ArrayAt(rank, keys::rank_steps::kSteps)
                                    ? *ArrayAt(rank, keys::rank_steps::kSteps)
                                    : JsonNode::Array{}) {
      const JsonNode* memory = Member(step, keys::rank_step::kMemory);
      const std::optional<double> peak =
          memory ? NumberAt(*memory, KeyOf(kStepMemoryFigures, &StepMemory::peak_bytes))
                 : std::nullopt;
      if (peak && (!held || *peak > *held)) held = peak;
      if (const JsonNode* transfers = Member(step, keys::rank_step::kTransfers)) {
        moved = true;
        to_host += NumberAt(*transfers, kToHost).value_or(0);
        to_device += NumberAt(*transfers, kToDevice).value_or(0);
      }
    }
    if (moved) {
      item.metrics.push_back({std::string(kToHost), FigureUnit::kBytes, to_host});
      item.metrics.push_back({std::string(kToDevice), FigureUnit::kBytes, to_device});
    }
    if (held) item.metrics.push_back({"peak_held_bytes", FigureUnit::kBytes, *held});
    const std::string who = ProcessName(rank);
    for (const JsonNode& phase : ArrayAt(rank, keys::rank_steps::kPhaseMemory)
                                     ? *ArrayAt(rank, keys::rank_steps::kPhaseMemory)
                                     : JsonNode::Array{}) {
      std::string name = who + ": " + TextAt(phase, keys::phase_memory::kPhase).value_or("?");
      if (const JsonNode* nvtx = Member(phase, keys::phase_memory::kFromNvtx);
          nvtx && !nvtx->boolean()) {
        name += " (inferred)";
      }
      SideItem& phase_item = items.Add(name);
      if (const JsonNode* in_phase = Member(phase, keys::phase_memory::kHeld)) {
        AddNumbers(phase_item, *in_phase,
                   {{keys::phase_memory::kPeakBytes, FigureUnit::kBytes},
                    {keys::phase_memory::kLowBytes, FigureUnit::kBytes}});
      }
      if (const JsonNode* sampled = Member(phase, keys::device_memory::kDeviceMemory)) {
        AddNumbers(phase_item, *sampled,
                   {{KeyOf(kSampledMemoryFigures, &SampledDeviceMemory::peak_used_bytes),
                     FigureUnit::kBytes}});
      }
    }
  }
  return items.Take();
}

SideSection ReadCandidates(const JsonNode& report) {
  const JsonNode::Array* candidates = ArrayAt(report, keys::report::kCandidates);
  if (!candidates) return std::nullopt;
  ItemList items;
  for (const JsonNode& candidate : *candidates) {
    std::string name =
        TextAt(candidate, KeyOf(kCandidateFigures, &CandidateReport::kind)).value_or("?");
    if (std::optional<std::string> change =
            TextAt(candidate, KeyOf(kCandidateFigures, &CandidateReport::change));
        change && !change->empty()) {
      name += " (" + *change + ")";
    }
    SideItem& item = items.Add(name);
    AddFigures<CandidateReport>(item, candidate, kCandidateFigures);
    AddFigures<CandidateReport>(item, candidate, kCandidateRuleFigures);
  }
  return items.Take();
}

// One op row summed over the communicators of one size: comm ids differ
// between runs, sizes do not. Sums are exact; means are weighted by count,
// bandwidths recomputed from the summed bytes and times (as a row's are).
struct OpTotals {
  std::set<std::string> communicators;
  double count = 0;
  double total_time_ns = 0;
  double total_bytes = 0;
  double bus_factor = 1;
  double skew_sum_ns = 0;  // arrival skew mean × count, summed
  double skew_max_ns = 0;
  std::map<int64_t, double> last_times;  // rank → times it arrived last
};

std::string MostOftenLast(const std::map<int64_t, double>& last_times) {
  const auto most =
      std::max_element(last_times.begin(), last_times.end(),
                       [](const auto& x, const auto& y) { return x.second < y.second; });
  if (most == last_times.end()) return "none";
  return "rank " + std::to_string(most->first) + " (" +
         std::to_string(static_cast<int64_t>(most->second)) + "×)";
}

SideSection ReadCommunication(const JsonNode& report) {
  const JsonNode::Array* communicators = ArrayAt(report, keys::report::kCommunicators);
  if (!communicators) return std::nullopt;
  // (size, order of first appearance) → row, so rows keep the report's op order.
  std::map<std::tuple<int64_t, size_t>, OpTotals> rows;
  std::map<std::tuple<int64_t, std::string>, size_t> order;
  for (const JsonNode& comm : *communicators) {
    const int64_t size =
        static_cast<int64_t>(NumberAt(comm, keys::communicator::kSize).value_or(0));
    const std::string comm_id = TextAt(comm, keys::communicator::kCommId).value_or("");
    const JsonNode::Array* ops = ArrayAt(comm, keys::communicator::kOps);
    for (const JsonNode& op : ops ? *ops : JsonNode::Array{}) {
      const JsonNode* bucket = Member(op, keys::op::kSizeBucket);
      const std::string name =
          TextAt(op, keys::op::kOp).value_or("?") + " " +
          (bucket ? TextAt(*bucket, keys::op::kBucketLabel).value_or("?") : "?");
      const auto [at, added] = order.try_emplace({size, name}, order.size());
      OpTotals& row = rows[{size, at->second}];
      row.communicators.insert(comm_id);
      const double count = NumberAt(op, keys::op::kCount).value_or(0);
      row.count += count;
      row.total_time_ns += NumberAt(op, keys::op::kTotalTimeNs).value_or(0);
      row.total_bytes += NumberAt(op, keys::op::kTotalBytes).value_or(0);
      row.bus_factor = NumberAt(op, keys::op::kBusFactor).value_or(row.bus_factor);
      row.skew_sum_ns += NumberAt(op, keys::op::kArrivalSkewMeanNs).value_or(0) * count;
      row.skew_max_ns =
          std::max(row.skew_max_ns, NumberAt(op, keys::op::kArrivalSkewMaxNs).value_or(0));
      if (const JsonNode* last = Member(op, keys::op::kMostOftenLast)) {
        if (const std::optional<double> rank = NumberAt(*last, keys::op::kLastRank)) {
          row.last_times[static_cast<int64_t>(*rank)] +=
              NumberAt(*last, keys::op::kLastTimes).value_or(0);
        }
      }
    }
  }
  std::vector<std::string> names(order.size());
  for (const auto& [key, index] : order) names[index] = std::get<1>(key);
  ItemList items;
  for (const auto& [key, row] : rows) {
    SideItem& item =
        items.Add("size " + std::to_string(std::get<0>(key)) + ": " + names[std::get<1>(key)]);
    auto add = [&](std::string_view metric, FigureUnit unit, double value) {
      item.metrics.push_back({std::string(metric), unit, value});
    };
    add("communicators", FigureUnit::kCount, static_cast<double>(row.communicators.size()));
    add("count", FigureUnit::kCount, row.count);
    add("total_bytes", FigureUnit::kBytes, row.total_bytes);
    if (row.count > 0) {
      add("mean_time_ns", FigureUnit::kNs, std::round(row.total_time_ns / row.count));
      add("arrival_skew_mean_ns", FigureUnit::kNs, std::round(row.skew_sum_ns / row.count));
    }
    add("arrival_skew_max_ns", FigureUnit::kNs, row.skew_max_ns);
    // Bytes per ns is GB/s (1 GB/s = 10⁹ B/s).
    if (row.total_time_ns > 0) {
      add("algbw_gbps", FigureUnit::kGbps, row.total_bytes / row.total_time_ns);
      add("busbw_gbps", FigureUnit::kGbps, row.total_bytes / row.total_time_ns * row.bus_factor);
    }
    AddText(item, keys::op::kMostOftenLast, MostOftenLast(row.last_times));
  }
  return items.Take();
}

SideSection ReadLateness(const JsonNode& report) {
  const JsonNode::Array* ranks = ArrayAt(report, keys::report::kRanks);
  if (!ranks) return std::nullopt;
  ItemList items;
  for (const JsonNode& rank : *ranks) {
    AddFigures<RankReport>(items.Add(ProcessName(rank)), rank, kRankFigures);
  }
  return items.Take();
}

SideSection ReadKernelClasses(const JsonNode& report) {
  const JsonNode::Array* processes = ArrayAt(report, keys::report::kProcesses);
  if (!processes) return std::nullopt;
  ItemList items;
  for (const JsonNode& process : *processes) {
    const JsonNode* gpu = Member(process, keys::process::kGpu);
    const JsonNode::Array* classes = gpu ? ArrayAt(*gpu, keys::gpu::kKernelClasses) : nullptr;
    for (const JsonNode& kernel_class : classes ? *classes : JsonNode::Array{}) {
      AddFigures<KernelClassReport>(
          items.Add(
              ProcessName(process) + ": " +
              TextAt(kernel_class, KeyOf(kKernelClassFigures, &KernelClassReport::kernel_class))
                  .value_or("?")),
          kernel_class, kKernelClassFigures);
    }
  }
  return items.Take();
}

std::string YesNo(const JsonNode& node, std::string_view key) {
  const JsonNode* member = Member(node, key);
  if (!member || member->type() != JsonNode::Type::kBool) return "?";
  return member->boolean() ? "yes" : "no";
}

// What the run was and whether it kept to what it asked for.
SideSection ReadProvenance(const JsonNode& report) {
  ItemList items;
  SideItem& inputs = items.Add("inputs");
  AddText(inputs, "all_inputs_whole", YesNo(report, keys::report::kAllInputsWhole));
  if (const JsonNode::Array* processes = ArrayAt(report, keys::report::kProcesses)) {
    inputs.metrics.push_back(
        {"processes", FigureUnit::kCount, static_cast<double>(processes->size())});
  }
  if (const JsonNode* time_source = Member(report, keys::report::kTimeSource)) {
    if (std::optional<std::string> clock = TextAt(*time_source, keys::time_source::kClock)) {
      AddText(inputs, keys::time_source::kClock, std::move(*clock));
    }
  }
  const JsonNode* consistency = Member(report, keys::report::kConsistency);
  if (!consistency) return items.Take();
  SideItem& item = items.Add("consistency");
  const std::string mode = TextAt(*consistency, keys::consistency::kMode).value_or("?");
  AddText(item, "mode", mode);
  const JsonNode* failed = Member(*consistency, keys::consistency::kFailed);
  const bool did_fail = failed && failed->type() == JsonNode::Type::kBool && failed->boolean();
  AddText(item, "strict_verdict", did_fail ? "failed" : mode == "strict" ? "passed" : "not strict");
  AddNumber(item, *consistency, keys::consistency::kViolations, FigureUnit::kCount);
  for (std::string_view side : {keys::consistency::kRequested, keys::consistency::kActual}) {
    if (const JsonNode* part = Member(*consistency, side)) {
      if (std::optional<std::string> fingerprint = TextAt(*part, keys::consistency::kFingerprint)) {
        AddText(item, std::string(side) + ".fingerprint", std::move(*fingerprint));
      }
    }
  }
  return items.Take();
}

}  // namespace

void AddMetric(SideItem& item, const JsonNode& node, std::string_view key, FigureUnit unit) {
  if (unit != FigureUnit::kText) {
    AddNumber(item, node, key, unit);
  } else if (std::optional<std::string> text = TextAt(node, key)) {
    AddText(item, key, std::move(*text));
  }
}

const std::vector<SectionRule>& DiffSectionRules() {
  static const std::vector<SectionRule> rules = {
      {kLedgerSection, "Step ledger: each cause per step, on the rank that ends it", ReadLedger},
      {"phases", "Phases (NVTX), per rank", ReadPhases},
      {"steps", "Steps: median step, and per rank the time of the measured steps", ReadSteps},
      {"memory", "GPU memory per rank: in use (sampled), allocation calls, most held", ReadMemory},
      {"candidates", "Fast-path candidates, by kind (and change)", ReadCandidates},
      {"communication",
       "Communication: op rows summed over the communicators of one size, by op and size bucket",
       ReadCommunication},
      {"lateness", "Arrival per rank", ReadLateness},
      {"kernel_classes", "GPU kernel classes per rank", ReadKernelClasses},
      {"provenance", "Provenance and consistency: requested vs actual, strict verdict",
       ReadProvenance},
  };
  return rules;
}

}  // namespace vprof::reporter
