#include "reporter/drift/why_drifted.h"

#include <map>
#include <tuple>

#include "reporter/render/short_kernel_name.h"

namespace vprof::reporter {
namespace {

using Signature = std::tuple<std::string, std::array<uint32_t, 3>, std::array<uint32_t, 3>>;

Signature SignatureOf(const KernelLaunches& k) { return {k.name, k.grid, k.block}; }

// The first of `mine` (in launch order) launched more often than in `other`.
std::optional<DifferingKernel> FirstUnmatched(const LaunchWindow& mine, const LaunchWindow& other) {
  std::map<Signature, uint64_t> counts;
  for (const KernelLaunches& k : other.launches) counts[SignatureOf(k)] += k.count;
  for (const KernelLaunches& k : mine.launches) {
    const uint64_t theirs = counts[SignatureOf(k)];
    if (k.count > theirs) return DifferingKernel{k, theirs};
  }
  return std::nullopt;
}

std::string Run(char run) { return std::string("run ") + run; }

// "a TF32 GEMM kernel", or the kernel's own name where no family on the
// cause's axis holds it.
std::string Called(std::string_view label, const DifferingKernel& k) {
  return label.empty() ? ShortKernelName(k.launches.name) : std::string(label);
}

}  // namespace

void CompareLaunches(WhyDrifted* why) {
  why->first_a = FirstUnmatched(why->a, why->b);
  why->first_b = FirstUnmatched(why->b, why->a);
  why->cause = CauseOfKernelChange(why->first_a ? why->first_a->launches.name : "",
                                   why->first_b ? why->first_b->launches.name : "");
}

std::optional<WhyDrifted> ExplainDrift(const BitwiseDiff& diff) {
  if (!diff.first) return std::nullopt;
  WhyDrifted why;
  if (!diff.window) {
    why.unavailable = diff.no_window;
    return why;
  }
  why.window = *diff.window;
  const DriftWindow& w = why.window;
  why.a = ReadLaunchWindow(w.file_a, w.a_after_ns, w.a_until_ns);
  why.b = ReadLaunchWindow(w.file_b, w.b_after_ns, w.b_until_ns);
  CompareLaunches(&why);
  return why;
}

std::string EmptyWindowReason(const LaunchWindow& w) {
  if (w.kernels > 0) return "";
  if (!w.kernels_in_trace) {
    return "its trace holds no kernel records (VPROF_GPU=0, VPROF_CUPTI_KINDS without kernels, "
           "or outside every deep window)";
  }
  if (!w.launches_in_trace) {
    return "its trace holds no CUDA API records, which place kernels in the window "
           "(VPROF_CUPTI_KINDS without them)";
  }
  if (w.graph_replays > 0) {
    return "it replayed " + std::to_string(w.graph_replays) +
           " CUDA graphs there, recorded whole: their kernels are not named";
  }
  std::string reason = "no kernel it launched there was recorded";
  if (w.dropped_in_trace > 0) {
    reason += " (CUPTI dropped " + std::to_string(w.dropped_in_trace) + " GPU records of the run)";
  }
  return reason;
}

std::string WhyFinding(const WhyDrifted& why) {
  if (!why.unavailable.empty()) return why.unavailable + ": no window to compare";
  const std::string empty_a = EmptyWindowReason(why.a), empty_b = EmptyWindowReason(why.b);
  if (!empty_a.empty() && !empty_b.empty()) {
    return "no GPU records in the window: in A " + empty_a + "; in B " + empty_b;
  }
  if (!empty_a.empty()) return "no GPU records in A's window: " + empty_a;
  if (!empty_b.empty()) return "no GPU records in B's window: " + empty_b;
  if (!why.first_a && !why.first_b) {
    return "both runs launched the same kernels (names, grids, blocks and counts): what changed "
           "is not which kernels ran";
  }
  const std::string cause =
      why.cause.cause.empty() ? "no rule names a cause" : std::string(why.cause.cause);
  if (why.first_a && why.first_b) {
    return Run('B') + " launched " + Called(why.cause.label_b, *why.first_b) + " where " +
           Run('A') + " launched " + Called(why.cause.label_a, *why.first_a) + ": " + cause;
  }
  const bool in_a = why.first_a.has_value();
  const DifferingKernel& k = in_a ? *why.first_a : *why.first_b;
  return Run(in_a ? 'A' : 'B') + " launched " +
         Called(in_a ? why.cause.label_a : why.cause.label_b, k) + " more often than " +
         Run(in_a ? 'B' : 'A') + ": " + cause;
}

}  // namespace vprof::reporter
