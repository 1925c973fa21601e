// The "Steps" section of the text report.
#pragma once

#include <ostream>

#include "reporter/model/report.h"

namespace vprof::reporter {

// With more than kFoldAbove ranks, the per-rank tables fold into a row per
// figure over the ranks (least, median, most: SpreadOver), and rank notes are
// written for the first rank and for those that lost records.
void WriteStepsText(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
