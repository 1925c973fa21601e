// The text report of a run with many ranks: per-process blocks (GPU) and
// per-rank notes (steps) are written for the processes that stand out, the
// rest summed up in a line; with few ranks, for every one. Reports are built
// in memory.
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report_of.h"
#include "reporter/base/units.h"
#include "reporter/collectives/size_bucket.h"
#include "reporter/render/phases_across_ranks.h"
#include "reporter/render/spread_over_ranks.h"
#include "reporter/render/text/gpu_text.h"
#include "reporter/render/text/steps_text.h"
#include "reporter/render/text/text_page.h"
#include "unwrapped.h"

using namespace vprof::reporter;
using vprof::reporter::testing::TextOf;
using vprof::reporter::testing::Unwrapped;

namespace {

// `ranks` rank processes with GPU records; rank r ran (4000 + (r * 7) % 13)
// ms of kernels: the least (4000) first at rank 0, the most (4012) first at
// rank 11, and over 40 ranks the median (the 21st of 40) 4006.
Report GpuReportOf(int ranks) {
  Report report;
  for (int r = 0; r < ranks; ++r) {
    ProcessReport& process = report.processes.emplace_back();
    process.is_rank = true;
    process.rank = r;
    process.file = "node.r" + std::to_string(r) + ".vtrace";
    process.gpu.capture.emplace().state = GpuCaptureState::kActive;
    process.gpu.batches = 1;
    process.gpu.kernels.count = 10;
    process.gpu.kernels.total_ns = (4000 + (r * 7) % 13) * int64_t{1'000'000};
  }
  return report;
}

// Whether the GPU section holds rank r's block.
bool ShowsGpuBlock(const std::string& text, int r) {
  return text.find("  rank " + std::to_string(r) + ", node.r" + std::to_string(r) +
                   ".vtrace: capture ") != std::string::npos;
}

std::string GpuText(const Report& report) {
  std::ostringstream out;
  WriteGpuSection(report, out);
  return out.str();
}

TEST_CASE("a few ranks: the GPU section has a block for each") {
  const std::string text = GpuText(GpuReportOf(16));
  for (int r = 0; r < 16; ++r) CHECK(ShowsGpuBlock(text, r));
  CHECK(text.find("shown below") == std::string::npos);
}

TEST_CASE("many ranks: GPU blocks of the first, the least and most kernel time, the troubled") {
  constexpr int kRanks = 40;
  Report report = GpuReportOf(kRanks);
  report.processes[25].gpu.dropped_records = 3;
  report.processes[33].gpu.capture->state = GpuCaptureState::kSubscriberConflict;
  // Independently: the ranks with the least and the most kernel time.
  int least = 0;
  int most = 0;
  for (int r = 0; r < kRanks; ++r) {
    const int64_t ns = report.processes[r].gpu.kernels.total_ns;
    if (ns < report.processes[least].gpu.kernels.total_ns) least = r;
    if (ns > report.processes[most].gpu.kernels.total_ns) most = r;
  }
  CHECK(least == 0);
  CHECK(most == 11);
  const std::string text = GpuText(report);
  for (int r = 0; r < kRanks; ++r) {
    INFO("rank " << r);
    const bool expected = r == 0 || r == least || r == most || r == 25 || r == 33;
    CHECK(ShowsGpuBlock(text, r) == expected);
  }
  const std::string flat = Unwrapped(text);
  CHECK(flat.find("40 processes with GPU capture, 4 shown below") != std::string::npos);
  CHECK(flat.find("did not run (2)") != std::string::npos);
  CHECK(flat.find("least 4.00 s, median 4.01 s, most 4.01 s") != std::string::npos);
}

// `ranks` ranks with one measured step each; `lost` of them lost records.
Report StepsReportOf(int ranks, const std::vector<int>& lost) {
  Report report;
  report.steps = StepsReport{};
  report.steps->window = "step 2 of 2 (none left out)";
  for (int r = 0; r < ranks; ++r) {
    RankStepsReport& rank = report.steps->ranks.emplace_back();
    rank.rank = r;
    rank.file = "node.r" + std::to_string(r) + ".vtrace";
    rank.streams.push_back({7, "compute", 10, 1'000'000});
    rank.steps.push_back({1, 0, 0, 1'000'000, {}, {}, std::nullopt, std::nullopt, std::nullopt});
  }
  report.steps->full_steps.push_back({1, 0, 1'000'000, 0, 0});
  report.steps->median_step_ns = 1'000'000;
  for (const int r : lost) report.steps->ranks[r].late_records = 2;
  return report;
}

int RankNotes(const std::string& text) {
  int notes = 0;
  for (size_t at = 0; (at = text.find("\n  rank ", at)) != std::string::npos; ++at) {
    notes += text.compare(text.find(' ', at + 8), 9, " streams:") == 0;
  }
  return notes;
}

TEST_CASE("a few ranks: step notes for each; many: the first and those that lost records") {
  std::ostringstream few;
  WriteStepsText(StepsReportOf(16, {5}), few);
  CHECK(RankNotes(few.str()) == 16);
  CHECK(few.str().find("more ranks") == std::string::npos);

  std::vector<int> lost;
  for (int r = 3; r < 60; r += 3) lost.push_back(r);  // 19 ranks
  std::ostringstream many;
  WriteStepsText(StepsReportOf(60, lost), many);
  const std::string text = many.str();
  // Rank 0, then the first 16 that lost records (ranks 3 to 48).
  CHECK(RankNotes(text) == 17);
  CHECK(text.find("\n  rank 48 streams:") != std::string::npos);
  CHECK(text.find("\n  rank 51 streams:") == std::string::npos);
  CHECK(text.find("\n  rank 1 streams:") == std::string::npos);
  const std::string flat = Unwrapped(text);
  CHECK(flat.find("notes of 43 more ranks") != std::string::npos);
  CHECK(flat.find("19 ranks lost records, the first 16 of them shown above") != std::string::npos);
}

// `ranks` NVTX processes: backward totals (10 + (r * 5) % 7) ms in each,
// forward 2 ms in the even ranks only; one more process with inferred phases.
Report PhasesReportOf(int ranks) {
  Report report;
  report.any_nvtx_ranges = true;
  for (int r = 0; r < ranks; ++r) {
    ProcessPhasesReport& process = report.phases.emplace_back();
    process.rank = r;
    process.file = "node.r" + std::to_string(r) + ".vtrace";
    process.ranges = 3;
    process.span_ns = 100'000'000;
    const int64_t backward = (10 + (r * 5) % 7) * int64_t{1'000'000};
    process.phases.push_back({"backward", false, "nvtx", 2, backward, backward / 2, 0.1});
    if (r % 2 == 0)
      process.phases.push_back({"forward", false, "nvtx", 1, 2'000'000, 2'000'000, 0.02});
  }
  ProcessPhasesReport& inferred = report.phases.emplace_back();
  inferred.inferred = true;
  inferred.file = "node.rollout.vtrace";
  inferred.phases.push_back({"backward", false, "inferred:autograd_thread", 5, 1, 1, 0.5});
  return report;
}

TEST_CASE("phases of many processes fold into a row per phase") {
  constexpr int kRanks = 20;
  const Report report = PhasesReportOf(kRanks);
  const std::vector<PhaseAcrossRanks> folded = PhasesAcrossRanks(report.phases, false);
  REQUIRE(folded.size() == 2);
  // Independently: backward's totals over the ranks, sorted, and which rank
  // first had the least and the most.
  std::vector<int64_t> totals;
  int least = 0;
  int most = 0;
  for (int r = 0; r < kRanks; ++r) {
    totals.push_back(report.phases[r].phases[0].total_ns);
    if (totals.back() < totals[least]) least = r;
    if (totals.back() > totals[most]) most = r;
  }
  std::vector<int64_t> sorted = totals;
  std::sort(sorted.begin(), sorted.end());
  const PhaseAcrossRanks& backward = folded[0];
  CHECK(backward.phase == "backward");
  CHECK(backward.processes == kRanks);
  CHECK(backward.count == 2 * kRanks);
  CHECK(backward.total.least == sorted.front());
  CHECK(backward.total.least_rank == least);
  CHECK(backward.total.most == sorted.back());
  CHECK(backward.total.most_rank == most);
  CHECK(backward.total.median == sorted[kRanks / 2]);
  CHECK(backward.median_share == 0.1);
  const PhaseAcrossRanks& forward = folded[1];
  CHECK(forward.phase == "forward");
  CHECK(forward.processes == kRanks / 2);
  CHECK(forward.total.least_rank == 0);
  CHECK(forward.total.most_rank == 0);

  const std::string text = TextOf(report);
  // (r * 5) % 7: 0 at rank 0 (10 ms), 6 first at rank 4 (16 ms).
  CHECK(text.find("  backward     20     40  10.0 ms (rank 0)  " + FormatDurationNs(sorted[10]) +
                  "  16.0 ms (rank 4)  10.0%") != std::string::npos);
  CHECK(text.find("  rank 1 (node.r1.vtrace)") == std::string::npos);
  CHECK(text.find("19 more processes' lines are in the JSON report") != std::string::npos);
}

// A communicator of `size` members, comm rank c on host "h<c / 8>".
Report CommunicatorReportOf(uint32_t size) {
  Report report;
  CommunicatorReport& comm = report.communicators.emplace_back();
  comm.comm_id = 0xC0;
  comm.size = size;
  for (uint32_t c = 0; c < size; ++c) {
    comm.ranks_seen.push_back(static_cast<int32_t>(c));
    CommMemberReport& member = comm.members.emplace_back();
    member.comm_rank = c;
    member.rank = static_cast<int32_t>(c + 100);
    member.host = "h" + std::to_string(c / 8);
    member.cuda_device = static_cast<int32_t>(c % 8);
  }
  return report;
}

// The comm ranks the members table lists.
std::vector<uint32_t> ListedMembers(const std::string& text, uint32_t size) {
  std::vector<uint32_t> listed;
  for (uint32_t c = 0; c < size; ++c) {
    const std::string row = std::to_string(c) + "   " + std::to_string(c + 100) + "  h";
    if (text.find(row) != std::string::npos) listed.push_back(c);
  }
  return listed;
}

TEST_CASE("a large communicator lists its first and last members, a small one all") {
  const std::string small = TextOf(CommunicatorReportOf(16));
  CHECK(ListedMembers(small, 16).size() == 16);
  CHECK(small.find("  members:\n") != std::string::npos);

  const std::string large = TextOf(CommunicatorReportOf(40));
  CHECK(ListedMembers(large, 40) == std::vector<uint32_t>{0, 1, 2, 3, 36, 37, 38, 39});
  CHECK(large.find("  members: 40 on 5 hosts; the first and last 4") != std::string::npos);
}

TEST_CASE("many ranks: the Ranks table lists those that arrived last most often") {
  // Rank r arrived last (r * 7) % 20 times, so each count 0..19 once; rank
  // 3 (21 % 20 = 1) and rank 0 (0) are not among the 16 most.
  Report report;
  std::vector<std::pair<uint64_t, int>> by_last;
  for (int r = 0; r < 20; ++r) {
    const uint64_t last = static_cast<uint64_t>((r * 7) % 20);
    report.ranks.push_back({r, "node.r" + std::to_string(r) + ".vtrace", 100, last, 1000});
    by_last.emplace_back(last, r);
  }
  std::sort(by_last.rbegin(), by_last.rend());
  const std::string text = TextOf(report);
  CHECK(text.find("the 16 of 20 ranks that arrived last most often") != std::string::npos);
  // The rows in order: the 16 with the most, most first.
  size_t at = text.find("rank  collectives");
  REQUIRE(at != std::string::npos);
  for (size_t i = 0; i < by_last.size(); ++i) {
    const std::string file = "node.r" + std::to_string(by_last[i].second) + ".vtrace";
    const size_t row = text.find(file, at);
    INFO(file);
    if (i < 16) {
      CHECK(row != std::string::npos);
      at = row == std::string::npos ? at : row;
    } else {
      CHECK(text.find(file) == std::string::npos);
    }
  }
}

TEST_CASE("many ranks: the steps tables fold into least, median and most per figure") {
  constexpr int kRanks = 20;
  Report report = StepsReportOf(kRanks, {});
  // Rank r computed (r * 3) % 20 + 1 ms and ran "backward" for 2 r ms (even ranks only).
  RankValues compute;
  for (int r = 0; r < kRanks; ++r) {
    RankStepsReport& rank = report.steps->ranks[r];
    rank.total.compute_ns = ((r * 3) % kRanks + 1) * int64_t{1'000'000};
    compute.emplace_back(rank.total.compute_ns, r);
    if (r % 2 == 0) {
      rank.phases.push_back({"backward", true, {}});
      rank.phases.back().times.window_ns = 2 * r * int64_t{1'000'000};
    }
    rank.bucket_plan_stable = r != 7;
  }
  // Independently: the least is 1 ms at rank 0, the most 20 ms at the rank
  // with (r * 3) % 20 == 19, rank 13; the upper median the 11th smallest, 11 ms.
  const std::optional<SpreadOverRanks> spread = SpreadOver(compute);
  REQUIRE(spread);
  CHECK(spread->least_rank == 0);
  CHECK(spread->most_rank == 13);
  CHECK(spread->median == 11'000'000);
  std::ostringstream out;
  WriteStepsText(report, out);
  const std::string text = out.str();
  // The tables' cells, their padding squeezed to one space.
  std::string cells = text;
  for (size_t at; (at = cells.find("  ")) != std::string::npos;) cells.erase(at, 1);
  CHECK(text.find("20 ranks, folded") != std::string::npos);
  CHECK(cells.find("\n compute 1.00 ms (rank 0) 11.0 ms 20.0 ms (rank 13)\n") != std::string::npos);
  // backward's window over ranks 0, 2, ..., 18: 0 ns at rank 0, 36 ms at rank 18.
  CHECK(cells.find("\n backward window (10 ranks) 0 ns (rank 0) 20.0 ms 36.0 ms (rank 18)\n") !=
        std::string::npos);
  CHECK(text.find("buckets: 19 ranks stable, 1 changing, 0 without buckets") != std::string::npos);
  CHECK(text.find("\n     3     1") == std::string::npos);  // no per-rank rows
}

TEST_CASE("a mangled kernel name in a rank's notes is demangled and shortened to fit") {
  // As a PyTorch foreach kernel reached CUPTI on an H200 (bench/RESULTS.md, 2026-12-01 (4b9477f)).
  const std::string mangled =
      "_ZN2at6native55_GLOBAL__N__d25d856e_22_ForeachBinaryOpList_cu_a911ec4325multi_tensor_"
      "apply_kernelINS1_18TensorListMetadataILi2EEENS1_24BinaryOpListAlphaFunctorIN3c108BFloat16"
      "ELi2ELi2ELi0EEEJSt4plusIfEfEEEvT_T0_DpT1_";
  Report report = StepsReportOf(2, {});
  report.steps->ranks[0].longest_idle_gap = SpanRef{"correlation:69451", mangled, 0, 1'950'000};
  std::ostringstream out;
  WriteStepsText(report, out);
  const std::string text = out.str();
  CHECK(text.find("multi_tensor_apply_kernel<") != std::string::npos);
  CHECK(text.find("_ZN2at6native") == std::string::npos);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    // Characters, not bytes: UTF-8 continuation bytes do not count.
    const auto width = std::count_if(line.begin(), line.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    });
    CHECK(width <= 100);
  }
}

