// The exported NCCL entry points, with the signatures of the real nccl.h. Arguments are
// checked here, when the call is made (as NCCL does), so that a deferred group call fails at
// once rather than at ncclGroupEnd.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "comm.h"
#include "errors.h"
#include "group.h"
#include "nccl.h"
#include "operation.h"
#include "profiler_plugin.h"
#include "unique_id.h"

namespace {

using fake_nccl::Fail;
using fake_nccl::OpKind;

constexpr unsigned int kConfigMagic = 0xcafebeef;  // what NCCL_CONFIG_INITIALIZER sets

std::string Name(OpKind kind) { return fake_nccl::OpName(kind); }

ncclResult_t CheckConfig(const ncclConfig_t* config, const char* function) {
  if (config != nullptr && config->magic != kConfigMagic) {
    return Fail(ncclInvalidArgument,
                std::string(function) + ": config was not set up with NCCL_CONFIG_INITIALIZER");
  }
  return ncclSuccess;
}

// Which buffers a rank must supply for a call with a non-zero count.
void RequiredBuffers(OpKind kind, bool is_root, bool* needs_send, bool* needs_recv) {
  *needs_send = true;
  *needs_recv = true;
  switch (kind) {
    case OpKind::kBroadcast:
    case OpKind::kScatter:
      *needs_send = is_root;
      break;
    case OpKind::kReduce:
    case OpKind::kGather:
      *needs_recv = is_root;
      break;
    case OpKind::kSend:
      *needs_recv = false;
      break;
    case OpKind::kRecv:
      *needs_send = false;
      break;
    default:
      break;
  }
}

ncclResult_t ResolveReduction(const ncclComm& comm, ncclRedOp_t op, ncclDataType_t type,
                              fake_nccl::Reduction* reduction) {
  if (op >= ncclSum && op < ncclNumOps) {
    reduction->op = op;
    return ncclSuccess;
  }
  const size_t index = static_cast<size_t>(op) - ncclNumOps;
  if (op < ncclNumOps || index >= comm.user_ops.size() || !comm.user_ops[index].live) {
    return Fail(ncclInvalidArgument, "unknown reduction operation " + std::to_string(op));
  }
  if (comm.user_ops[index].type != type) {
    return Fail(ncclInvalidArgument,
                "reduction operation " + std::to_string(op) + " was created for another datatype");
  }
  *reduction = comm.user_ops[index].reduction;
  return ncclSuccess;
}

// Checks what every communication call shares, then runs or defers it. `root` is the root or
// peer rank where the call has one, otherwise ignored.
ncclResult_t Communicate(OpKind kind, const void* sendbuff, void* recvbuff, size_t count,
                         ncclDataType_t type, ncclRedOp_t op, int root, ncclComm_t comm,
                         cudaStream_t stream) {
  if (comm == nullptr) return Fail(ncclInvalidArgument, Name(kind) + ": comm is NULL");
  if (!fake_nccl::IsValidType(type)) {
    return Fail(ncclInvalidArgument, Name(kind) + ": invalid datatype " + std::to_string(type));
  }
  const bool has_root = kind == OpKind::kBroadcast || kind == OpKind::kReduce ||
                        kind == OpKind::kGather || kind == OpKind::kScatter ||
                        fake_nccl::IsPointToPoint(kind);
  if (!has_root) {
    root = 0;
  } else if (root < 0 || root >= comm->nranks) {
    return Fail(ncclInvalidArgument, Name(kind) + ": rank " + std::to_string(root) +
                                         " out of range for " + std::to_string(comm->nranks) +
                                         " ranks");
  }
  bool needs_send = false;
  bool needs_recv = false;
  RequiredBuffers(kind, comm->rank == root, &needs_send, &needs_recv);
  if (count > 0 && ((needs_send && sendbuff == nullptr) || (needs_recv && recvbuff == nullptr))) {
    return Fail(ncclInvalidArgument, Name(kind) + ": buffer is NULL");
  }
  fake_nccl::Reduction reduction;
  if (kind == OpKind::kAllReduce || kind == OpKind::kReduce || kind == OpKind::kReduceScatter) {
    if (const ncclResult_t result = ResolveReduction(*comm, op, type, &reduction)) return result;
  }
  return fake_nccl::Submit({kind, sendbuff, recvbuff, count, type, reduction, root, comm, stream});
}

// Every communicator the API hands out passes here after its creation: NCCL initialises the
// profiler plugin's context for it as part of creating it.
ncclResult_t Created(ncclResult_t result, ncclComm_t* comm, const ncclConfig_t* config) {
  if (result != ncclSuccess || *comm == nullptr) return result;
  if (const ncclResult_t attached = fake_nccl::profiler::Attach(**comm, config)) {
    delete *comm;
    *comm = nullptr;
    return attached;
  }
  return ncclSuccess;
}

// Before a communicator is freed: the plugin's finalize.
void Free(ncclComm_t comm) {
  if (comm != nullptr) fake_nccl::profiler::Detach(*comm);
  delete comm;
}

// Shared by ncclCommInitRank and ncclCommInitRankConfig: an exported entry point never calls
// another, which an interposer would see as a second call.
ncclResult_t InitRank(ncclComm_t* comm, int nranks, const ncclUniqueId& comm_id, int rank,
                      const ncclConfig_t* config) {
  if (const ncclResult_t result = CheckConfig(config, "ncclCommInitRankConfig")) return result;
  if (comm == nullptr) return Fail(ncclInvalidArgument, "ncclCommInitRank: comm is NULL");
  if (nranks < 1 || nranks > fake_nccl::kMaxRanks || rank < 0 || rank >= nranks) {
    return Fail(ncclInvalidArgument, "ncclCommInitRank: rank " + std::to_string(rank) + " of " +
                                         std::to_string(nranks) +
                                         " out of range (the stand-in serves up to " +
                                         std::to_string(fake_nccl::kMaxRanks) + " ranks)");
  }
  std::string region_name;
  if (!fake_nccl::RegionNameFromId(comm_id, &region_name)) {
    return Fail(ncclInvalidArgument, "ncclCommInitRank: not an id from ncclGetUniqueId");
  }
  return Created(fake_nccl::InitComm(comm, nranks, region_name, rank), comm, config);
}

ncclResult_t CheckComm(const ncclComm* comm, const void* out, const char* function) {
  if (comm == nullptr || out == nullptr) {
    return Fail(ncclInvalidArgument, std::string(function) + ": NULL argument");
  }
  return ncclSuccess;
}

}  // namespace

