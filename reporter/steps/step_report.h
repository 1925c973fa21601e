// Steps as the report shows them: where each measured step's time went on each
// rank (GPU compute, communication exposed or hidden behind compute, copies,
// idle), why exposed communication was not overlapped, the gradient buckets of
// backward, each rank's stream plan, and the full step across ranks. Built by
// the step analysis (reporter/steps/); printed by the text, JSON, Markdown and
// HTML writers, which only format.
//
// Scopes are kept apart: a RankStepReport is one process over one step window
// (actor window); a FullStepReport is the step across ranks, where the slowest
// rank sets the time (full step). Operator-level figures live in the
// communicator and GPU tables, never here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reporter/collectives/nccl_function.h"
#include "reporter/steps/gpu_work.h"
#include "reporter/steps/ns_by_key.h"

namespace vprof::reporter {

// Why a piece of exposed communication was not hidden behind compute, in the
// order the analysis tries them (the first that holds is the reason).
// In the order of their names (ExposureReasonName), which is the order the
// report lists them in.
enum class ExposureReason : uint8_t {
  kMaxConnectionsOne,  // CUDA_DEVICE_MAX_CONNECTIONS=1: one hardware queue serializes streams
  kNothingToOverlap,   // no compute kernel was launched while the collective ran
  kOther,
  kSameStream,    // the collective ran on a stream that also runs the step's compute
  kWaitedAtOnce,  // compute waited on the collective's stream right after launching it
};
// The reasons are 0 to this − 1 (step_segments.cc sums time in an array of them).
inline constexpr size_t kExposureReasons = static_cast<size_t>(ExposureReason::kWaitedAtOnce) + 1;

// How the step boundaries were found.
enum class StepSource : uint8_t {
  kNvtx,              // NVTX ranges matching a step pattern
  kOptimizerKernels,  // inferred: bursts of optimizer kernels end steps
};

// Time of one rank over one window, in ns. compute + exposed_comm + copy +
// idle == window (each instant of the window counts once: compute first, then
// communication, then copies, then idle); overlapped_comm is communication
// that ran during compute and is not part of that sum.
struct SegmentTimes {
  int64_t window_ns = 0;
  int64_t compute_ns = 0;                 // kernels other than communication
  int64_t exposed_comm_ns = 0;            // communication kernels with no compute running
  int64_t exposed_comm_blocking_ns = 0;   // of exposed: the next compute kernel waited for it
  int64_t exposed_comm_idle_fill_ns = 0;  // of exposed: the GPU had nothing else queued
  int64_t overlapped_comm_ns = 0;         // communication while compute ran
  int64_t copy_ns = 0;                    // memcpy/memset with neither compute nor communication
  int64_t idle_ns = 0;                    // nothing on the GPU
  int64_t idle_host_bound_ns = 0;  // of idle: the next activity was launched after the gap began
  int64_t idle_waiting_ns = 0;     // of idle: it was already launched (waiting on a stream/event)
  // Exposed communication by reason.
  NsByKey<ExposureReason> exposed_by_reason_ns;
  // Exposed communication by communicator id (0: kernels linked to no call).
  NsByKey<uint64_t> exposed_by_comm_ns;
};

// A reduction collective of backward, in issue order: DDP/FSDP gradient buckets.
// 48 bytes: a report holds the buckets of every rank's every step.
struct BucketReport {
  uint32_t index = 0;                        // 0 = the first issued
  NcclFunction op = NcclFunction::kUnknown;  // named by NcclFunctionName
  uint64_t comm_id = 0;
  uint64_t bytes = 0;
  int64_t offset_ns = 0;  // kernel start, from the step window's start
  int64_t gpu_ns = 0;
  int64_t exposed_ns = 0;  // of gpu_ns, not hidden behind compute
};
static_assert(sizeof(BucketReport) <= 48);

// What a communication kernel was for, from evidence (comm_roles.h).
enum class CommRole : uint8_t {
  kUnclassified,         // no rule's evidence holds
  kGradientBuckets,      // reductions of backward on a communicator that does not reduce in forward
  kWeightSync,           // inside the weight-sync phase, or broadcasts outside forward and backward
  kShardedDataParallel,  // all-gathers in forward with reduce-scatters only in backward
  kTensorParallel,       // reductions in forward, every layer (several calls a step)
  kPipeline,             // send/receive between stages
  kMetrics,              // small collectives outside forward and backward
};

// A phase of one rank's steps: an index into its RankStepsReport's
// phase_names, where 0 is "no phase" (work launched outside every phase).
using PhaseIndex = uint16_t;

// Time of one step in one phase.
struct PhaseTime {
  PhaseIndex phase = 0;
  int64_t ns = 0;
  bool operator==(const PhaseTime&) const = default;
};

// A part of a communication kernel that no compute hid, from the kernel's
// start: [from_ns, to_ns).
struct ExposedPiece {
  int64_t from_ns = 0;
  int64_t to_ns = 0;
  bool operator==(const ExposedPiece&) const = default;
};

// A communication kernel launched in a step, with what the ledger (ledger.h)
// needs to split its exposed time into waiting for a late rank and transfer,
// and to name its role (comm_roles.h). The kernel that waited least for the
// other members of its collective (the shortest) is the late rank's: every
// other member's kernel spans its own wait for that one plus the transfer.
// 64 bytes: a report holds every rank's communication kernels of every step.
struct StepCollective {
  uint64_t comm_id = 0;  // 0: linked to no intercepted call
  uint64_t seq = 0;      // the call's seq on comm_id; 0: unknown (a group's, or unlinked)
  uint64_t bytes = 0;
  int64_t start_ns = 0;  // the kernel, on the process's own clock
  int64_t duration_ns = 0;
  int64_t exposed_ns = 0;       // the sum of its pieces
  uint32_t first_piece = 0;     // its pieces: RankStepReport::exposed_pieces[first_piece, +pieces)
  uint32_t correlation_id = 0;  // its launch's, as `vprof export` shows it
  uint16_t pieces = 0;
  PhaseIndex phase = 0;  // of its launch
  NcclFunction function = NcclFunction::kUnknown;
  bool in_backward = false;                 // launched inside backward (the buckets' rule)
  CommRole role = CommRole::kUnclassified;  // once the ledgers are built
  bool operator==(const StepCollective&) const = default;
};
static_assert(sizeof(StepCollective) <= 64);

// One piece of a step's GPU work as the replay (reporter/replay/) needs it:
// when the host launched it, when it ran, on which stream, from which host
// thread, and what it was. Kept for a few measured steps of each rank only
// (kReplaySteps). 64 bytes.
struct ReplayWork {
  int64_t launch_ns = 0;  // on the report's clock
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t comm_id = 0;  // communication: as StepCollective's
  uint64_t seq = 0;
  // The kernel's name while the step is analyzed (an interned id), then its
  // index into RankStepsReport::replay_names.
  uint64_t name = 0;
  uint32_t stream = 0;
  uint32_t tid = 0;  // the host thread that launched it
  PhaseIndex phase = 0;
  WorkKind kind = WorkKind::kCompute;
  NcclFunction function = NcclFunction::kUnknown;
  CommRole role = CommRole::kUnclassified;  // once the ledgers are built
  bool optimizer : 1 = false;
  bool whole_graph : 1 = false;  // a CUDA-graph replay recorded whole
  bool from_graph : 1 = false;   // a node of a graph launch
  bool operator==(const ReplayWork& other) const {
    return launch_ns == other.launch_ns && start_ns == other.start_ns && end_ns == other.end_ns &&
           comm_id == other.comm_id && seq == other.seq && name == other.name &&
           stream == other.stream && tid == other.tid && phase == other.phase &&
           kind == other.kind && function == other.function && role == other.role &&
           optimizer == other.optimizer && whole_graph == other.whole_graph &&
           from_graph == other.from_graph;
  }
};
static_assert(sizeof(ReplayWork) <= 64);

// What the ledger puts a nanosecond of a step window in (ledger.h).
enum class LedgerCause : uint8_t {
  kCompute,        // GPU compute, by phase
  kWaitForRank,    // exposed communication while a member of the collective had not arrived
  kTransfer,       // exposed communication once every member had arrived, by role
  kCopy,           // copies with nothing else running
  kHostBoundIdle,  // the GPU idle until the host launched the next work, by phase
  kVprofCost,      // of that idle, what vprof's recording added to the launches (the least stated)
  kWaitingIdle,    // the GPU idle with the next work launched: waiting on a stream or event
};

// One cause of one rank's step time. 16 bytes: a report holds every rank's
// ledger of every step.
struct LedgerItem {
  int64_t ns = 0;
  LedgerCause cause = LedgerCause::kCompute;
  CommRole role = CommRole::kUnclassified;  // kWaitForRank and kTransfer: the collectives'
  PhaseIndex phase = 0;                     // kCompute, kHostBoundIdle, kWaitForRank, kTransfer
  // kWaitForRank: the late rank, as its index into StepsReport::ranks.
  uint32_t late = 0;
  bool operator==(const LedgerItem&) const = default;
};
static_assert(sizeof(LedgerItem) <= 16);

// A span of one process's timeline that `vprof export` shows with the same
// id in its args: "correlation:<CUPTI correlation id>" for GPU work,
// "call_id:<vprof call id>" for an intercepted NCCL call.
struct SpanRef {
  std::string id;
  std::string name;  // kernel name, or what the span is
  int64_t start_ns = 0;
  int64_t duration_ns = 0;
};

// One phase (phase_rules.h) inside the measured steps of one rank.
struct StepPhaseReport {
  std::string phase;
  bool from_nvtx = true;  // false: inferred (kernel classes, process role)
  SegmentTimes times;     // summed over the measured steps
};

// Device memory over one step window: what the process held from CUDA
// (allocated less released since the capture began, memory_events.h), and
// the allocation calls inside the window.
struct StepMemory {
  int64_t start_bytes = 0;  // held at the window's start
  int64_t peak_bytes = 0;   // the most held at any instant of the window
  int64_t low_bytes = 0;    // the least
  uint32_t allocations = 0;
  uint32_t releases = 0;
  uint64_t allocated_bytes = 0;
  uint64_t released_bytes = 0;
  int64_t api_ns = 0;  // in allocation and release API calls that started in the window
};

// A GPU's memory in use as NVML sampled it (the whole device: every
// process's allocations and the driver's), over the samples in a window.
struct SampledDeviceMemory {
  uint32_t samples = 0;
  uint64_t peak_used_bytes = 0;
  uint64_t low_used_bytes = 0;
};

// The same over a rank's measured steps, on the GPU it ran kernels on (of
// several, the one sampled most in them).
struct RankDeviceMemory {
  uint32_t device = 0;
  uint64_t interval_ns = 0;  // between samples
  SampledDeviceMemory sampled;
  uint32_t peak_step = 0;  // the step whose window holds the first peak sample
  uint64_t total_bytes = 0;