// The text report's Processes section: from its heading to the blank line,
// each line with its line break.
std::string ProcessesSection(const Report& report) {
  const std::string text = TextOf(report);
  const size_t start = text.find("\nProcesses: ");
  REQUIRE(start != std::string::npos);
  return text.substr(start, text.find("\n\n", start + 1) + 1 - start);
}

TEST_CASE("many processes: the Processes table lists the first, the extremes and the troubled") {
  constexpr int kRanks = 40;
  Report report;
  for (int r = 0; r < kRanks; ++r) {
    ProcessReport& process = report.processes.emplace_back();
    process.is_rank = true;
    process.rank = r;
    process.pid = 100 + r;
    process.file = "node.r" + std::to_string(r) + ".vtrace";
    process.nccl_events = 1000 + (r * 11 + 7) % kRanks;  // each count once
  }
  report.processes[10].dropped_events = 2;
  report.processes[17].state = InputState::kCut;
  report.processes[17].problem = "cut at byte 5";
  // Independently: the least, the most and the upper median of the counts.
  std::vector<std::pair<uint64_t, int>> by_events;
  for (int r = 0; r < kRanks; ++r) by_events.emplace_back(report.processes[r].nccl_events, r);
  std::sort(by_events.begin(), by_events.end());
  const std::set<int> expected = {
      0, 10, 17, by_events.front().second, by_events[kRanks / 2].second, by_events.back().second};
  const std::string section = ProcessesSection(report);
  for (int r = 0; r < kRanks; ++r) {
    INFO("rank " << r);
    CHECK((section.find(" node.r" + std::to_string(r) + ".vtrace\n") != std::string::npos) ==
          expected.contains(r));
  }
  const std::string flat = Unwrapped(section);
  CHECK(flat.find(std::to_string(expected.size()) + " of 40 processes shown") != std::string::npos);
  CHECK(flat.find("node.r17.vtrace: cut at byte 5") != std::string::npos);
}

