// Candidates from each process's GPU tables: operator scope, since those are
// whole-trace totals of kernels and copies, not times on the step.
#include <algorithm>
#include <array>
#include <string_view>

#include "reporter/base/rank_name.h"
#include "reporter/base/saturating_ns.h"
#include "reporter/base/text_layout.h"
#include "reporter/base/units.h"
#include "reporter/candidates/candidate_detectors.h"

namespace vprof::reporter {
namespace {

// Kernel classes whose short kernels fuse without touching any reduction's
// order (reduce kernels are fused whole, not split).
constexpr std::array<std::string_view, 3> kLaunchBoundClasses = {"elementwise", "reduce", "copy"};
constexpr size_t kKernelNameWidth = 60;

bool IsLaunchBoundClass(std::string_view kernel_class) {
  for (std::string_view name : kLaunchBoundClasses) {
    if (name == kernel_class) return true;
  }
  return false;
}

bool IsLaunchBound(std::string_view kernel_class, uint64_t count, int64_t mean_ns,
                   uint64_t windows) {
  return IsLaunchBoundClass(kernel_class) && mean_ns < kLaunchBoundMeanNs &&
         count / windows >= kLaunchBoundMinPerWindow;
}

struct ProcessFigure {
  const ProcessReport* process = nullptr;
  int64_t ns = 0;
  uint64_t count = 0;
};

CandidateReport OperatorCandidate(std::string_view kind, std::string_view title,
                                  const ProcessFigure& figure, const TraceWindows& windows) {
  CandidateReport report;
  report.kind = kind;
  report.title = title;
  report.scope = CandidateScope::kOperator;
  report.exposed_ns = figure.ns / static_cast<int64_t>(windows.count);
  report.total_ns = report.exposed_ns;
  report.count = figure.count / windows.count;
  return report;
}

}  // namespace

void DetectLaunchBoundKernels(const Report& report, std::vector<DetectedCandidate>& out) {
  const TraceWindows windows = TraceWindowsOf(report);
  ProcessFigure best;
  for (const ProcessReport& process : report.processes) {
    ProcessFigure figure{&process, 0, 0};
    for (const KernelClassReport& cls : process.gpu.kernel_classes) {
      if (!IsLaunchBound(cls.kernel_class, cls.count, cls.mean_ns, windows.count)) continue;
      figure.ns += cls.total_ns;
      figure.count += cls.count;
    }
    if (figure.ns > best.ns) best = figure;
  }
  if (!best.process) return;
  CandidateReport candidate = OperatorCandidate(
      "launch_bound_kernels", "Many short elementwise/reduce/copy kernels", best, windows);
  const ProcessReport& process = *best.process;
  candidate.evidence.push_back("operator scope: GPU time of these kernels on " +
                               RankName(process.rank, process.file) + " " + windows.text +
                               "; fusing saves their launch gaps, at most this, not a step gain");
  for (const KernelClassReport& cls : process.gpu.kernel_classes) {
    if (!IsLaunchBound(cls.kernel_class, cls.count, cls.mean_ns, windows.count)) continue;
    candidate.evidence.push_back(cls.kernel_class + ": " + std::to_string(cls.count) +
                                 " kernels over the trace, mean " + FormatDurationNs(cls.mean_ns));
  }
  for (const KernelReport& kernel : process.gpu.top_kernels) {
    if (!IsLaunchBound(kernel.kernel_class, kernel.count, kernel.mean_ns, windows.count)) continue;
    candidate.evidence.push_back("e.g. " + ElideMiddle(kernel.name, kKernelNameWidth) + " ×" +
                                 std::to_string(kernel.count) + ", mean " +
                                 FormatDurationNs(kernel.mean_ns));
  }
  out.push_back({ChangeKind::kFuseElementwiseSameOrder, std::move(candidate)});
}

void DetectOperatorCommunication(const Report& report, std::vector<DetectedCandidate>& out) {
  const TraceWindows windows = TraceWindowsOf(report);
  ProcessFigure best;
  for (const ProcessReport& process : report.processes) {
    ProcessFigure figure{&process, 0, 0};
    for (const NcclFunctionGpuReport& op : process.gpu.nccl.ops) {
      figure.ns += op.gpu_time_total_ns;
      figure.count += op.calls;
    }
    if (figure.ns > best.ns) best = figure;
  }
  if (!best.process) return;
  CandidateReport candidate =
      OperatorCandidate("communication", "NCCL collectives (no steps measured)", best, windows);
  const ProcessReport& process = *best.process;
  candidate.evidence.push_back("no measured steps: operator scope, NCCL kernel time on " +
                               RankName(process.rank, process.file) + " " + windows.text +
                               "; how much was exposed is unknown, not a step gain");
  for (const NcclFunctionGpuReport& op : process.gpu.nccl.ops) {
    if (op.gpu_time_total_ns <= 0) continue;
    candidate.evidence.push_back(op.op + ": " + std::to_string(op.calls) + " calls, " +
                                 FormatDurationNs(op.gpu_time_total_ns) + " of kernels");
  }
  out.push_back({ChangeKind::kNcclAlgorithmChange, std::move(candidate)});
}

void DetectOperatorCopies(const Report& report, std::vector<DetectedCandidate>& out) {
  const TraceWindows windows = TraceWindowsOf(report);
  ProcessFigure best;
  for (const ProcessReport& process : report.processes) {
    const GpuReport& gpu = process.gpu;
    const ProcessFigure figure{&process, SaturatingAdd(gpu.memcpy.total_ns, gpu.memset.total_ns),
                               gpu.memcpy.count + gpu.memset.count};
    if (figure.ns > best.ns) best = figure;
  }
  if (!best.process) return;
  CandidateReport candidate =
      OperatorCandidate("copies", "Copies (no steps measured)", best, windows);
  const ProcessReport& process = *best.process;
  candidate.evidence.push_back("no measured steps: operator scope, memcpy/memset time on " +
                               RankName(process.rank, process.file) + " " + windows.text +
                               "; overlap unknown, not a step gain");
  candidate.evidence.push_back(std::to_string(process.gpu.memcpy.count) + " memcpy moving " +
                               FormatBytes(process.gpu.memcpy.bytes));
  const ChangeKind change =
      CopiesChange(RankName(process.rank, process.file), process.gpu, candidate);
  out.push_back({change, std::move(candidate)});
}

// Pinning is advised only where it is not in place: where copies from or into pageable host
// memory hold at least half the copy time (memsets count as not pageable). Copies already
// pinned, within or between devices, and memsets can only be taken off the step by overlapping
// them with compute. The evidence: "rank 1's copy and memset time: 80.0% copies from or into
// pageable host memory, 10.0% from or into pinned memory, 5.0% other copies (device memory, or
// of another kind), 5.0% memsets: ...", each share of the time the choice weighed.
ChangeKind CopiesChange(const std::string& rank, const GpuReport& gpu, CandidateReport& candidate) {
  // In doubles: figures read from a file may be as large as int64 holds.
  const double whole =
      static_cast<double>(gpu.memcpy.total_ns) + static_cast<double>(gpu.memset.total_ns);
  const double pageable_ns = static_cast<double>(gpu.pageable_copies.total_ns);
  const ChangeKind change = pageable_ns > 0 && 2 * pageable_ns >= whole
                                ? ChangeKind::kAsyncPinnedCopies
                                : ChangeKind::kOverlapCopies;
  if (whole <= 0) return change;
  const auto share = [&](int64_t ns) { return FormatPercent(static_cast<double>(ns) / whole); };
  const int64_t other_ns = std::max<int64_t>(
      0, SaturatingSub(SaturatingSub(gpu.memcpy.total_ns, gpu.pageable_copies.total_ns),
                       gpu.pinned_copies.total_ns));
  candidate.evidence.push_back(
      rank + "'s copy and memset time: " + share(gpu.pageable_copies.total_ns) +
      " copies from or into pageable host memory, " + share(gpu.pinned_copies.total_ns) +
      " from or into pinned memory, " + share(other_ns) +
      " other copies (device memory, or of another kind), " + share(gpu.memset.total_ns) +
      " memsets: " +
      (change == ChangeKind::kAsyncPinnedCopies
           ? "pinned host memory would let the copies run asynchronously, off the step"
           : "pinning is in place or does not apply; what is left is overlapping them with "
             "compute"));
  return change;
}

}  // namespace vprof::reporter
