#include "reporter/ingest/nvtx_phase_reader.h"

#include <algorithm>

#include "reporter/phases/phase_rules.h"

namespace vprof::reporter {
namespace {

// The capture side nests push/pop ranges at most this deep (interpose/core/nvtx_stack.h);
// deeper depths come only from a damaged trace and are counted without nesting.
constexpr uint32_t kMaxTrackedDepth = 64;

void Add(PhaseTotals& totals, const PhaseTotals& more) {
  totals.count += more.count;
  totals.total_ns += more.total_ns;
  if (more.longest_ns > totals.longest_ns) {
    totals.longest_ns = more.longest_ns;
    totals.depth = more.depth;
  }
}

}  // namespace

void NvtxPhaseReader::AddBatch(const vprof::trace::NvtxBatch& batch) {
  record_.dropped += batch.dropped();
  for (const auto& range : batch.range()) AddRange(batch.tid(), range);
}

NvtxPhaseReader::KeyIndex NvtxPhaseReader::KeyOf(uint64_t name_iid) {
  auto [index, added] = key_of_name_.try_emplace(name_iid);
  if (!added) return index;
  std::string name = name_of_(name_iid);
  PhaseKey key{std::move(name), true};
  if (const auto rule = MatchPhaseRule(key.name)) key = {std::string(rule->phase), false};
  // Names a rule maps to one phase share its index.
  const auto known = std::find(keys_.begin(), keys_.end(), key);
  index = static_cast<KeyIndex>(known - keys_.begin());
  if (known == keys_.end()) {
    keys_.push_back(std::move(key));
    totals_.emplace_back();
  }
  return index;
}

PhaseTotals& NvtxPhaseReader::TotalsIn(Contained& contained, KeyIndex key) {
  for (auto& [index, totals] : contained) {
    if (index == key) return totals;
  }
  return contained.emplace_back(key, PhaseTotals{}).second;
}

void NvtxPhaseReader::AddRange(uint32_t tid, const vprof::trace::NvtxRange& range) {
  if (range.kind() == vprof::trace::NVTX_KIND_MARK) return;
  const uint64_t domain = range.domain_iid();
  auto [is_nccl, inserted] = nccl_domain_.try_emplace(domain, false);
  if (inserted) is_nccl->second = domain != 0 && name_of_(domain) == kNcclNvtxDomain;
  if (is_nccl->second) {
    ++record_.nccl_ranges;
    return;
  }

  if (record_.ranges == 0 || range.start_ns() < record_.first_start_ns) {
    record_.first_start_ns = range.start_ns();
  }
  record_.last_end_ns = std::max(record_.last_end_ns, range.end_ns());
  ++record_.ranges;

  const KeyIndex key = KeyOf(range.name_iid());
  const int64_t length_ns = range.end_ns() >= range.start_ns()
                                ? static_cast<int64_t>(range.end_ns() - range.start_ns())
                                : 0;
  const uint32_t depth = range.depth();
  // Start/end ranges carry no nesting; each counts.
  if (range.kind() != vprof::trace::NVTX_KIND_PUSH_POP || depth >= kMaxTrackedDepth) {
    Add(totals_[key], {1, length_ns, length_ns, 0});
    return;
  }
  const PhaseTotals own{1, length_ns, length_ns, depth};

  // Everything deeper than this range ended inside it: its children, folded.
  OpenLevels& open = open_parents_[{tid, domain}];
  inside_.clear();
  for (size_t level = depth + 1; level < open.depth; ++level) {
    for (const auto& [child_key, totals] : open.levels[level]) {
      Add(TotalsIn(inside_, child_key), totals);
    }
  }
  open.depth = std::min<size_t>(open.depth, depth + 1);

  PhaseTotals& counted = totals_[key];
  PhaseTotals& same = TotalsIn(inside_, key);
  // Ranges of this phase inside this one were counted when they ended.
  counted.count -= same.count;
  counted.total_ns -= same.total_ns;
  Add(counted, own);
  same = own;

  // Nothing encloses an outermost range: what it holds needs no keeping.
  if (depth == 0) {
    open.depth = 0;
    return;
  }
  while (open.depth < depth + 1) {
    if (open.levels.size() == open.depth) open.levels.emplace_back();
    open.levels[open.depth++].clear();
  }
  for (const auto& [inner_key, totals] : inside_)
    Add(TotalsIn(open.levels[depth], inner_key), totals);
}

NvtxPhaseRecord NvtxPhaseReader::Result() const {
  NvtxPhaseRecord result = record_;
  for (size_t index = 0; index < keys_.size(); ++index)
    result.phases[keys_[index]] = totals_[index];
  return result;
}

}  // namespace vprof::reporter
