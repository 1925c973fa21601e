#include "reporter/render/html/html_timeline.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include "reporter/base/json_writer.h"
#include "reporter/base/visible_controls.h"
#include "reporter/render/chart_palette.h"
#include "reporter/render/html/web_assets.h"
#include "reporter/render/text_escape.h"

namespace vprof::reporter {
namespace {

// A name the page's script shows: control characters as the text report shows them (the
// JSON would carry them escaped, and the script put them raw into the page).
std::string Shown(const std::string& name) {
  return ShowControlCharacters(name, LineBreaks::kEscape);
}

void WriteData(const StepTimeline& timeline, std::ostream& out) {
  int64_t origin = std::numeric_limits<int64_t>::max();
  for (const RankTimeline& rank : timeline.ranks) origin = std::min(origin, rank.window_start_ns);
  JsonWriter json(out);
  json.BeginObject(JsonWriter::Layout::kOneLine);
  json.Field("step", timeline.step);
  json.Objects("kinds", kTimelineKindStyles, [&](const TimelineKindStyle& style) {
    json.Field("name", style.name);
    json.Field("colour", style.colour);
  });
  json.Objects("ranks", timeline.ranks, [&](const RankTimeline& rank) {
    json.Field("label", Shown(rank.label));
    json.Field("file", Shown(rank.file));
    json.Field("window_start", rank.window_start_ns - origin);
    json.Field("window_end", rank.window_end_ns - origin);
    json.Field("left_out", rank.spans_left_out);
    json.Field("longest_left_out", rank.longest_left_out_ns);
    json.Values("lanes", rank.lanes);
    // A span is an array, not an object: a timeline has tens of thousands.
    json.Array("spans", rank.spans, [&](const TimelineSpan& span) {
      json.BeginArray();
      json.Uint(span.lane);
      json.Uint(static_cast<uint64_t>(span.kind));
      json.Int(span.start_ns - origin);
      json.Int(span.duration_ns);
      json.String(Shown(span.name));
      json.String(span.id);
      json.EndArray();
    });
  });
  json.EndObject();
}

}  // namespace

void WriteHtmlTimeline(const StepTimeline& timeline, std::ostream& out) {
  out << "<section id=\"step-timeline\">\n<h2>Timeline of step " << timeline.number
      << "<span class=\"scope\">scope: actor window</span></h2>\n<p class=\"note\">"
      << "The step of \"Step " << timeline.number
      << " per rank\", span by span on each drawn rank: NVTX ranges and NCCL "
         "calls (host time), GPU kernels, copies and memsets by stream, and the GPU's idle gaps "
         "(GPU time), each rank's window outlined. Wheel or the buttons zoom, dragging pans, a "
         "span's tooltip gives the id `vprof export` shows it with; double-click resets.</p>\n";
  if (!timeline.ranks_caption.empty()) {
    out << "<p class=\"note\">" << HtmlEscape(timeline.ranks_caption) << "</p>\n";
  }
  out << "<div class=\"legend\">";
  for (const TimelineKindStyle& style : kTimelineKindStyles) {
    out << "<span class=\"swatch\" style=\"background:" << style.colour << "\"></span>"
        << HtmlEscape(style.name);
  }
  out << "</div>\n<div class=\"timeline-controls\"><button type=\"button\" data-zoom=\"in\">zoom "
         "in</button> <button type=\"button\" data-zoom=\"out\">zoom out</button> <button "
         "type=\"button\" data-zoom=\"reset\">reset</button></div>\n"
         "<div id=\"vprof-timeline\"></div>\n<div id=\"vprof-tooltip\" role=\"tooltip\"></div>\n"
         "<script type=\"application/json\" id=\"vprof-timeline-data\">";
  std::ostringstream data;
  WriteData(timeline, data);
  out << ScriptSafeJson(data.str()) << "</script>\n";
  out << "<!-- d3 v7 (https://d3js.org), inlined below. Its licence and those of the packages "
         "its bundle holds:\n"
      << kD3Licences << "\n-->\n<script>" << kD3Script << "</script>\n<script>" << kTimelineScript
      << "</script>\n</section>\n";
}

}  // namespace vprof::reporter
