// What the HTML report's interactive timeline draws: one measured step, span
// by span, on the ranks its static timeline strip draws. Filled from a second
// pass over those ranks' traces (reporter/export/step_timeline_spans.h) when
// the report is written as HTML; the steps report itself keeps only totals.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vprof::reporter {

enum class TimelineSpanKind : uint8_t {
  kNvtx,        // an NVTX range (host)
  kNcclCall,    // an intercepted NCCL call, enter to exit (host)
  kCompute,     // a kernel other than communication
  kCommKernel,  // a communication kernel
  kCopy,        // a memcpy
  kMemset,
  kIdle,  // no GPU work on any stream of the process
};

struct TimelineSpan {
  uint32_t lane = 0;  // index into RankTimeline::lanes
  TimelineSpanKind kind = TimelineSpanKind::kCompute;
  int64_t start_ns = 0;  // on the report's clock, clipped to the rank's window
  int64_t duration_ns = 0;
  std::string name;
  // The id `vprof export` gives the same span in its args ("correlation:7",
  // "call_id:12"); empty for NVTX ranges and idle gaps.
  std::string id;
};

struct RankTimeline {
  std::string label;            // "rank 3 (host pid 17)"
  std::string file;             // the trace file, within the report's directory
  int64_t window_start_ns = 0;  // the rank's window of the step, on the report's clock
  int64_t window_end_ns = 0;
  // Lanes top to bottom: NVTX ranges (one lane per nesting level), NCCL
  // calls, one lane per GPU stream, GPU idle.
  std::vector<std::string> lanes;
  std::vector<TimelineSpan> spans;  // by lane, then start
  // Spans beyond the per-rank cap: the shortest are left out (their count,
  // and the longest of them, say what the reader does not see).
  uint64_t spans_left_out = 0;
  int64_t longest_left_out_ns = 0;
};

struct StepTimeline {
  uint32_t step = 0;          // index among the steps found (TimelineStep's choice)
  uint32_t number = 0;        // what the outputs call it (StepNumber)
  std::string ranks_caption;  // which ranks are drawn and why; empty when all are
  std::vector<RankTimeline> ranks;
};

}  // namespace vprof::reporter
