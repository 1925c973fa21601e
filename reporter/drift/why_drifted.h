// Why two runs drifted apart: the GPU work each launched, on the rank the
// first difference shows on, between the last call there that agreed and the
// first that differs (bitwise_diff.h's DriftWindow), compared kernel by
// kernel (name, grid and block, and how many of each), and the first kernels
// that differ held against the table of kernel families
// (kernel_cause_rules.h).
//
// Kernels are compared as counts, not as sequences: threads and streams
// interleave launches differently from run to run, so the first launch of A
// with no counterpart in B (and of B with none in A) is the first kernel that
// differs.
#pragma once

#include <optional>
#include <string>

#include "reporter/drift/bitwise_diff.h"
#include "reporter/drift/kernel_cause_rules.h"
#include "reporter/drift/launch_window.h"

namespace vprof::reporter {

// A kernel (name, grid, block) one run launched more often in its window.
struct DifferingKernel {
  KernelLaunches launches;   // in that run
  uint64_t count_other = 0;  // the other run's launches of the same
};

struct WhyDrifted {
  std::string unavailable;  // non-empty: there is no window to compare, and why
  DriftWindow window;
  LaunchWindow a, b;
  // The first launch of each run that the other run has no counterpart for.
  std::optional<DifferingKernel> first_a, first_b;
  KernelCause cause;
};

// Fills first_a, first_b and cause from the two windows' launches.
void CompareLaunches(WhyDrifted* why);

// Reads both runs' windows from their traces and compares them; nullopt
// when the runs agree (no first difference).
std::optional<WhyDrifted> ExplainDrift(const BitwiseDiff& diff);

// Why a window holds no kernel to compare, for people; empty when it does.
std::string EmptyWindowReason(const LaunchWindow& w);

// What the comparison found, in one sentence: the first kernels that differ
// and their cause ("run B launched a TF32 GEMM kernel where run A launched an
// FP32 GEMM kernel: TF32 arithmetic (...)", or "...: no rule names a cause"),
// that both runs launched the same kernels, or why nothing was compared.
std::string WhyFinding(const WhyDrifted& why);

}  // namespace vprof::reporter
