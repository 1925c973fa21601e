#include "reporter/collectives/collective_timing.h"

#include <algorithm>
#include <limits>

#include "reporter/base/saturating_ns.h"

namespace vprof::reporter {

CollectiveTiming MeasureCollective(std::span<const Arrival> arrivals) {
  int64_t min_enter = arrivals[0].enter_ns;
  int64_t min_exit = arrivals[0].exit_ns;
  int64_t max_exit = arrivals[0].exit_ns;
  size_t last = 0;
  for (size_t i = 1; i < arrivals.size(); ++i) {
    const Arrival& arrival = arrivals[i];
    min_enter = std::min(min_enter, arrival.enter_ns);
    min_exit = std::min(min_exit, arrival.exit_ns);
    max_exit = std::max(max_exit, arrival.exit_ns);
    const Arrival& latest = arrivals[last];
    if (arrival.enter_ns > latest.enter_ns ||
        (arrival.enter_ns == latest.enter_ns && arrival.comm_rank < latest.comm_rank)) {
      last = i;
    }
  }
  const int64_t max_enter = arrivals[last].enter_ns;
  int64_t next_enter = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < arrivals.size(); ++i) {
    if (i != last) next_enter = std::max(next_enter, arrivals[i].enter_ns);
  }
  if (arrivals.size() == 1) next_enter = max_enter;
  return CollectiveTiming{SaturatingSub(max_exit, max_enter),
                          SaturatingSub(max_enter, min_enter),
                          SaturatingSub(max_exit, min_exit),
                          min_enter,
                          last,
                          SaturatingSub(max_enter, next_enter)};
}

}  // namespace vprof::reporter
