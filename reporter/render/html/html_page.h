// The report as one self-contained HTML page (no scripts or files fetched) with
// SVG charts: a per-rank timeline strip of one step, stacked phase bars per
// rank, the collective skew plot and the top fast-path candidates.
#pragma once

#include <ostream>

#include "reporter/model/report.h"

namespace vprof::reporter {

void WriteHtmlReport(const Report& report, std::ostream& out);

}  // namespace vprof::reporter
