// The "Phases (NVTX)" section: NVTX range names matched to phases, nesting of
// one phase counted once, NCCL's own ranges left out, unmatched names kept,
// and the text and JSON figures, from two ranks' traces built in memory.
#include <catch2/catch.hpp>
#include <sstream>

#include "mini_json.h"
#include "report_of.h"
#include "reporter/phases/phase_rules.h"
#include "reporter/render/json/json_page.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint64_t kBase = 5'000'000'000;  // the ranges' time origin, ns
constexpr uint64_t kUs = 1000;

// Only processes that called NCCL get a rank: each rank makes one all-reduce.
void AddAllReduce(TraceFileBuilder& trace, uint32_t rank) {
  constexpr uint64_t kComm = 0x77;
  trace.AddCommunicator(kComm, 2, rank, "ncclCommInitRank");
  trace.AddBatch({trace.Event("ncclAllReduce", kComm, 2, rank, 1, 1 << 20, kBase + 1400 * kUs,
                              kBase + 1500 * kUs)});
}

// One thread's NVTX ranges, in the order they ended (as the capture side writes them).
class NvtxThread {
 public:
  NvtxThread(TraceFileBuilder& trace, uint32_t tid) : trace_(trace) { batch_.set_tid(tid); }

  // A push/pop range in the default domain from `start_us` to `end_us` after kBase.
  void PushPop(std::string_view name, uint64_t start_us, uint64_t end_us, uint32_t depth,
               std::string_view domain = "") {
    Add(vprof::trace::NVTX_KIND_PUSH_POP, name, start_us, end_us, depth, domain);
  }
  void StartEnd(std::string_view name, uint64_t start_us, uint64_t end_us) {
    Add(vprof::trace::NVTX_KIND_START_END, name, start_us, end_us, 0, "");
  }
  void Mark(std::string_view name, uint64_t at_us) {
    Add(vprof::trace::NVTX_KIND_MARK, name, at_us, at_us, 0, "");
  }
  void Write() {
    vprof::trace::TracePacket packet;
    *packet.mutable_nvtx_batch() = batch_;
    trace_.AddPacket(std::move(packet));
  }

 private:
  void Add(vprof::trace::NvtxKind kind, std::string_view name, uint64_t start_us, uint64_t end_us,
           uint32_t depth, std::string_view domain) {
    vprof::trace::NvtxRange& range = *batch_.add_range();
    range.set_kind(kind);
    range.set_name_iid(trace_.Intern(name));
    if (!domain.empty()) range.set_domain_iid(trace_.Intern(domain));
    range.set_start_ns(kBase + start_us * kUs);
    range.set_end_ns(kBase + end_us * kUs);
    range.set_depth(depth);
  }

  TraceFileBuilder& trace_;
  vprof::trace::NvtxBatch batch_;
};

// Rank 0: two steps of forward/backward/optimizer, the first forward holding
// another forward, an NCCL-domain range, an unmatched name, vime's
// train_wait and a mark; span 0-3000 µs.
void WriteRankZero(const std::string& directory) {
  TraceFileBuilder trace("node1", 101, 0);
  AddAllReduce(trace, 0);
  NvtxThread thread(trace, 11);
  thread.PushPop("forward", 150, 350, 2);
  thread.PushPop("forward", 100, 400, 1);
  thread.PushPop("backward", 400, 800, 1);
  thread.PushPop("Optimizer.step#SGD.step", 800, 950, 1);
  thread.PushPop("step", 0, 1000, 0);
  thread.PushPop("Forward", 1100, 1300, 1);
  thread.PushPop("AllReduce", 1400, 1500, 0, kNcclNvtxDomain);
  thread.PushPop("backward", 1300, 1700, 1);
  thread.PushPop("optimizer_step", 1700, 1900, 1);
  thread.PushPop("step", 1000, 2000, 0);
  thread.PushPop("my_custom", 2000, 2500, 0);
  thread.PushPop("train_wait", 2500, 3000, 0);
  thread.Mark("checkpoint here", 3500);
  thread.Write();
  trace.AddFooter();
  trace.WriteTo(directory + "/node1.101.vtrace");
}

