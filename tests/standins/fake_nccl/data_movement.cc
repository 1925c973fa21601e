#include "data_movement.h"

#include <algorithm>
#include <cstring>

namespace fake_nccl {
namespace {

class SlotExchange {
 public:
  SlotExchange(ncclComm& comm, const Operation& op)
      : comm_(comm),
        op_(op),
        type_bytes_(TypeSize(op.type)),
        rank_(comm.rank),
        nranks_(comm.nranks),
        slot_elements_(comm.region->slot_bytes() / type_bytes_),
        tree_(comm.algo != nullptr && std::strcmp(comm.algo, "TREE") == 0) {}

  ncclResult_t Run() {
    switch (op_.kind) {
      case OpKind::kAllReduce:
      case OpKind::kReduce:
        return Reduce();
      case OpKind::kBroadcast:
        return Broadcast();
      case OpKind::kAllGather:
      case OpKind::kGather:
        return Gather();
      case OpKind::kReduceScatter:
        return ReduceScatter();
      case OpKind::kAllToAll:
        return AllToAll();
      case OpKind::kScatter:
        return Scatter();
      case OpKind::kSend:
      case OpKind::kRecv:
        break;
    }
    return ncclInternalError;
  }

 private:
  // Runs body(offset, length, slot half) over the message in rounds of at most per_round
  // elements.
  template <typename Body>
  ncclResult_t InRounds(size_t per_round, Body body) {
    for (size_t offset = 0, round = 0; offset < op_.count; offset += per_round, ++round) {
      const size_t length = std::min(per_round, op_.count - offset);
      if (const ncclResult_t result = body(offset, length, static_cast<int>(round % 2))) {
        return result;
      }
    }
    return ncclSuccess;
  }

  // All-reduce and reduce: every rank publishes its chunk; each rank reduces its own segment of
  // the chunk in place in its own slot (in that phase the others only touch their own
  // segments); then the receivers collect the reduced segments.
  ncclResult_t Reduce() {
    const bool everyone_receives = op_.kind == OpKind::kAllReduce;
    return InRounds(slot_elements_, [&](size_t offset, size_t length, int half) {
      Publish(Slot(rank_, half), Send(offset), length);
      if (const ncclResult_t result = Barrier()) return result;
      const auto [begin, end] = Segment(length, rank_);
      for (int i = 0; i < nranks_; ++i) {
        // NCCL_ALGO=TREE adds the ranks in the other order than RING: another rounding of a
        // floating-point sum, as a change of algorithm gives on real NCCL.
        const int peer = tree_ ? nranks_ - 1 - i : i;
        if (peer == rank_) continue;
        Accumulate(Slot(rank_, half) + begin * type_bytes_, Slot(peer, half) + begin * type_bytes_,
                   end - begin, op_.type, op_.reduction.op);
      }
      if (op_.reduction.op == ncclAvg) {
        Divide(Slot(rank_, half) + begin * type_bytes_, end - begin, op_.type, nranks_);
      }
      if (const ncclResult_t result = Barrier()) return result;
      if (everyone_receives || rank_ == op_.root) {
        for (int peer = 0; peer < nranks_; ++peer) {
          const auto [peer_begin, peer_end] = Segment(length, peer);
          Copy(Recv(offset + peer_begin), Slot(peer, half) + peer_begin * type_bytes_,
               peer_end - peer_begin);
        }
      }
      return ncclSuccess;
    });
  }

  ncclResult_t Broadcast() {
    const ncclResult_t result =
        InRounds(slot_elements_, [&](size_t offset, size_t length, int half) {
          if (rank_ == op_.root) Copy(Slot(rank_, half), Send(offset), length);
          if (const ncclResult_t barrier = Barrier()) return barrier;
          if (rank_ != op_.root) Copy(Recv(offset), Slot(op_.root, half), length);
          return ncclSuccess;
        });
    if (result == ncclSuccess && rank_ == op_.root && op_.count > 0) {
      std::memmove(op_.recvbuff, op_.sendbuff, op_.count * type_bytes_);
    }
    return result;
  }

  // All-gather and gather: rank r's chunk lands at block r of the receive buffer.
  ncclResult_t Gather() {
    const bool everyone_receives = op_.kind == OpKind::kAllGather;
    return InRounds(slot_elements_, [&](size_t offset, size_t length, int half) {
      Copy(Slot(rank_, half), Send(offset), length);
      if (const ncclResult_t result = Barrier()) return result;
      if (everyone_receives || rank_ == op_.root) {
        for (int peer = 0; peer < nranks_; ++peer) {
          Copy(Recv(Block(peer) + offset), Slot(peer, half), length);
        }
      }
      return ncclSuccess;
    });
  }

