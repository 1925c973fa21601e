// One run's collective fingerprints (VPROF_AUDIT=fingerprint), read from its
// trace directory for `vprof diff --bitwise`: per rank, its communicators in
// the order it created them, and each call's metadata (from its NcclEvent)
// with the fingerprints of its input and output (CollectiveFingerprint),
// plus what the two runs' provenance is compared on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace vprof::reporter {

struct FingerprintedCall {
  std::string function;  // "ncclAllReduce"
  uint64_t seq = 0;
  int32_t peer = -1;  // send/recv: the peer; -1 for collectives
  uint64_t count = 0;
  int32_t datatype = -1;  // ncclDataType_t; -1 when the call has none
  int32_t red_op = -1;
  int32_t root = -1;
  uint64_t enter_ns = 0, exit_ns = 0;
  int32_t state = 0;  // schema FingerprintState; 0: no fingerprint was written for the call
  std::optional<uint64_t> input, output;
};

struct CommunicatorCalls {
  uint64_t comm_id = 0;
  uint32_t nranks = 0;
  uint32_t rank = 0;
  std::string created_by;                // "ncclCommInitRank", "ncclCommSplit", ...
  std::vector<FingerprintedCall> calls;  // by seq, then peer
};

struct RankFingerprints {
  std::string file;
  int32_t rank = -1;
  std::string host;
  std::string audit;  // Settings.audit: "fingerprint" when the process fingerprinted
  uint64_t audit_every = 0, audit_min_bytes = 0;
  uint32_t fingerprint_version = 0;  // 0: no FingerprintStatus
  int32_t status_state = 0;          // schema FingerprintStatusState
  std::string status_detail;
  std::map<std::string, std::string> nccl_env;  // NCCL_* settings, unredacted
  // 0 where not recorded. NCCL's from the header, else from the first
  // Communicator that carries it (NCCL loaded after the header was written).
  uint32_t nccl_version = 0, cuda_runtime = 0, cuda_driver = 0;
  std::vector<CommunicatorCalls> comms;  // in creation order
  bool whole = true;
  std::string problem;  // why not whole
};

struct RunFingerprints {
  std::string directory;
  std::vector<RankFingerprints> ranks;  // the processes that made NCCL calls, by rank
};

// Reads every trace of `directory`. False after naming the problem on `err`
// when there is nothing to compare (*status: the exit status to return).
bool LoadRunFingerprints(const std::string& directory, RunFingerprints* run, std::ostream& err,
                         int* status);

}  // namespace vprof::reporter