  // What was left at the peak sample: total − peak (0 if NVML read more used than total).
  uint64_t headroom_bytes() const {
    return total_bytes - std::min(sampled.peak_used_bytes, total_bytes);
  }
};

// Memory moved out and back in a step: device↔host copies of at least
// kLargeTransferBytes each, and virtual-memory unmap/map calls (memory
// savers release physical memory that way and map it again to wake up).
struct StepTransfers {
  uint32_t to_host_copies = 0;
  uint64_t to_host_bytes = 0;
  int64_t to_host_ns = 0;  // the copies' GPU time
  uint32_t to_device_copies = 0;
  uint64_t to_device_bytes = 0;
  int64_t to_device_ns = 0;
  uint32_t unmaps = 0;
  uint32_t maps = 0;
  int64_t map_call_ns = 0;  // host time of the unmap and map calls

  StepTransfers& operator+=(const StepTransfers& other) {
    to_host_copies += other.to_host_copies;
    to_host_bytes += other.to_host_bytes;
    to_host_ns += other.to_host_ns;
    to_device_copies += other.to_device_copies;
    to_device_bytes += other.to_device_bytes;
    to_device_ns += other.to_device_ns;
    unmaps += other.unmaps;
    maps += other.maps;
    map_call_ns += other.map_call_ns;
    return *this;
  }
};

// Device memory in one phase over a rank's measured steps, read over the
// phase's span in each step: its NVTX ranges' first start to last end, or
// for an inferred phase its work's first launch to last (step_record.h).
struct PhaseMemoryReport {
  std::string phase;
  bool from_nvtx = true;
  uint32_t steps = 0;  // measured steps with a span of the phase
  // Held from CUDA (StepMemory's sense) at any instant of the spans; none
  // when the capture did not record memory.
  struct Held {
    int64_t peak_bytes = 0;
    uint32_t peak_step = 0;  // the first step that reached the peak
    int64_t low_bytes = 0;
  };
  std::optional<Held> held;
  // NVML's samples inside the spans, of the rank's GPU (RankDeviceMemory);
  // none without one: spans shorter than the sampling interval often hold none.
  std::optional<SampledDeviceMemory> device_memory;
};

struct RankStepReport {
  uint32_t step = 0;      // index among the steps found on this rank (0 = first)
  uint32_t launches = 0;  // StepResult's: the API calls that launched its work
  // The window (see SegmentTimes), on the report's clock (the process's
  // clock_offset_ns added).
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  SegmentTimes times;
  std::vector<BucketReport> buckets;
  std::optional<StepMemory> memory;                  // none when the capture did not record memory
  std::optional<SampledDeviceMemory> device_memory;  // none without a sample in the window
  std::optional<StepTransfers> transfers;            // none when the step moved nothing
  // The window's compute by the phase of each kernel's launch (where kernels
  // of several phases ran at once, the earliest started one's), summing to
  // times.compute_ns; its host-bound idle by the phase of the launch that
  // ended each gap (where the host was), summing to times.idle_host_bound_ns.
  std::vector<PhaseTime> compute_by_phase{};
  std::vector<PhaseTime> host_idle_by_phase{};
  // Every communication kernel launched in the step, and their exposed pieces.
  std::vector<StepCollective> collectives{};
  std::vector<ExposedPiece> exposed_pieces{};
  // Each nanosecond of the window in one cause (ledger.h), once every rank's
  // steps are known. (The {} on these let aggregate initializers that stop
  // before them compile under -Wextra.)
  std::vector<LedgerItem> ledger{};
  // The number the program gave it in its NVTX range's name; none for
  // inferred steps or names without one.
  std::optional<uint32_t> number{};
  // Its GPU work, launch order, where the step is one the replay keeps
  // (kReplaySteps); else empty.
  std::vector<ReplayWork> replay{};
};

// A stream of one process, by what it ran.
struct StreamRoleReport {
  uint32_t stream = 0;
  std::string role;  // "compute", "communication", "copy", "mixed"
  uint64_t kernels = 0;
  int64_t busy_ns = 0;
  uint64_t graph_replays = 0;  // recorded whole, each counted once, not in kernels
};

// Under a deep schedule (VPROF_DEEP other than always) GPU activity was
// recorded only inside deep windows, and only the steps a window held whole
// are analyzed: steps_found and every figure count those alone.
struct DeepCaptureReport {
  std::string schedule;        // "trigger", "5/60"
  uint32_t windows = 0;        // deep windows the trace recorded
  uint32_t shallow_steps = 0;  // steps outside the windows, not analyzed
  // Median NVTX step durations (range start to end) inside and outside the
  // windows: their difference is what deep capture added to a step of this
  // process, vprof's own cost, which every figure of the analyzed steps
  // holds. None where no NVTX step fell on that side.
  std::optional<int64_t> deep_median_ns;
  std::optional<int64_t> shallow_median_ns;
};

// vprof's own host cost in a rank's measured steps, estimated from the
// capture's launch-cost calibration (LaunchCostReport): what recording adds
// to one launch, times the launches of those steps. Every figure of the steps
// holds it, host-bound idle first of all. The calibration's empty kernel
// gives the least it can be: the program's own launches (larger arguments,
// libraries' launch paths) may pay more. The most it can be is what the
// program's launches took as recorded less a bare launch of that empty
// kernel, the cheapest there is.
struct LaunchCostEstimate {
  uint64_t added_per_launch_ns = 0;  // recorded − bare, the calibration's medians
  uint64_t bare_per_launch_ns = 0;
  // On the GPU, per kernel run back to back (recorded − bare); 0 where not
  // measured. It lengthens a step where kernels queue back to back: the
  // nodes of a CUDA graph above all.
  uint64_t added_gpu_per_kernel_ns = 0;
  uint64_t launches = 0;  // in the measured steps; a CUDA graph launch counts once
  uint32_t steps = 0;     // measured
  // The median of the program's launch calls as recorded (GpuRecord::launch_calls);
  // 0 where none was recorded.
  uint64_t recorded_launch_call_ns = 0;

