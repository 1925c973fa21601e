#include "reporter/candidates/candidate_text_report.h"

#include <cstdio>

#include "reporter/text_layout.h"
#include "reporter/units.h"

namespace vprof::reporter {
namespace {

using Align = TextTable::Align;

std::string Duration(int64_t ns) { return FormatDuration(static_cast<double>(ns)); }

std::string Percent(const std::optional<double>& share) {
  if (!share) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", *share * 100);
  return text;
}

void WriteTable(const std::vector<CandidateReport>& candidates, std::ostream& out) {
  TextTable table({{"#", Align::kRight},
                   {"candidate", Align::kLeft},
                   {"scope", Align::kLeft},
                   {"time", Align::kRight},
                   {"of step", Align::kRight},
                   {"strict", Align::kLeft},
                   {"rule", Align::kLeft},
                   {"change", Align::kLeft}});
  for (const CandidateReport& c : candidates) {
    table.AddRow({std::to_string(c.rank_order), c.kind, std::string(CandidateScopeName(c.scope)),
                  Duration(c.exposed_ns), Percent(c.step_share),
                  std::string(StrictTagName(c.strict)), c.rule_id, c.change});
  }
  table.Write(out, "  ");
}

void WriteExample(const CandidateExample& example, std::ostream& out) {
  std::string line = (example.rank ? "rank " + std::to_string(*example.rank) : example.file) + " " +
                     example.id + " " + example.name + " (" + Duration(example.duration_ns) + ")";
  WriteWrapped(out, line, "     example: ", "       ");
}

void WriteDetails(const CandidateReport& c, std::ostream& out) {
  std::string figures = std::string(CandidateScopeName(c.scope));
  if (c.count > 0) figures += ", count " + std::to_string(c.count);
  figures += ", total " + Duration(c.total_ns);
  WriteWrapped(out, c.title + " (" + figures + ")", std::to_string(c.rank_order) + ". ", "     ");
  for (const std::string& line : c.evidence) WriteWrapped(out, line, "   - ", "     ");
  for (const CandidateExample& example : c.examples) WriteExample(example, out);
  WriteWrapped(out, std::string(StrictTagName(c.strict)) + ": " + c.rule, "   strict ", "     ");
}

}  // namespace

void WriteCandidatesText(const Report& report, std::ostream& out) {
  if (report.candidates.empty()) {
    out << "\nFast-path candidates: none (no steps, kernels, weight sync or churn showed time).\n";
    return;
  }
  std::string heading = "Fast-path candidates";
  if (report.steps && !report.steps->window.empty()) heading += " (" + report.steps->window + ")";
  out << '\n' << heading << ":\n";
  std::string how =
      "Ranked by time: full_step figures first (per measured step on each step's slowest rank; "
      "\"of step\" is their share of the median step), then actor_window and operator figures "
      "(one process or one operator: upper bounds, not step gains). The strict tag comes from "
      "the change and the contract only, never from the times.";
  if (report.consistency && !report.consistency->contract_file.empty()) {
    how += " Contract: " + report.consistency->contract_file + ".";
  }
  WriteWrapped(out, how, "  ", "  ");
  WriteTable(report.candidates, out);
  for (const CandidateReport& c : report.candidates) WriteDetails(c, out);
}

}  // namespace vprof::reporter