// Rank 1: one step, vime's log_probs as a start/end range and "forwarded",
// which no rule matches; span 0-2600 µs.
void WriteRankOne(const std::string& directory) {
  TraceFileBuilder trace("node1", 102, 1);
  AddAllReduce(trace, 1);
  NvtxThread thread(trace, 21);
  thread.PushPop("forward", 0, 500, 1);
  thread.PushPop("backward", 500, 1500, 1);
  thread.PushPop("optimizer", 1500, 1600, 1);
  thread.PushPop("step", 0, 2000, 0);
  thread.StartEnd("log_probs", 2000, 2400);
  thread.PushPop("forwarded", 2400, 2600, 0);
  thread.Write();
  trace.AddFooter();
  trace.WriteTo(directory + "/node1.102.vtrace");
}

std::string Squeezed(const std::string& text) {
  std::string result;
  for (const char c : text) {
    if (c == ' ' && !result.empty() && result.back() == ' ') continue;
    result += c;
  }
  return result;
}

}  // namespace

TEST_CASE("phase rules: whole name or prefix up to a separator, any case, longest wins") {
  auto phase_of = [](std::string_view name) {
    const auto rule = MatchPhaseRule(name);
    return rule ? std::string(rule->phase) : std::string("(none)");
  };
  CHECK(phase_of("train_wait") == "rollout wait");
  CHECK(phase_of("TRAIN") == "train");
  CHECK(phase_of("actor_train") == "train");
  CHECK(phase_of("ref_log_probs") == "logprob");
  CHECK(phase_of("teacher_log_probs") == "logprob");
  CHECK(phase_of("update_weights") == "weight sync");
  CHECK(phase_of("data_preprocess") == "data");
  CHECK(phase_of("save_model") == "checkpoint");
  CHECK(phase_of("wake_up") == "offload");
  CHECK(phase_of("sleep") == "offload");
  CHECK(phase_of("Optimizer.step#SGD.step") == "optimizer");
  CHECK(phase_of("forward pass") == "forward");
  CHECK(phase_of("step:12") == "step");
  CHECK(phase_of("forwarded") == "(none)");
  CHECK(phase_of("stepping") == "(none)");
  CHECK(phase_of("") == "(none)");
}

