#include "reporter/collectives/collective_matcher.h"

#include <algorithm>
#include <tuple>

#include "reporter/base/rank_bounds.h"

namespace vprof::reporter {

size_t CollectiveMatcher::ChannelHash::operator()(const Channel& channel) const {
  // Boost-style combine of the communicator and the rank pair.
  const size_t hash = std::hash<uint64_t>{}(channel.comm_id);
  const uint64_t ranks = uint64_t{channel.sender} << 32 | channel.receiver;
  return hash ^ (std::hash<uint64_t>{}(ranks) + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2));
}

std::optional<MatchedCollective> CollectiveMatcher::Add(const CollectiveCall& call) {
  // Counts no NCCL world has (TraceSource names them in traces) would size
  // the tables below: such calls are not matched.
  if (call.comm_id == 0 || call.comm_size == 0 || call.comm_size > kMostRanks ||
      call.arrival.comm_rank >= call.comm_size) {
    return std::nullopt;
  }
  const bool point_to_point = RoleOf(call.function) == FunctionRole::kPointToPoint;
  Channel channel{call.comm_id, kCollective, kCollective};
  if (point_to_point) {
    if (!call.peer || *call.peer < 0) return std::nullopt;
    const uint32_t self = call.arrival.comm_rank;
    const uint32_t peer = static_cast<uint32_t>(*call.peer);
    const bool sends = call.function == NcclFunction::kSend;
    channel.sender = sends ? self : peer;
    channel.receiver = sends ? peer : self;
  }

  const auto [entry, inserted] = pending_.TryEmplace(channel, call.seq);
  Pending& pending = *entry;
  if (inserted) {
    pending = Pending{call.function, call.comm_size, call.size_bytes, {}, {}};
    // Room for every member at once: a 1,024-rank collective grew its
    // vector ten times.
    // No more than there are processes to report it.
    pending.arrivals.reserve(point_to_point ? 2 : std::min<size_t>(call.comm_size, processes_));
  } else {
    // The same member twice is a capture-side fault; the first report stands.
    const bool repeated = point_to_point ? pending.function == call.function
                                         : call.arrival.comm_rank < pending.arrived.size() &&
                                               pending.arrived[call.arrival.comm_rank];
    if (repeated) return std::nullopt;
    // A recv may be read before its send; the sender's size is S.
    if (call.function == NcclFunction::kSend) pending.size_bytes = call.size_bytes;
  }
  if (!point_to_point) {
    const size_t rank = call.arrival.comm_rank;
    if (rank >= pending.arrived.size()) {
      // Up to the highest rank seen, not comm_size: memory follows the
      // members present.
      pending.arrived.resize(rank + 1);
    }
    pending.arrived[rank] = true;
  }
  pending.arrivals.push_back(call.arrival);

  const size_t members = point_to_point ? 2 : pending.comm_size;
  if (pending.arrivals.size() < members) return std::nullopt;
  MatchedCollective matched{call.comm_id,
                            point_to_point ? NcclFunction::kSendRecvPair : pending.function,
                            pending.comm_size, pending.size_bytes, std::move(pending.arrivals)};
  pending_.Erase(channel, call.seq);
  return matched;
}

std::vector<PendingCollective> CollectiveMatcher::TakePending() {
  std::vector<std::tuple<Channel, uint64_t, Pending>> entries;
  entries.reserve(pending_.size());
  pending_.ForEach([&](const Channel& channel, uint64_t seq, Pending& pending) {
    entries.emplace_back(channel, seq, std::move(pending));
  });
  pending_.clear();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<PendingCollective> result;
  result.reserve(entries.size());
  for (auto& [channel, seq, pending] : entries) {
    PendingCollective out{.comm_id = channel.comm_id,
                          .seq = seq,
                          .function = pending.function,
                          .comm_size = pending.comm_size,
                          .sender_receiver = std::nullopt,
                          .seen_ranks = {},
                          .size_bytes = pending.size_bytes,
                          .arrivals = std::move(pending.arrivals)};
    if (channel.sender != kCollective) out.sender_receiver = {channel.sender, channel.receiver};
    for (const Arrival& arrival : out.arrivals) out.seen_ranks.push_back(arrival.comm_rank);
    std::sort(out.seen_ranks.begin(), out.seen_ranks.end());
    result.push_back(std::move(out));
  }
  return result;
}

}  // namespace vprof::reporter
