// The coverage check and the requested-vs-actual comparison as the report
// shows them (coverage.h and provenance.h make them): everything computed, so
// the text and JSON writers only format.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/base/json_node.h"
#include "reporter/gpu/gpu_record.h"
#include "reporter/ingest/nccl_plugin_record.h"

namespace vprof::reporter {

// How strictly a run is held to what it requested and declared (--strict, or
// a run contract's "consistency").
enum class ConsistencyMode {
  kOff,     // nothing is compared
  kAuto,    // differences are reported; the exit status ignores them
  kStrict,  // any undeclared difference, or no evidence to compare, fails the report (exit 4)
};
std::string_view ConsistencyModeName(ConsistencyMode mode);  // "off", "auto", "strict"

// One process that took part in communication: its NCCL work as the wrappers,
// NCCL's profiler plugin and CUPTI each saw it, and what moved outside NCCL.
struct CoverageProcess {
  std::string file;
  std::optional<int32_t> rank;  // the report's, else RunHeader's, else its largest plugin context's
  uint64_t wrapper_collectives = 0;
  // Of wrapper_collectives, those on one-rank communicators (process_record.h).
  uint64_t wrapper_one_rank_collectives = 0;
  uint64_t wrapper_p2p = 0;
  uint64_t wrapper_p2p_collectives = 0;  // all-to-all, gather, scatter
  bool plugin_attached = false;
  uint32_t plugin_version = 0;  // 0: not known
  uint64_t plugin_collectives = 0;
  uint64_t plugin_p2p = 0;
  uint64_t plugin_graph_captured = 0;
  bool gpu_captured = false;
  uint64_t nccl_kernels = 0;
  uint64_t nccl_graph_kernels = 0;
  ActivityTotals custom_allreduce_kernels;          // count, total_ns
  std::map<std::string, ActivityTotals> ipc_calls;  // by API name
  ActivityTotals peer_copies;                       // copies between GPUs (PtoP)
  uint64_t dropped_wrapper_events = 0;
  uint64_t dropped_plugin_events = 0;
  uint64_t dropped_gpu_records = 0;
};

// A difference between the counts, or a member vprof did not trace, with
// what most likely caused it.
struct CoverageGap {
  // "plugin_not_attached", "plugin_exceeds_wrappers", "wrappers_exceed_plugin",
  // "kernels_exceed_plugin", "kernels_exceed_wrappers", "graph_replays_unseen",
  // "records_dropped", "processes_missing".
  std::string kind;
  std::string file;             // the process's trace; empty for a communicator
  std::optional<int32_t> rank;  // the process's rank, when it has one
  // A communicator: "0x…", with the source of that id: "vprof" (the
  // wrappers' comm_id) or "nccl" (NCCL's commHash, from the plugin).
  std::string comm_id;
  std::string comm_id_source;
  std::string comm_name;            // NCCL's commName, when the plugin gave one
  std::string detail;               // what was seen, in words
  std::vector<std::string> causes;  // the likely causes, most likely first
};

struct CoverageReport {
  std::vector<CoverageProcess> processes;  // in file order
  std::vector<CoverageGap> gaps;           // processes' in file order, then communicators'
};

// One NCCL_* variable across the processes that took part in communication.
struct RequestedSetting {
  std::string name;
  std::vector<std::string> values;  // distinct, sorted
  uint32_t processes_set = 0;
  uint32_t processes_unset = 0;
};

// What ran differently from what was requested (or could not be shown to
// match), summed over the processes where it happened.
struct ConsistencyMismatch {
  std::string axis;  // ConsistencyAxisName, or "evidence"
  std::string kind;  // "undeclared_fallback", "declared_fallback", "not_allowed", "no_evidence"
  std::string
      source;  // what requested it: "NCCL_ALGO", "contract nccl.algorithms", "strict mode", ...
  std::string requested;  // in words: "Ring", "≤ 16 channels", ...
  std::string actual;     // in words: "AllReduce TREE", ...
  uint64_t count = 0;     // collectives or kernels (0 for no_evidence)
  uint32_t processes = 0;
  bool violation = false;  // anything but a declared fallback
};

// Collectives of one shape (collective_shape.h) over the processes that
// issued it.
struct CollectiveShapeReport {
  std::string function;  // NcclFunctionName
  std::string datatype;  // NcclDataTypeName; "-" when the call has none
  std::string red_op;    // NcclRedOpName; "-" when the call has none
  uint64_t count = 0;    // elements each call passed
  uint32_t comm_size = 0;
  std::vector<int32_t> ranks;       // of the ranked processes that issued it, ascending
  uint32_t unranked_processes = 0;  // processes without a rank that issued it
  uint64_t calls = 0;
};

// Where a process that took part in communication ran.
struct RankPlacement {
  std::optional<int32_t> rank;
  std::string file;
  std::string host;
  int32_t cuda_device = -1;  // of its communicators' (the first that says); -1: unknown
  std::string gpu_uuid;      // that device's, when CUPTI described it
};

struct ConsistencyReport {
  ConsistencyMode mode = ConsistencyMode::kAuto;
  std::string mode_source;                      // "flag" (--strict), "contract", "default"
  std::string contract_file;                    // empty without --contract
  std::vector<RequestedSetting> requested_env;  // by name
  std::optional<JsonNode> contract;             // RunContract::ToJson()
  std::string requested_fingerprint;
  uint32_t communication_processes = 0;  // processes that took part in communication
  uint32_t plugin_processes = 0;         // of those, with NCCL profiler-plugin evidence
  std::map<NcclAlgorithmUse, uint64_t> actual_algorithms;  // COLL events, summed over processes
  ActivityTotals custom_allreduce_kernels;
  // By shape; what the fingerprint holds of them is which ranks issued each
  // shape, not how often.
  std::vector<CollectiveShapeReport> collective_shapes;
  uint64_t collective_calls_left_out = 0;  // of shapes past a process's cap: in no row
  std::vector<RankPlacement> placement;    // ranked processes by rank, then the others by file
  std::string actual_fingerprint;
  std::vector<ConsistencyMismatch> mismatches;  // violations first, then by axis, source, actual
  uint64_t violations = 0;                      // mismatches with violation set

  // A strict run with a violation: `vprof report` exits kExitStrictViolation.
  bool failed() const { return mode == ConsistencyMode::kStrict && violations > 0; }
};

}  // namespace vprof::reporter
