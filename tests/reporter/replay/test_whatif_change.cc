// `vprof whatif`'s options as read into a question, and the change a
// question asks for on a run's steps.
#include <catch2/catch.hpp>
#include <sstream>

#include "replay_steps.h"
#include "reporter/whatif/whatif_change.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// Reads `args` as whatif would; the first kBad stops, with what was said.
struct Read {
  WhatifQuestion question;
  bool bad = false;
  std::string said;
};

Read ReadOptions(const std::vector<std::string>& args) {
  Read read;
  std::ostringstream err;
  ArgCursor arg(args, "whatif", err);
  while (arg.Next()) {
    const OptionUse use = TakeWhatifOption(arg, read.question);
    REQUIRE(use != OptionUse::kNotMine);
    if (use == OptionUse::kBad) {
      read.bad = true;
      break;
    }
  }
  read.said = err.str();
  return read;
}

Report LateRankReport(bool straggler) {
  Report report;
  report.steps = OneStep({{{0, 0, 5000}, Collective(5000, 5000, 9000, 1)},
                          {{0, 0, 5000}, Collective(8000, 8000, 9000, 1)}});
  report.steps->ledger.emplace();
  LateRank& late = report.steps->ledger->late.emplace_back();
  late.index = 1;
  late.straggler = straggler;
  return report;
}

}  // namespace

TEST_CASE("each option read into the question") {
  const Read read =
      ReadOptions({"--faster", "gemm*=2x", "--faster=*elementwise*=off", "--comm-faster", "1.5",
                   "--no-straggler", "--no-host-gaps", "--rank-faster", "3=1.25"});
  INFO(read.said);
  REQUIRE_FALSE(read.bad);
  const WhatifQuestion& q = read.question;
  CHECK(q.faster ==
        std::vector<std::pair<std::string, double>>{{"gemm*", 2}, {"*elementwise*", 0}});
  CHECK(q.comm_faster == 1.5);
  CHECK(q.no_straggler);
  CHECK(q.no_host_gaps);
  CHECK(q.rank_faster == std::vector<std::pair<int32_t, double>>{{3, 1.25}});
}

TEST_CASE("a bad value names its option and the form expected") {
  const auto said = [](std::vector<std::string> args) {
    const Read read = ReadOptions(args);
    CHECK(read.bad);
    return read.said;
  };
  CHECK(said({"--faster", "gemm"}).find("--faster 'gemm': expected PATTERN=FACTOR") !=
        std::string::npos);
  CHECK(said({"--faster", "gemm=0x"}).find("--faster 'gemm=0x'") != std::string::npos);
  CHECK(said({"--comm-faster", "-2"}).find("--comm-faster '-2': expected a factor above 0") !=
        std::string::npos);
  CHECK(said({"--rank-faster", "x=2"}).find("--rank-faster 'x=2': expected RANK=FACTOR") !=
        std::string::npos);
  CHECK(said({"--rank-faster", "3"}).find("expected RANK=FACTOR") != std::string::npos);
  CHECK(said({"--faster"}).find("--faster") != std::string::npos);
}

TEST_CASE("the change: a pattern that matches nothing is noted, its rule still given") {
  WhatifQuestion question;
  question.faster.emplace_back("flash*", 2);
  question.faster.emplace_back("ncclDev*", 2);  // collectives are --comm-faster's
  std::string error;
  std::vector<std::string> notes;
  const auto change = WhatifChange(question, LateRankReport(true), error, notes);
  REQUIRE(change);
  CHECK(change->faster.size() == 2);
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].find("'flash*' matches no kernel") == 0);
  CHECK(change->description ==
        "kernels matching flash* 2x faster; kernels matching ncclDev* 2x faster");
}

TEST_CASE("--no-straggler runs the named straggler like the median rank, or says there is none") {
  WhatifQuestion question;
  question.no_straggler = true;
  std::string error;
  std::vector<std::string> notes;
  const auto change = WhatifChange(question, LateRankReport(true), error, notes);
  REQUIRE(change);
  CHECK(change->runs_like == std::vector<std::pair<uint32_t, uint32_t>>{{1, 0}});
  CHECK_FALSE(WhatifChange(question, LateRankReport(false), error, notes));
  CHECK(error.find("--no-straggler: this run has no straggler") == 0);
}

TEST_CASE("--rank-faster names a rank of the run") {
  WhatifQuestion question;
  question.rank_faster.emplace_back(1, 2);
  std::string error;
  std::vector<std::string> notes;
  const auto change = WhatifChange(question, LateRankReport(true), error, notes);
  REQUIRE(change);
  CHECK(change->rank_faster == std::vector<std::pair<uint32_t, double>>{{1, 2}});
  question.rank_faster = {{7, 2}};
  CHECK_FALSE(WhatifChange(question, LateRankReport(true), error, notes));
  CHECK(error == "--rank-faster 7=...: the run has no rank 7 with measured steps");
}