// Defines nccl<Name> and exports pnccl<Name> as an alias of it, as real NCCL does for tools
// that interpose on the nccl* names. The library is built with hidden visibility, so these are
// its only exports.
#define NCCL_API(ret, name, ...)                                                                 \
  __attribute__((visibility("default"))) ret p##name(__VA_ARGS__) __attribute__((alias(#name))); \
  __attribute__((visibility("default"))) ret name(__VA_ARGS__)

extern "C" {

NCCL_API(ncclResult_t, ncclGetVersion, int* version) {
  if (version == nullptr) return Fail(ncclInvalidArgument, "ncclGetVersion: version is NULL");
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclGetUniqueId, ncclUniqueId* unique_id) {
  if (unique_id == nullptr) return Fail(ncclInvalidArgument, "ncclGetUniqueId: id is NULL");
  *unique_id = fake_nccl::UniqueIdFor(fake_nccl::NewRegionName());
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommInitRankConfig, ncclComm_t* comm, int nranks, ncclUniqueId comm_id,
         int rank, ncclConfig_t* config) {
  return InitRank(comm, nranks, comm_id, rank, config);
}

NCCL_API(ncclResult_t, ncclCommInitRank, ncclComm_t* comm, int nranks, ncclUniqueId comm_id,
         int rank) {
  return InitRank(comm, nranks, comm_id, rank, nullptr);
}

// All ranks pass the same ids; one is enough for the stand-in.
NCCL_API(ncclResult_t, ncclCommInitRankScalable, ncclComm_t* newcomm, int nranks, int myrank,
         int n_id, ncclUniqueId* comm_ids, ncclConfig_t* config) {
  if (n_id < 1 || comm_ids == nullptr) {
    return Fail(ncclInvalidArgument, "ncclCommInitRankScalable: no ids");
  }
  return InitRank(newcomm, nranks, comm_ids[0], myrank, config);
}

NCCL_API(ncclResult_t, ncclCommInitAll, ncclComm_t* comm, int ndev, const int* devlist) {
  if (comm == nullptr || ndev < 1 || ndev > fake_nccl::kMaxRanks) {
    return Fail(ncclInvalidArgument, "ncclCommInitAll: invalid comm array or ndev");
  }
  for (int i = 0; devlist != nullptr && i < ndev; ++i) {
    for (int j = 0; j < i; ++j) {
      if (devlist[i] < 0 || devlist[i] == devlist[j]) {
        return Fail(ncclInvalidArgument, "ncclCommInitAll: invalid or repeated device");
      }
    }
  }
  if (const ncclResult_t result = fake_nccl::InitSingleThreadClique(comm, ndev, devlist)) {
    return result;
  }
  for (int rank = 0; rank < ndev; ++rank) {
    if (const ncclResult_t result = Created(ncclSuccess, &comm[rank], nullptr)) {
      for (int other = 0; other < ndev; ++other) {
        Free(comm[other]);
        comm[other] = nullptr;
      }
      return result;
    }
  }
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommSplit, ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
         ncclConfig_t* config) {
  if (const ncclResult_t result = CheckComm(comm, newcomm, "ncclCommSplit")) return result;
  if (const ncclResult_t result = CheckConfig(config, "ncclCommSplit")) return result;
  if (color < 0 && color != NCCL_SPLIT_NOCOLOR) {
    return Fail(ncclInvalidArgument, "ncclCommSplit: negative color");
  }
  if (comm->async_error != ncclSuccess || comm->single_thread_clique) {
    return Fail(ncclInvalidUsage,
                "ncclCommSplit: communicator failed earlier or comes from "
                "ncclCommInitAll with several ranks");
  }
  return Created(fake_nccl::SplitComm(comm, color, key, newcomm), newcomm, config);
}

// Works on a communicator broken by a timeout too: that is what shrinking is for. Every call
// completes before it returns, so NCCL_SHRINK_ABORT has nothing to abort.
NCCL_API(ncclResult_t, ncclCommShrink, ncclComm_t comm, int* exclude_ranks_list,
         int exclude_ranks_count, ncclComm_t* newcomm, ncclConfig_t* config, int shrink_flags) {
  if (const ncclResult_t result = CheckComm(comm, newcomm, "ncclCommShrink")) return result;
  if (const ncclResult_t result = CheckConfig(config, "ncclCommShrink")) return result;
  if (shrink_flags != NCCL_SHRINK_DEFAULT && shrink_flags != NCCL_SHRINK_ABORT) {
    return Fail(ncclInvalidArgument, "ncclCommShrink: unknown flags");
  }
  if (comm->single_thread_clique) {
    return Fail(ncclInvalidUsage, "ncclCommShrink: communicator comes from ncclCommInitAll");
  }
  if (exclude_ranks_count < 0 || (exclude_ranks_count > 0 && exclude_ranks_list == nullptr)) {
    return Fail(ncclInvalidArgument, "ncclCommShrink: invalid exclusion list");
  }
  std::vector<int> excluded(exclude_ranks_list, exclude_ranks_list + exclude_ranks_count);
  std::sort(excluded.begin(), excluded.end());
  if (std::adjacent_find(excluded.begin(), excluded.end()) != excluded.end() ||
      (!excluded.empty() && (excluded.front() < 0 || excluded.back() >= comm->nranks)) ||
      std::binary_search(excluded.begin(), excluded.end(), comm->rank)) {
    return Fail(ncclInvalidArgument,
                "ncclCommShrink: exclusion list has repeats, ranks out of range or this rank");
  }
  return Created(fake_nccl::ShrinkComm(comm, excluded, newcomm), newcomm, config);
}

// Calls complete before they return, so there is never anything left to flush.
NCCL_API(ncclResult_t, ncclCommFinalize, ncclComm_t comm) {
  return comm != nullptr ? ncclSuccess
                         : Fail(ncclInvalidArgument, "ncclCommFinalize: comm is NULL");
}

// Destroying NULL is allowed, as for the NULL that ncclCommSplit returns for NCCL_SPLIT_NOCOLOR.
NCCL_API(ncclResult_t, ncclCommDestroy, ncclComm_t comm) {
  Free(comm);
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommAbort, ncclComm_t comm) {
  Free(comm);
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommCount, const ncclComm_t comm, int* count) {
  if (const ncclResult_t result = CheckComm(comm, count, "ncclCommCount")) return result;
  *count = comm->nranks;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommUserRank, const ncclComm_t comm, int* rank) {
  if (const ncclResult_t result = CheckComm(comm, rank, "ncclCommUserRank")) return result;
  *rank = comm->rank;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommCuDevice, const ncclComm_t comm, int* device) {
  if (const ncclResult_t result = CheckComm(comm, device, "ncclCommCuDevice")) return result;
  *device = comm->cuda_device;
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclCommGetAsyncError, ncclComm_t comm, ncclResult_t* async_error) {
  if (const ncclResult_t result = CheckComm(comm, async_error, "ncclCommGetAsyncError")) {
    return result;
  }
  *async_error = comm->async_error;
  return ncclSuccess;
}

NCCL_API(const char*, ncclGetErrorString, ncclResult_t result) {
  switch (result) {
    case ncclSuccess:
      return "no error";
    case ncclUnhandledCudaError:
      return "unhandled cuda error";
    case ncclSystemError:
      return "unhandled system error";
    case ncclInternalError:
      return "internal error";
    case ncclInvalidArgument:
      return "invalid argument";
    case ncclInvalidUsage:
      return "invalid usage";
    case ncclRemoteError:
      return "remote process exited or there was a network error";
    case ncclInProgress:
      return "NCCL operation in progress";
    case ncclNumResults:
      break;
  }
  return "unknown result code";
}

NCCL_API(const char*, ncclGetLastError, ncclComm_t /*comm*/) {
  return fake_nccl::LastErrorMessage();
}

NCCL_API(ncclResult_t, ncclRedOpCreatePreMulSum, ncclRedOp_t* op, void* scalar,
         ncclDataType_t datatype, ncclScalarResidence_t residence, ncclComm_t comm) {
  if (op == nullptr || scalar == nullptr || comm == nullptr || !fake_nccl::IsValidType(datatype) ||
      (residence != ncclScalarDevice && residence != ncclScalarHostImmediate)) {
    return Fail(ncclInvalidArgument, "ncclRedOpCreatePreMulSum: invalid argument");
  }
  ncclComm::UserOp user_op{true, datatype, {}};
  user_op.reduction.pre_multiply = true;
  if (residence == ncclScalarDevice) {
    user_op.reduction.scalar_source = scalar;
  } else {
    std::memcpy(user_op.reduction.scalar, scalar, fake_nccl::TypeSize(datatype));
  }
  size_t index = 0;
  while (index < comm->user_ops.size() && comm->user_ops[index].live) ++index;
  if (index == comm->user_ops.size()) comm->user_ops.emplace_back();
  comm->user_ops[index] = user_op;
  *op = static_cast<ncclRedOp_t>(ncclNumOps + index);
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclRedOpDestroy, ncclRedOp_t op, ncclComm_t comm) {
  const size_t index = static_cast<size_t>(op) - ncclNumOps;
  if (comm == nullptr || op < ncclNumOps || index >= comm->user_ops.size() ||
      !comm->user_ops[index].live) {
    return Fail(ncclInvalidArgument, "ncclRedOpDestroy: not an operation of this communicator");
  }
  comm->user_ops[index] = {};
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclAllReduce, const void* sendbuff, void* recvbuff, size_t count,
         ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kAllReduce, sendbuff, recvbuff, count, datatype, op, 0, comm, stream);
}

