// Folds a process's NvtxBatch packets into an NvtxPhaseRecord as the trace
// streams past.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reporter/phases/nvtx_phase_record.h"
#include "reporter/trace/iid_table.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

class NvtxPhaseReader {
 public:
  using NameLookup = std::function<std::string(uint64_t iid)>;
  explicit NvtxPhaseReader(NameLookup name_of) : name_of_(std::move(name_of)) {}

  void AddBatch(const vprof::trace::NvtxBatch& batch);
  NvtxPhaseRecord Result() const;

 private:
  // A phase key's index in keys_ and totals_: ranges are counted by index,
  // so a range costs no string built, matched or compared.
  using KeyIndex = uint32_t;
  // Phase totals counted inside ranges whose enclosing range has not ended
  // yet, by key index: a handful of phases, so a vector searched in turn.
  using Contained = std::vector<std::pair<KeyIndex, PhaseTotals>>;

  void AddRange(uint32_t tid, const vprof::trace::NvtxRange& range);
  KeyIndex KeyOf(uint64_t name_iid);
  static PhaseTotals& TotalsIn(Contained& contained, KeyIndex key);

  NameLookup name_of_;
  NvtxPhaseRecord record_;  // phases aside: kept in totals_ until Result
  IidTable<KeyIndex> key_of_name_;
  std::vector<PhaseKey> keys_;
  std::vector<PhaseTotals> totals_;  // by key index
  // By domain iid: NCCL's is the one whose ranges are not phases.
  std::map<uint64_t, bool> nccl_domain_;
  // Push/pop ranges arrive as they end, inner before outer. Per (thread,
  // domain) and depth, what the ended ranges at that depth counted, so the
  // enclosing range, when it ends, can take back what it contains of its own
  // phase. Bounded by nesting depth × phases. Levels are cleared, not freed.
  struct OpenLevels {
    std::vector<Contained> levels;
    size_t depth = 0;  // levels in use
  };
  std::map<std::pair<uint32_t, uint64_t>, OpenLevels> open_parents_;
  Contained inside_;  // AddRange's, kept from range to range
};

}  // namespace vprof::reporter
