// The figure tables (reporter/model/report_figures.h): what the JSON writer
// writes from them and what `vprof diff` reads back by them, and the recipe
// for a new figure (CONTRIBUTING.md, "A new figure") shown on a record of the test's own.
#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>

#include "reporter/base/json_node.h"
#include "reporter/diff/report_sections.h"
#include "reporter/model/report_figures.h"
#include "reporter/render/json/figures_json.h"

namespace vprof::reporter {
namespace {

template <typename Struct>
std::string JsonOf(const Struct& record, std::span<const Figure<Struct>> figures) {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject(JsonWriter::Layout::kOneLine);
  WriteFigures(json, record, figures);
  json.EndObject();
  return out.str();
}

template <typename Struct>
SideItem ComparedOf(const std::string& json, std::span<const Figure<Struct>> figures) {
  const JsonParse parse = ParseJson(json);
  REQUIRE(parse.value);
  SideItem item{"item", {}};
  AddFigures(item, *parse.value, figures);
  return item;
}

std::string Describe(const SideMetric& metric) {
  const std::string value = std::holds_alternative<double>(metric.value)
                                ? std::to_string(std::get<double>(metric.value))
                                : std::get<std::string>(metric.value);
  return metric.name + "=" + value + "/" + std::to_string(static_cast<int>(metric.unit));
}

std::vector<std::string> Described(const SideItem& item) {
  std::vector<std::string> described;
  for (const SideMetric& metric : item.metrics) described.push_back(Describe(metric));
  return described;
}

// A record as a section of the report might hold, and its table: what a
// developer writes to add a section's figures.
struct WaitRecord {
  std::string cause;
  std::optional<int32_t> rank;
  int64_t waited_ns = 0;
  uint64_t calls = 0;
  std::optional<double> share;
  bool overlapped = false;
};
constexpr std::array<Figure<WaitRecord>, 6> kWaitFigures{{
    {"cause", &WaitRecord::cause, FigureUnit::kText},
    {"rank", &WaitRecord::rank},
    {"waited_ns", &WaitRecord::waited_ns, FigureUnit::kNs},
    {"calls", &WaitRecord::calls, FigureUnit::kCount},
    {"share", &WaitRecord::share, FigureUnit::kShare},
    {"overlapped", &WaitRecord::overlapped},
}};

TEST_CASE("a record's figures are written in its table's order, each by its type") {
  const WaitRecord record{"rank 3 late", 3, 1'500'000, 12, 0.25, true};
  CHECK(JsonOf<WaitRecord>(record, kWaitFigures) ==
        R"({"cause": "rank 3 late", "rank": 3, "waited_ns": 1500000, "calls": 12, )"
        R"("share": 0.25, "overlapped": true})");
  const WaitRecord empty{"", std::nullopt, -5, 0, std::nullopt, false};
  CHECK(JsonOf<WaitRecord>(empty, kWaitFigures) ==
        R"({"cause": "", "rank": null, "waited_ns": -5, "calls": 0, "share": null, )"
        R"("overlapped": false})");
}

TEST_CASE("the diff reads back the compared figures of what the writer wrote, and only those") {
  const WaitRecord record{"rank 3 late", 3, 1'500'000, 12, 0.25, true};
  const SideItem item =
      ComparedOf<WaitRecord>(JsonOf<WaitRecord>(record, kWaitFigures), kWaitFigures);
  const auto unit = [](FigureUnit u) { return "/" + std::to_string(static_cast<int>(u)); };
  CHECK(Described(item) ==
        std::vector<std::string>{"cause=rank 3 late" + unit(FigureUnit::kText),
                                 "waited_ns=1500000.000000" + unit(FigureUnit::kNs),
                                 "calls=12.000000" + unit(FigureUnit::kCount),
                                 "share=0.250000" + unit(FigureUnit::kShare)});
  // A figure written as null (a share without a span) is absent from the diff's side.
  const WaitRecord no_share{"x", std::nullopt, 7, 1, std::nullopt, false};
  const SideItem without =
      ComparedOf<WaitRecord>(JsonOf<WaitRecord>(no_share, kWaitFigures), kWaitFigures);
  CHECK(Described(without) ==
        std::vector<std::string>{"cause=x" + unit(FigureUnit::kText),
                                 "waited_ns=7.000000" + unit(FigureUnit::kNs),
                                 "calls=1.000000" + unit(FigureUnit::kCount)});
}

TEST_CASE("a phase is written and compared by the report's own table") {
  PhaseReport phase;
  phase.name = "backward";
  phase.source = "nvtx";
  phase.count = 4;
  phase.total_ns = 8'000;
  phase.mean_ns = 2'000;
  phase.span_share = 0.5;
  phase.depth = 1;
  const std::string json = JsonOf<PhaseReport>(phase, kPhaseFigures);
  CHECK(json == R"({"phase": "backward", "unmatched": false, "source": "nvtx", "count": 4, )"
                R"("total_ns": 8000, "mean_ns": 2000, "span_share": 0.5, "depth": 1})");
  CHECK(Described(ComparedOf<PhaseReport>(json, kPhaseFigures)) ==
        std::vector<std::string>{"count=4.000000/2", "total_ns=8000.000000/0",
                                 "mean_ns=2000.000000/0", "span_share=0.500000/4"});
}

TEST_CASE("a candidate's strict tag is written by its name and compared as text") {
  CandidateReport candidate;
  candidate.strict = StrictTag::kEligible;
  candidate.rule_id = "S2";
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject(JsonWriter::Layout::kOneLine);
  WriteFigures<CandidateReport>(json, candidate, kCandidateRuleFigures);
  json.EndObject();
  CHECK(out.str() ==
        R"({"strict": "eligible", "rule_id": "S2", "rule": "", "contract_declares": false})");
  CHECK(Described(ComparedOf<CandidateReport>(out.str(), kCandidateRuleFigures)) ==
        std::vector<std::string>{"strict=eligible/5"});
}

// Two figures of one JSON object under one key would be written twice and
// read back as one.
template <typename Struct, size_t... N>
std::vector<std::string> RepeatedKeys(const std::array<Figure<Struct>, N>&... tables) {
  std::set<std::string_view> seen;
  std::vector<std::string> repeated;
  for (std::span<const Figure<Struct>> table : {std::span<const Figure<Struct>>(tables)...}) {
    for (const Figure<Struct>& figure : table) {
      if (!seen.insert(figure.key).second) repeated.emplace_back(figure.key);
    }
  }
  return repeated;
}

TEST_CASE("no key is declared twice for one JSON object") {
  CHECK(RepeatedKeys(kProcessPhasesFigures).empty());
  CHECK(RepeatedKeys(kPhaseFigures).empty());
  CHECK(RepeatedKeys(kRankFigures).empty());
  CHECK(RepeatedKeys(kKernelClassFigures).empty());
  CHECK(RepeatedKeys(kSegmentFigures).empty());
  CHECK(RepeatedKeys(kCandidateFigures, kCandidateRuleFigures).empty());
  CHECK(RepeatedKeys(kRankStepsFigures).empty());
  CHECK(RepeatedKeys(kFullStepFigures).empty());
  CHECK(RepeatedKeys(kLedgerFigures).empty());
  CHECK(RepeatedKeys(kLateRankFigures).empty());
  CHECK(RepeatedKeys(kGpuCaptureFigures).empty());
  CHECK(RepeatedKeys(kLaunchCostFigures).empty());
  CHECK(RepeatedKeys(kKernelFigures).empty());
  CHECK(RepeatedKeys(kNcclLinkageFigures).empty());
  CHECK(RepeatedKeys(kNcclFunctionGpuFigures).empty());
  CHECK(RepeatedKeys(kStreamWaitFigures).empty());
  CHECK(RepeatedKeys(kStreamEdgeFigures).empty());
  CHECK(RepeatedKeys(kSpanFigures).empty());
  CHECK(RepeatedKeys(kDeepCaptureFigures).empty());
  CHECK(RepeatedKeys(kStepMemoryFigures).empty());
  CHECK(RepeatedKeys(kStepTransferFigures).empty());
  CHECK(RepeatedKeys(kSampledMemoryFigures).empty());
  CHECK(RepeatedKeys(kWaitFigures, kWaitFigures).size() == kWaitFigures.size());
}

template <typename Struct, size_t N>
bool AnyCompared(const std::array<Figure<Struct>, N>& figures) {
  for (const Figure<Struct>& figure : figures) {
    if (figure.compared) return true;
  }
  return false;
}

// The diff reads the phases, arrival, kernel classes, GPU time, ledger and candidates
// (report_sections.cc); a unit on a row of any other table would compare nothing.
TEST_CASE("only the tables the diff reads have compared figures") {
  CHECK_FALSE(AnyCompared(kRankStepsFigures));
  CHECK_FALSE(AnyCompared(kFullStepFigures));
  CHECK_FALSE(AnyCompared(kLateRankFigures));
  CHECK_FALSE(AnyCompared(kGpuCaptureFigures));
  CHECK_FALSE(AnyCompared(kLaunchCostFigures));
  CHECK_FALSE(AnyCompared(kKernelFigures));
  CHECK_FALSE(AnyCompared(kNcclLinkageFigures));
  CHECK_FALSE(AnyCompared(kNcclFunctionGpuFigures));
  CHECK_FALSE(AnyCompared(kStreamWaitFigures));
  CHECK_FALSE(AnyCompared(kStreamEdgeFigures));
  CHECK_FALSE(AnyCompared(kSpanFigures));
  CHECK_FALSE(AnyCompared(kDeepCaptureFigures));
  CHECK_FALSE(AnyCompared(kStepMemoryFigures));
  CHECK_FALSE(AnyCompared(kStepTransferFigures));
  CHECK_FALSE(AnyCompared(kSampledMemoryFigures));
  CHECK(AnyCompared(kPhaseFigures));
}

static_assert(KeyOf(kPhaseFigures, &PhaseReport::name) == "phase");
static_assert(KeyOf(kSegmentFigures, &SegmentTimes::window_ns) == "window_ns");
static_assert(KeyOf(kWaitFigures, &WaitRecord::waited_ns) == "waited_ns");

}  // namespace
}  // namespace vprof::reporter