TEST_CASE("16 processes: the Processes table lists every one") {
  Report report;
  for (int r = 0; r < 16; ++r) {
    ProcessReport& process = report.processes.emplace_back();
    process.file = "p" + std::to_string(r) + ".vtrace";
  }
  const std::string section = ProcessesSection(report);
  for (int r = 0; r < 16; ++r)
    CHECK(section.find(" p" + std::to_string(r) + ".vtrace (non-rank)\n") != std::string::npos);
  CHECK(section.find("shown") == std::string::npos);
}

// A communicator of `size` ranks, all seen, created by ncclCommInitRank, with
// one row of 92 all-reduces of [16MiB,32MiB) that took `time_ns` in all.
CommunicatorReport CommunicatorOf(uint64_t comm_id, uint32_t size, int64_t time_ns) {
  CommunicatorReport comm;
  comm.comm_id = comm_id;
  comm.size = size;
  for (uint32_t r = 0; r < size; ++r) comm.ranks_seen.push_back(r);
  comm.created_by = "ncclCommInitRank";
  comm.lifecycle.push_back({"ncclCommInitRank", size, 2'000'000, 1'000'000});
  OpReport& op = comm.ops.emplace_back();
  op.op = "ncclAllReduce";
  op.bucket = BucketOf(uint64_t{20} << 20);
  op.count = 92;
  op.total_time_ns = time_ns;
  return comm;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST_CASE("many communicators: those alike are one section and a line; trouble stays whole") {
  Report report;
  // 0x100-0x111: 18 alike, 10 ms + (i * 7 % 18) µs each, every time once:
  // the least at 0x100, the most (+17 µs) at 0x105 (7 * 5 = 35 = 18 + 17).
  std::vector<std::pair<int64_t, uint64_t>> times;  // (time, comm id), to check independently
  for (uint64_t i = 0; i < 18; ++i) {
    const int64_t ns = 10'000'000 + static_cast<int64_t>(i * 7 % 18) * 1'000;
    report.communicators.push_back(CommunicatorOf(0x100 + i, 8, ns));
    times.emplace_back(ns, 0x100 + i);
  }
  // Alike but for an incomplete all-reduce: shown in full.
  report.communicators.push_back(CommunicatorOf(0x200, 8, 10'000'000));
  report.communicators.back().incomplete.push_back({"ncclAllReduce", 5, 5, 1, 8, {0}, {{1, 1}}});
  // Another size, another count: groups of their own.
  report.communicators.push_back(CommunicatorOf(0x300, 16, 10'000'000));
  report.communicators.push_back(CommunicatorOf(0x301, 8, 10'000'000));
  report.communicators.back().ops[0].count = 93;
  const std::string flat = Unwrapped(TextOf(report));
  CHECK(Count(flat, "\nCommunicator 0x") == 4);
  for (const char* shown : {"0x100:", "0x200:", "0x300:", "0x301:"}) {
    CHECK(flat.find(std::string("\nCommunicator ") + shown) != std::string::npos);
  }
  std::stable_sort(times.begin(), times.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto most = std::find_if(times.begin(), times.end(),
                                 [&](const auto& t) { return t.first == times.back().first; });
  const std::string expected =
      "+ 17 more communicators like it (size 8, the same calls and collective counts), 0x101 to "
      "0x111; collective time over all 18: least " +
      FormatDuration(static_cast<double>(times.front().first)) + " (" +
      FormatHexId(times.front().second) + "), median " +
      FormatDuration(static_cast<double>(times[9].first)) + ", most " +
      FormatDuration(static_cast<double>(most->first)) + " (" + FormatHexId(most->second) + ")";
  INFO(flat);
  CHECK(flat.find(expected) != std::string::npos);
  CHECK(Count(flat, "more communicators like it") == 1);
  CHECK(flat.find("incomplete: ncclAllReduce seq 5") != std::string::npos);
}

TEST_CASE("16 communicators alike: each has its section") {
  Report report;
  for (uint64_t i = 0; i < 16; ++i) report.communicators.push_back(CommunicatorOf(0x100 + i, 8, 1));
  const std::string text = TextOf(report);
  CHECK(Count(text, "\nCommunicator 0x") == 16);
  CHECK(text.find("like it") == std::string::npos);
}

}  // namespace
