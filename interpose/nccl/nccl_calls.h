// Call shapes: what an intercepted NCCL call records, by kind of call.
//
// A shape's Before() runs just before the real call and fills the record from
// the arguments (and assigns sequence numbers); After() runs once the real call
// returned and keeps vprof's view of communicators and groups current. Both
// run on the calling thread, outside any vprof lock except where noted.
#pragma once

#include <nccl.h>

#include <cstdint>

#include "interpose/core/nccl_record.h"
#include "interpose/nccl/comm_registry.h"

namespace vprof {

// Looks a communicator up; one vprof never saw created (e.g. made by an
// unwrapped function) is adopted with a process-local id, so its calls are
// still recorded, though they cannot be matched across ranks.
CommInfo* CommInfoOf(const void* comm);

// In a forked child: the lock CommInfoOf holds across NCCL's calls made anew
// (a thread of the parent may have held it at the fork).
void RenewCommAdoptionInChild();

uint64_t DatatypeBytes(ncclDataType_t dt);

// This thread's ncclGroupStart nesting: inside a group NCCL launches nothing
// until the outermost ncclGroupEnd.
uint32_t NcclGroupDepth();

// Whether NCCL took the call: ncclSuccess, or ncclInProgress from a
// communicator in non-blocking mode (the work or communicator is coming).
bool NcclAccepted(ncclResult_t result);

// A call's buffers on this rank, for the collective fingerprints (interpose/audit/):
// null where this rank has no such buffer.
struct CallBuffers {
  const void* input = nullptr;
  uint64_t input_bytes = 0;
  const void* output = nullptr;
  uint64_t output_bytes = 0;
};

// How one buffer of a call relates to its count and root: `count` elements
// or count x ranks of them (an all-gather's output), on every rank or only
// on the root (a broadcast's input, a reduce's output).
enum class Span : uint8_t { kCount, kCountPerRank };
enum class Holder : uint8_t { kEveryRank, kRoot };
struct BufferRule {
  const void* data = nullptr;
  Span span = Span::kCount;
  Holder holder = Holder::kEveryRank;
};

// The arguments every collective and point-to-point call carries.
struct Payload {
  ncclComm_t comm;
  cudaStream_t stream;
  size_t count;
  ncclDataType_t datatype;
};

class Collective {
 public:
  Collective(ncclComm_t comm, cudaStream_t stream, size_t count, ncclDataType_t dt)
      : payload_{comm, stream, count, dt} {}
  Collective(ncclComm_t comm, cudaStream_t stream, size_t count, ncclDataType_t dt, ncclRedOp_t op)
      : Collective(comm, stream, count, dt) {
    op_ = static_cast<int32_t>(op);
    has_op_ = true;
  }
  Collective& WithRoot(int root) {
    root_ = root;
    has_root_ = true;
    return *this;
  }
  // The buffer the collective reads and the one it writes (nccl_functions.def).
  Collective& Reads(const void* data, Span span = Span::kCount,
                    Holder holder = Holder::kEveryRank) {
    input_ = {data, span, holder};
    return *this;
  }
  Collective& Writes(const void* data, Span span = Span::kCount,
                     Holder holder = Holder::kEveryRank) {
    output_ = {data, span, holder};
    return *this;
  }
  void Before(NcclRecord& r) const;
  void After(const NcclRecord&, ncclResult_t) const {}
  // Once Before() filled the record.
  CallBuffers Buffers(const NcclRecord& r) const;

 private:
  Payload payload_;
  BufferRule input_, output_;
  int32_t op_ = 0;
  bool has_op_ = false;
  int32_t root_ = 0;
  bool has_root_ = false;
};

class PointToPoint {
 public:
  PointToPoint(ncclComm_t comm, cudaStream_t stream, size_t count, ncclDataType_t dt, int peer)
      : payload_{comm, stream, count, dt}, peer_(peer) {}
  // A send reads its buffer, a receive writes its.
  PointToPoint& Reads(const void* data) {
    input_ = data;
    return *this;
  }
  PointToPoint& Writes(const void* data) {
    output_ = data;
    return *this;
  }
  void Before(NcclRecord& r) const;
  void After(const NcclRecord&, ncclResult_t) const {}
  CallBuffers Buffers(const NcclRecord& r) const {
    return {input_, input_ ? r.bytes : 0, output_, output_ ? r.bytes : 0};
  }

 private:
  Payload payload_;
  int peer_;
  const void* input_ = nullptr;
  const void* output_ = nullptr;
};

struct GroupStart {
  void Before(NcclRecord& r) const;
  void After(const NcclRecord&, ncclResult_t result) const;
};

struct GroupEnd {
  void Before(NcclRecord& r) const;
  void After(const NcclRecord&, ncclResult_t result) const;
};

// ncclCommInitRank and friends: the new communicator's id comes from its
// ncclUniqueId, the same on every rank.
class CommCreate {
 public:
  CommCreate(ncclComm_t* out, uint64_t id) : out_(out), id_(id) {}
  void Before(NcclRecord& r) const;
  void After(const NcclRecord& r, ncclResult_t result) const;

 private:
  ncclComm_t* out_;
  uint64_t id_;
};

// ncclCommInitAll: ndev communicators of one process.
class CommCreateAll {
 public:
  CommCreateAll(ncclComm_t* out, int ndev) : out_(out), ndev_(ndev) {}
  void Before(NcclRecord&) const {}
  void After(const NcclRecord& r, ncclResult_t result) const;

 private:
  ncclComm_t* out_;
  int ndev_;
};

// ncclCommSplit / ncclCommShrink: collective over the parent; the child's id
// is derived from the parent's id, the how-many-th derivation of that kind
// this is, and the split colour, all equal on the ranks that end up together.
class CommDerive {
 public:
  enum Kind : uint32_t { kSplit = 0, kShrink = 1 };
  CommDerive(ncclComm_t parent, ncclComm_t* out, Kind kind, int color)
      : parent_(parent), out_(out), kind_(kind), color_(color) {}
  void Before(NcclRecord& r);
  void After(const NcclRecord& r, ncclResult_t result) const;

 private:
  ncclComm_t parent_;
  ncclComm_t* out_;
  Kind kind_;
  int color_;
  uint64_t parent_id_ = 0;
  uint64_t ordinal_ = 0;
};

class CommEnd {
 public:
  CommEnd(ncclComm_t comm, bool destroys) : comm_(comm), destroys_(destroys) {}
  void Before(NcclRecord& r) const;
  void After(const NcclRecord& r, ncclResult_t result) const;

 private:
  ncclComm_t comm_;
  bool destroys_;
};

class OnComm {
 public:
  explicit OnComm(ncclComm_t comm) : comm_(comm) {}
  void Before(NcclRecord& r) const;
  void After(const NcclRecord&, ncclResult_t) const {}

 private:
  ncclComm_t comm_;
};

}  // namespace vprof
