// The HTML report's interactive timeline section: the step's spans as JSON
// data, drawn by the inlined d3 and timeline.js (web_assets.h).
#pragma once

#include <ostream>

#include "reporter/model/step_timeline.h"

namespace vprof::reporter {

// The section (id "step-timeline") and the scripts it needs. The data sits in
// a <script type="application/json" id="vprof-timeline-data"> element: times
// in ns from the earliest drawn window's start, spans as
// [lane, kind, start, duration, name, id] with kind an index into "kinds".
void WriteHtmlTimeline(const StepTimeline& timeline, std::ostream& out);

}  // namespace vprof::reporter
