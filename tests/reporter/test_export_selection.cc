// The export filters' values, parsed: ranks as runs, steps, times with their
// units, kinds; and how a selection describes itself.
#include <catch2/catch.hpp>

#include "reporter/export/export_filter.h"
#include "reporter/export/export_selection.h"

using namespace vprof::reporter;

TEST_CASE("--ranks: ranks and runs, in any order, merged") {
  std::string error;
  const auto ranks = ParseRankRanges("12,0-7,5-8,13", error);
  REQUIRE(ranks);
  CHECK(*ranks == std::vector<RankRange>{{0, 8}, {12, 13}});
  for (const char* bad : {"", "7-3", "a", "1,,2", "-3", "1-", "1234567890"}) {
    INFO(bad);
    CHECK_FALSE(ParseRankRanges(bad, error));
    CHECK(error.find("is not a rank or a range of ranks") != std::string::npos);
  }
}

TEST_CASE("--steps: one step or a run of them") {
  std::string error;
  CHECK(ParseStepRange("10-12", error) == RankRange{10, 12});
  CHECK(ParseStepRange("4", error) == RankRange{4, 4});
  CHECK_FALSE(ParseStepRange("12-10", error));
  CHECK_FALSE(ParseStepRange("10,12", error));
}

TEST_CASE("--from/--to: a time and its unit, to the nanosecond") {
  std::string error;
  CHECK(ParseTimelineTime("1.5s", error) == 1'500'000'000);
  CHECK(ParseTimelineTime("250ms", error) == 250'000'000);
  CHECK(ParseTimelineTime("0.25ms", error) == 250'000);
  CHECK(ParseTimelineTime("40us", error) == 40'000);
  CHECK(ParseTimelineTime("1000ns", error) == 1000);
  CHECK(ParseTimelineTime("2.0000000019s", error) == 2'000'000'001);  // past a ns: cut
  CHECK(ParseTimelineTime("20000005177ns", error) == 20'000'005'177);
  for (const char* bad : {"15", "1.5", "s", "1.s", "1.5 s", "-1s", "1.5m", "1e3ns", "1..5s",
                          "9300000000s", "9300000000000000000ns"}) {
    INFO(bad);
    CHECK_FALSE(ParseTimelineTime(bad, error));
    CHECK(error.find("is not a time with its unit") != std::string::npos);
  }
}

TEST_CASE("--kinds: names of kinds, each a bit") {
  std::string error;
  const auto kinds = ParseExportKinds("nccl,kernels", error);
  REQUIRE(kinds);
  CHECK(*kinds == (KindBit(ExportKind::kNccl) | KindBit(ExportKind::kKernels)));
  CHECK_FALSE(ParseExportKinds("nccl,gpu", error));
  CHECK(error ==
        "'gpu' is not a kind of record (expected some of api, nccl, nvtx, kernels, memory)");
}

TEST_CASE("a selection says what it asked for; the whole run says nothing") {
  CHECK(ExportSelection{}.Description().empty());
  ExportSelection selection;
  selection.ranks = std::vector<RankRange>{{0, 7}, {12, 12}};
  selection.steps = RankRange{10, 12};
  selection.from_ns = 1'500'000'000;
  selection.to_ns = 2'000'000'000;
  selection.kinds = KindBit(ExportKind::kKernels) | KindBit(ExportKind::kNccl);
  CHECK(selection.Description() ==
        "ranks 0-7, 12; steps 10-12; from 1500 ms; to 2 s; kinds nccl, kernels");
}

TEST_CASE("what a tally says was left out, by kind and by reason") {
  ExportTally tally;
  CHECK(tally.LeftOut().empty());
  tally.left_out_by_kind[static_cast<size_t>(ExportKind::kApi)] = 3;
  tally.left_out_by_time[static_cast<size_t>(ExportKind::kKernels)] = 1;
  tally.kept[static_cast<size_t>(ExportKind::kKernels)] = 5;
  CHECK(tally.Kept() == 5);
  CHECK(tally.LeftOut() ==
        "4 records left out: 3 api (not in --kinds), 1 kernels outside the window");
}
