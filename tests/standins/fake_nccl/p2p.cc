#include "p2p.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "comm.h"
#include "errors.h"
#include "fake_cudart.h"
#include "futex.h"
#include "monotonic_clock.h"

namespace fake_nccl {
namespace {

// One send or receive of the batch, moving through its channel chunk by chunk.
struct Transfer {
  const Operation* op;
  P2pChannel* channel;
  std::byte* buffer;
  RankState* peer;
  uint32_t message;  // the message's number on its channel
  size_t total_bytes;
  size_t moved_bytes = 0;
  bool first_chunk_moved = false;
  bool finished = false;
  uint64_t peer_arrival_ns = 0;
  // An earlier transfer of the batch on the same channel in the same direction; this one waits
  // until it finishes. (A send to oneself and its receive share a channel but run together.)
  const Transfer* after = nullptr;
};

void Ring(RankState& rank) {
  rank.doorbell.fetch_add(1, std::memory_order_release);
  FutexWakeAll(rank.doorbell);
}

// Returns true if the transfer made progress.
bool StepSend(Transfer& send, uint64_t arrival_ns, size_t buffer_bytes) {
  P2pChannel& channel = *send.channel;
  const uint32_t posted = channel.posted.load(std::memory_order_relaxed);
  if (channel.consumed.load(std::memory_order_acquire) != posted) return false;  // buffer full
  if (send.first_chunk_moved && send.moved_bytes == send.total_bytes) {
    // Everything was received; the receiver wrote its arrival before taking the first chunk.
    send.peer_arrival_ns = channel.receiver_arrival_ns[send.message % 2];
    send.finished = true;
    return true;
  }
  const size_t bytes = std::min(buffer_bytes, send.total_bytes - send.moved_bytes);
  if (bytes > 0) {
    std::memcpy(send.buffer, static_cast<const std::byte*>(send.op->sendbuff) + send.moved_bytes,
                bytes);
  }
  channel.chunk_bytes = bytes;
  if (!send.first_chunk_moved) {
    channel.message_bytes = send.total_bytes;
    channel.sender_arrival_ns = arrival_ns;
  }
  channel.posted.store(posted + 1, std::memory_order_release);
  send.moved_bytes += bytes;
  send.first_chunk_moved = true;
  Ring(*send.peer);
  return true;
}

// Returns true if the transfer made progress; fails if the sender's message size differs.
ncclResult_t StepRecv(Transfer& recv, uint64_t arrival_ns, bool* progressed) {
  P2pChannel& channel = *recv.channel;
  const uint32_t consumed = channel.consumed.load(std::memory_order_relaxed);
  if (channel.posted.load(std::memory_order_acquire) == consumed) return ncclSuccess;
  if (!recv.first_chunk_moved) {
    if (channel.message_bytes != recv.total_bytes) {
      return Fail(ncclInvalidUsage, "ncclRecv of " + std::to_string(recv.total_bytes) +
                                        " bytes matched a ncclSend of " +
                                        std::to_string(channel.message_bytes) + " bytes");
    }
    recv.peer_arrival_ns = channel.sender_arrival_ns;
    channel.receiver_arrival_ns[recv.message % 2] = arrival_ns;
  }
  const size_t bytes = channel.chunk_bytes;
  if (bytes > 0) {
    std::memcpy(static_cast<std::byte*>(recv.op->recvbuff) + recv.moved_bytes, recv.buffer, bytes);
  }
  channel.consumed.store(consumed + 1, std::memory_order_release);
  recv.moved_bytes += bytes;
  recv.first_chunk_moved = true;
  recv.finished = recv.moved_bytes == recv.total_bytes;
  Ring(*recv.peer);
  *progressed = true;
  return ncclSuccess;
}

std::vector<Transfer> PlanTransfers(ncclComm& comm, std::span<const Operation> ops) {
  SharedRegion& region = *comm.region;
  std::vector<Transfer> transfers;
  transfers.reserve(ops.size());
  for (const Operation& op : ops) {
    const bool is_send = op.kind == OpKind::kSend;
    const int sender = is_send ? comm.rank : op.root;
    const int receiver = is_send ? op.root : comm.rank;
    uint32_t& counter = is_send ? comm.messages_sent[op.root] : comm.messages_received[op.root];
    Transfer transfer{&op,
                      &region.channel(sender, receiver),
                      region.p2p_buffer(sender, receiver),
                      &region.rank_state(op.root),
                      counter++,
                      op.count * TypeSize(op.type)};
    for (const Transfer& earlier : transfers) {
      if (earlier.channel == transfer.channel && earlier.op->kind == op.kind) {
        transfer.after = &earlier;
      }
    }
    transfers.push_back(transfer);
  }
  return transfers;
}

std::string Pending(const std::vector<Transfer>& transfers) {
  std::string pending;
  for (const Transfer& transfer : transfers) {
    if (transfer.finished) continue;
    pending += std::string(pending.empty() ? "" : ", ") + OpName(transfer.op->kind) +
               (transfer.op->kind == OpKind::kSend ? " to " : " from ") +
               std::to_string(transfer.op->root);
  }
  return pending;
}

}  // namespace

ncclResult_t RunPointToPoint(std::span<const Operation> ops) {
  ncclComm& comm = *ops.front().comm;
  for (const Operation& op : ops) {
    if (fake_cudart::SynchronizeStream(op.stream) != cudaSuccess) {
      return Fail(ncclUnhandledCudaError, std::string(OpName(op.kind)) + ": invalid stream");
    }
  }
  const uint64_t arrival_ns = standins::MonotonicNs();
  std::vector<Transfer> transfers = PlanTransfers(comm, ops);
  RankState& me = comm.region->rank_state(comm.rank);
  const size_t buffer_bytes = comm.region->p2p_buffer_bytes();

  uint64_t deadline_ns = arrival_ns + comm.timing.timeout_ns;
  size_t unfinished = transfers.size();
  while (unfinished > 0) {
    // Read the doorbell before looking at the channels: a peer that acts after this read also
    // rings after it, so the wait below cannot miss it.
    const uint32_t doorbell = me.doorbell.load(std::memory_order_acquire);
    bool progressed = false;
    for (Transfer& transfer : transfers) {
      if (transfer.finished || (transfer.after != nullptr && !transfer.after->finished)) continue;
      if (transfer.op->kind == OpKind::kSend) {
        progressed |= StepSend(transfer, arrival_ns, buffer_bytes);
      } else if (const ncclResult_t result = StepRecv(transfer, arrival_ns, &progressed)) {
        return Break(comm, result);
      }
      if (transfer.finished) --unfinished;
    }
    if (progressed) {
      deadline_ns = standins::MonotonicNs() + comm.timing.timeout_ns;
    } else if (!FutexWaitUntil(me.doorbell, doorbell, deadline_ns)) {
      return Break(comm,
                   SystemFail(comm.timing.TimeoutText() + ": rank " + std::to_string(comm.rank) +
                              " of communicator " + comm.name + " is still waiting for " +
                              Pending(transfers) + " (FAKE_NCCL_TIMEOUT_S)"));
    }
  }

  uint64_t exit_ns = 0;
  for (const Transfer& transfer : transfers) {
    const Operation& op = *transfer.op;
    exit_ns = std::max(
        exit_ns, std::max(arrival_ns, transfer.peer_arrival_ns) +
                     comm.timing.SimulatedNs(op.kind, op.count, TypeSize(op.type), comm.nranks));
  }
  standins::SleepUntilNs(exit_ns);
  return ncclSuccess;
}

}  // namespace fake_nccl
