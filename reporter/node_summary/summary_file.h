// The node summary file (node_summary.proto) as a stream of length-delimited
// packets: writing one, and reading one back with a verdict on its end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reporter/node_summary/node_summary.pb.h"

namespace google::protobuf::io {
class FileInputStream;
}

namespace vprof::reporter {

// 2: processes carry what the coverage check and the requested-vs-actual
// comparison read (plugin totals, NCCL_* environment, wrapper counts); merged
// with a version 1 summary, they would silently lack those sections.
// 3: the header and the processes carry the steps (NodeSteps, RankSteps);
// a version 2 summary would silently give a report without steps.
// 4: the header carries the analysis options (Analysis); a version 3 summary
// cannot say whether it was made with the defaults.
// 5: processes carry the kernels of forward-only passes; a version 4 summary
// would silently count its logprob passes as forward.
// 8: GPU totals carry the copies from or into pageable and pinned host memory, and phases
// their nesting depth; a version 7 summary would silently advise overlapping copies that
// pinning would take off the step.
inline constexpr uint32_t kSummaryVersion = 8;
inline constexpr std::string_view kSummaryExtension = ".vsummary";

// Every *.vsummary directly in `directory`, sorted; empty when there are none
// or it cannot be listed.
std::vector<std::string> ListSummaryFiles(const std::string& directory);

// A summary is totals, not records: it is kept in memory and written in one
// go, private and never through a link planted at its name (safe_file.h),
// like the other files of a run's folder.
class SummaryFileWriter {
 public:
  explicit SummaryFileWriter(std::string path) : path_(std::move(path)) {}

  void Write(const vprof::summary::SummaryPacket& packet);
  // Appends the End packet and writes the file. False when it could not be
  // written; error() then says why.
  bool Finish();
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  std::string bytes_;
  uint64_t packets_ = 0;
  std::string error_;
};

class SummaryFileReader {
 public:
  explicit SummaryFileReader(const std::string& path);
  ~SummaryFileReader();

  // The next packet before End. False at End, or when the file cannot be read
  // on: problem() is empty only after a whole file's End.
  bool Next(vprof::summary::SummaryPacket* packet);
  const std::string& problem() const { return problem_; }

 private:
  int fd_ = -1;
  std::unique_ptr<google::protobuf::io::FileInputStream> stream_;
  uint64_t packets_ = 0;
  std::string problem_;
};

}  // namespace vprof::reporter
