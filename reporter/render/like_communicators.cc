#include "reporter/render/like_communicators.h"

#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "reporter/base/units.h"
#include "reporter/render/spread_over_ranks.h"

namespace vprof::reporter {
namespace {

// What makes communicators alike, in a form that compares and sorts.
using Shape =
    std::tuple<uint32_t, size_t, std::string, std::vector<std::pair<std::string, uint64_t>>,
               std::vector<std::tuple<std::string, int, uint64_t>>>;

Shape ShapeOf(const CommunicatorReport& comm) {
  std::vector<std::pair<std::string, uint64_t>> lifecycle;
  for (const LifecycleReport& call : comm.lifecycle)
    lifecycle.emplace_back(call.function, call.calls);
  std::vector<std::tuple<std::string, int, uint64_t>> ops;
  for (const OpReport& op : comm.ops) ops.emplace_back(op.op, op.bucket.log2, op.count);
  return {comm.size, comm.ranks_seen.size(), comm.created_by, std::move(lifecycle), std::move(ops)};
}

int64_t CollectiveTimeOf(const CommunicatorReport& comm) {
  int64_t total = 0;
  for (const OpReport& op : comm.ops) total += op.total_time_ns;
  return total;
}

}  // namespace

std::vector<LikeCommunicators> GroupLikeCommunicators(
    const std::vector<CommunicatorReport>& communicators) {
  std::vector<LikeCommunicators> groups;
  std::map<Shape, size_t> group_of_shape;  // index into groups
  for (size_t i = 0; i < communicators.size(); ++i) {
    if (!communicators[i].incomplete.empty()) {
      groups.push_back({i, {}});
      continue;
    }
    const auto [found, inserted] =
        group_of_shape.try_emplace(ShapeOf(communicators[i]), groups.size());
    if (inserted) {
      groups.push_back({i, {}});
    } else {
      groups[found->second].others.push_back(i);
    }
  }
  return groups;
}

std::string LikeCommunicatorsText(const std::vector<CommunicatorReport>& communicators,
                                  const LikeCommunicators& group) {
  // SpreadOver names the first of equals at each extreme; given indices into
  // the communicators in report order, it names the index.
  RankValues times = {
      {CollectiveTimeOf(communicators[group.first]), static_cast<int32_t>(group.first)}};
  for (const size_t i : group.others) {
    times.emplace_back(CollectiveTimeOf(communicators[i]), static_cast<int32_t>(i));
  }
  const size_t count = times.size();
  const SpreadOverRanks spread = *SpreadOver(std::move(times));
  const auto named = [&](int64_t ns, const std::optional<int32_t>& index) {
    return FormatDuration(static_cast<double>(ns)) + " (" +
           FormatHexId(communicators[static_cast<size_t>(*index)].comm_id) + ")";
  };
  return std::to_string(group.others.size()) + " more communicators like it (size " +
         std::to_string(communicators[group.first].size) +
         ", the same calls and collective counts), " +
         FormatHexId(communicators[group.others.front()].comm_id) + " to " +
         FormatHexId(communicators[group.others.back()].comm_id) + "; collective time over all " +
         std::to_string(count) + ": least " + named(spread.least, spread.least_rank) + ", median " +
         FormatDuration(static_cast<double>(spread.median)) + ", most " +
         named(spread.most, spread.most_rank) + "; the JSON report has each";
}

}  // namespace vprof::reporter
