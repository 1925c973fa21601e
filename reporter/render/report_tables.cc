#include "reporter/render/report_tables.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "reporter/base/rank_name.h"
#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/candidates/audit_links.h"
#include "reporter/render/chart_palette.h"
#include "reporter/render/clock_description.h"
#include "reporter/render/folded_tables.h"
#include "reporter/render/ranks_shown.h"
#include "reporter/render/short_kernel_name.h"
#include "reporter/render/timeline_step.h"
#include "reporter/steps/comm_roles.h"
#include "reporter/steps/deep_capture.h"
#include "reporter/steps/full_steps.h"
#include "reporter/steps/ledger.h"
#include "reporter/summary/launch_cost_text.h"
#include "reporter/summary/projection_text.h"

namespace vprof::reporter {
namespace {

std::string RankText(const std::optional<int32_t>& rank) {
  return rank ? std::to_string(*rank) : "-";
}

// "12.0 ms (60.0%)": a part of a window and its share of it.
std::string PartOf(int64_t part_ns, int64_t window_ns) {
  if (window_ns <= 0) return FormatDurationNs(part_ns);
  return FormatDurationNs(part_ns) + " (" +
         FormatPercent(static_cast<double>(part_ns) / static_cast<double>(window_ns)) + ")";
}

std::string Underscores(std::string_view text) {
  std::string spaced(text);
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  return spaced;
}

std::vector<TableColumn> SegmentColumns() {
  std::vector<TableColumn> columns;
  for (const SegmentStyle& style : kSegmentStyles)
    columns.push_back({std::string(style.name), true});
  return columns;
}

// Each segment of `times` as part of its window (overlapped comm too: it is
// compared with the window, though not part of the sum).
std::vector<TableCell> SegmentCells(const SegmentTimes& times) {
  std::vector<TableCell> cells;
  for (const SegmentStyle& style : kSegmentStyles) {
    cells.push_back({PartOf(times.*style.ns, times.window_ns)});
  }
  return cells;
}

template <typename T>
void Append(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

std::string Joined(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

}  // namespace

std::string MeasurementWindow(const Report& report) {
  if (!report.steps) return "whole trace (no GPU kernel records to cut into steps)";
  if (!report.steps->window.empty()) return report.steps->window;
  return "whole trace (no steps found" +
         (report.steps->problem.empty() ? std::string() : ": " + report.steps->problem) + ")";
}

std::string_view ScopeWords(CandidateScope scope) {
  switch (scope) {
    case CandidateScope::kOperator:
      return "operator";
    case CandidateScope::kActorWindow:
      return "actor window";
    case CandidateScope::kFullStep:
      break;
  }
  return "full step";
}

std::vector<std::pair<std::string, std::string>> HeaderFacts(const Report& report) {
  std::vector<std::pair<std::string, std::string>> facts = {
      {"Directory", report.directory},
      {"Measurement window", MeasurementWindow(report)},
      {"Times", std::string(kTimesMeasured)},
      {"Clock", ClockDescription(report.time_source)},
  };
  // vprof's own cost and the deep windows are the Summary's line "vprof's own
  // cost", which comes first in the pages these facts head.
  if (auto check = ClockCheckDescription(report.time_source)) {
    facts.emplace_back("Clock check", std::move(*check));
  }
  facts.emplace_back("Scopes",
                     "operator = one kernel or collective; actor window = one rank over the "
                     "measured steps (or over its NVTX span); full step = the step across ranks, "
                     "where the slowest rank sets the time");
  return facts;
}

ReportTable ProcessesTable(const Report& report) {
  ReportTable table{.id = "processes",
                    .title = "Processes",
                    .scope = "",
                    .note = "one trace file per process; events are intercepted NCCL calls",
                    .columns = {{"rank", true},
                                {"host"},
                                {"pid", true},
                                {"events", true},
                                {"dropped", true},
                                {"failed", true},
                                {"trace"},
                                {"end"},
                                {"file"},
                                {"problem", false, false}},
                    .rows = {},
                    .empty_text = "no trace files"};
  const ProcessesShown listed = ProcessesThatStandOut(report.processes);
  if (!listed.caption.empty()) table.note += "; " + listed.caption;
  for (const size_t index : listed.shown.indices) {
    const ProcessReport& process = report.processes[index];
    std::string end = process.end_reason == "signal"
                          ? "signal " + std::to_string(process.signal)
                          : Underscores(process.end_reason.empty() ? "-" : process.end_reason);
    table.rows.push_back({{process.is_rank ? RankText(process.rank) : "-"},
                          {process.host},
                          {std::to_string(process.pid)},
                          {std::to_string(process.nccl_events)},
                          {std::to_string(process.dropped_events)},
                          {std::to_string(process.failed_calls)},
                          {Underscores(InputStateName(process.state))},
                          {end},
                          {process.file + (process.is_rank ? "" : " (non-rank)")},
                          {process.problem}});
  }
  return table;
}

std::optional<ReportTable> TimelineTable(const StepsReport& steps) {
  const std::optional<uint32_t> step = TimelineStep(steps);
  if (!step) return std::nullopt;
  ReportTable table{
      .id = "timeline",
      // "Timeline of step N" is the HTML's span-by-span view of the same step.
      .title = "Step " + std::to_string(StepNumber(steps, *step)) + " per rank",
      .scope = "full step",
      .note =
          "the measured step whose full-step duration is nearest the median; start is the "
          "rank's step start after the earliest rank's; each rank's window splits into "
          "compute, exposed comm, copy and idle (they add up to it); overlapped comm ran "
          "during compute. The report keeps per-step totals, not each kernel, so a strip "
          "shows how much of each, not in which order",
      .columns = {{"rank", true}, {"start", true}, {"window", true}},
      .rows = {},
      .empty_text = "no rank has this step"};
  Append(table.columns, SegmentColumns());
  table.columns.push_back({"file"});
  int64_t earliest = INT64_MAX;
  size_t with_step = 0;
  for (const RankStepsReport& rank : steps.ranks) {
    if (const RankStepReport* own = RankStep(rank, *step)) {
      earliest = std::min(earliest, own->start_ns);
      ++with_step;
    }
  }
  if (with_step > kFoldAbove) {
    FoldTimelineTable(steps, *step, earliest, table);
    return table;
  }
  for (const RankStepsReport& rank : steps.ranks) {
    const RankStepReport* own = RankStep(rank, *step);
    if (!own) continue;
    std::vector<TableCell> row = {{RankText(rank.rank)},
                                  {"+" + FormatDurationNs(own->start_ns - earliest)},
                                  {FormatDurationNs(own->times.window_ns)}};
    Append(row, SegmentCells(own->times));
    row.push_back({rank.file});
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::optional<ReportTable> StepSegmentsTable(const Report& report) {
  if (!report.steps) return std::nullopt;
  ReportTable table{
      .id = "segments",
      .title = "Where the measured steps' time went, per rank",
      .scope = "actor window",
      .note = "each rank's GPU time summed over its measured steps (" + MeasurementWindow(report) +
              "); compute + exposed comm + copy + idle = window; overlapped comm ran during "
              "compute",
      .columns = {{"rank", true}, {"steps", true}, {"window", true}},
      .rows = {},
      .empty_text = "no rank has measured steps"};
  if (report.steps->ranks.size() > kFoldAbove) {
    FoldSegmentsTable(*report.steps, table);
    return table;
  }
  Append(table.columns, SegmentColumns());
  table.columns.push_back({"file"});
  for (const RankStepsReport& rank : report.steps->ranks) {
    std::vector<TableCell> row = {{RankText(rank.rank)},
                                  {std::to_string(rank.steps.size())},
                                  {FormatDurationNs(rank.total.window_ns)}};
    Append(row, SegmentCells(rank.total));
    row.push_back({rank.file});
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::optional<ReportTable> FullStepsTable(const StepsReport& steps) {
  if (steps.full_steps.empty()) return std::nullopt;
  ReportTable table{.id = "full-steps",
                    .title = "Full steps",
                    .scope = "full step",
                    .note = "each measured step across ranks, earliest start to latest end; " +
                            FullStepsSentence(steps),
                    .columns = {{"step", true},
                                {"duration", true},
                                {"slowest rank", true},
                                {"max exposed comm", true}},
                    .rows = {},
                    .empty_text = ""};
  for (const FullStepReport* step : ListedFullSteps(steps.full_steps)) {
    table.rows.push_back({{std::to_string(StepNumber(steps, step->step))},
                          {FormatDurationNs(step->duration_ns)},
                          {RankText(step->slowest_rank)},
                          {FormatDurationNs(step->max_exposed_comm_ns)}});
  }
  return table;
}

std::optional<ReportTable> LedgerTable(const StepsReport& steps) {
  if (!steps.ledger || steps.ledger->steps == 0) return std::nullopt;
  const StepsLedger& ledger = *steps.ledger;
  std::string who;
  for (size_t r = 0; r < ledger.ledger_steps.size(); ++r) {
    if (ledger.ledger_steps[r] == 0) continue;
    who += (who.empty() ? "" : ", ") + RankName(steps.ranks[r].rank, steps.ranks[r].file) + " in " +
           std::to_string(ledger.ledger_steps[r]);
  }
  ReportTable table{
      .id = "ledger",
      .title = "Step ledger",
      .scope = ledger.full_steps ? "full step" : "actor window",
      .note =
          std::string(ledger.full_steps
                          ? "each measured full step's time on the rank that ends it (where "
                            "several end it together, the one that waited longest for another), "
                          : "no full steps across ranks: the measured steps of one rank alone, ") +
          "every nanosecond in one cause, per step (the mean over " + std::to_string(ledger.steps) +
          " steps; " + who + "); shares are of the mean step, " +
          FormatDurationNs(ledger.mean_step_ns) +
          ". Waiting for a rank: exposed communication before the collective's last member "
          "arrived, its kernel that much longer than that member's (" +
          std::to_string(ledger.matched_collectives) + " collectives matched across ranks, " +
          std::to_string(ledger.unmatched_collectives) +
          " with one member seen, all transfer); transfer: after it, by the role the evidence "
          "names (Communicators); vprof's own cost: the launches' added time it calibrated, "
          "taken out of host-bound idle",
      .columns = {{"cause"}, {"per step", true}, {"of step", true}},
      .rows = {},
      .empty_text = ""};
  int64_t sum_ns = 0;
  double sum_share = 0;
  for (const LedgerLine& line : ledger.lines) {
    table.rows.push_back({{LedgerLineName(steps, line)},
                          {FormatDurationNs(line.per_step_ns)},
                          {FormatPercent(line.share)}});
    sum_ns += line.per_step_ns;
    sum_share += line.share;
  }
  table.rows.push_back({{"all causes (the ledger rank's window)"},
                        {FormatDurationNs(sum_ns)},
                        {FormatPercent(sum_share)}});
  return table;
}

std::optional<ReportTable> LateRanksTable(const StepsReport& steps) {
  if (!steps.ledger || steps.ledger->late.empty()) return std::nullopt;
  ReportTable table{
      .id = "late-ranks",
      .title = "Late ranks",
      .scope = "full step",
      .note =
          "the ranks the others waited for: of its collectives of the role where that is least "
          "likely by chance (each role tested apart), in how many each arrived last (its kernel "
          "the shortest), what chance gives (each member equally likely), the one-sided binomial "
          "p times the roles tested, and the ledger's wait for it; all: last in all its "
          "collectives. A straggler is named when p is below " +
          FormatNumber(kStragglerFalseAlarm) + " over the ranks tested and the wait is at least " +
          FormatPercent(kStragglerMinShare) + " of the step",
      .columns = {{"rank"},
                  {"at"},
                  {"last", true},
                  {"of", true},
                  {"chance", true},
                  {"p", true},
                  {"all", true},
                  {"wait per step", true},
                  {"straggler"}},
      .rows = {},
      .empty_text = ""};
  for (const LateRank& late : steps.ledger->late) {
    const RankStepsReport& rank = steps.ranks[late.index];
    table.rows.push_back(
        {{RankName(rank.rank, rank.file)},
         {std::string(CommRoleName(late.role)) + (late.phase.empty() ? "" : ", " + late.phase)},
         {std::to_string(late.last_in_role)},
         {std::to_string(late.role_collectives)},
         {FormatNumber(late.role_expected)},
         {late.p_value < 1 ? FormatNumber(late.p_value) : std::string("-")},
         {std::to_string(late.last) + "/" + std::to_string(late.collectives)},
         {FormatDurationNs(late.wait_per_step_ns)},
         {late.straggler ? "yes" : "no"}});
  }
  return table;
}

ReportTable PhasesTable(const Report& report) {
  ReportTable table{
      .id = "phases",
      .title = "Phases",
      .scope = "actor window",
      .note =
          "Source nvtx: NVTX ranges named into phases by reporter/phases/phase_rules.cc, in host "
          "range time (a range that only queues GPU work is short here; the Steps section gives "
          "the GPU time of the same phases), over each rank's span (first range start to last "
          "range end, not the measurement window); count and total of outermost ranges; phases "
          "nest, so shares need not add up to 100%. Source inferred: a process without NVTX "
          "ranges, its phases told from its role and its kernels' classes "
          "(reporter/phases/inferred_phase.cc), in kernel time",
      .columns = {{"rank", true},
                  {"phase"},
                  {"source"},
                  {"count", true},
                  {"total", true},
                  {"mean", true},
                  {"share of span", true},
                  {"span", true},
                  {"file"}},
      .rows = {},
      .empty_text = report.any_nvtx_ranges
                        ? "only NCCL's own NVTX ranges (communication, not phases)"
                        : "no NVTX ranges in any trace"};
  if (report.phases.size() > kFoldAbove) {
    FoldPhasesTable(report.phases, table);
    return table;
  }
  for (const ProcessPhasesReport& process : report.phases) {
    for (const PhaseReport& phase : process.phases) {
      table.rows.push_back(
          {{RankText(process.rank)},
           {phase.unmatched ? (phase.name.empty() ? "?" : phase.name) + " (other, unmatched)"
                            : phase.name},
           {phase.source},
           {std::to_string(phase.count)},
           {FormatDurationNs(phase.total_ns)},
           {FormatDurationNs(phase.mean_ns)},
           {phase.span_share ? FormatPercent(*phase.span_share) : "-"},
           {FormatDurationNs(process.span_ns)},
           {process.file}});
    }
  }
  return table;
}

ReportTable CollectivesTable(const Report& report) {
  ReportTable table{
      .id = "collectives",
      .title = "Collectives",
      .scope = "operator",
      .note =
          "per communicator, NCCL function and size over the whole trace: time = last exit − "
          "last enter; skew = last enter − first enter (arrival); busbw in GB/s as in "
          "nccl-tests; last = the rank most often last to arrive",
      .columns = {{"communicator"},
                  {"op"},
                  {"size"},
                  {"count", true},
                  {"mean time", true},
                  {"busbw", true},
                  {"mean skew", true},
                  {"max skew", true},
                  {"last ×times"}},
      .rows = {},
      .empty_text = "no communicators"};
  for (const CommunicatorReport& comm : report.communicators) {
    for (const OpReport& op : comm.ops) {
      table.rows.push_back(
          {{FormatHexId(comm.comm_id)},
           {op.op},
           {op.bucket.Label()},
           {std::to_string(op.count)},
           {FormatDurationNs(op.mean_time_ns)},
           {op.busbw_gbps ? FormatGBps(*op.busbw_gbps) : "-"},
           {FormatDurationNs(op.mean_arrival_skew_ns)},
           {FormatDurationNs(op.max_arrival_skew_ns)},
           {RankText(op.most_often_last_rank) + " ×" + std::to_string(op.most_often_last_times)}});
    }
  }
  return table;
}

std::optional<ReportTable> CommRolesTable(const Report& report) {
  ReportTable table{.id = "roles",
                    .title = "Communicator roles",
                    .scope = "full step",
                    .note =
                        "what each communicator's collectives were for in the measured steps, "
                        "and the evidence: their kernels counted over every rank's steps by "
                        "function and phase, with the rule that named the role (the first of "
                        "reporter/steps/comm_roles.cc's table that holds); unclassified where "
                        "no rule's evidence holds",
                    .columns = {{"communicator"}, {"role"}, {"evidence"}},
                    .rows = {},
                    .empty_text = ""};
  for (const CommunicatorReport& comm : report.communicators) {
    for (const CommRoleReport& role : comm.roles) {
      table.rows.push_back({{FormatHexId(comm.comm_id)}, {role.role}, {role.evidence}});
    }
  }
  if (table.rows.empty()) return std::nullopt;
  return table;
}

ReportTable CandidatesTable(const Report& report) {
  ReportTable table{.id = "candidates",
                    .title = "Fast-path candidates",
                    .scope = "",
                    .note = "what to build first, by the time it could save per measured step (" +
                            MeasurementWindow(report) +
                            "); scope says where that time was measured; strict says whether a "
                            "strict-consistency run may use it, by the rule quoted",
                    .columns = {{"#", true},
                                {"candidate"},
                                {"scope"},
                                {"exposed / step", true},
                                {"of median step", true},
                                {"fixing it", true},
                                {"count / step", true},
                                {"strict"},
                                {"rule"},
                                {"evidence"}},
                    .rows = {},
                    .empty_text = "no candidates"};
  for (const CandidateReport& candidate : report.candidates) {
    table.rows.push_back(
        {{std::to_string(candidate.rank_order)},
         {candidate.title + " (" + candidate.kind + ": " + candidate.change + ")"},
         {std::string(ScopeWords(candidate.scope))},
         {FormatDurationNs(candidate.exposed_ns)},
         {candidate.step_share ? FormatPercent(*candidate.step_share) : "-"},
         {ProjectionText(candidate, true).empty() ? "-" : ProjectionText(candidate, true)},
         {std::to_string(candidate.count)},
         {Underscores(StrictTagName(candidate.strict)), StrictTagColour(candidate.strict)},
         {candidate.rule},
         {Joined(candidate.evidence, "; ") +
          (candidate.audit ? "; " + AuditSummary(candidate) : "")}});
  }
  return table;
}

ReportTable GpuKernelsTable(const Report& report) {
  ReportTable table{
      .id = "gpu-kernels",
      .title = "Top GPU kernels",
      .scope = "operator",
      .note = "CUPTI kernel execution times over the whole trace, most time first, per process",
      .columns = {{"rank", true},
                  {"kernel"},
                  {"class"},
                  {"count", true},
                  {"total", true},
                  {"mean", true},
                  {"file"}},
      .rows = {},
      .empty_text = "no GPU capture in any process"};
  if (report.processes.size() > kFoldAbove) {
    FoldGpuKernelsTable(report.processes, table);
    return table;
  }
  for (const ProcessReport& process : report.processes) {
    for (const KernelReport& kernel : process.gpu.top_kernels) {
      table.rows.push_back({{process.is_rank ? RankText(process.rank) : "-"},
                            {ShortKernelName(kernel.name)},
                            {kernel.kernel_class},
                            {std::to_string(kernel.count)},
                            {FormatDurationNs(kernel.total_ns)},
                            {FormatDurationNs(kernel.mean_ns)},
                            {process.file}});
    }
  }
  return table;
}

std::optional<ReportTable> CoverageTable(const Report& report) {
  if (!report.coverage) return std::nullopt;
  ReportTable table{
      .id = "coverage",
      .title = "Coverage",
      .scope = "",
      .note =
          "NCCL work per process as the API wrappers (w) and NCCL's profiler plugin (p) saw "
          "it; kernels = CUPTI NCCL kernels; gaps are listed after the processes",
      .columns = {{"rank", true},
                  {"coll w/p", true},
                  {"p2p w/p", true},
                  {"kernels", true},
                  {"plugin"},
                  {"file"},
                  {"gap"}},
      .rows = {},
      .empty_text = "no process took part in communication"};
  std::vector<RankFigure> figures;
  for (const CoverageProcess& row : report.coverage->processes) {
    const bool gap = std::any_of(report.coverage->gaps.begin(), report.coverage->gaps.end(),
                                 [&](const CoverageGap& gap) { return gap.file == row.file; });
    figures.push_back({static_cast<int64_t>(row.wrapper_collectives), gap});
  }
  const RanksShown shown = RanksThatStandOut(figures);
  if (Folded(shown)) {
    table.note += "; " + RanksShownCaption(shown, "processes", "collectives (w)", "have a gap") +
                  "; every gap is listed";
  }
  for (const size_t index : shown.indices) {
    const CoverageProcess& row = report.coverage->processes[index];
    const std::string plugin = row.plugin_attached ? std::to_string(row.plugin_collectives) : "-";
    const std::string p2p = row.plugin_attached ? std::to_string(row.plugin_p2p) : "-";
    table.rows.push_back(
        {{RankText(row.rank)},
         {std::to_string(row.wrapper_collectives) + "/" + plugin},
         {std::to_string(row.wrapper_p2p) + "/" + p2p},
         {row.gpu_captured ? std::to_string(row.nccl_kernels) : "-"},
         {row.plugin_attached
              ? (row.plugin_version == 0 ? "yes" : "v" + std::to_string(row.plugin_version))
              : "no"},
         {row.file},
         {""}});
  }
  for (const CoverageGap& gap : report.coverage->gaps) {
    const std::string subject = gap.file.empty() ? "communicator " + gap.comm_id : gap.file;
    table.rows.push_back({{RankText(gap.rank)},
                          {""},
                          {""},
                          {""},
                          {""},
                          {subject},
                          {gap.kind + ": " + gap.detail +
                           (gap.causes.empty() ? "" : " (cause: " + gap.causes.front() + ")")}});
  }
  return table;
}

std::optional<ReportTable> ConsistencyTable(const Report& report) {
  if (!report.consistency) return std::nullopt;
  const ConsistencyReport& consistency = *report.consistency;
  std::string mode = std::string(ConsistencyModeName(consistency.mode));
  if (consistency.mode_source == "flag") mode += " (--strict)";
  if (consistency.mode_source == "contract")
    mode += " (contract " + consistency.contract_file + ")";
  ReportTable table{.id = "consistency",
                    .title = "Consistency (requested vs actual)",
                    .scope = "",
                    .note = "mode " + mode + "; requested " + consistency.requested_fingerprint +
                            "; actual " + consistency.actual_fingerprint + "; " +
                            std::to_string(consistency.violations) +
                            (consistency.violations == 1 ? " violation" : " violations") +
                            (consistency.failed() ? "; strict run FAILED" : ""),
                    .columns = {{"axis"},
                                {"kind"},
                                {"source"},
                                {"requested"},
                                {"actual"},
                                {"count", true},
                                {"processes", true},
                                {"violation"}},
                    .rows = {},
                    .empty_text = consistency.mode == ConsistencyMode::kOff
                                      ? "nothing compared: consistency is off"
                                      : "no mismatches"};
  for (const ConsistencyMismatch& mismatch : consistency.mismatches) {
    table.rows.push_back({{mismatch.axis},
                          {Underscores(mismatch.kind)},
                          {mismatch.source},
                          {mismatch.requested},
                          {mismatch.actual},
                          {std::to_string(mismatch.count)},
                          {std::to_string(mismatch.processes)},
                          {mismatch.violation ? "yes" : "no"}});
  }
  return table;
}

}  // namespace vprof::reporter
