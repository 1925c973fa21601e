// The detectors behind RankCandidates: each reads one part of a finished
// report and proposes candidates with their evidence and the change they
// propose; RankCandidates tags and orders them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reporter/candidates/strict_rules.h"
#include "reporter/model/report.h"

namespace vprof::reporter {

// Launch-bound kernels: classes whose kernels are this short on average ...
inline constexpr int64_t kLaunchBoundMeanNs = 10'000;
// ... and this many per window (a measured step, or the whole trace without steps).
inline constexpr uint64_t kLaunchBoundMinPerWindow = 100;
// Communicator churn: this many communicators with the same members, one of
// them destroyed, means the group was rebuilt during the run.
inline constexpr size_t kChurnMinCommunicators = 3;
// Allocator churn: allocation calls inside steps cost at least this much per
// step (mean over the rank's measured steps) and this share of the median
// full step, where there is one.
inline constexpr int64_t kAllocatorChurnMinNs = 50'000;
inline constexpr double kAllocatorChurnMinShare = 0.005;
// The compute candidate's kind, and the share of the step at which another
// full-step candidate ranks before it (rank_candidates.cc).
inline constexpr std::string_view kComputeKind = "compute";
inline constexpr double kSignificantShare = 0.05;
// Examples (spans) per candidate.
inline constexpr size_t kMaxCandidateExamples = 3;

// Which lines of the step ledger a candidate's time is.
using LinePredicate = std::function<bool(const LedgerLine&)>;

struct DetectedCandidate {
  ChangeKind change;
  CandidateReport report;  // all but rank_order and the strict fields
  // A candidate from the step ledger: its lines, by which the replay's saving
  // on the steps it replays is carried to the measured steps
  // (candidate_projections.cc); empty for candidates from totals.
  LinePredicate ledger_lines{};
};

// Whole-trace totals (GPU tables, communicators) per window: divided by the
// steps found, or the whole trace as one window without steps.
struct TraceWindows {
  uint64_t count = 1;
  std::string text;  // "per step (whole trace ÷ 10 steps found)" or "over the whole trace"
};
TraceWindows TraceWindowsOf(const Report& report);

// From the step ledger (reporter/steps/ledger.h): compute, each
// communication role's transfer, weight sync, host-bound idle and copies
// (full step, or one rank's steps without full steps).
void DetectLedgerCandidates(const Report& report, std::vector<DetectedCandidate>& out);
// The ranks the ledger names stragglers, with the others' wait for them.
void DetectLedgerStragglers(const Report& report, std::vector<DetectedCandidate>& out);
// Without steps: NCCL kernel time and copies per process (operator scope).
void DetectOperatorCommunication(const Report& report, std::vector<DetectedCandidate>& out);
void DetectOperatorCopies(const Report& report, std::vector<DetectedCandidate>& out);
// The change a copies candidate proposes from the copy totals of its process (`rank`):
// async_pinned_copies where copies from or into pageable host memory hold at least half the
// copy time (memsets included), else overlap_copies (pinned already, device memory, memsets).
// Adds to `candidate` the evidence line that says which, with each kind's share of the copy
// and memset time (none without any).
ChangeKind CopiesChange(const std::string& rank, const GpuReport& gpu, CandidateReport& candidate);
// Many short elementwise/reduce/copy kernels (operator scope).
void DetectLaunchBoundKernels(const Report& report, std::vector<DetectedCandidate>& out);
// Without a step ledger: the weight-sync NVTX phase (actor window), or CUDA
// IPC calls without it (operator); with one whose weight sync took no time,
// the IPC calls alone.
void DetectWeightSync(const Report& report, std::vector<DetectedCandidate>& out);
// Without steps: the rank that enters collectives last more often than
// chance allows, with the time the others wait for it (host call times).
void DetectStragglers(const Report& report, std::vector<DetectedCandidate>& out);
// "last at 69 of its 99 collectives, where chance gives 24.8 (one-sided
// binomial p = 1.23e-20)".
std::string ChanceText(uint64_t last, uint64_t collectives, double expected, double p_value);
// Communicators rebuilt with the same members (operator: their lifecycle calls).
void DetectCommunicatorChurn(const Report& report, std::vector<DetectedCandidate>& out);
// Device-memory allocation calls inside the measured steps (operator: their
// host time), when they cost a measurable share of the step.
void DetectAllocatorChurn(const Report& report, std::vector<DetectedCandidate>& out);

}  // namespace vprof::reporter
