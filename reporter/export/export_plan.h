// What an export needs to know before it writes the first event: which
// processes there are, in rank order, their ranks, and the one timeline all of
// them go on. It comes from the report's own reading of each trace
// (ReadProcessRecords), so the export puts every process on the clock the
// report uses, with the same per-process offset, and names the same problems.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace vprof::reporter {

struct ExportProcess {
  std::string path;
  std::string host;
  uint32_t pid = 0;
  // None for a process that is no rank (a launcher); 0 for the one GPU process of a job without
  // ranks.
  std::optional<int32_t> rank;
  // The launcher's world size (RunHeader), else the size of the largest
  // communicator the process joined; 0 when neither is known.
  int32_t world_size = 0;
  // Added to the process's times to put them on the export's timeline: the
  // report's clock offset less the timeline's origin.
  int64_t shift_ns = 0;
  // What of its timeline the export keeps (export_selection.h): records that
  // overlap [from_ns, to_ns], on the timeline.
  int64_t from_ns = std::numeric_limits<int64_t>::min();
  int64_t to_ns = std::numeric_limits<int64_t>::max();
};

// "rank R (host pid P)", or "non-rank (host pid P)": how both formats name it.
std::string DisplayName(const ExportProcess& process);

struct ExportPlan {
  // Processes whose trace has usable data: ranks ascending, then the others
  // by file name.
  std::vector<ExportProcess> processes;
  // The clock of the timeline: each host's CLOCK_MONOTONIC for one host,
  // CLOCK_REALTIME when the traces span several (as the report decides).
  bool realtime = false;
  // The earliest process start on that clock: time 0 of the timeline.
  int64_t origin_ns = 0;
  // The earliest start of any process on the timeline: before 0 when a
  // process whose clock could not be aligned started earlier.
  int64_t earliest_start_ns = 0;
  // The same instant as Unix time, when a clock pair gives it.
  std::optional<int64_t> origin_unix_ns;
  // "DIR/file: what is wrong", for every trace that is not whole, in file order.
  std::vector<std::string> problems;
  // The kinds of record the export keeps: a bit per ExportKind (export_filter.h).
  uint32_t kinds = ~0u;
  // What the selection asked for ("ranks 0-7; steps 10-12"), empty for the
  // whole run, and the processes it left out, in words.
  std::string selection;
  std::vector<std::string> left_out;
};

// `paths` as ListTraceFiles found them.
ExportPlan PlanExport(const std::vector<std::string>& paths);

}  // namespace vprof::reporter
