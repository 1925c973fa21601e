#include "reporter/whatif/whatif_output.h"

#include "reporter/base/json_writer.h"
#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"

namespace vprof::reporter {
namespace {

// The critical path's parts shown; the JSON answer lists them all.
constexpr size_t kPathPartsShown = 5;

}  // namespace

void WriteWhatifText(const WhatifAnswer& answer, std::ostream& out) {
  WriteWrapped(out, answer.change, "What if: ", "  ");
  out << "  run: " << answer.directory << '\n';
  for (const std::string& note : answer.notes) WriteWrapped(out, note, "  note: ", "    ");
  const ReplayCheck& check = answer.check;
  if (check.steps > 0) {
    WriteWrapped(out,
                 FormatDurationNs(check.measured_ns) + " per step measured over " +
                     std::to_string(check.steps) + " full steps; replayed unchanged " +
                     FormatDurationNs(check.replayed_ns) + " (within " +
                     FormatPercent(check.error) + ")",
                 "  as measured:  ", "    ");
  }
  if (!answer.projection) {
    WriteWrapped(out, answer.withheld, "  no projection: ", "    ");
    return;
  }
  const Projection& p = *answer.projection;
  std::string saving = p.saving_ns >= 0 ? "saves " + FormatDurationNs(p.saving_ns)
                                        : "costs " + FormatDurationNs(-p.saving_ns);
  const std::string over =
      p.full_steps.size() < check.steps
          ? ", over the " + std::to_string(p.full_steps.size()) + " of them the change replays on"
          : "";
  WriteWrapped(out,
               FormatDurationNs(p.step_ns) + " per step: " + saving + " per step (" +
                   FormatPercent(p.saving_share) + "), projected" + over,
               "  with it:      ", "    ");
  std::string path;
  for (size_t i = 0; i < p.critical_path.size() && i < kPathPartsShown; ++i) {
    path += (i == 0 ? "" : ", ") + p.critical_path[i].first + " " +
            FormatDurationNs(p.critical_path[i].second);
  }
  if (!path.empty()) WriteWrapped(out, path + " per step", "  critical path: ", "    ");
}

void WriteWhatifJson(const WhatifAnswer& answer, std::ostream& out) {
  JsonWriter json(out);
  json.BeginObject();
  json.Field("directory", answer.directory);
  json.Field("change", answer.change);
  json.Values("notes", answer.notes);
  json.Object("replay", [&] {
    json.Field("steps", answer.check.steps);
    json.Field("measured_ns", answer.check.measured_ns);
    json.Field("replayed_ns", answer.check.replayed_ns);
    json.Field("error", answer.check.error);
  });
  json.Key("projection");
  if (answer.projection) {
    const Projection& p = *answer.projection;
    json.BeginObject();
    json.Field("steps", p.full_steps.size());
    json.Field("step_ns", p.step_ns);
    json.Field("saving_ns", p.saving_ns);
    json.Field("saving_share", p.saving_share);
    json.Objects(
        "critical_path", p.critical_path,
        [&](const auto& part) {
          json.Field("what", part.first);
          json.Field("ns", part.second);
        },
        JsonWriter::Layout::kOneLine);
    json.EndObject();
  } else {
    json.Null();
  }
  json.Field("withheld", answer.withheld);
  json.EndObject();
  out << '\n';
}

}  // namespace vprof::reporter
