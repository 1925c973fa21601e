#include "interpose/nccl/nccl_calls.h"

#include <unistd.h>

#include <atomic>
#include <mutex>
#include <new>

#include "interpose/core/load_order.h"
#include "interpose/core/log.h"
#include "interpose/nccl/nccl_functions.h"

namespace vprof {
namespace {

// Serialises adopting unknown communicators (rare). Made at load.
LoadFirst<std::mutex> g_adopt_lock VPROF_LOAD_FIRST;

// ncclGroupStart nesting of this thread (NCCL's group state is per thread).
thread_local uint32_t t_group_depth = 0;

// The largest communicator for which per-peer send/recv counters are kept.
constexpr uint32_t kMaxP2pPeers = 1u << 20;

using CommQuery = ncclResult_t (*)(const ncclComm_t, int*);

int QueryComm(const char* fn_name, std::atomic<void*>& cache, ncclComm_t comm) {
  void* fn = cache.load(std::memory_order_acquire);
  if (!fn) {
    fn = RealNcclAux(fn_name);
    if (!fn) return -1;
    cache.store(fn, std::memory_order_release);
  }
  int v = -1;
  if (reinterpret_cast<CommQuery>(fn)(comm, &v) != ncclSuccess) return -1;
  return v;
}

int CommCount(ncclComm_t comm) {
  static std::atomic<void*> fn{nullptr};
  return QueryComm("ncclCommCount", fn, comm);
}
int CommUserRank(ncclComm_t comm) {
  static std::atomic<void*> fn{nullptr};
  return QueryComm("ncclCommUserRank", fn, comm);
}
int CommDevice(ncclComm_t comm) {
  static std::atomic<void*> fn{nullptr};
  return QueryComm("ncclCommCuDevice", fn, comm);
}

// Asked of the library that made each communicator, not once at start: the
// RunHeader's version is asked as the trace begins, before a program that
// loads NCCL late (Python importing torch) has it (schema: Communicator).
uint32_t NcclVersion() {
  static std::atomic<void*> cache{nullptr};
  void* fn = cache.load(std::memory_order_acquire);
  if (!fn) {
    fn = RealNcclAux("ncclGetVersion");
    if (!fn) return 0;
    cache.store(fn, std::memory_order_release);
  }
  int v = 0;
  if (reinterpret_cast<ncclResult_t (*)(int*)>(fn)(&v) != ncclSuccess || v <= 0) return 0;
  return static_cast<uint32_t>(v);
}

struct NewComm {
  ncclComm_t comm;
  uint64_t id;
  int nranks = -1;  // -1: ask NCCL
  int rank = -1;
  uint64_t parent_id = 0;
  int32_t color = 0;
};

CommInfo* RegisterComm(const NewComm& c, const NcclRecord& r) {
  auto* info = new (std::nothrow) CommInfo;
  if (!info) return nullptr;
  info->comm = c.comm;
  info->id = c.id;
  int nranks = c.nranks >= 0 ? c.nranks : CommCount(c.comm);
  int rank = c.rank >= 0 ? c.rank : CommUserRank(c.comm);
  info->nranks = nranks > 0 ? static_cast<uint32_t>(nranks) : 0;
  info->rank = rank >= 0 ? static_cast<uint32_t>(rank) : 0;
  info->parent_id = c.parent_id;
  info->split_color = c.color;
  info->created_by = r.function;
  info->create_begin_ns = r.enter_ns;
  info->create_end_ns = r.exit_ns;
  info->cuda_device = CommDevice(c.comm);
  info->nccl_version = NcclVersion();
  if (info->nranks > 0 && info->nranks <= kMaxP2pPeers) {
    info->p2p_seq.reset(new (std::nothrow) std::atomic<uint64_t>[info->nranks]());
  }
  if (!GlobalCommRegistry().insert(info)) {
    VPROF_WARN_ONCE(
        "more live NCCL communicators than vprof tracks ({}); new ones are recorded "
        "without cross-rank identity",
        CommRegistry::kSlots);
    return nullptr;
  }
  return info;
}

void FillComm(NcclRecord& r, const CommInfo* info) {
  if (!info) return;
  r.comm_id = info->id;
  r.comm_size = info->nranks;
  r.comm_rank = info->rank;
}

void FillPayload(NcclRecord& r, const Payload& p) {
  r.count = p.count;
  r.datatype = static_cast<int8_t>(p.datatype);
  r.has |= NcclRecord::kHasDatatype;
  r.bytes = p.count * DatatypeBytes(p.datatype);
  r.stream = reinterpret_cast<uint64_t>(p.stream);
}

}  // namespace

CommInfo* CommInfoOf(const void* comm) {
  if (!comm) return nullptr;
  if (CommInfo* info = GlobalCommRegistry().find(comm)) return info;
  // Adopted: its id is local to this process (pid and address), so the
  // reporter can tell it cannot be matched across ranks (no Communicator
  // packet names it as created by an init call).
  std::lock_guard<std::mutex> lock(*g_adopt_lock);
  if (CommInfo* info = GlobalCommRegistry().find(comm)) return info;
  uintptr_t parts[2] = {reinterpret_cast<uintptr_t>(comm), static_cast<uintptr_t>(getpid())};
  NcclRecord none{};
  none.function = static_cast<uint16_t>(NcclFn::kCount);
  return RegisterComm(NewComm{const_cast<ncclComm_t>(static_cast<const ncclComm*>(comm)),
                              CommIdFromBytes(parts, sizeof parts)},
                      none);
}

void RenewCommAdoptionInChild() { g_adopt_lock.RenewInChild(); }

uint64_t DatatypeBytes(ncclDataType_t dt) {
  switch (dt) {
    case ncclInt8:
    case ncclUint8:
    case ncclFloat8e4m3:
    case ncclFloat8e5m2:
      return 1;
    case ncclFloat16:
    case ncclBfloat16:
      return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32:
      return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64:
      return 8;
    default:
      return 0;  // unknown type: bytes stay 0 rather than guessed
  }
}

void Collective::Before(NcclRecord& r) const {
  CommInfo* info = CommInfoOf(payload_.comm);
  FillComm(r, info);
  if (info) r.seq = info->coll_seq.fetch_add(1, std::memory_order_relaxed) + 1;
  FillPayload(r, payload_);
  if (has_op_) {
    r.red_op = op_;
    r.has |= NcclRecord::kHasRedOp;
  }
  if (has_root_) {
    r.root = root_;
    r.has |= NcclRecord::kHasRoot;
  }
}

uint32_t NcclGroupDepth() { return t_group_depth; }

bool NcclAccepted(ncclResult_t result) { return result == ncclSuccess || result == ncclInProgress; }

CallBuffers Collective::Buffers(const NcclRecord& r) const {
  auto place = [&](const BufferRule& rule, const void** data, uint64_t* bytes) {
    if (!rule.data ||
        (rule.holder == Holder::kRoot && static_cast<int32_t>(r.comm_rank) != root_)) {
      return;
    }
    *data = rule.data;
    *bytes = rule.span == Span::kCountPerRank ? r.bytes * r.comm_size : r.bytes;
  };
  CallBuffers b;
  place(input_, &b.input, &b.input_bytes);
  place(output_, &b.output, &b.output_bytes);
  return b;
}

void PointToPoint::Before(NcclRecord& r) const {
  CommInfo* info = CommInfoOf(payload_.comm);
  FillComm(r, info);
  if (info && info->p2p_seq && peer_ >= 0 && static_cast<uint32_t>(peer_) < info->nranks) {
    r.seq = info->p2p_seq[peer_].fetch_add(1, std::memory_order_relaxed) + 1;
  }
  FillPayload(r, payload_);
  r.peer = peer_;
  r.has |= NcclRecord::kHasPeer;
}

void GroupStart::Before(NcclRecord& r) const {
  r.group_depth = static_cast<uint8_t>(t_group_depth);
}
void GroupStart::After(const NcclRecord&, ncclResult_t result) const {
  if (result == ncclSuccess) ++t_group_depth;
}

void GroupEnd::Before(NcclRecord& r) const { r.group_depth = static_cast<uint8_t>(t_group_depth); }
void GroupEnd::After(const NcclRecord&, ncclResult_t) const {
  // NCCL leaves the group even when ncclGroupEnd reports an error.
  if (t_group_depth > 0) --t_group_depth;
}

void CommCreate::Before(NcclRecord& r) const { r.comm_id = id_; }
void CommCreate::After(const NcclRecord& r, ncclResult_t result) const {
  if (!NcclAccepted(result) || !out_ || !*out_) return;
  RegisterComm(NewComm{*out_, id_}, r);
}

void CommCreateAll::After(const NcclRecord& r, ncclResult_t result) const {
  if (!NcclAccepted(result) || !out_ || ndev_ <= 0) return;
  // One process owns every rank: an id private to this call is enough.
  static std::atomic<uint64_t> calls{0};
  uint64_t parts[2] = {static_cast<uint64_t>(getpid()), calls.fetch_add(1) + 1};
  uint64_t id = CommIdFromBytes(parts, sizeof parts);
  for (int i = 0; i < ndev_; ++i) {
    if (out_[i]) RegisterComm(NewComm{out_[i], id, ndev_, i}, r);
  }
}

void CommDerive::Before(NcclRecord& r) {
  CommInfo* parent = CommInfoOf(parent_);
  FillComm(r, parent);
  if (!parent) return;
  parent_id_ = parent->id;
  ordinal_ = parent->derived[kind_].fetch_add(1, std::memory_order_relaxed) + 1;
}

void CommDerive::After(const NcclRecord& r, ncclResult_t result) const {
  if (!NcclAccepted(result) || !out_ || !*out_ || !parent_id_) return;
  RegisterComm(NewComm{*out_, CommIdDerived(parent_id_, kind_, ordinal_, color_), -1, -1,
                       parent_id_, color_},
               r);
}

void CommEnd::Before(NcclRecord& r) const { FillComm(r, CommInfoOf(comm_)); }
void CommEnd::After(const NcclRecord&, ncclResult_t) const {
  if (!destroys_) return;
  if (CommInfo* info = GlobalCommRegistry().find(comm_)) {
    info->destroyed.store(true, std::memory_order_relaxed);
  }
}

void OnComm::Before(NcclRecord& r) const { FillComm(r, CommInfoOf(comm_)); }

}  // namespace vprof