NCCL_API(ncclResult_t, ncclBroadcast, const void* sendbuff, void* recvbuff, size_t count,
         ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kBroadcast, sendbuff, recvbuff, count, datatype, ncclSum, root, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclBcast, void* buff, size_t count, ncclDataType_t datatype, int root,
         ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kBroadcast, buff, buff, count, datatype, ncclSum, root, comm, stream);
}

NCCL_API(ncclResult_t, ncclReduce, const void* sendbuff, void* recvbuff, size_t count,
         ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kReduce, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

NCCL_API(ncclResult_t, ncclAllGather, const void* sendbuff, void* recvbuff, size_t sendcount,
         ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kAllGather, sendbuff, recvbuff, sendcount, datatype, ncclSum, 0, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclReduceScatter, const void* sendbuff, void* recvbuff, size_t recvcount,
         ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kReduceScatter, sendbuff, recvbuff, recvcount, datatype, op, 0, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclAlltoAll, const void* sendbuff, void* recvbuff, size_t count,
         ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kAllToAll, sendbuff, recvbuff, count, datatype, ncclSum, 0, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclGather, const void* sendbuff, void* recvbuff, size_t count,
         ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kGather, sendbuff, recvbuff, count, datatype, ncclSum, root, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclScatter, const void* sendbuff, void* recvbuff, size_t count,
         ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kScatter, sendbuff, recvbuff, count, datatype, ncclSum, root, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclSend, const void* sendbuff, size_t count, ncclDataType_t datatype,
         int peer, ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kSend, sendbuff, nullptr, count, datatype, ncclSum, peer, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclRecv, void* recvbuff, size_t count, ncclDataType_t datatype, int peer,
         ncclComm_t comm, cudaStream_t stream) {
  return Communicate(OpKind::kRecv, nullptr, recvbuff, count, datatype, ncclSum, peer, comm,
                     stream);
}

NCCL_API(ncclResult_t, ncclGroupStart) {
  fake_nccl::StartGroup();
  return ncclSuccess;
}

NCCL_API(ncclResult_t, ncclGroupEnd) { return fake_nccl::EndGroup(); }

}  // extern "C"
