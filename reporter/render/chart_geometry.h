// Chart geometry for the HTML report's SVG: values to whole pixels. Whole
// pixels keep the edges of adjacent segments crisp (no anti-aliased seams),
// which is also what lets a screenshot be checked by pixel colour.
#pragma once

#include <vector>

namespace vprof::reporter {

// `value` on a linear scale where `domain` fills `range_px`: rounded to the
// nearest pixel and clamped to [0, range_px]; 0 when the domain is empty.
int PixelWidth(double value, double domain, int range_px);

struct PixelSpan {
  int x = 0;  // from the bar's start
  int width = 0;
};

// `values` laid end to end in a bar where `domain` fills `range_px`. Each
// edge is rounded from the running sum, so the segments neither gap nor
// overlap and their widths add up to the rounded total; segments past the
// end of the bar are cut there.
std::vector<PixelSpan> StackSpans(const std::vector<double>& values, double domain, int range_px);

}  // namespace vprof::reporter