  // The least: the calibration's added cost per launch.
  int64_t per_step_ns() const {
    return steps == 0 ? 0 : static_cast<int64_t>(launches * added_per_launch_ns / steps);
  }
  // The most, never below the least; none without recorded launch calls.
  std::optional<int64_t> upper_per_step_ns() const {
    if (steps == 0 || recorded_launch_call_ns == 0) return std::nullopt;
    const uint64_t added = recorded_launch_call_ns > bare_per_launch_ns
                               ? recorded_launch_call_ns - bare_per_launch_ns
                               : 0;
    return std::max(per_step_ns(), static_cast<int64_t>(launches * added / steps));
  }
};

// One rank process over the measured steps.
struct RankStepsReport {
  std::optional<int32_t> rank;
  std::string file;
  uint32_t steps_found = 0;  // on this rank, warmup included
  // GPU records read after their step was closed (step_tracker.h), counted in no step.
  uint64_t late_records = 0;
  // GPU records whose launch (API) record never came: they belong to no step.
  uint64_t unlaunched_records = 0;
  // Measured steps analyzed after a phase range that may reach into them was
  // dropped for room: their phase figures may be short.
  uint32_t steps_missing_phase_ranges = 0;
  std::vector<RankStepReport> steps;  // measured steps only, in order
  // What its steps' PhaseIndex values name; [0] is "" (no phase).
  std::vector<std::string> phase_names{std::string()};
  // The kernel names its steps' replay work names, by ReplayWork::name.
  std::vector<std::string> replay_names;
  SegmentTimes total;  // summed over the measured steps
  std::vector<StepPhaseReport> phases;
  std::vector<StreamRoleReport> streams;
  // The same bucket sizes, in the same order, in every measured step: what
  // strict consistency needs (bucket boundaries frozen).
  std::optional<bool> bucket_plan_stable;  // none without buckets
  bool max_connections_one = false;        // CUDA_DEVICE_MAX_CONNECTIONS=1 in its environment
  // Evidence for the candidates, on the report's clock: the communication
  // kernel with the most exposed time (its span is the whole kernel), and the
  // longest idle gap (its span is the gap; id and name are those of the GPU
  // work that ended it) in the measured steps.
  std::optional<SpanRef> longest_exposed_comm;
  std::optional<SpanRef> longest_idle_gap;
  std::optional<DeepCaptureReport> deep_capture;
  // None where the capture did not measure its launch cost.
  std::optional<LaunchCostEstimate> launch_cost;
  // Memory events beyond what a process keeps (kMaxMemoryEvents): the
  // memory figures of its later steps miss them.
  uint64_t memory_events_dropped = 0;
  // Device-memory allocation API calls (cudaMalloc*, cudaFree*, cuMem*
  // create/release/map/unmap: selected API records, in the light default)
  // that started in the measured steps, and their time.
  uint64_t allocation_calls = 0;
  int64_t allocation_call_ns = 0;
  // None without a sample in the measured steps.
  std::optional<RankDeviceMemory> device_memory;
  // By phase name, of the phases with spans in the measured steps.
  std::vector<PhaseMemoryReport> phase_memory;
  // Why the capture could not sample device memory ("libnvidia-ml.so.1:
  // cannot open ..."); empty when it could, or said nothing.
  std::string memory_unavailable;