TEST_CASE("phases: two ranks' NVTX ranges as phases") {
  ScratchDir dir;
  WriteRankZero(dir.path());
  WriteRankOne(dir.path());
  const Report report = ReportOf(dir.path());
  CHECK(report.any_nvtx_ranges);
  REQUIRE(report.phases.size() == 2);

  const ProcessPhasesReport& zero = report.phases[0];
  CHECK(zero.rank == 0);
  CHECK(zero.file == "node1.101.vtrace");
  CHECK(zero.ranges == 11);  // the NCCL range and the mark are not phases' ranges
  CHECK(zero.nccl_ranges == 1);
  CHECK(zero.span_ns == 3000 * kUs);
  REQUIRE(zero.phases.size() == 6);
  // Matched by total, longest first (ties by name), then unmatched.
  CHECK(zero.phases[0].name == "step");
  CHECK(zero.phases[0].count == 2);
  CHECK(zero.phases[0].total_ns == 2000 * kUs);
  CHECK(zero.phases[0].mean_ns == 1000 * kUs);
  CHECK(*zero.phases[0].span_share == Approx(2.0 / 3.0));
  CHECK(zero.phases[1].name == "backward");
  CHECK(zero.phases[1].total_ns == 800 * kUs);
  // The forward inside a forward is part of it: 300 + 200 µs, twice.
  CHECK(zero.phases[2].name == "forward");
  CHECK(zero.phases[2].count == 2);
  CHECK(zero.phases[2].total_ns == 500 * kUs);
  CHECK(zero.phases[2].mean_ns == 250 * kUs);
  CHECK(zero.phases[3].name == "rollout wait");
  CHECK(zero.phases[3].count == 1);
  CHECK(zero.phases[3].total_ns == 500 * kUs);
  CHECK(zero.phases[4].name == "optimizer");
  CHECK(zero.phases[4].count == 2);
  CHECK(zero.phases[4].total_ns == 350 * kUs);
  CHECK(zero.phases[5].name == "my_custom");
  CHECK(zero.phases[5].unmatched);
  CHECK(zero.phases[5].total_ns == 500 * kUs);
  // Where each sits: the step outermost, forward (its longest range, 300 µs at depth 1, holds
  // the one at depth 2), backward and optimizer inside it, train_wait outermost.
  CHECK(zero.phases[0].depth == 0);
  CHECK(zero.phases[1].depth == 1);
  CHECK(zero.phases[2].depth == 1);
  CHECK(zero.phases[3].depth == 0);
  CHECK(zero.phases[4].depth == 1);

  const ProcessPhasesReport& one = report.phases[1];
  CHECK(one.rank == 1);
  CHECK(one.span_ns == 2600 * kUs);
  REQUIRE(one.phases.size() == 6);
  CHECK(one.phases[3].name == "logprob");
  CHECK(one.phases[3].total_ns == 400 * kUs);
  CHECK(one.phases[3].depth == 0);  // a start/end range carries no nesting
  CHECK(one.phases[5].name == "forwarded");
  CHECK(one.phases[5].unmatched);

  const std::string text = Squeezed(TextOf(report));
  CHECK(text.find("\nPhases (NVTX)\n") != std::string::npos);
  CHECK(text.find("\n 0 step 2 2.00 ms 1.00 ms 66.7% node1.101.vtrace\n") != std::string::npos);
  CHECK(text.find("\n 0 forward 2 500 µs 250 µs 16.7% node1.101.vtrace\n") != std::string::npos);
  CHECK(text.find("\n 0 optimizer 2 350 µs 175 µs 11.7% node1.101.vtrace\n") != std::string::npos);
  CHECK(text.find("\n 0 my_custom (other, unmatched) 1 500 µs 500 µs 16.7% node1.101.vtrace\n") !=
        std::string::npos);
  // 1000 / 2600 µs.
  CHECK(text.find("\n 1 backward 1 1.00 ms 1.00 ms 38.5% node1.102.vtrace\n") != std::string::npos);
  CHECK(text.find("rank 0 (node1.101.vtrace): 11 ranges over 3.00 ms; 1 NCCL ranges not counted") !=
        std::string::npos);
  // NCCL's own range is no phase row (the communicator section names the all-reduce).
  CHECK(text.substr(text.find("\nPhases (NVTX)\n")).find("AllReduce") == std::string::npos);

  std::ostringstream json_text;
  WriteJsonReport(report, json_text);
  const JsonValue json = JsonValue::Parse(json_text.str());
  const JsonValue& phases = json["phases"];
  REQUIRE(phases.array().size() == 2);
  CHECK(phases[0]["rank"].number() == 0);
  CHECK(phases[0]["source"].string() == "nvtx");
  CHECK(phases[0]["span_ns"].number() == 3e6);
  CHECK(phases[0]["nccl_ranges"].number() == 1);
  const JsonValue& forward = phases[0]["phases"][2];
  CHECK(forward["phase"].string() == "forward");
  CHECK(forward["source"].string() == "nvtx");
  CHECK_FALSE(forward["unmatched"].boolean());
  CHECK(forward["count"].number() == 2);
  CHECK(forward["total_ns"].number() == 5e5);
  CHECK(forward["mean_ns"].number() == 2.5e5);
  CHECK(forward["span_share"].number() == Approx(1.0 / 6.0));
  CHECK(forward["depth"].number() == 1);
  CHECK(phases[1]["phases"][5]["phase"].string() == "forwarded");
  CHECK(phases[1]["phases"][5]["unmatched"].boolean());
}

TEST_CASE("phases: traces without NVTX ranges say so") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 101, 0);
  trace.AddFooter();
  trace.WriteTo(dir.path() + "/node1.101.vtrace");
  const Report report = ReportOf(dir.path());
  CHECK(report.phases.empty());
  CHECK(TextOf(report).find("Phases (NVTX)\n  no NVTX ranges in any trace\n") != std::string::npos);
}
