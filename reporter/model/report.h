// The report as data: what the text and JSON writers print. Everything here is
// final (ranks resolved, means computed), so the writers only format.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/base/rank_list.h"
#include "reporter/collectives/collective_stats.h"
#include "reporter/collectives/size_bucket.h"
#include "reporter/gpu/gpu_report.h"
#include "reporter/ingest/nccl_plugin_record.h"
#include "reporter/ingest/process_record.h"
#include "reporter/model/candidate_report.h"
#include "reporter/model/consistency_report.h"
#include "reporter/model/step_timeline.h"
#include "reporter/steps/step_report.h"

namespace vprof::reporter {

// What the communicator tables' times measure, in the words every output uses: true of any
// NCCL, stand-in or real, blocking or not.
inline constexpr std::string_view kTimesMeasured =
    "collective times and skews are host API call times, from call to return; an NCCL that "
    "returns once the work is queued makes them enqueue times, and the GPU time of the "
    "kernels each call launched is printed beside them when GPU capture is on";

// One process's clock against the reference process's, from the kernel ends
// of the collectives both ran (clock_collective_check.h), on the report's
// clock. Reported, not applied: the offsets are added as the traces are read,
// before any collective is seen.
struct CollectiveClockEstimate {
  uint64_t collectives = 0;  // matched with the reference
  // (Own kernel end − reference's kernel end) at at_ns, from a robust line
  // through those differences (clock_collective_check.h): how far this
  // process's times are ahead of the reference's; near 0 when aligned well.
  int64_t offset_ns = 0;
  int64_t at_ns = 0;    // the mean time of the reference's kernel ends
  int64_t span_ns = 0;  // from the first matched collective's end to the last's
  // The line's slope (median of slopes, Theil–Sen); none when the collectives
  // span less than kMinDriftSpanNs, where the offset is the median difference.
  std::optional<double> drift_ns_per_s;
  // 95th percentile of |difference − line| (over a bounded random sample).
  int64_t residual_spread_ns = 0;
  int64_t error_bound_ns = 0;  // the spread, never below kKernelEndFloorNs
};

// How one process's times were put on the report's clock, and how well the
// collectives say that worked.
struct ProcessClock {
  std::string file;
  int64_t host_sample_offset_ns = 0;  // the offset applied; 0 on one host
  // None for the reference and for a process that shared no collective with it.
  std::optional<CollectiveClockEstimate> collectives;
};

// A process whose clock, once aligned, puts its start implausibly far from
// the others' (a host whose clock reads 1970): its lateness and skews against
// them are not real.
struct FarClock {
  std::string file;
  std::optional<int32_t> rank;  // from its header; none without one
  int64_t from_median_ns = 0;   // its start − the median start; negative: behind
};

struct TimeSource {
  std::vector<std::string> hosts;  // distinct, sorted
  // True when the processes span several hosts and their times were moved to
  // CLOCK_REALTIME; false when all share one host's CLOCK_MONOTONIC.
  bool aligned_to_realtime = false;
  int64_t clock_error_bound_ns = 0;  // the largest per-process sample spread
  // Processes left on their own clock for want of clock samples (their times
  // cannot be compared with other hosts').
  uint32_t unaligned_processes = 0;
  // The collective check (clock_collective_check.h); the {} let aggregate
  // initializers that stop before them compile under -Wextra.
  // The process it compares with (the lowest header rank, else the first
  // file); empty when no file was opened.
  std::string collective_reference{};
  std::vector<ProcessClock> processes{};  // one per input file, in input order
  std::vector<FarClock> far_clocks{};     // in input order; empty on one host
};

struct ProcessReport {
  std::string file;  // name within the report's directory
  std::string host;
  uint32_t pid = 0;
  std::optional<int32_t> rank;
  std::string rank_source;  // "header", "communicator", or "" (no rank)
  bool is_rank = false;     // false for processes without NCCL events (a launcher)
  uint64_t nccl_events = 0;
  uint64_t failed_calls = 0;
  uint64_t dropped_events = 0;
  uint64_t write_errors = 0;
  InputState state = InputState::kWhole;
  // "exit", "signal", "window_end", "internal_error", "unspecified"; "" without a Footer.
  std::string end_reason;
  int32_t signal = 0;
  std::string problem;  // empty when whole
  uint64_t unreadable_packets = 0;
  uint64_t missing_packets = 0;
  int64_t clock_offset_ns = 0;  // added to this process's times; 0 on one host
  ClockSamples clock_samples;
  GpuReport gpu;
  NcclPluginRecord nccl_plugin;
};

struct OpReport {
  std::string op;  // NCCL function, or "ncclSend/ncclRecv" for matched pairs
  SizeBucket bucket;
  uint64_t count = 0;
  int64_t total_time_ns = 0;
  int64_t mean_time_ns = 0;
  uint64_t total_bytes = 0;  // sum of S
  double bus_factor = 1.0;
  std::optional<double> algbw_gbps;  // none when the total time is zero
  std::optional<double> busbw_gbps;
  int64_t mean_arrival_skew_ns = 0;
  int64_t max_arrival_skew_ns = 0;
  int64_t mean_exit_skew_ns = 0;
  int64_t max_exit_skew_ns = 0;
  std::optional<int32_t> most_often_last_rank;  // none when that process has no rank
  uint64_t most_often_last_times = 0;
  // Kernels linked to the ranks' calls (one rank's call is one call here).
  uint64_t gpu_linked_calls = 0;
  int64_t gpu_time_total_ns = 0;
  std::optional<int64_t> gpu_time_mean_ns;  // per linked call; none without one
  // busbw with the mean GPU kernel time per linked call as the time: on real
  // NCCL the host times above are enqueue times, this is the bandwidth.
  std::optional<double> gpu_busbw_gbps;
  // The collective's own GPU time (cross_rank_gpu_time.h): from the last
  // rank's kernel start to the last kernel end, over the collectives outside
  // groups whose kernels every rank linked. Without the ranks' waits for each
  // other, so it holds for small messages too.
  uint64_t collective_gpu_calls = 0;
  std::optional<int64_t> collective_gpu_mean_ns;    // none without one
  std::optional<int64_t> collective_gpu_median_ns;  // within 0.5% (duration_histogram.h)
  std::optional<double> collective_busbw_gbps;      // from the median
};

// A run of consecutive seqs that the same members reported and the rest never did.
struct IncompleteReport {
  std::string op;  // for send/recv, the side that was seen ("ncclSend" or "ncclRecv")
  uint64_t first_seq = 0;
  uint64_t last_seq = 0;
  uint64_t count = 0;
  uint32_t expected_ranks = 0;  // communicator size, or 2 for send/recv
  std::vector<uint32_t> seen_comm_ranks;
  std::vector<RankRange> missing_comm_ranks;
};

struct LifecycleReport {
  std::string function;
  uint64_t calls = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
};

// One member of a communicator, as its own trace describes it.
struct CommMemberReport {
  uint32_t comm_rank = 0;
  std::optional<int32_t> rank;  // the process's global rank
  std::string file;
  std::string host;
  int32_t cuda_device = -1;  // -1: unknown
  std::string gpu_uuid;      // "GPU-xxxxxxxx-..."; empty when unknown
};

// A role of a communicator's collectives in the measured steps, and the
// evidence for it (reporter/steps/comm_roles.h).
struct CommRoleReport {
  std::string role;
  std::string evidence;
};

struct CommunicatorReport {
  uint64_t comm_id = 0;
  uint32_t size = 0;
  std::vector<uint32_t> ranks_seen;       // comm ranks with a trace in the directory
  std::vector<CommMemberReport> members;  // by comm_rank
  std::string created_by;                 // "" when no Communicator packet was read
  uint64_t parent_comm_id = 0;
  std::vector<LifecycleReport> lifecycle;
  std::vector<OpReport> ops;  // by op (NcclFunction order), then size
  std::vector<IncompleteReport> incomplete;
  std::vector<CommRoleReport> roles{};  // none without measured steps that used it
};

// One phase (or unmatched range name) of one process, from its NVTX ranges
// or inferred from its GPU work (inferred_phase.h).
struct PhaseReport {
  std::string name;  // the phase, or the range name no rule matched
  bool unmatched = false;
  std::string source;  // "nvtx", or "inferred:<rule>" (the inference table's row)
  // Outermost ranges of the phase; inferred: kernels (API calls for IPC), 0 for idle.
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t mean_ns = 0;
  std::optional<double> span_share;  // total / the process's span; none when the span is 0
  // NVTX push/pop nesting depth of its longest range (0: outermost; inferred phases 0).
  uint32_t depth = 0;
};

// A process's NVTX ranges as phases (phase_rules.h), or, for a process with
// GPU kernels but no range outside NCCL's domain, its phases inferred from
// its role and kernels (inferred_phase.h).
struct ProcessPhasesReport {
  std::optional<int32_t> rank;
  std::string file;
  bool inferred = false;
  std::string role;       // ProcessRoleName; empty when the RunHeader was not read for it
  std::string role_rule;  // which rule decided the role; empty for "unknown"
  uint64_t ranges = 0;    // outside NCCL's domain, marks excluded
  // First range start to last range end; inferred: first kernel start to last kernel end.
  int64_t span_ns = 0;
  uint64_t nccl_ranges = 0;
  uint64_t dropped = 0;
  std::vector<PhaseReport> phases;  // matched first, each group by total time, longest first
};

// One rank process's part in matched collectives (send/recv excluded).
struct RankReport {
  std::optional<int32_t> rank;
  std::string file;
  uint64_t collectives = 0;
  uint64_t last_arrivals = 0;
  int64_t mean_lateness_ns = 0;  // mean of (own enter − first enter)
  // Over the collectives it entered last, the time the others waited for it alone
  // (ParticipantStats), and the longest such wait. The {} let aggregate initializers that
  // stop before them compile under -Wextra.
  int64_t total_lead_ns{};
  LeadExample longest_lead{};
};

struct Report {
  std::string directory;
  TimeSource time_source;
  std::vector<ProcessReport> processes;           // by file name
  std::vector<CommunicatorReport> communicators;  // by comm_id
  std::vector<RankReport> ranks;                  // by rank, then file
  std::vector<ProcessPhasesReport> phases;        // by rank (none last), then file
  bool any_nvtx_ranges = false;                   // NCCL's own included
  // Both none when not checked: no trace says anything about NCCL's profiler
  // plugin (traces from a vprof before it), and neither --strict nor
  // --contract asked.
  std::optional<CoverageReport> coverage;
  std::optional<ConsistencyReport> consistency;
  // None when no process has GPU kernel records to cut into steps (under a
  // deep schedule, a report with only a problem).
  std::optional<StepsReport> steps;
  std::vector<CandidateReport> candidates;  // rank_order ascending
  // The HTML report's interactive timeline; none unless the report is written
  // as HTML from traces.
  std::optional<StepTimeline> step_timeline;

  bool all_inputs_whole() const {
    return std::all_of(processes.begin(), processes.end(),
                       [](const ProcessReport& p) { return p.state == InputState::kWhole; });
  }
  // A strict run that ran differently from what it declared, or cannot show
  // that it did not.
  bool strict_failed() const { return consistency && consistency->failed(); }
};

}  // namespace vprof::reporter
