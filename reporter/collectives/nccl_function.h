// The NCCL functions the capture side intercepts, identified by the name it
// interns for them, and what role each plays in the report.
#pragma once

#include <cstdint>
#include <string_view>

namespace vprof::reporter {

enum class NcclFunction : uint8_t {
  kUnknown,  // a name this reporter does not know (e.g. from a newer capture side)
  kAllReduce,
  kBroadcast,
  kBcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAlltoAll,
  kGather,
  kScatter,
  kSend,
  kRecv,
  kGroupStart,
  kGroupEnd,
  kCommInitRank,
  kCommInitRankConfig,
  kCommInitAll,
  kCommSplit,
  kCommDestroy,
  kCommAbort,
  kCommFinalize,
  kRedOpCreatePreMulSum,
  // Not a function: a matched ncclSend/ncclRecv pair, aggregated as one op.
  kSendRecvPair,
};

enum class FunctionRole : uint8_t {
  kCollective,    // matched across all ranks of a communicator by seq
  kPointToPoint,  // matched send to recv by (communicator, peer, seq)
  kCreation,      // creates a communicator (timed from its Communicator packet)
  kTeardown,      // destroys, aborts or finalizes a communicator
  kOther,         // group brackets, reduction-op setup, unknown names
};

NcclFunction NcclFunctionFromName(std::string_view name);

// "ncclAllReduce" etc.; "ncclSend/ncclRecv" for kSendRecvPair, "unknown" for kUnknown.
std::string_view NcclFunctionName(NcclFunction function);

FunctionRole RoleOf(NcclFunction function);

}  // namespace vprof::reporter
