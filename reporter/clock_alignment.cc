#include "reporter/clock_alignment.h"

#include <algorithm>

#include "reporter/trace_reader.h"

namespace vprof::reporter {

std::optional<int64_t> ClockOffsetIn(const vprof::trace::TracePacket& packet) {
  uint64_t realtime_ns = 0, clock_ns = 0;
  if (packet.has_run_header()) {
    realtime_ns = packet.run_header().start_realtime_ns();
    clock_ns = packet.run_header().start_ns();
  } else if (packet.has_clock_sample()) {
    realtime_ns = packet.clock_sample().realtime_ns();
    clock_ns = packet.clock_sample().clock_ns();
  }
  if (realtime_ns == 0) return std::nullopt;
  return static_cast<int64_t>(realtime_ns - clock_ns);
}

int64_t MedianOffset(std::vector<int64_t> offsets) {
  std::sort(offsets.begin(), offsets.end());
  const size_t middle = offsets.size() / 2;
  if (offsets.size() % 2 == 1) return offsets[middle];
  return offsets[middle - 1] + (offsets[middle] - offsets[middle - 1]) / 2;
}

std::optional<int64_t> ScanMedianClockOffset(const std::string& path) {
  TraceReader reader(path);
  vprof::trace::TracePacket packet;
  std::vector<int64_t> offsets;
  while (reader.Next(&packet)) {
    if (const auto offset = ClockOffsetIn(packet)) offsets.push_back(*offset);
  }
  if (offsets.empty()) return std::nullopt;
  return MedianOffset(std::move(offsets));
}

}  // namespace vprof::reporter