  // Every rank publishes block j's chunk at sub-slot j; rank r reduces sub-slot r of all slots.
  ncclResult_t ReduceScatter() {
    return InRounds(slot_elements_ / nranks_, [&](size_t offset, size_t length, int half) {
      for (int block = 0; block < nranks_; ++block) {
        Publish(SubSlot(rank_, half, block, length), Send(Block(block) + offset), length);
      }
      if (const ncclResult_t result = Barrier()) return result;
      std::byte* out = Recv(offset);
      Copy(out, SubSlot(0, half, rank_, length), length);
      for (int peer = 1; peer < nranks_; ++peer) {
        Accumulate(out, SubSlot(peer, half, rank_, length), length, op_.type, op_.reduction.op);
      }
      if (op_.reduction.op == ncclAvg) Divide(out, length, op_.type, nranks_);
      return ncclSuccess;
    });
  }

  // Every rank publishes the chunk for rank j at sub-slot j; rank r collects sub-slot r of all.
  ncclResult_t AllToAll() {
    return InRounds(slot_elements_ / nranks_, [&](size_t offset, size_t length, int half) {
      for (int block = 0; block < nranks_; ++block) {
        Copy(SubSlot(rank_, half, block, length), Send(Block(block) + offset), length);
      }
      if (const ncclResult_t result = Barrier()) return result;
      for (int peer = 0; peer < nranks_; ++peer) {
        Copy(Recv(Block(peer) + offset), SubSlot(peer, half, rank_, length), length);
      }
      return ncclSuccess;
    });
  }

  ncclResult_t Scatter() {
    return InRounds(slot_elements_ / nranks_, [&](size_t offset, size_t length, int half) {
      if (rank_ == op_.root) {
        for (int block = 0; block < nranks_; ++block) {
          Copy(SubSlot(rank_, half, block, length), Send(Block(block) + offset), length);
        }
      }
      if (const ncclResult_t result = Barrier()) return result;
      Copy(Recv(offset), SubSlot(op_.root, half, rank_, length), length);
      return ncclSuccess;
    });
  }

  ncclResult_t Barrier() { return fake_nccl::Barrier(comm_, OpName(op_.kind)); }

  std::byte* Slot(int rank, int half) { return comm_.region->slot(rank, half); }
  // Part `block` of a slot holding nranks parts of `length` elements each.
  std::byte* SubSlot(int rank, int half, int block, size_t length) {
    return Slot(rank, half) + static_cast<size_t>(block) * length * type_bytes_;
  }
  // Element index where per-rank block `block` of a count-per-rank buffer starts.
  size_t Block(int block) const { return static_cast<size_t>(block) * op_.count; }
  const std::byte* Send(size_t element) const {
    return static_cast<const std::byte*>(op_.sendbuff) + element * type_bytes_;
  }
  std::byte* Recv(size_t element) const {
    return static_cast<std::byte*>(op_.recvbuff) + element * type_bytes_;
  }
  // The part of a `length`-element chunk that `rank` reduces: [first, second).
  std::pair<size_t, size_t> Segment(size_t length, int rank) const {
    const size_t n = static_cast<size_t>(nranks_);
    const size_t r = static_cast<size_t>(rank);
    return {length * r / n, length * (r + 1) / n};
  }
  void Copy(std::byte* dst, const std::byte* src, size_t elements) const {
    std::memcpy(dst, src, elements * type_bytes_);
  }
  // Copies this rank's input into shared memory; PreMulSum scales it on the way.
  void Publish(std::byte* dst, const std::byte* src, size_t elements) const {
    if (op_.reduction.pre_multiply) {
      CopyScaled(dst, src, elements, op_.type, op_.reduction.Scalar());
    } else {
      Copy(dst, src, elements);
    }
  }

  ncclComm& comm_;
  const Operation& op_;
  const size_t type_bytes_;
  const int rank_;
  const int nranks_;
  const size_t slot_elements_;
  const bool tree_;  // NCCL_ALGO=TREE: peers summed from the last rank down
};

}  // namespace

ncclResult_t MoveCollectiveData(ncclComm& comm, const Operation& op) {
  return SlotExchange(comm, op).Run();
}

}  // namespace fake_nccl
