#include "reporter/diff/diff_json.h"

#include <cmath>

#include "reporter/base/json_writer.h"

namespace vprof::reporter {
namespace {

bool IsWhole(FigureUnit unit) {
  return unit == FigureUnit::kNs || unit == FigureUnit::kBytes || unit == FigureUnit::kCount;
}

void WriteNumber(JsonWriter& json, FigureUnit unit, double value) {
  if (IsWhole(unit)) {
    json.Int(std::llround(value));
  } else {
    json.Double(value);
  }
}

void WriteValue(JsonWriter& json, std::string_view key, FigureUnit unit,
                const std::optional<DiffValue>& value) {
  json.Key(key);
  if (!value) {
    json.Null();
  } else if (const double* number = std::get_if<double>(&*value)) {
    WriteNumber(json, unit, *number);
  } else {
    json.String(std::get<std::string>(*value));
  }
}

void WriteMetric(JsonWriter& json, const DiffMetric& metric) {
  json.BeginObject();
  json.Field("metric", metric.name);
  json.Field("unit", FigureUnitName(metric.unit));
  WriteValue(json, "a", metric.unit, metric.a);
  WriteValue(json, "b", metric.unit, metric.b);
  json.Key("change");
  if (metric.unit == FigureUnit::kText) {
    if (metric.a && metric.b) {
      json.String(*metric.a == *metric.b ? "same" : "differs");
    } else {
      json.Null();
    }
  } else if (const std::optional<double> change = Change(metric)) {
    WriteNumber(json, metric.unit, *change);
  } else {
    json.Null();
  }
  json.Field("relative", RelativeChange(metric));
  json.EndObject();
}

void WriteSide(JsonWriter& json, std::string_view key, const DiffSide& side) {
  json.Key(key);
  json.BeginObject();
  json.Field("input", side.input);
  json.Field("kind", side.directory ? "trace_directory" : "json_report");
  json.Field("all_inputs_whole", side.all_inputs_whole);
  json.EndObject();
}

}  // namespace

void WriteDiffJson(const RunDiff& diff, std::ostream& out) {
  JsonWriter json(out);
  json.BeginObject();
  json.Field("diff_version", kJsonDiffVersion);
  WriteSide(json, "a", diff.a);
  WriteSide(json, "b", diff.b);
  json.Field("verdict", diff.verdict);
  json.Objects("sections", diff.sections, [&](const DiffSection& section) {
    json.Field("section", section.key);
    json.Field("title", section.title);
    json.Field("presence", PresenceName(section.presence));
    json.Objects("items", section.items, [&](const DiffItem& item) {
      json.Field("item", item.name);
      json.Field("presence", PresenceName(item.presence));
      json.Array("metrics", item.metrics,
                 [&](const DiffMetric& metric) { WriteMetric(json, metric); });
    });
  });
  json.EndObject();
  out << '\n';
}

}  // namespace vprof::reporter
