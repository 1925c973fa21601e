// Folds one process's NCCL profiler-plugin packets into an NcclPluginRecord as
// its trace streams past. Counts are kept by interned-string id and resolved
// to names once, at the end, so an event costs a map update and no string.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "reporter/ingest/nccl_plugin_record.h"
#include "vprof_trace.pb.h"

namespace vprof::reporter {

class NcclPluginReader {
 public:
  // The process's interned string of an iid; empty when none was read.
  using NameLookup = std::function<std::string(uint64_t iid)>;

  explicit NcclPluginReader(NameLookup name_of) : name_of_(std::move(name_of)) {}

  // Keeps the last status of the NCCL_PROFILER_PLUGIN hook; other hooks are
  // not this reader's.
  void AddInjectionStatus(const vprof::trace::InjectionStatus& status);
  void AddBatch(const vprof::trace::NcclPluginBatch& batch);

  NcclPluginRecord Result() const;

 private:
  // (function iid, algorithm iid, protocol iid, channels)
  using AlgorithmKey = std::tuple<uint64_t, uint64_t, uint64_t, uint32_t>;

  void AddComm(const vprof::trace::NcclPluginComm& comm);

  NameLookup name_of_;
  NcclPluginRecord record_;                                 // all but contexts and algorithms
  std::map<uint64_t, vprof::trace::NcclPluginComm> comms_;  // by context id
  // (context id, function iid) → COLL and P2P events.
  std::map<std::pair<uint64_t, uint64_t>, NcclPluginOpCounts> ops_;
  std::map<AlgorithmKey, uint64_t> algorithms_;
};

}  // namespace vprof::reporter