  // Some GPU records or phase ranges did not make it into its steps: late,
  // without a launch record, or dropped for room.
  bool lost_records() const {
    return late_records > 0 || unlaunched_records > 0 || steps_missing_phase_ranges > 0;
  }
};

// One rank as the member its collectives waited for, over the measured steps.
struct LateRank {
  uint32_t index = 0;        // into StepsReport::ranks
  uint64_t collectives = 0;  // of its collectives in the measured steps with ≥ 2 members seen
  uint64_t last = 0;         // in which it arrived last (its kernel the shortest)
  double expected_last = 0;  // by chance: the sum over those collectives of 1 ÷ their members
  // The role whose collectives it was last at least probably by chance, and
  // its figures there; the phase it was last in most there.
  CommRole role = CommRole::kUnclassified;
  uint64_t role_collectives = 0;
  uint64_t last_in_role = 0;
  double role_expected = 0;
  std::string phase;
  // P(last_in_role or more by chance) by a one-sided binomial test, times
  // the roles tested (Bonferroni), at most 1.
  double p_value = 1;
  // The full steps' ledgers' wait for it, per full step.
  int64_t wait_per_step_ns = 0;
  bool straggler = false;  // passes both tests
};

// One rule's verdict on one communicator's kernels of one function and
// phase class, with the evidence that decided it.
struct CommRoleEvidence {
  uint64_t comm_id = 0;
  CommRole role = CommRole::kUnclassified;
  std::string evidence;  // "80 ncclAllReduce in backward; none reduce in forward"
};

// One line of the full steps' ledger: a cause, summed over the measured
// full steps' ledgers, per step.
struct LedgerLine {
  LedgerCause cause = LedgerCause::kCompute;
  CommRole role = CommRole::kUnclassified;
  std::string phase;             // "" where the cause has none or none was named
  std::optional<uint32_t> late;  // kWaitForRank: into StepsReport::ranks
  int64_t per_step_ns = 0;       // mean over the full steps
  double share = 0;              // of the mean full step
};

struct StepsLedger {
  // Summed over the measured full steps, each its ledger rank's; without
  // full steps (a rank without measured steps), over the measured steps of
  // the rank with the longest mean window alone (one actor's window).
  bool full_steps = true;
  uint32_t steps = 0;  // the steps summed
  // Their mean duration (a full step's: across ranks): the shares' whole.
  int64_t mean_step_ns = 0;
  int64_t mean_window_ns = 0;  // the ledger ranks' mean window: what the lines sum to
  // Per rank (index into StepsReport::ranks), the steps whose ledger it gave.
  std::vector<uint32_t> ledger_steps;
  std::vector<LedgerLine> lines;  // largest first
  std::vector<LateRank> late;     // ranks others waited for, the longest wait first
  // What decided each communicator's roles (comm_roles.h), by communicator.
  std::vector<CommRoleEvidence> roles;
  // The collectives whose members' kernels were all seen, and those of
  // which fewer than two were (their exposed time is all transfer).
  uint64_t matched_collectives = 0;
  uint64_t unmatched_collectives = 0;
};

// How close the replay (reporter/replay/) of the full steps whose work was
// kept comes to what was measured, and what it had to assume.
struct ReplayCheck {
  uint32_t steps = 0;               // full steps replayed
  int64_t measured_ns = 0;          // their mean duration
  int64_t replayed_ns = 0;          // their mean replayed as measured
  double error = 0;                 // mean of |replayed − measured| ÷ measured, over the steps
  uint64_t assumed_waits = 0;       // stream or event waits assumed from timing
  uint64_t assumed_syncs = 0;       // host synchronizations assumed from timing
  uint64_t unexplained_starts = 0;  // starts no edge explains: not replayed
  int64_t unexplained_ns = 0;
  uint64_t collectives_apart = 0;  // collective pieces whose members' steps were not all kept
  // Why projections are not given (the replay is off by more than
  // kReplayMaxError, or kept no step): "" when they are.
  std::string withheld;
};

// One step across ranks.
struct FullStepReport {
  uint32_t step = 0;                    // index among the steps found (warmup included)
  int64_t start_ns = 0;                 // the earliest rank's window start, on the report's clock
  int64_t duration_ns = 0;              // earliest start to latest end over the ranks
  std::optional<int32_t> slowest_rank;  // the rank whose window ends last
  int64_t max_exposed_comm_ns = 0;      // over the ranks
  // The rank whose ledger is the step's (ledger.h), as its index into
  // StepsReport::ranks; none before the ledgers are built.
  std::optional<uint32_t> ledger_rank{};
};

struct StepsReport {
  StepSource source = StepSource::kNvtx;
  std::string pattern;  // the NVTX pattern or the kernel rule that bounds steps
  uint32_t steps_found = 0;
  uint32_t warmup_steps = 0;                    // excluded from every figure, the first ones
  bool before_profiler_start_excluded = false;  // steps before cudaProfilerStart dropped
  // Eager steps before a rank's first step inside a CUDA-graph replay dropped
  // (ExcludedBeforeGraphReplays).
  bool before_graph_replays_excluded = false;
  // Step indexes (among the steps found, from 0) of the measured steps.
  uint32_t first_measured = 0;
  uint32_t last_measured = 0;
  // What the outputs call step index 0 (StepNumber): the program's own number
  // where every measured step of every rank was named with one, each its
  // index plus the same offset; else 1, counting steps from one.
  uint32_t first_number = 1;
  bool program_numbers = false;  // first_number is the program's
  // "steps 2-9 of 10 (warmup 0-1 excluded)": every output names it.
  std::string window;
  std::vector<RankStepsReport> ranks;  // by rank, then file
  std::vector<FullStepReport> full_steps;
  std::optional<int64_t> median_step_ns;
  std::optional<StepsLedger> ledger;  // none without full steps
  std::optional<ReplayCheck> replay;  // none without full steps
  std::string problem;                // why no steps were found; empty when some were
  // Steps inferred from kernels: the CUDA-graph replays recorded whole in the
  // processes, whose kernels (an optimizer's among them) no inference rule sees.
  uint64_t graph_replays_recorded_whole = 0;
  // Under a deep schedule, the processes none of whose steps a window held
  // whole, which ranks leaves out: their steps (NVTX steps where they marked
  // any, else inferred ones) are outside the windows too.
  std::vector<DeepCaptureReport> deep_without_steps;
};

// "same_stream", "max_connections_1", "nothing_to_overlap", "waited_at_once", "other".
std::string_view ExposureReasonName(ExposureReason reason);
// The reason of a name ExposureReasonName gives; kOther for any other name.
ExposureReason ExposureReasonNamed(std::string_view name);
std::string_view StepSourceName(StepSource source);  // "nvtx", "inferred_optimizer_kernels"

// What every output but the JSON report's indexes calls the step of index
// `index` among the steps found.
inline uint32_t StepNumber(const StepsReport& steps, uint32_t index) {
  return steps.first_number + index;
}

}  // namespace vprof::reporter
