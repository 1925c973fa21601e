// The scripts the HTML report inlines, so that the page works offline and
// alone: d3 (from npm, reporter/render/html/web/package.json) with the licences
// of what its bundle holds, and the report's own timeline and table scripts
// (reporter/render/html/web/*.js). Embedded at build time by embed_assets.py.
#pragma once

#include <string_view>

namespace vprof::reporter {

extern const std::string_view kD3Script;        // d3.min.js
extern const std::string_view kD3Licences;      // for an HTML comment: no "--"
extern const std::string_view kTimelineScript;  // timeline.js: the interactive step timeline
extern const std::string_view kTablesScript;    // tables.js: sortable tables
extern const std::string_view kHeatmapScript;   // heatmap.js: the rank × step view

}  // namespace vprof::reporter
