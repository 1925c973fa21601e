// Matches the calls each rank made into whole collectives: the ranks of a
// communicator number their collectives with the same seq, and the n-th send
// from a rank to a peer pairs with the peer's n-th recv from it. Only
// collectives still waiting for a member are kept, so memory follows how far
// apart the ranks' traces are, not how long they are.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "reporter/collectives/collective_timing.h"
#include "reporter/collectives/nccl_function.h"
#include "reporter/collectives/seq_window_table.h"

namespace vprof::reporter {

// One rank's call, from one NcclEvent.
struct CollectiveCall {
  uint64_t comm_id = 0;
  uint64_t seq = 0;
  NcclFunction function = NcclFunction::kUnknown;  // a collective, ncclSend or ncclRecv
  uint32_t comm_size = 0;
  std::optional<int32_t> peer;  // send/recv only
  uint64_t size_bytes = 0;      // S (see bandwidth.h)
  Arrival arrival;
};

struct MatchedCollective {
  uint64_t comm_id = 0;
  NcclFunction op = NcclFunction::kUnknown;  // kSendRecvPair for a send and its recv
  uint32_t comm_size = 0;
  uint64_t size_bytes = 0;
  std::vector<Arrival> arrivals;  // one per member, in the order they were read
};

// A collective (or send/recv) that not every member reported.
struct PendingCollective {
  uint64_t comm_id = 0;
  uint64_t seq = 0;
  NcclFunction function = NcclFunction::kUnknown;  // as the first member reported it
  uint32_t comm_size = 0;
  // Send/recv only: the sending and the receiving comm rank, its two members.
  std::optional<std::pair<uint32_t, uint32_t>> sender_receiver;
  std::vector<uint32_t> seen_ranks;  // comm ranks that reported it, ascending
  uint64_t size_bytes = 0;           // S, as the matcher kept it
  // The members' calls, in the order they were read: what a node summary
  // passes on so that another process can complete the match.
  std::vector<Arrival> arrivals;
};

class CollectiveMatcher {
 public:
  // `processes`: how many processes' calls it is given, the most members a
  // collective can be reported by.
  explicit CollectiveMatcher(size_t processes) : processes_(processes) {}

  // Returns the collective when `call` was its last missing member. Calls that
  // cannot be matched (no communicator, a send/recv without a peer) and
  // repeated reports of one member are ignored, and so are a comm_size above
  // kMostRanks (rank_bounds.h) and a comm_rank not below comm_size.
  std::optional<MatchedCollective> Add(const CollectiveCall& call);

  size_t pending_count() const { return pending_.size(); }

  // Empties the table; ordered by communicator, send/recv pair, seq.
  std::vector<PendingCollective> TakePending();

 private:
  // What numbers its calls 1, 2, 3...: a communicator's collectives, or
  // the sends of one comm rank to another.
  struct Channel {
    uint64_t comm_id;
    // Send/recv: the sending and receiving comm ranks; kCollective for both otherwise.
    uint32_t sender;
    uint32_t receiver;
    auto operator<=>(const Channel&) const = default;
  };
  struct ChannelHash {
    size_t operator()(const Channel& channel) const;
  };
  struct Pending {
    NcclFunction function;
    uint32_t comm_size;
    uint64_t size_bytes;
    std::vector<Arrival> arrivals;
    // Collectives: by comm rank, whether it arrived. A scan of arrivals
    // instead costs comm_size² per collective, which a 1,024-rank world feels.
    std::vector<bool> arrived;
  };
  static constexpr uint32_t kCollective = UINT32_MAX;
  size_t processes_;

  SeqWindowTable<Channel, Pending, ChannelHash> pending_;
};

}  // namespace vprof::reporter
