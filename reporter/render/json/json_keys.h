// The keys of the JSON report that `vprof diff` reads back
// (reporter/diff/report_sections.cc) outside the records' figure tables
// (reporter/model/report_figures.h), written down once: the writers write
// them and the diff reads them by these names, so neither can rename a key
// the other depends on. A namespace per kind of JSON object, named after it.
#pragma once

#include <string_view>

namespace vprof::reporter::json_keys {

using Key = std::string_view;

namespace report {
inline constexpr Key kReportVersion = "report_version";
inline constexpr Key kAllInputsWhole = "all_inputs_whole";
inline constexpr Key kTimeSource = "time_source";
inline constexpr Key kProcesses = "processes";
inline constexpr Key kCommunicators = "communicators";
inline constexpr Key kRanks = "ranks";
inline constexpr Key kPhases = "phases";
inline constexpr Key kConsistency = "consistency";
inline constexpr Key kSteps = "steps";
inline constexpr Key kCandidates = "candidates";
}  // namespace report

namespace time_source {
inline constexpr Key kClock = "clock";
}  // namespace time_source

namespace process {
inline constexpr Key kGpu = "gpu";
}  // namespace process

namespace gpu {
inline constexpr Key kKernelClasses = "kernel_classes";
}  // namespace gpu

namespace communicator {
inline constexpr Key kCommId = "comm_id";
inline constexpr Key kSize = "size";
inline constexpr Key kOps = "ops";
}  // namespace communicator

namespace op {
inline constexpr Key kOp = "op";
inline constexpr Key kSizeBucket = "size_bucket";
inline constexpr Key kBucketLabel = "label";  // in size_bucket
inline constexpr Key kCount = "count";
inline constexpr Key kTotalTimeNs = "total_time_ns";
inline constexpr Key kTotalBytes = "total_bytes";
inline constexpr Key kBusFactor = "bus_factor";
inline constexpr Key kArrivalSkewMeanNs = "arrival_skew_mean_ns";
inline constexpr Key kArrivalSkewMaxNs = "arrival_skew_max_ns";
inline constexpr Key kMostOftenLast = "most_often_last";
inline constexpr Key kLastRank = "rank";    // in most_often_last
inline constexpr Key kLastTimes = "times";  // in most_often_last
}  // namespace op

namespace process_phases {
inline constexpr Key kPhases = "phases";
}  // namespace process_phases

namespace steps {
inline constexpr Key kWindow = "window";
inline constexpr Key kMedianStepNs = "median_step_ns";
inline constexpr Key kProblem = "problem";
inline constexpr Key kRanks = "ranks";
inline constexpr Key kLedger = "ledger";
}  // namespace steps

// steps.ledger, its lines[] and ledger_steps[].
namespace ledger {
inline constexpr Key kLines = "lines";
inline constexpr Key kName = "name";
inline constexpr Key kPerStepNs = "per_step_ns";
inline constexpr Key kLedgerSteps = "ledger_steps";
}  // namespace ledger

namespace rank_steps {
inline constexpr Key kTotal = "total";
inline constexpr Key kMemoryUnavailable = "memory_unavailable";
inline constexpr Key kAllocationCalls = "allocation_calls";
inline constexpr Key kAllocationCallNs = "allocation_call_ns";
inline constexpr Key kSteps = "steps";
inline constexpr Key kPhaseMemory = "phase_memory";
}  // namespace rank_steps

// NVML's samples: the object under this key in a rank's steps, a step and a
// phase (its members: kSampledMemoryFigures), and what the rank's adds.
namespace device_memory {
inline constexpr Key kDeviceMemory = "device_memory";
inline constexpr Key kHeadroomBytes = "headroom_bytes";
}  // namespace device_memory

// steps.ranks[].steps[]
namespace rank_step {
inline constexpr Key kMemory = "memory";
inline constexpr Key kTransfers = "transfers";
}  // namespace rank_step

namespace phase_memory {
inline constexpr Key kPhase = "phase";
inline constexpr Key kFromNvtx = "from_nvtx";
inline constexpr Key kHeld = "held";
inline constexpr Key kPeakBytes = "peak_bytes";  // in held
inline constexpr Key kLowBytes = "low_bytes";    // in held
}  // namespace phase_memory

namespace consistency {
inline constexpr Key kMode = "mode";
inline constexpr Key kFailed = "failed";
inline constexpr Key kViolations = "violations";
inline constexpr Key kRequested = "requested";
inline constexpr Key kActual = "actual";
inline constexpr Key kFingerprint = "fingerprint";  // in requested and actual
}  // namespace consistency

}  // namespace vprof::reporter::json_keys
