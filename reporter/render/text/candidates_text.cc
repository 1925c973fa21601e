#include "reporter/render/text/candidates_text.h"

#include <cstdio>

#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/candidates/audit_links.h"
#include "reporter/render/short_kernel_name.h"
#include "reporter/render/text/table_text.h"
#include "reporter/summary/candidate_where.h"
#include "reporter/summary/projection_text.h"

namespace vprof::reporter {
namespace {

std::string Percent(const std::optional<double>& share) {
  return share ? FormatPercent(*share) : "-";
}

// Audit links shown per candidate; the JSON report lists them all.
constexpr size_t kMaxAuditLinksShown = 3;

void WriteTable(const std::vector<CandidateReport>& candidates, std::ostream& out) {
  ReportTable table = UntitledTable({{"#", true},
                                     {"candidate"},
                                     {"scope"},
                                     {"time", true},
                                     {"of step", true},
                                     {"saves", true},
                                     {"strict"},
                                     {"rule"}});
  for (const CandidateReport& c : candidates) {
    table.rows.push_back({std::to_string(c.rank_order), c.kind,
                          std::string(CandidateScopeName(c.scope)), FormatDurationNs(c.exposed_ns),
                          Percent(c.step_share),
                          c.projected_saving_ns ? FormatDurationNs(*c.projected_saving_ns) : "-",
                          std::string(StrictTagName(c.strict)), c.rule_id});
  }
  TextTableOf(table).Write(out, "  ");
}

void WriteAudit(const CandidateAudit& audit, std::ostream& out) {
  if (audit.links.empty()) {
    WriteWrapped(out, "no audited operator relates to this candidate", "   audit: ", "     ");
    return;
  }
  out << (audit.drifted ? "   audit drift (vime):\n" : "   audit (vime), no drift:\n");
  for (size_t i = 0; i < audit.links.size() && i < kMaxAuditLinksShown; ++i) {
    WriteWrapped(out, AuditLinkText(audit.links[i]), "     - ", "       ");
  }
  if (audit.links.size() > kMaxAuditLinksShown) {
    out << "     - and " << audit.links.size() - kMaxAuditLinksShown
        << " more (the JSON report lists all)\n";
  }
}

void WriteExample(const CandidateExample& example, std::ostream& out) {
  std::string line = (example.rank ? "rank " + std::to_string(*example.rank) : example.file) + " " +
                     example.id + " " + ShortKernelName(example.name) + " (" +
                     FormatDurationNs(example.duration_ns) + ")";
  WriteWrapped(out, line, "     example: ", "       ");
}

void WriteDetails(const CandidateReport& c, std::ostream& out) {
  // The ranked time first, then what it is part of: a bare "total" beside the ranked time read
  // as a contradiction ("total 0 ns" beside 81.8 µs per step).
  std::string figures = std::string(CandidateScopeName(c.scope)) + ", " +
                        FormatDurationNs(c.exposed_ns) + " per step";
  if (c.count > 0) figures += ", " + std::to_string(c.count) + " behind it per step";
  if (c.total_ns > 0 && c.total_ns != c.exposed_ns) {
    figures += ", their whole time " + FormatDurationNs(c.total_ns) + " per step";
  }
  const std::string where = CandidateWhere(c);
  WriteWrapped(out, c.title + " (" + figures + (where.empty() ? "" : "; " + where) + ")",
               std::to_string(c.rank_order) + ". ", "     ");
  for (const std::string& line : c.evidence) WriteWrapped(out, line, "   - ", "     ");
  if (const std::string projection = ProjectionText(c, true); !projection.empty()) {
    WriteWrapped(out, projection, "   fixing it: ", "     ");
  }
  for (const CandidateExample& example : c.examples) WriteExample(example, out);
  WriteWrapped(out, std::string(StrictTagName(c.strict)) + ": " + c.rule, "   strict ", "     ");
  if (c.audit) WriteAudit(*c.audit, out);
}

}  // namespace

void WriteCandidatesText(const Report& report, std::ostream& out) {
  if (report.candidates.empty()) {
    out << "\nFast-path candidates: none (no steps, kernels, weight sync or churn showed time).\n";
    return;
  }
  std::string heading = "Fast-path candidates";
  if (report.steps && !report.steps->window.empty()) heading += ", " + report.steps->window;
  out << '\n' << heading << ":\n";
  std::string how =
      "full_step figures first, from the step ledger (each measured step's time on the rank that "
      "ends it, every nanosecond in one cause, so their shares of the mean step, \"of step\", add "
      "up to at most the step): the waste whose fix saves 5% of the step or more, then compute, "
      "the floor the rest stands on, then smaller waste, each by what fixing it saves; then "
      "actor_window and operator figures (one process or one operator: upper bounds, not step "
      "gains). \"saves\" is the full step's time saved, projected by replaying the measured steps "
      "with the change the candidate stands for. The strict tag comes "
      "from the change and the contract only, never from the times.";
  if (report.consistency && !report.consistency->contract_file.empty()) {
    how += " Contract: " + report.consistency->contract_file + ".";
  }
  if (const std::optional<CandidateAudit>& audit = report.candidates.front().audit) {
    how += " Audit: " + audit->file +
           " (vime): under each candidate, the audited operators its change touches (by the "
           "audit link rules) and whether they drifted; evidence beside the strict tag, never "
           "its cause.";
  }
  WriteWrapped(out, how, "  ", "  ");
  if (report.steps && report.steps->replay) {
    WriteWrapped(out, "Replay: " + ReplayCheckText(*report.steps->replay) + ".", "  ", "  ");
  }
  WriteTable(report.candidates, out);
  for (const CandidateReport& c : report.candidates) WriteDetails(c, out);
}

}  // namespace vprof::reporter
