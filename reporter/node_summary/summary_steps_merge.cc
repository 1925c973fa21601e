#include "reporter/node_summary/summary_steps_merge.h"

#include <algorithm>
#include <utility>

#include "reporter/node_summary/summary_steps_codec.h"
#include "reporter/steps/full_steps.h"

namespace vprof::reporter {
namespace {

// What one summary found: its steps header and its ranks, each with its
// process's merged index.
struct NodeSteps {
  const SummarySteps* summary;
  StepsReport header;
  std::vector<std::pair<uint32_t, RankStepsReport>> ranks;
};

// Decodes `summary`'s steps into `node` (none when its Header has none).
// Returns what is wrong, or "".
std::string DecodeNode(const SummarySteps& summary, const std::vector<ProcessReport>& processes,
                       std::optional<NodeSteps>& node) {
  const std::string prefix = summary.path + ": ";
  if (summary.header->has_steps()) {
    node = NodeSteps{&summary, {}, {}};
    const std::string error = DecodeNodeSteps(summary.header->steps(), node->header);
    if (!error.empty()) return prefix + "Header " + error;
  }
  for (size_t p = 0; p < summary.processes->size(); ++p) {
    const vprof::summary::Process& process = (*summary.processes)[p];
    if (!process.has_steps()) continue;
    const std::string where = prefix + "Process " + process.file() + " ";
    if (!node) return where + "has RankSteps but the Header has no NodeSteps";
    const uint32_t index = summary.global_index[p];
    RankStepsReport rank;
    const std::string error = DecodeRankSteps(process.steps(), node->header.first_measured, rank);
    if (!error.empty()) return where + error;
    rank.rank = processes[index].rank;
    rank.file = processes[index].file;
    node->ranks.emplace_back(index, std::move(rank));
  }
  return "";
}

// "a.vsummary: first measured step 2 (warmup 1), b.vsummary: ..."
std::string FirstMeasuredOf(const std::vector<NodeSteps*>& nodes) {
  std::string text;
  for (const NodeSteps* node : nodes) {
    if (!text.empty()) text += ", ";
    text += node->summary->path + ": first measured step " +
            std::to_string(node->header.first_measured) + " (warmup " +
            std::to_string(node->header.warmup_steps) + ")";
  }
  return text;
}

}  // namespace

StepsMerge MergeSteps(const std::vector<SummarySteps>& summaries,
                      const std::vector<ProcessReport>& processes) {
  StepsMerge result;
  std::vector<NodeSteps> nodes;
  for (const SummarySteps& summary : summaries) {
    std::optional<NodeSteps> node;
    result.error = DecodeNode(summary, processes, node);
    if (!result.error.empty()) return result;
    if (node) nodes.push_back(std::move(*node));
  }
  if (nodes.empty()) return result;
  // Whatever order the summaries came in, the same node speaks first.
  std::sort(nodes.begin(), nodes.end(), [](const NodeSteps& a, const NodeSteps& b) {
    return a.summary->path < b.summary->path;
  });

  // As for a directory: NVTX steps on any rank make NVTX the source, and the
  // ranks with none are left out.
  const bool nvtx = std::any_of(nodes.begin(), nodes.end(), [](const NodeSteps& node) {
    return !node.ranks.empty() && node.header.source == StepSource::kNvtx;
  });
  const StepSource source = nvtx ? StepSource::kNvtx : StepSource::kOptimizerKernels;
  std::vector<NodeSteps*> kept;
  for (NodeSteps& node : nodes) {
    if (!node.ranks.empty() && node.header.source == source) kept.push_back(&node);
  }
  // Every node's processes whose windows held no step, kept or not.
  std::vector<DeepCaptureReport> deep_without_steps;
  for (const NodeSteps& node : nodes) {
    deep_without_steps.insert(deep_without_steps.end(), node.header.deep_without_steps.begin(),
                              node.header.deep_without_steps.end());
  }
  // No node found steps: each says why, as `vprof report DIR` would.
  if (kept.empty()) {
    result.steps = nodes.front().header;
    result.steps->deep_without_steps = std::move(deep_without_steps);
    return result;
  }

  const StepsReport& first = kept.front()->header;
  StepsReport merged;
  merged.source = source;
  merged.pattern = first.pattern;
  merged.warmup_steps = first.warmup_steps;
  merged.before_profiler_start_excluded = first.before_profiler_start_excluded;
  merged.before_graph_replays_excluded = first.before_graph_replays_excluded;
  merged.first_measured = first.first_measured;
  const bool agree = std::all_of(kept.begin(), kept.end(), [&](const NodeSteps* node) {
    return node->header.first_measured == first.first_measured &&
           node->header.warmup_steps == first.warmup_steps;
  });
  if (!agree) {
    merged.problem = "the node summaries do not measure from the same step (" +
                     FirstMeasuredOf(kept) +
                     "): their ranks' steps do not line up, so no steps are shown; "
                     "'vprof report DIR' measures every rank from the same step";
    merged.window = "no measured steps";
    result.warnings.push_back(merged.problem);
    result.steps = std::move(merged);
    return result;
  }

  merged.deep_without_steps = std::move(deep_without_steps);
  std::vector<std::pair<uint32_t, RankStepsReport>> ranks;
  for (NodeSteps* node : kept) {
    for (auto& rank : node->ranks) ranks.push_back(std::move(rank));
  }
  // By rank, then file (merged indexes are in file order).
  std::sort(ranks.begin(), ranks.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::stable_sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) {
    const auto key = [](const RankStepsReport& rank) {
      return std::make_pair(!rank.rank.has_value(), rank.rank.value_or(0));
    };
    return key(a.second) < key(b.second);
  });
  for (auto& [index, rank] : ranks) merged.ranks.push_back(std::move(rank));
  CompleteFullSteps(merged);
  result.steps = std::move(merged);
  return result;
}

}  // namespace vprof::reporter
