#include "reporter/render/html/html_heatmap.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "reporter/base/json_writer.h"
#include "reporter/render/html/web_assets.h"
#include "reporter/render/text_escape.h"

namespace vprof::reporter {
namespace {

void WriteCells(JsonWriter& json, std::string_view key,
                const std::vector<std::vector<std::optional<int64_t>>>& rows) {
  // Rows of numbers, not objects: a 1,024-rank run has a quarter of a million cells.
  json.Array(key, rows, [&](const std::vector<std::optional<int64_t>>& row) {
    json.BeginArray(JsonWriter::Layout::kOneLine);
    for (const std::optional<int64_t>& cell : row) {
      if (cell) {
        json.Int(*cell);
      } else {
        json.Null();
      }
    }
    json.EndArray();
  });
}

}  // namespace

RankStepHeatmap BuildRankStepHeatmap(const StepsReport& steps, size_t max_cells) {
  RankStepHeatmap map;
  std::map<uint32_t, int64_t> earliest;  // step index → its earliest start over the ranks
  for (const RankStepsReport& rank : steps.ranks) {
    for (const RankStepReport& step : rank.steps) {
      auto [start, added] = earliest.try_emplace(step.step, step.start_ns);
      if (!added) start->second = std::min(start->second, step.start_ns);
    }
  }
  if (steps.ranks.empty() || earliest.empty()) return map;
  const size_t keep = std::max<size_t>(1, max_cells / steps.ranks.size());
  std::map<uint32_t, size_t> column;  // step index → its column
  for (const auto& [step, start] : earliest) {
    if (column.size() == keep) {
      ++map.steps_left_out;
      continue;
    }
    column.emplace(step, column.size());
    map.steps.push_back(StepNumber(steps, step));
  }
  for (const RankStepsReport& rank : steps.ranks) {
    map.ranks.push_back(rank.rank ? "rank " + std::to_string(*rank.rank) : rank.file);
    auto& windows = map.window_ns.emplace_back(column.size());
    auto& lateness = map.lateness_ns.emplace_back(column.size());
    for (const RankStepReport& step : rank.steps) {
      const auto at = column.find(step.step);
      if (at == column.end()) continue;
      windows[at->second] = step.times.window_ns;
      lateness[at->second] = step.start_ns - earliest.at(step.step);
    }
  }
  return map;
}

void WriteHtmlHeatmap(const StepsReport& steps, std::optional<uint32_t> timeline_step,
                      std::ostream& out) {
  const RankStepHeatmap map = BuildRankStepHeatmap(steps);
  if (map.steps.empty()) return;
  out << "<section id=\"rank-steps\">\n<h2>Ranks × steps<span class=\"scope\">scope: actor "
         "window</span></h2>\n<p class=\"note\">Every measured step on every rank: a cell's "
         "colour is the step's window on that rank (its time), or its lateness (how long after "
         "the earliest rank it began the step); darker is more. A slow rank is a dark row, a "
         "slow step a dark column. Hover for the figures, click for them below"
      << (timeline_step ? " (the step drawn span by span opens its timeline)" : "") << ".</p>\n";
  if (map.steps_left_out > 0) {
    out << "<p class=\"note\">The first " << map.steps.size() << " measured steps are drawn; "
        << map.steps_left_out << " more are left out (at most " << kMaxHeatmapCells
        << " cells).</p>\n";
  }
  out << "<div class=\"heatmap-controls\">colour by <button type=\"button\" "
         "data-metric=\"window\" aria-pressed=\"true\">step time</button> <button type=\"button\" "
         "data-metric=\"lateness\" aria-pressed=\"false\">lateness</button> <span "
         "id=\"vprof-heatmap-scale\"></span></div>\n<canvas id=\"vprof-heatmap\"></canvas>\n<div "
         "id=\"vprof-heatmap-tip\" role=\"tooltip\"></div>\n<p id=\"vprof-heatmap-detail\" "
         "class=\"note\"></p>\n<script type=\"application/json\" id=\"vprof-heatmap-data\">";
  std::ostringstream data;
  JsonWriter json(data);
  json.BeginObject(JsonWriter::Layout::kOneLine);
  json.Values("ranks", map.ranks, JsonWriter::Layout::kOneLine);
  json.Values("steps", map.steps, JsonWriter::Layout::kOneLine);
  json.Field("timeline_step", timeline_step);
  WriteCells(json, "window", map.window_ns);
  WriteCells(json, "lateness", map.lateness_ns);
  json.EndObject();
  out << ScriptSafeJson(data.str()) << "</script>\n<script>" << kHeatmapScript
      << "</script>\n</section>\n";
}

}  // namespace vprof::reporter
