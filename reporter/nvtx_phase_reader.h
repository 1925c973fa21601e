// Folds a process's NvtxBatch packets into an NvtxPhaseRecord as the trace
// streams past.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reporter/nvtx_phase_record.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

class NvtxPhaseReader {
 public:
  using NameLookup = std::function<std::string(uint64_t iid)>;
  explicit NvtxPhaseReader(NameLookup name_of) : name_of_(std::move(name_of)) {}

  void AddBatch(const vprof::trace::NvtxBatch& batch);
  const NvtxPhaseRecord& Result() const { return record_; }

 private:
  // Phase totals counted inside ranges whose enclosing range has not ended yet.
  using Contained = std::map<PhaseKey, PhaseTotals>;

  void AddRange(uint32_t tid, const vprof::trace::NvtxRange& range);
  PhaseKey KeyOf(uint64_t name_iid);

  NameLookup name_of_;
  NvtxPhaseRecord record_;
  // By domain iid: NCCL's is the one whose ranges are not phases.
  std::map<uint64_t, bool> nccl_domain_;
  // Push/pop ranges arrive as they end, inner before outer. Per (thread,
  // domain) and depth, what the ended ranges at that depth counted, so the
  // enclosing range, when it ends, can take back what it contains of its own
  // phase. Bounded by nesting depth × phases.
  std::map<std::pair<uint32_t, uint64_t>, std::vector<Contained>> open_parents_;
};

}  // namespace vprof::reporter
