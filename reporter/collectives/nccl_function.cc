#include "reporter/collectives/nccl_function.h"

#include <array>
#include <utility>

namespace vprof::reporter {
namespace {

// Every value of NcclFunction except kUnknown and kSendRecvPair, by the name
// the capture side interns.
constexpr std::array<std::pair<std::string_view, NcclFunction>, 21> kNamedFunctions = {{
    {"ncclAllReduce", NcclFunction::kAllReduce},
    {"ncclBroadcast", NcclFunction::kBroadcast},
    {"ncclBcast", NcclFunction::kBcast},
    {"ncclReduce", NcclFunction::kReduce},
    {"ncclAllGather", NcclFunction::kAllGather},
    {"ncclReduceScatter", NcclFunction::kReduceScatter},
    {"ncclAlltoAll", NcclFunction::kAlltoAll},
    {"ncclGather", NcclFunction::kGather},
    {"ncclScatter", NcclFunction::kScatter},
    {"ncclSend", NcclFunction::kSend},
    {"ncclRecv", NcclFunction::kRecv},
    {"ncclGroupStart", NcclFunction::kGroupStart},
    {"ncclGroupEnd", NcclFunction::kGroupEnd},
    {"ncclCommInitRank", NcclFunction::kCommInitRank},
    {"ncclCommInitRankConfig", NcclFunction::kCommInitRankConfig},
    {"ncclCommInitAll", NcclFunction::kCommInitAll},
    {"ncclCommSplit", NcclFunction::kCommSplit},
    {"ncclCommDestroy", NcclFunction::kCommDestroy},
    {"ncclCommAbort", NcclFunction::kCommAbort},
    {"ncclCommFinalize", NcclFunction::kCommFinalize},
    {"ncclRedOpCreatePreMulSum", NcclFunction::kRedOpCreatePreMulSum},
}};

}  // namespace

NcclFunction NcclFunctionFromName(std::string_view name) {
  for (const auto& [function_name, function] : kNamedFunctions) {
    if (function_name == name) return function;
  }
  return NcclFunction::kUnknown;
}

std::string_view NcclFunctionName(NcclFunction function) {
  if (function == NcclFunction::kSendRecvPair) return "ncclSend/ncclRecv";
  for (const auto& [function_name, named] : kNamedFunctions) {
    if (named == function) return function_name;
  }
  return "unknown";
}

FunctionRole RoleOf(NcclFunction function) {
  switch (function) {
    case NcclFunction::kAllReduce:
    case NcclFunction::kBroadcast:
    case NcclFunction::kBcast:
    case NcclFunction::kReduce:
    case NcclFunction::kAllGather:
    case NcclFunction::kReduceScatter:
    case NcclFunction::kAlltoAll:
    case NcclFunction::kGather:
    case NcclFunction::kScatter:
      return FunctionRole::kCollective;
    case NcclFunction::kSend:
    case NcclFunction::kRecv:
    case NcclFunction::kSendRecvPair:
      return FunctionRole::kPointToPoint;
    case NcclFunction::kCommInitRank:
    case NcclFunction::kCommInitRankConfig:
    case NcclFunction::kCommInitAll:
    case NcclFunction::kCommSplit:
      return FunctionRole::kCreation;
    case NcclFunction::kCommDestroy:
    case NcclFunction::kCommAbort:
    case NcclFunction::kCommFinalize:
      return FunctionRole::kTeardown;
    case NcclFunction::kUnknown:
    case NcclFunction::kGroupStart:
    case NcclFunction::kGroupEnd:
    case NcclFunction::kRedOpCreatePreMulSum:
      return FunctionRole::kOther;
  }
  return FunctionRole::kOther;
}

}  // namespace vprof::reporter
