#include "reporter/trace/run_identity.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "reporter/base/rank_bounds.h"
#include "reporter/base/rank_list.h"
#include "reporter/base/utc_time.h"
#include "reporter/trace/trace_reader.h"

namespace vprof::reporter {
namespace {

// Examples named per finding; the rest are counted.
constexpr size_t kMaxExamples = 3;

// The processes of one NCCL world: see the header.
// (Slurm step, rendezvous).
using GroupKey = std::pair<std::string, std::string>;
using Groups = std::map<GroupKey, std::vector<const TraceIdentity*>>;

std::string FileName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string StartOf(const TraceIdentity& trace) {
  const auto since_epoch = std::chrono::duration_cast<std::chrono::system_clock::duration>(
      std::chrono::nanoseconds(trace.start_realtime_ns));
  return IsoUtc(std::chrono::system_clock::time_point(since_epoch));
}

// The world size its members' headers give; 0 when none does.
int32_t WorldSizeOf(const std::vector<const TraceIdentity*>& members) {
  for (const TraceIdentity* trace : members) {
    if (trace->world_size) return *trace->world_size;
  }
  return 0;
}

// ", rendezvous node0:29500, Slurm step 7.0"; "" for neither.
std::string PlaceOf(const GroupKey& group) {
  const auto& [step, rendezvous] = group;
  std::string text;
  if (!rendezvous.empty()) text += ", rendezvous " + rendezvous;
  if (!step.empty()) text += ", Slurm step " + step;
  return text;
}

std::string Describe(const GroupKey& group, int32_t world_size) {
  return (world_size > 0 ? "world size " + std::to_string(world_size) : "world size unknown") +
         PlaceOf(group);
}

std::string MixedSlurmJobs(const std::vector<TraceIdentity>& traces) {
  std::map<std::string, std::vector<const TraceIdentity*>> by_job;
  for (const TraceIdentity& trace : traces) {
    if (!trace.slurm_job.empty()) by_job[trace.slurm_job].push_back(&trace);
  }
  if (by_job.size() < 2) return "";
  std::string text = "traces of " + std::to_string(by_job.size()) + " Slurm jobs:";
  for (const auto& [job, members] : by_job) {
    text += " job " + job + " (" + std::to_string(members.size()) + " traces, e.g. " +
            FileName(members.front()->path) + ");";
  }
  text.pop_back();
  return text;
}

// The first kMaxExamples file names of `members`, then how many more.
std::string FilesOf(const std::vector<const TraceIdentity*>& members) {
  std::string text;
  for (size_t i = 0; i < members.size() && i < kMaxExamples; ++i) {
    text += (i == 0 ? "" : ", ") + FileName(members[i]->path);
  }
  if (members.size() > kMaxExamples) {
    text += " and " + std::to_string(members.size() - kMaxExamples) + " more";
  }
  return text;
}

// Outside Slurm, each torchrun run id is a run: two `torchrun --standalone`
// runs into one folder share no rendezvous, so no rank of theirs collides.
// (Inside one Slurm job, steps may well be torchrun runs of their own.)
std::string MixedTorchrunRuns(const std::vector<TraceIdentity>& traces) {
  std::map<std::string, std::vector<const TraceIdentity*>> by_run;
  for (const TraceIdentity& trace : traces) {
    if (trace.slurm_job.empty() && !trace.torchrun_run.empty()) {
      by_run[trace.torchrun_run].push_back(&trace);
    }
  }
  if (by_run.size() < 2) return "";
  std::string text =
      "traces of " + std::to_string(by_run.size()) + " torchrun runs (TORCHELASTIC_RUN_ID):";
  size_t named = 0;
  for (const auto& [run, members] : by_run) {
    if (named++ == kMaxExamples) {
      text += " and " + std::to_string(by_run.size() - kMaxExamples) + " more runs;";
      break;
    }
    const int32_t world_size = WorldSizeOf(members);
    text += " run " + run + " (" +
            (world_size > 0 ? "world size " + std::to_string(world_size) + ", " : "") +
            std::to_string(members.size()) + (members.size() == 1 ? " trace: " : " traces: ") +
            FilesOf(members) + ", started " + StartOf(*members.front()) + ");";
  }
  text.pop_back();
  return text;
}

// A process that holds its rank itself, not by inheriting it from a traced
// parent of the same rank.
bool IsRankProcess(const TraceIdentity& trace,
                   const std::map<std::pair<std::string, uint32_t>, int32_t>& rank_by_process) {
  if (!trace.rank || trace.forked_child) return false;
  const auto parent = rank_by_process.find({trace.host, trace.ppid});
  return parent == rank_by_process.end() || parent->second != *trace.rank;
}

// One NCCL world has one size: members of a group whose headers disagree
// are of two runs (a job started again with another size into one folder).
std::string MixedWorldSizes(const Groups& groups) {
  for (const auto& [group, members] : groups) {
    const TraceIdentity* first = nullptr;
    for (const TraceIdentity* trace : members) {
      if (!trace->world_size) continue;
      if (!first) {
        first = trace;
      } else if (*trace->world_size != *first->world_size) {
        return "world sizes differ: " + FileName(first->path) + " has world size " +
               std::to_string(*first->world_size) + " (started " + StartOf(*first) + "), " +
               FileName(trace->path) + " has " + std::to_string(*trace->world_size) + " (started " +
               StartOf(*trace) + ")" + PlaceOf(group);
      }
    }
  }
  return "";
}

std::string RepeatedRanks(const Groups& groups,
                          const std::map<std::pair<std::string, uint32_t>, int32_t>& ranks) {
  std::vector<std::string> findings;
  for (const auto& [group, members] : groups) {
    std::map<int32_t, std::vector<const TraceIdentity*>> holders;
    for (const TraceIdentity* trace : members) {
      if (IsRankProcess(*trace, ranks)) holders[*trace->rank].push_back(trace);
    }
    for (const auto& [rank, traces] : holders) {
      if (traces.size() < 2) continue;
      std::string finding = "rank " + std::to_string(rank) + " (" +
                            Describe(group, WorldSizeOf(members)) + ") is in " +
                            std::to_string(traces.size()) + " traces:";
      for (const TraceIdentity* trace : traces) {
        finding += " " + FileName(trace->path) + " (started " + StartOf(*trace) + "),";
      }
      finding.pop_back();
      findings.push_back(std::move(finding));
    }
  }
  if (findings.empty()) return "";
  std::string text;
  for (size_t i = 0; i < findings.size() && i < kMaxExamples; ++i) {
    text += (i == 0 ? "" : "; ") + findings[i];
  }
  if (findings.size() > kMaxExamples) {
    text += "; and " + std::to_string(findings.size() - kMaxExamples) + " more ranks like these";
  }
  return text;
}

std::vector<std::string> MissingRanks(const Groups& groups) {
  std::vector<std::string> lines;
  for (const auto& [group, members] : groups) {
    const int32_t world_size = WorldSizeOf(members);
    std::set<int32_t> seen;
    for (const TraceIdentity* trace : members) seen.insert(*trace->rank);
    const std::vector<RankRange> missing =
        AbsentRanks(std::vector<int32_t>(seen.begin(), seen.end()), world_size);
    if (missing.empty()) continue;
    const uint64_t count = RankCount(missing);
    lines.push_back(Describe(group, world_size) + ": no trace of rank" + (count == 1 ? " " : "s ") +
                    RankList(missing) + " (" + std::to_string(count) + " of " +
                    std::to_string(world_size) + " missing)");
  }
  return lines;
}

}  // namespace

std::optional<TraceIdentity> ReadTraceIdentity(const std::string& path) {
  TraceReader reader(path);
  vprof::trace::TracePacket packet;
  if (!reader.Next(&packet) || !packet.has_run_header()) return std::nullopt;
  const vprof::trace::RunHeader& header = packet.run_header();
  TraceIdentity trace;
  trace.path = path;
  trace.host = header.host();
  trace.pid = header.pid();
  trace.ppid = header.ppid();
  trace.forked_child = header.forked_child();
  trace.slurm_job = header.slurm().job_id();
  trace.slurm_step = header.slurm().step_id();
  std::string master_addr, master_port;
  for (const auto& variable : header.env()) {
    if (variable.name() == "MASTER_ADDR") master_addr = variable.value();
    if (variable.name() == "MASTER_PORT") master_port = variable.value();
    if (variable.name() == "TORCHELASTIC_RUN_ID") trace.torchrun_run = variable.value();
  }
  if (!master_addr.empty() || !master_port.empty())
    trace.rendezvous = master_addr + ":" + master_port;
  const vprof::trace::RankInfo& rank = header.rank();
  if (rank.has_rank() && rank.rank() >= 0) trace.rank = rank.rank();
  if (rank.has_world_size() && rank.world_size() > 0) {
    if (static_cast<uint32_t>(rank.world_size()) <= kMostRanks) {
      trace.world_size = rank.world_size();
    } else {
      trace.ignored_world_size = rank.world_size();
    }
  }
  trace.start_realtime_ns = header.start_realtime_ns();
  return trace;
}

RunCheck CheckOneRun(const std::vector<TraceIdentity>& traces) {
  RunCheck check;
  check.mixed_runs = MixedSlurmJobs(traces);
  if (check.mixed_runs.empty()) check.mixed_runs = MixedTorchrunRuns(traces);
  if (!check.mixed_runs.empty()) return check;

  std::map<std::pair<std::string, uint32_t>, int32_t> rank_by_process;  // (host, pid) → rank
  Groups groups;
  for (const TraceIdentity& trace : traces) {
    if (!trace.rank) continue;
    rank_by_process[{trace.host, trace.pid}] = *trace.rank;
    groups[{trace.slurm_step, trace.rendezvous}].push_back(&trace);
  }
  check.mixed_runs = MixedWorldSizes(groups);
  if (!check.mixed_runs.empty()) return check;
  check.mixed_runs = RepeatedRanks(groups, rank_by_process);
  if (check.mixed_runs.empty()) check.missing_ranks = MissingRanks(groups);
  return check;
}

}  // namespace vprof::reporter
