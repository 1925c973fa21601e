#include "reporter/render/chart_geometry.h"

#include <algorithm>
#include <cmath>

namespace vprof::reporter {

int PixelWidth(double value, double domain, int range_px) {
  if (!(domain > 0) || !(value > 0)) return 0;
  const double pixels = std::round(value / domain * range_px);
  return static_cast<int>(std::min(pixels, static_cast<double>(range_px)));
}

std::vector<PixelSpan> StackSpans(const std::vector<double>& values, double domain, int range_px) {
  std::vector<PixelSpan> spans;
  spans.reserve(values.size());
  double running = 0;
  int start = 0;
  for (const double value : values) {
    running += std::max(value, 0.0);
    const int end = PixelWidth(running, domain, range_px);
    spans.push_back({start, end - start});
    start = end;
  }
  return spans;
}

}  // namespace vprof::reporter
