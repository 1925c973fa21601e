// The shared memory of one communicator: a 16 MiB file under /dev/shm that every rank maps.
//
//   RegionHeader | RankState x nranks | P2pChannel x nranks^2 | p2p buffers | collective slots
//
// Collective slots: each rank owns one slot, split in two halves used by alternating rounds of a
// chunked collective (see data_movement.h). P2P: each ordered (sender, receiver) pair has a
// channel with its own buffer, so sends never touch the collective slots.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "nccl.h"
#include "shm_barrier.h"

namespace fake_nccl {

inline constexpr int kMaxRanks = 128;

struct alignas(64) RegionHeader {
  char magic[16];
  uint32_t nranks;
  std::atomic<uint32_t> joined_ranks;  // futex word: ranks wait for all to join
  ShmBarrier barrier;
};

struct alignas(64) RankState {
  std::atomic<uint32_t> claimed;  // set when a process joins as this rank
  // Bumped whenever a p2p peer changes a channel this rank may be waiting on; the futex word a
  // rank sleeps on while its sends and receives make no progress.
  std::atomic<uint32_t> doorbell;
  // CLOCK_MONOTONIC arrival at a collective, indexed by the collective's parity: a rank cannot
  // start collective k+2 before every rank has read the stamps of collective k.
  std::atomic<uint64_t> arrival_ns[2];
};

// One direction of one pair of ranks. The sender fills the buffer and bumps `posted`; the
// receiver empties it and bumps `consumed`. The buffer is free when both are equal.
struct alignas(64) P2pChannel {
  std::atomic<uint32_t> posted;
  std::atomic<uint32_t> consumed;
  // Published with each chunk (before `posted`).
  uint64_t chunk_bytes;
  uint64_t message_bytes;
  uint64_t sender_arrival_ns;
  // Written when the receiver starts message m (index m % 2), read by the sender once the
  // receiver has consumed a chunk of m. Two entries, because the receiver may start message m+1
  // before the sender has read m's.
  uint64_t receiver_arrival_ns[2];
};

class SharedRegion {
 public:
  static constexpr size_t kBytes = size_t{16} << 20;

  // Maps the region named `name` (creating it if this rank comes first) and claims `rank`.
  // Does not wait for the other ranks.
  static ncclResult_t Join(const std::string& name, int nranks, int rank,
                           std::unique_ptr<SharedRegion>* region);
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  // Waits until all nranks have joined. Returns false at the deadline, after RemoveName: the
  // missing ranks are not coming.
  bool WaitForAllRanks(uint64_t deadline_ns);
  // Unlinks the region's file, so that it does not outlive a communicator that failed to form.
  // The mapping stays valid.
  void RemoveName();

  RegionHeader& header() { return *reinterpret_cast<RegionHeader*>(base_); }
  RankState& rank_state(int rank);
  P2pChannel& channel(int sender, int receiver);
  std::byte* p2p_buffer(int sender, int receiver);
  size_t p2p_buffer_bytes() const { return p2p_buffer_bytes_; }
  std::byte* slot(int rank, int half);
  size_t slot_bytes() const { return slot_bytes_; }

 private:
  SharedRegion(std::byte* base, int nranks, std::string path);
  // The first rank to arrive builds the region under a private name, then links it into place,
  // so that no rank can map a half-initialized region. Succeeds also if another rank's region
  // got there first.
  static ncclResult_t Publish(const std::string& path, int nranks);

  std::byte* const base_;
  const int nranks_;
  const std::string path_;
  size_t rank_states_offset_ = 0;
  size_t channels_offset_ = 0;
  size_t p2p_buffers_offset_ = 0;
  size_t p2p_buffer_bytes_ = 0;
  size_t slots_offset_ = 0;
  size_t slot_bytes_ = 0;
};

}  // namespace fake_nccl
