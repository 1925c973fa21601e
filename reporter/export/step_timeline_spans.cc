#include "reporter/export/step_timeline_spans.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <utility>

#include "reporter/export/export_plan.h"
#include "reporter/export/export_trace_walker.h"
#include "reporter/gpu/communication_class.h"
#include "reporter/gpu/kernel_class.h"
#include "reporter/render/chart_ranks.h"
#include "reporter/render/timeline_step.h"

namespace vprof::reporter {
namespace {

// A span before it has a lane: NVTX levels and streams are known only once
// the whole window is read.
struct RawSpan {
  TimelineSpanKind kind = TimelineSpanKind::kCompute;
  uint32_t stream = 0;  // GPU work
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string name;
  std::string id;
};

// Keeps what overlaps [start, end] of one process, clipped to it.
class WindowSink : public TimelineSink {
 public:
  WindowSink(int64_t start_ns, int64_t end_ns) : start_ns_(start_ns), end_ns_(end_ns) {}

  std::vector<RawSpan>& host() { return host_; }
  std::vector<RawSpan>& gpu() { return gpu_; }
  // Every GPU interval that overlaps the window, unclipped: the idle gaps.
  std::vector<std::pair<int64_t, int64_t>>& busy() { return busy_; }

  void ThreadName(uint32_t, std::string_view) override {}
  void Api(const ApiItem&) override {}
  void PluginColl(const PluginCollItem&) override {}

  void NcclCall(const NcclCallSite& call) override {
    Keep(host_, {TimelineSpanKind::kNcclCall, 0, call.enter_ns, call.exit_ns, call.name,
                 "call_id:" + std::to_string(call.event.call_id())});
  }
  void Nvtx(const NvtxItem& range) override {
    std::string name(range.name);
    if (!range.domain.empty()) name = std::string(range.domain) + ": " + name;
    Keep(host_, {TimelineSpanKind::kNvtx, 0, range.start_ns, range.end_ns, std::move(name), ""});
  }
  void Kernel(const KernelItem& kernel) override {
    if (kernel.vprof_own) return;  // not the program's work, as in the report's figures
    const std::string_view kind = KernelClassOf(kernel.name);
    const bool comm =
        kernel.nccl_call_id || kind == kNcclKernelClass || kind == kCustomAllReduceKernelClass;
    Gpu(comm ? TimelineSpanKind::kCommKernel : TimelineSpanKind::kCompute, kernel.record.stream(),
        kernel.start_ns, kernel.record.duration_ns(), std::string(kernel.name),
        kernel.record.correlation_id());
  }
  void Memcpy(const CopyItem& copy) override {
    Gpu(TimelineSpanKind::kCopy, copy.record.stream(), copy.start_ns, copy.record.duration_ns(),
        "Memcpy " + std::to_string(copy.record.bytes()) + " B", copy.record.correlation_id());
  }
  void Memset(const MemsetItem& set) override {
    Gpu(TimelineSpanKind::kMemset, set.record.stream(), set.start_ns, set.record.duration_ns(),
        "Memset " + std::to_string(set.record.bytes()) + " B", set.record.correlation_id());
  }

  void GraphReplay(const GraphReplayItem& replay) override {
    Gpu(TimelineSpanKind::kCompute, replay.record.stream(), replay.start_ns,
        replay.record.duration_ns(), GraphReplayName(replay.record.graph_id()),
        replay.record.correlation_id());
  }

 private:
  bool Overlaps(int64_t start_ns, int64_t end_ns) const {
    return end_ns >= start_ns && start_ns < end_ns_ && end_ns > start_ns_;
  }
  void Keep(std::vector<RawSpan>& into, RawSpan span) {
    if (!Overlaps(span.start_ns, span.end_ns)) return;
    span.start_ns = std::max(span.start_ns, start_ns_);
    span.end_ns = std::min(span.end_ns, end_ns_);
    into.push_back(std::move(span));
  }
  void Gpu(TimelineSpanKind kind, uint32_t stream, int64_t start_ns, uint64_t duration_ns,
           std::string name, uint32_t correlation) {
    const int64_t end_ns = start_ns + static_cast<int64_t>(duration_ns);
    if (!Overlaps(start_ns, end_ns)) return;
    busy_.emplace_back(start_ns, end_ns);
    Keep(gpu_, {kind, stream, start_ns, end_ns, std::move(name),
                "correlation:" + std::to_string(correlation)});
  }

