#include "reporter/nvtx_phase_reader.h"

#include <algorithm>

#include "reporter/phase_rules.h"

namespace vprof::reporter {
namespace {

// The capture side nests push/pop ranges at most this deep (interpose/nvtx_stack.h);
// deeper depths come only from a damaged trace and are counted without nesting.
constexpr uint32_t kMaxTrackedDepth = 64;

void Add(PhaseTotals& totals, const PhaseTotals& more) {
  totals.count += more.count;
  totals.total_ns += more.total_ns;
}

}  // namespace

void NvtxPhaseReader::AddBatch(const vprof::trace::NvtxBatch& batch) {
  record_.dropped += batch.dropped();
  for (const auto& range : batch.range()) AddRange(batch.tid(), range);
}

PhaseKey NvtxPhaseReader::KeyOf(uint64_t name_iid) {
  std::string name = name_of_(name_iid);
  if (const auto rule = MatchPhaseRule(name)) return {std::string(rule->phase), false};
  return {std::move(name), true};
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

  const PhaseKey key = KeyOf(range.name_iid());
  const PhaseTotals own{1, range.end_ns() >= range.start_ns()
                               ? static_cast<int64_t>(range.end_ns() - range.start_ns())
                               : 0};
  const uint32_t depth = range.depth();
  // Start/end ranges carry no nesting; each counts.
  if (range.kind() != vprof::trace::NVTX_KIND_PUSH_POP || depth >= kMaxTrackedDepth) {
    Add(record_.phases[key], own);
    return;
  }

  // Everything deeper than this range ended inside it: its children, folded.
  std::vector<Contained>& levels = open_parents_[{tid, domain}];
  Contained inside;
  for (size_t level = depth + 1; level < levels.size(); ++level) {
    for (const auto& [child_key, totals] : levels[level]) Add(inside[child_key], totals);
  }
  if (levels.size() > depth + 1) levels.resize(depth + 1);

  PhaseTotals& counted = record_.phases[key];
  if (const auto same = inside.find(key); same != inside.end()) {
    // Ranges of this phase inside this one were counted when they ended.
    counted.count -= same->second.count;
    counted.total_ns -= same->second.total_ns;
  }
  Add(counted, own);
  inside[key] = own;

  // Nothing encloses an outermost range: what it holds needs no keeping.
  if (depth == 0) {
    levels.clear();
    return;
  }
  if (levels.size() < depth + 1) levels.resize(depth + 1);
  for (const auto& [inner_key, totals] : inside) Add(levels[depth][inner_key], totals);
}

}  // namespace vprof::reporter
