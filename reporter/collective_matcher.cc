#include "reporter/collective_matcher.h"

#include <algorithm>
#include <tuple>

namespace vprof::reporter {

size_t CollectiveMatcher::KeyHash::operator()(const Key& key) const {
  // Boost-style combine; seq varies fastest, so it goes in last.
  size_t hash = std::hash<uint64_t>{}(key.comm_id);
  for (uint64_t part : {uint64_t{key.sender} << 32 | key.receiver, key.seq}) {
    hash ^= std::hash<uint64_t>{}(part) + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  }
  return hash;
}

std::optional<MatchedCollective> CollectiveMatcher::Add(const CollectiveCall& call) {
  if (call.comm_id == 0 || call.comm_size == 0) return std::nullopt;
  const bool point_to_point = RoleOf(call.function) == FunctionRole::kPointToPoint;
  Key key{call.comm_id, call.seq, kCollective, kCollective};
  if (point_to_point) {
    if (!call.peer || *call.peer < 0) return std::nullopt;
    const uint32_t self = call.arrival.comm_rank;
    const uint32_t peer = static_cast<uint32_t>(*call.peer);
    const bool sends = call.function == NcclFunction::kSend;
    key.sender = sends ? self : peer;
    key.receiver = sends ? peer : self;
  }

  auto [it, inserted] =
      pending_.try_emplace(key, Pending{call.function, call.comm_size, call.size_bytes, {}, {}});
  Pending& pending = it->second;
  // Room for every member at once: a 1,024-rank collective grew its vector
  // ten times.
  if (inserted) {
    pending.arrivals.reserve(point_to_point ? 2 : std::min(call.comm_size, kMaxReservedMembers));
  }
  if (!inserted) {
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
      pending.arrived.resize(std::max<size_t>(rank + 1, pending.comm_size));
    }
    pending.arrived[rank] = true;
  }
  pending.arrivals.push_back(call.arrival);

  const size_t members = point_to_point ? 2 : pending.comm_size;
  if (pending.arrivals.size() < members) return std::nullopt;
  MatchedCollective matched{call.comm_id,
                            point_to_point ? NcclFunction::kSendRecvPair : pending.function,
                            pending.comm_size, pending.size_bytes, std::move(pending.arrivals)};
  pending_.erase(it);
  return matched;
}

std::vector<PendingCollective> CollectiveMatcher::TakePending() {
  std::vector<std::pair<Key, Pending>> entries(std::make_move_iterator(pending_.begin()),
                                               std::make_move_iterator(pending_.end()));
  pending_.clear();
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first.comm_id, a.first.sender, a.first.receiver, a.first.seq) <
           std::tie(b.first.comm_id, b.first.sender, b.first.receiver, b.first.seq);
  });
  std::vector<PendingCollective> result;
  result.reserve(entries.size());
  for (auto& [key, pending] : entries) {
    PendingCollective out{.comm_id = key.comm_id,
                          .seq = key.seq,
                          .function = pending.function,
                          .comm_size = pending.comm_size,
                          .sender_receiver = std::nullopt,
                          .seen_ranks = {},
                          .size_bytes = pending.size_bytes,
                          .arrivals = std::move(pending.arrivals)};
    if (key.sender != kCollective) out.sender_receiver = {key.sender, key.receiver};
    for (const Arrival& arrival : out.arrivals) out.seen_ranks.push_back(arrival.comm_rank);
    std::sort(out.seen_ranks.begin(), out.seen_ranks.end());
    result.push_back(std::move(out));
  }
  return result;
}

}  // namespace vprof::reporter
