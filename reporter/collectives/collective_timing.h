// The timing of one matched collective from its members' enter/exit times.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace vprof::reporter {

// One rank's part in a collective (or one side of a send/recv), on the
// report's timeline.
struct Arrival {
  uint32_t process = 0;  // index of the process's trace
  uint32_t comm_rank = 0;
  int64_t enter_ns = 0;
  int64_t exit_ns = 0;
};

struct CollectiveTiming {
  // Max exit − max enter: the time after the last rank arrived, i.e. what the
  // collective itself took, not the wait for stragglers.
  int64_t time_ns = 0;
  int64_t arrival_skew_ns = 0;  // max enter − min enter
  int64_t exit_skew_ns = 0;     // max exit − min exit
  int64_t first_enter_ns = 0;   // min enter; each rank's lateness is its enter minus this
  size_t last_arrival = 0;      // index of the max enter (lowest comm rank on a tie)
  // Max enter − the latest enter of the others: how much sooner the collective could have
  // started had the last rank arrived with the rest, the time it alone held them; 0 with
  // one member.
  int64_t last_lead_ns = 0;
};

// `arrivals` must not be empty.
CollectiveTiming MeasureCollective(std::span<const Arrival> arrivals);

}  // namespace vprof::reporter
