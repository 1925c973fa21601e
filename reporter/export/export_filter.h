// What an export keeps of one process's timeline: the kinds of record asked
// for, overlapping the process's window (ExportProcess::from_ns/to_ns). A
// FilteringSink stands between the trace walker and a format's sink and
// counts what it leaves out, so that every export can say what it holds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "reporter/export/export_plan.h"
#include "reporter/export/export_timeline.h"

namespace vprof::reporter {

// The kinds `--kinds` names. GPU work is kernels, copies, memsets and graph
// replays; NCCL is the intercepted calls and the profiler plugin's events.
enum class ExportKind : uint8_t { kApi, kNccl, kNvtx, kKernels, kMemory };
inline constexpr size_t kExportKindCount = 5;
inline constexpr uint32_t KindBit(ExportKind kind) { return 1u << static_cast<uint32_t>(kind); }

// "api", "nccl", "nvtx", "kernels", "memory".
std::string_view ExportKindName(ExportKind kind);

// Records per kind over a whole export: kept, and left out by kind or by time.
struct ExportTally {
  std::array<uint64_t, kExportKindCount> kept{};
  std::array<uint64_t, kExportKindCount> left_out_by_kind{};
  std::array<uint64_t, kExportKindCount> left_out_by_time{};

  uint64_t Kept() const;
  // "1204 records left out: 1000 api (not in --kinds), 204 kernels outside
  // the window"; empty when nothing was.
  std::string LeftOut() const;
};

// Walks `process`'s trace into `sink`, keeping what the plan's kinds and the
// process's window keep, and counts into `tally`.
void WalkSelected(const ExportPlan& plan, const ExportProcess& process, TimelineSink& sink,
                  ExportTally& tally);

}  // namespace vprof::reporter
