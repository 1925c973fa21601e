#include "operation.h"

namespace fake_nccl {

const char* OpName(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
      return "ncclAllReduce";
    case OpKind::kBroadcast:
      return "ncclBroadcast";
    case OpKind::kReduce:
      return "ncclReduce";
    case OpKind::kAllGather:
      return "ncclAllGather";
    case OpKind::kReduceScatter:
      return "ncclReduceScatter";
    case OpKind::kAllToAll:
      return "ncclAlltoAll";
    case OpKind::kGather:
      return "ncclGather";
    case OpKind::kScatter:
      return "ncclScatter";
    case OpKind::kSend:
      return "ncclSend";
    case OpKind::kRecv:
      return "ncclRecv";
  }
  return "?";
}

}  // namespace fake_nccl