  const int64_t start_ns_;
  const int64_t end_ns_;
  std::vector<RawSpan> host_;
  std::vector<RawSpan> gpu_;
  std::vector<std::pair<int64_t, int64_t>> busy_;
};

// The instants of [start, end] no GPU interval covers.
std::vector<std::pair<int64_t, int64_t>> IdleGaps(std::vector<std::pair<int64_t, int64_t>> busy,
                                                  int64_t start_ns, int64_t end_ns) {
  std::sort(busy.begin(), busy.end());
  std::vector<std::pair<int64_t, int64_t>> gaps;
  int64_t covered = start_ns;
  for (const auto& [from, to] : busy) {
    if (from > covered) gaps.emplace_back(covered, std::min(from, end_ns));
    covered = std::max(covered, to);
    if (covered >= end_ns) break;
  }
  if (covered < end_ns) gaps.emplace_back(covered, end_ns);
  return gaps;
}

// NVTX ranges and NCCL calls on lanes: each NVTX range on the first level
// free at its start (nested ranges go one level down), NCCL calls on one lane.
void LayOutHost(std::vector<RawSpan>& host, RankTimeline& rank) {
  std::stable_sort(host.begin(), host.end(), [](const RawSpan& a, const RawSpan& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  std::vector<int64_t> level_ends;                      // where each NVTX level's last range ends
  std::vector<std::pair<size_t, const RawSpan*>> nvtx;  // level, span
  std::vector<const RawSpan*> calls;
  for (const RawSpan& span : host) {
    if (span.kind == TimelineSpanKind::kNcclCall) {
      calls.push_back(&span);
      continue;
    }
    size_t level = 0;
    while (level < level_ends.size() && level_ends[level] > span.start_ns) ++level;
    if (level == level_ends.size()) level_ends.push_back(0);
    level_ends[level] = span.end_ns;
    nvtx.emplace_back(level, &span);
  }
  const uint32_t first = static_cast<uint32_t>(rank.lanes.size());
  for (size_t level = 0; level < level_ends.size(); ++level) {
    rank.lanes.push_back(level == 0 ? "NVTX" : "NVTX level " + std::to_string(level + 1));
  }
  for (const auto& [level, span] : nvtx) {
    rank.spans.push_back({first + static_cast<uint32_t>(level), span->kind, span->start_ns,
                          span->end_ns - span->start_ns, span->name, span->id});
  }
  if (calls.empty()) return;
  const uint32_t lane = static_cast<uint32_t>(rank.lanes.size());
  rank.lanes.push_back("NCCL calls");
  for (const RawSpan* span : calls) {
    rank.spans.push_back(
        {lane, span->kind, span->start_ns, span->end_ns - span->start_ns, span->name, span->id});
  }
}

void LayOutGpu(const std::vector<RawSpan>& gpu, RankTimeline& rank) {
  std::map<uint32_t, uint32_t> lane_of_stream;
  for (const RawSpan& span : gpu) lane_of_stream.emplace(span.stream, 0);
  for (auto& [stream, lane] : lane_of_stream) {
    lane = static_cast<uint32_t>(rank.lanes.size());
    rank.lanes.push_back("stream " + std::to_string(stream));
  }
  for (const RawSpan& span : gpu) {
    rank.spans.push_back({lane_of_stream[span.stream], span.kind, span.start_ns,
                          span.end_ns - span.start_ns, span.name, span.id});
  }
}

// Beyond the cap, the shortest spans go; what is left is by lane, then start.
void Cap(RankTimeline& rank) {
  if (rank.spans.size() > kMaxTimelineSpansPerRank) {
    const auto longer = [](const TimelineSpan& a, const TimelineSpan& b) {
      return a.duration_ns > b.duration_ns;
    };
    std::nth_element(rank.spans.begin(), rank.spans.begin() + kMaxTimelineSpansPerRank,
                     rank.spans.end(), longer);
    const auto left_out = rank.spans.begin() + kMaxTimelineSpansPerRank;
    rank.spans_left_out = static_cast<uint64_t>(rank.spans.end() - left_out);
    rank.longest_left_out_ns = std::max_element(left_out, rank.spans.end(), longer)->duration_ns;
    rank.spans.erase(left_out, rank.spans.end());
  }
  std::sort(rank.spans.begin(), rank.spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
    return a.lane != b.lane ? a.lane < b.lane : a.start_ns < b.start_ns;
  });
}

// The rank as `vprof export` names its process: "rank R (host pid P)".
std::string RankLabel(const ProcessReport& process) {
  ExportProcess named;
  named.host = process.host;
  named.pid = process.pid;
  named.rank = process.rank;
  return DisplayName(named);
}

}  // namespace

std::optional<StepTimeline> CollectStepTimeline(const Report& report,
                                                const std::vector<std::string>& paths) {
  if (!report.steps) return std::nullopt;
  const StepsReport& steps = *report.steps;
  const std::optional<uint32_t> step = TimelineStep(steps);
  if (!step) return std::nullopt;
  StepTimeline timeline;
  timeline.step = *step;
  timeline.number = StepNumber(steps, *step);
  const ChartRanks shown = TimelineRanks(steps, *step);
  timeline.ranks_caption = shown.caption;
  for (const size_t index : shown.shown.indices) {
    const RankStepsReport& rank = steps.ranks[index];
    const RankStepReport* window = RankStep(rank, *step);
    if (!window) continue;
    // Every rank of the steps report is one of the report's processes, read from one of `paths`.
    const auto path = std::find_if(paths.begin(), paths.end(), [&](const std::string& candidate) {
      return std::filesystem::path(candidate).filename() == rank.file;
    });
    const auto process =
        std::find_if(report.processes.begin(), report.processes.end(),
                     [&](const ProcessReport& candidate) { return candidate.file == rank.file; });
    if (path == paths.end() || process == report.processes.end()) continue;
    RankTimeline drawn;
    drawn.label = RankLabel(*process);
    drawn.file = rank.file;
    drawn.window_start_ns = window->start_ns;
    drawn.window_end_ns = window->end_ns;
    WindowSink sink(window->start_ns, window->end_ns);
    WalkTrace(*path, process->clock_offset_ns, sink);
    LayOutHost(sink.host(), drawn);
    LayOutGpu(sink.gpu(), drawn);
    const auto gaps = IdleGaps(std::move(sink.busy()), window->start_ns, window->end_ns);
    if (!gaps.empty()) {
      const uint32_t lane = static_cast<uint32_t>(drawn.lanes.size());
      drawn.lanes.push_back("GPU idle");
      for (const auto& [from, to] : gaps) {
        drawn.spans.push_back({lane, TimelineSpanKind::kIdle, from, to - from, "GPU idle", ""});
      }
    }
    Cap(drawn);
    timeline.ranks.push_back(std::move(drawn));
  }
  return timeline;
}

}  // namespace vprof::reporter
