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

const char* KernelName(OpKind kind) {
  switch (kind) {
    case OpKind::kAllReduce:
      return "ncclDevKernel_AllReduce";
    case OpKind::kBroadcast:
      return "ncclDevKernel_Broadcast";
    case OpKind::kReduce:
      return "ncclDevKernel_Reduce";
    case OpKind::kAllGather:
      return "ncclDevKernel_AllGather";
    case OpKind::kReduceScatter:
      return "ncclDevKernel_ReduceScatter";
    case OpKind::kAllToAll:
    case OpKind::kGather:
    case OpKind::kScatter:
    case OpKind::kSend:
    case OpKind::kRecv:
      return "ncclDevKernel_SendRecv";
  }
  return "ncclDevKernel_Generic";
}

}  // namespace fake_nccl
