// The run contract: what a run declares about how its communication must run,
// read from the JSON file `vprof report --contract FILE` names. The format
// (reporter/README.md, "Run contract"):
//
//   {"version": 1, "consistency": "strict",
//    "nccl": {"algorithms": ["Ring"], "protocols": ["Simple"],
//             "channels": {"min": 1, "max": 16}},
//    "custom_allreduce_allowed": false, "all_reduce_backend": "nccl",
//    "fallback_axes": ["nccl_proto"]}
//
// Only "version" is required. Unknown fields are errors: a misspelt field
// would otherwise silently declare nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "reporter/base/json_node.h"
#include "reporter/model/consistency_report.h"

namespace vprof::reporter {

inline constexpr int64_t kRunContractVersion = 1;

// What can differ between what was requested and what ran. A fallback along
// an axis the contract declares is reported but allowed.
enum class ConsistencyAxis {
  kNcclAlgo,          // NCCL's algorithm (NCCL_ALGO, nccl.algorithms, NCCL_NVLS_ENABLE, ...)
  kNcclProto,         // NCCL's protocol (NCCL_PROTO, nccl.protocols)
  kNcclChannels,      // channels per collective (NCCL_MAX_NCHANNELS, nccl.channels)
  kAllReduceBackend,  // NCCL vs vLLM's custom all-reduce (all_reduce_backend)
};
// "nccl_algo", "nccl_proto", "nccl_channels", "all_reduce_backend".
std::string_view ConsistencyAxisName(ConsistencyAxis axis);

enum class AllReduceBackend { kNccl, kCustomAllReduce };
std::string_view AllReduceBackendName(AllReduceBackend backend);  // "nccl", "custom_allreduce"

struct RunContract {
  std::string file;  // where it was read from
  ConsistencyMode consistency = ConsistencyMode::kAuto;
  // NormalizeNcclName forms ("RING", "SIMPLE"); empty: not declared.
  std::set<std::string> nccl_algorithms;
  std::set<std::string> nccl_protocols;
  std::optional<uint32_t> min_channels;  // per collective
  std::optional<uint32_t> max_channels;
  bool custom_allreduce_allowed = false;
  std::optional<AllReduceBackend> all_reduce_backend;
  std::set<ConsistencyAxis> fallback_axes;
  // "alignment": which A0-A5 profile the run is, against which reference
  // run's directory; checked under --strict by comparing the two runs'
  // collective fingerprints (reporter/drift/alignment_check.h).
  struct Alignment {
    std::string profile;    // "A0" .. "A5"
    std::string reference;  // a run directory recorded with VPROF_AUDIT=fingerprint
  };
  std::optional<Alignment> alignment;

  // Every field, defaults filled in and lists sorted: what the requested
  // fingerprint covers of the contract.
  JsonNode ToJson() const;
};

struct RunContractLoad {
  std::optional<RunContract> contract;
  // "FILE: field 'nccl.channels.max': expected an integer ≥ 1, got 0"; empty
  // when contract is set.
  std::string error;
};

RunContractLoad LoadRunContract(const std::string& path);
// `file` names the text in messages.
RunContractLoad ParseRunContract(std::string_view text, const std::string& file);

}  // namespace vprof::reporter
