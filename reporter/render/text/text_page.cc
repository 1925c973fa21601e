#include "reporter/render/text/text_page.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>

#include "reporter/base/rank_list.h"
#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/phases/inferred_phase.h"
#include "reporter/render/clock_description.h"
#include "reporter/render/like_communicators.h"
#include "reporter/render/phases_across_ranks.h"
#include "reporter/render/ranks_shown.h"
#include "reporter/render/report_tables.h"
#include "reporter/render/text/candidates_text.h"
#include "reporter/render/text/consistency_text.h"
#include "reporter/render/text/gpu_text.h"
#include "reporter/render/text/steps_text.h"
#include "reporter/render/text/table_text.h"
#include "reporter/steps/deep_capture.h"
#include "reporter/summary/launch_cost_text.h"
#include "reporter/summary/report_summary.h"

namespace vprof::reporter {
namespace {

std::string RankText(const std::optional<int32_t>& rank) {
  return rank ? std::to_string(*rank) : "-";
}

// `summary_shown`: the Summary, above, already gave vprof's own cost and the deep windows.
void WriteHeader(const Report& report, bool summary_shown, std::ostream& out) {
  WriteWrapped(out, std::string(kTimesMeasured), "Times: ", "       ");
  // vprof's own cost where deep windows measured it, before any figure it inflates.
  if (report.steps && !summary_shown) {
    if (const std::string deep = DeepCaptureSentence(*report.steps); !deep.empty()) {
      WriteWrapped(out, deep, "Deep capture: ", "              ");
    }
    if (const std::string cost = LaunchCostSentence(*report.steps); !cost.empty()) {
      WriteWrapped(out, cost, "vprof's own cost: ", "                   ");
    }
  }
  WriteWrapped(out, ClockDescription(report.time_source), "Clock: ", "       ");
  if (const auto check = ClockCheckDescription(report.time_source)) {
    WriteWrapped(out, *check, "Clock check: ", "             ");
  }
  WriteWrapped(out,
               "time = last exit − last enter; skew = last enter − first enter; S and bus factor "
               "as in nccl-tests; algbw = S/time, busbw = algbw × bus factor, in GB/s (1e9 B/s)",
               "Terms: ", "       ");
}

void WriteProcesses(const Report& report, std::ostream& out) {
  size_t ranks = 0, not_whole = 0;
  for (const ProcessReport& process : report.processes) {
    if (process.is_rank) ++ranks;
    if (process.state != InputState::kWhole) ++not_whole;
  }
  out << "\nProcesses: " << report.processes.size() << " (" << ranks << " ranks, "
      << report.processes.size() - ranks << " other); " << not_whole << " not whole\n";
  const std::string caption = ProcessesThatStandOut(report.processes).caption;
  if (!caption.empty()) WriteWrapped(out, caption, "  ", "    ");
  TextTableOf(ProcessesTable(report)).Write(out, "  ");
  // Every problem, of the processes listed or not: trouble is never folded away.
  for (const ProcessReport& process : report.processes) {
    if (!process.problem.empty())
      WriteWrapped(out, process.file + ": " + process.problem, "  ! ", "    ");
  }
}

void WriteOps(const CommunicatorReport& comm, std::ostream& out) {
  size_t i = 0;
  while (i < comm.ops.size()) {
    const std::string& op = comm.ops[i].op;
    std::ostringstream factor;
    factor.precision(3);
    factor << comm.ops[i].bus_factor;
    out << "  " << op << " (bus factor " << factor.str() << ")\n";
    ReportTable table = UntitledTable({{"size"},
                                       {"count", true},
                                       {"total", true},
                                       {"mean", true},
                                       {"bytes", true},
                                       {"algbw", true},
                                       {"busbw", true},
                                       {"skew", true},
                                       {"max skew", true},
                                       {"last ×times"}});
    const size_t first = i;
    for (; i < comm.ops.size() && comm.ops[i].op == op; ++i) {
      const OpReport& row = comm.ops[i];
      table.rows.push_back(
          {row.bucket.Label(), std::to_string(row.count),
           FormatDuration(static_cast<double>(row.total_time_ns)),
           FormatDuration(static_cast<double>(row.mean_time_ns)), FormatBytes(row.total_bytes),
           row.algbw_gbps ? FormatGBps(*row.algbw_gbps) : "-",
           row.busbw_gbps ? FormatGBps(*row.busbw_gbps) : "-",
           FormatDuration(static_cast<double>(row.mean_arrival_skew_ns)),
           FormatDuration(static_cast<double>(row.max_arrival_skew_ns)),
           RankText(row.most_often_last_rank) + " ×" + std::to_string(row.most_often_last_times)});
    }
    TextTableOf(table).Write(out, "    ");
    WriteOpGpuTime(std::span(comm.ops).subspan(first, i - first), out);
  }
}

// One row per traced member: where it ran, on which GPU.
// A communicator of more than kFoldAbove members lists the first and the
// last kMembersAtEnds of them: a world of 1,024 ranks would be 1,024 rows,
// in every report.
constexpr size_t kMembersAtEnds = 4;

void WriteMembers(const CommunicatorReport& comm, std::ostream& out) {
  if (comm.members.empty()) return;
  const size_t count = comm.members.size();
  const bool elided = count > kFoldAbove;
  if (elided) {
    std::set<std::string> hosts;
    for (const CommMemberReport& member : comm.members) hosts.insert(member.host);
    out << "  members: " << count << " on " << hosts.size() << " hosts; the first and last "
        << kMembersAtEnds << " (the JSON report lists all):\n";
  } else {
    out << "  members:\n";
  }
  ReportTable table = UntitledTable(
      {{"comm rank", true}, {"rank", true}, {"host"}, {"device", true}, {"GPU UUID"}});
  for (size_t i = 0; i < count; ++i) {
    if (elided && i == kMembersAtEnds) {
      table.rows.push_back({"…", "", "", "", ""});
      i = count - kMembersAtEnds;
    }
    const CommMemberReport& member = comm.members[i];
    table.rows.push_back({std::to_string(member.comm_rank), RankText(member.rank), member.host,
                          member.cuda_device < 0 ? "-" : std::to_string(member.cuda_device),
                          member.gpu_uuid.empty() ? "-" : member.gpu_uuid});
  }
  TextTableOf(table).Write(out, "    ");
}

void WriteCommunicator(const CommunicatorReport& comm, std::ostream& out) {
  std::string heading = "Communicator " + FormatHexId(comm.comm_id) + ": size " +
                        std::to_string(comm.size) + ", ranks seen " +
                        std::to_string(comm.ranks_seen.size()) + "/" + std::to_string(comm.size) +
                        ", created by " + (comm.created_by.empty() ? "?" : comm.created_by);
  if (comm.parent_comm_id != 0) heading += ", split from " + FormatHexId(comm.parent_comm_id);
  out << '\n';
  WriteWrapped(out, heading, "", "  ");
  WriteMembers(comm, out);
  for (const CommRoleReport& role : comm.roles) {
    WriteWrapped(out, role.role + ": " + role.evidence, "  role: ", "    ");
  }
  // One line per function: a line break inside "400 ns" would hurt more than the lines cost.
  const char* prefix = "  lifecycle: ";
  for (const LifecycleReport& call : comm.lifecycle) {
    out << prefix << call.function << " ×" << call.calls << " (total "
        << FormatDuration(static_cast<double>(call.total_ns)) << ", max "
        << FormatDuration(static_cast<double>(call.max_ns)) << ")\n";
    prefix = "             ";
  }
  WriteOps(comm, out);
  for (const IncompleteReport& run : comm.incomplete) {
    std::string seqs = "seq " + std::to_string(run.first_seq);
    if (run.last_seq != run.first_seq) seqs += "-" + std::to_string(run.last_seq);
    WriteWrapped(out,
                 run.op + " " + seqs + " (" + std::to_string(run.count) + " calls) seen by " +
                     std::to_string(run.seen_comm_ranks.size()) + " of " +
                     std::to_string(run.expected_ranks) +
                     " ranks; missing comm ranks: " + RankList(run.missing_comm_ranks),
                 "  incomplete: ", "    ");
  }
}

// With more than kFoldAbove communicators, those alike (like_communicators.h)
// are written once, in full for the first, with one line for the rest.
void WriteCommunicators(const std::vector<CommunicatorReport>& communicators, std::ostream& out) {
  if (communicators.size() <= kFoldAbove) {
    for (const CommunicatorReport& comm : communicators) WriteCommunicator(comm, out);
    return;
  }
  for (const LikeCommunicators& group : GroupLikeCommunicators(communicators)) {
    WriteCommunicator(communicators[group.first], out);
    if (!group.others.empty()) {
      WriteWrapped(out, LikeCommunicatorsText(communicators, group), "  + ", "    ");
    }
  }
}

// With more than kFoldAbove ranks, the Ranks table lists kFoldAbove: those
// that arrived last most often (ties: the later on average first).
void WriteRanks(const Report& report, std::ostream& out) {
  if (report.ranks.empty()) return;
  out << "\nRanks (collectives only; lateness = own enter − first enter)\n";
  std::vector<const RankReport*> listed;
  for (const RankReport& rank : report.ranks) listed.push_back(&rank);
  if (listed.size() > kFoldAbove) {
    std::stable_sort(listed.begin(), listed.end(), [](const RankReport* a, const RankReport* b) {
      return std::tie(a->last_arrivals, a->mean_lateness_ns) >
             std::tie(b->last_arrivals, b->mean_lateness_ns);
    });
    listed.resize(kFoldAbove);
    WriteWrapped(out,
                 "the " + std::to_string(kFoldAbove) + " of " +
                     std::to_string(report.ranks.size()) +
                     " ranks that arrived last most often (the JSON report lists all):",
                 "  ", "    ");
  }
  ReportTable table = UntitledTable({{"rank", true},
                                     {"collectives", true},
                                     {"last to arrive", true},
                                     {"mean lateness", true},
                                     {"file"}});
  for (const RankReport* rank : listed) {
    table.rows.push_back({RankText(rank->rank), std::to_string(rank->collectives),
                          std::to_string(rank->last_arrivals),
                          FormatDuration(static_cast<double>(rank->mean_lateness_ns)), rank->file});
  }
  TextTableOf(table).Write(out, "  ");
}

std::string ShareText(const std::optional<double>& share) {
  if (!share) return "-";
  std::ostringstream text;
  text.setf(std::ios::fixed);
  text.precision(1);
  text << *share * 100 << "%";
  return text.str();
}

// "role train (argv[1] contains 'pretrain_'); ", or nothing when no rule
// decided the role (rows inferred for such a process say unknown_role).
std::string RoleText(const ProcessPhasesReport& process) {
  if (process.role.empty() || process.role_rule.empty()) return "";
  return "role " + process.role +
         (process.role_rule.empty() ? "" : " (" + process.role_rule + ")") + "; ";
}

size_t ProcessesWithPhases(const Report& report, bool inferred) {
  return static_cast<size_t>(std::count_if(
      report.phases.begin(), report.phases.end(),
      [&](const ProcessPhasesReport& process) { return process.inferred == inferred; }));
}

// The phase table folded across processes: phase, processes, count, the
// least, median and most total, median share[, rule].
void WriteFoldedPhaseTable(const Report& report, bool inferred, std::ostream& out) {
  std::vector<TableColumn> columns = {{"phase"},       {"ranks", true},  {"count", true},
                                      {"least", true}, {"median", true}, {"most", true},
                                      {"share", true}};
  if (inferred) columns.push_back({"rule"});
  ReportTable table = UntitledTable(std::move(columns));
  for (const PhaseAcrossRanks& phase : PhasesAcrossRanks(report.phases, inferred)) {
    std::vector<TableCell> row = {phase.phase,
                                  std::to_string(phase.processes),
                                  std::to_string(phase.count),
                                  DurationOfRankText(phase.total.least, phase.total.least_rank),
                                  FormatDurationNs(phase.total.median),
                                  DurationOfRankText(phase.total.most, phase.total.most_rank),
                                  ShareText(phase.median_share)};
    if (inferred) row.push_back(phase.source.substr(kInferredSourcePrefix.size()));
    table.rows.push_back(std::move(row));
  }
  TextTableOf(table).Write(out, "  ");
}

// The phase rows of the processes whose phases are inferred (or not): rank,
// phase, count, total, mean, share, for inferred rows the rule that made them
// (the source less its "inferred:", which the section's title says), file.
void WritePhaseTable(const Report& report, bool inferred, std::ostream& out) {
  std::vector<TableColumn> columns = {{"rank", true},  {"phase"},      {"count", true},
                                      {"total", true}, {"mean", true}, {"share", true}};
  if (inferred) columns.push_back({"rule"});
  columns.push_back({"file"});
  ReportTable table = UntitledTable(std::move(columns));
  for (const ProcessPhasesReport& process : report.phases) {
    if (process.inferred != inferred) continue;
    for (const PhaseReport& phase : process.phases) {
      std::vector<TableCell> row = {
          RankText(process.rank),
          phase.unmatched ? (phase.name.empty() ? "?" : phase.name) + " (other, unmatched)"
                          : phase.name,
          std::to_string(phase.count),
          FormatDurationNs(phase.total_ns),
          FormatDurationNs(phase.mean_ns),
          ShareText(phase.span_share)};
      if (inferred) row.push_back(phase.source.substr(kInferredSourcePrefix.size()));
      row.push_back(process.file);
      table.rows.push_back(std::move(row));
    }
  }
  TextTableOf(table).Write(out, "  ");
}

// With more than kFoldAbove processes (of one kind: NVTX or inferred
// phases), the phase table has a row per phase across them
// (PhasesAcrossRanks), and per-process lines are written for the first and
// for those that dropped ranges.
void WriteNvtxPhases(const Report& report, std::ostream& out) {
  out << "\nPhases (NVTX)\n";
  if (!report.any_nvtx_ranges) {
    out << "  no NVTX ranges in any trace\n";
    return;
  }
  if (std::all_of(report.phases.begin(), report.phases.end(),
                  [](const ProcessPhasesReport& process) { return process.inferred; })) {
    out << "  only NCCL's own NVTX ranges (communication, not phases)\n";
    return;
  }
  WriteWrapped(out,
               "time: host range time, each range's start to end on the CPU; a range that only "
               "queues GPU work is short here, and \"Phases inside the measured steps\" (Steps) "
               "gives the GPU time of the same phases. source: NVTX ranges, named into phases by "
               "reporter/phases/phase_rules.cc; count and total of outermost ranges (one inside "
               "another of its phase is part of it); share = total / the rank's span (first range "
               "start to last range end); phases nest, so shares need not add up to 100%",
               "  ", "  ");
  const size_t processes = ProcessesWithPhases(report, false);
  const bool folded = processes > kFoldAbove;
  if (folded) {
    WriteWrapped(out,
                 std::to_string(processes) +
                     " processes, folded: per phase the processes that have it, their ranges "
                     "summed, the least, median and most total (and the rank with the least "
                     "and the most), the median share; the JSON report has every process's rows",
                 "  ", "  ");
    WriteFoldedPhaseTable(report, false, out);
  } else {
    WritePhaseTable(report, false, out);
  }
  size_t written = 0;
  size_t dropping = 0;
  for (const ProcessPhasesReport& process : report.phases) {
    if (process.inferred) continue;
    dropping += process.dropped > 0;
    if (folded && written > 0 && (process.dropped == 0 || dropping > kFoldAbove)) continue;
    ++written;
    std::string line = "rank " + RankText(process.rank) + " (" + process.file +
                       "): " + RoleText(process) + std::to_string(process.ranges) +
                       " ranges over " + FormatDuration(static_cast<double>(process.span_ns));
    if (process.nccl_ranges > 0) {
      line += "; " + std::to_string(process.nccl_ranges) + " NCCL ranges not counted";
    }
    if (process.dropped > 0) line += "; " + std::to_string(process.dropped) + " ranges dropped";
    WriteWrapped(out, line, "  ", "    ");
  }
  if (folded) {
    WriteWrapped(out,
                 std::to_string(processes - written) +
                     " more processes' lines are in the JSON report; " + std::to_string(dropping) +
                     " processes dropped ranges",
                 "  ", "    ");
  }
}

// Processes without NVTX phase ranges: phases inferred from their GPU work.
void WriteInferredPhases(const Report& report, std::ostream& out) {
  if (std::none_of(report.phases.begin(), report.phases.end(),
                   [](const ProcessPhasesReport& process) { return process.inferred; })) {
    return;
  }
  out << "\nPhases (inferred: processes without NVTX phase ranges)\n";
  WriteWrapped(
      out,
      "source: the process's role from its title, command line or kernels "
      "(reporter/phases/process_role.cc) and "
      "its kernels' classes, by reporter/phases/inferred_phase.cc; total = kernel time (ipc_calls "
      "rows: CUDA IPC API call time); share = total / the process's kernel span (first "
      "kernel start to last kernel end); idle = the span less the time any kernel ran; "
      "kernels on several streams overlap, so shares need not add up to 100%; a train "
      "process's compute is backward when another thread than its main one launched it "
      "(PyTorch's autograd thread), else forward, except logprob: the forward-only passes a "
      "step ran before its first training forward (found when that forward's kernels match "
      "the step's next one); one 'train compute' row when one thread launched it all",
      "  ", "  ");
  const size_t processes = ProcessesWithPhases(report, true);
  if (processes > kFoldAbove) {
    WriteWrapped(out,
                 std::to_string(processes) +
                     " processes, folded as in Phases (NVTX); the JSON report has every "
                     "process's rows",
                 "  ", "  ");
    WriteFoldedPhaseTable(report, true, out);
    return;
  }
  WritePhaseTable(report, true, out);
  for (const ProcessPhasesReport& process : report.phases) {
    if (!process.inferred) continue;
    WriteWrapped(out,
                 "rank " + RankText(process.rank) + " (" + process.file +
                     "): " + RoleText(process) + "kernels over " +
                     FormatDuration(static_cast<double>(process.span_ns)),
                 "  ", "    ");
  }
}

void WritePhases(const Report& report, std::ostream& out) {
  WriteNvtxPhases(report, out);
  WriteInferredPhases(report, out);
}

}  // namespace

void WriteTextSummary(const Report& report, std::ostream& out) {
  out << "Summary (→ the section behind each line)\n";
  for (const SummaryLine& line : SummarizeReport(report).lines) {
    WriteWrapped(out, line.label + ": " + line.text + " → " + line.section_title, "  ", "    ");
  }
  out << '\n';
}

void WriteTextReport(const Report& report, std::ostream& out, TextSections sections) {
  const auto on = [sections](TextSection section) { return (sections & SectionBit(section)) != 0; };
  out << "vprof report: " << report.directory << "\n\n";
  if (on(TextSection::kSummary)) WriteTextSummary(report, out);
  if (on(TextSection::kRun)) WriteHeader(report, on(TextSection::kSummary), out);
  if (on(TextSection::kProcesses)) WriteProcesses(report, out);
  if (on(TextSection::kCommunicators)) {
    if (report.communicators.empty()) out << "\nNo communicators.\n";
    WriteCommunicators(report.communicators, out);
  }
  if (on(TextSection::kRanks)) WriteRanks(report, out);
  if (on(TextSection::kGpu)) WriteGpuSection(report, out);
  if (on(TextSection::kConsistency)) WriteConsistencySections(report, out);
  if (on(TextSection::kPhases)) WritePhases(report, out);
  if (on(TextSection::kSteps)) WriteStepsText(report, out);
  if (on(TextSection::kCandidates)) WriteCandidatesText(report, out);
  if (sections != kAllTextSections) {
    // A reader of part of the report learns where the rest is.
    out << "\n(sections shown:";
    for (size_t index = 0; index < kTextSectionCount; ++index) {
      if (on(static_cast<TextSection>(index))) {
        out << ' ' << TextSectionName(static_cast<TextSection>(index));
      }
    }
    out << "; every section: without --sections or --brief)\n";
  }
}

}  // namespace vprof::reporter
