// Requested vs actual: each process held to its NCCL_* settings and to the run
// contract, mismatches summed over processes, fingerprints of both sides, and
// `vprof report --strict` / `--contract` end to end through the command line.
#include <array>
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <tuple>

#include "cli_runner.h"
#include "four_rank_run.h"
#include "mini_json.h"
#include "plugin_trace_builder.h"
#include "reporter/base/sha256.h"
#include "reporter/cli/cli.h"
#include "reporter/gpu/export_names.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "reporter/trace/trace_directory.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

constexpr uint64_t kWorld = 0xabc;

struct Colls {
  std::string algo;
  std::string proto;
  uint32_t channels = 4;
  uint64_t count = 0;
};

// One rank: its NCCL_* environment, the all-reduces the plugin saw (the
// wrappers saw as many), and custom all-reduce kernels.
struct RankSpec {
  std::map<std::string, std::string> env;
  std::vector<Colls> colls;
  uint64_t custom_allreduce_kernels = 0;
};

void WriteRun(const std::string& directory, const std::vector<RankSpec>& ranks) {
  const uint32_t size = static_cast<uint32_t>(ranks.size());
  for (uint32_t rank = 0; rank < size; ++rank) {
    const RankSpec& spec = ranks[rank];
    PluginTraceBuilder process("node1", 101 + rank, static_cast<int32_t>(rank));
    for (const auto& [name, value] : spec.env) process.SetEnv(name, value);
    process.AddInjection(true, 5);
    process.AddCommunicator(kWorld, size, rank);
    process.AddPluginComm(1, 0x5eed, "world", size, rank);
    uint64_t calls = 0;
    for (const Colls& colls : spec.colls) {
      process.AddPluginColls(1, "AllReduce", colls.algo, colls.proto, colls.channels, colls.count);
      calls += colls.count;
    }
    process.AddWrapperCalls("ncclAllReduce", kWorld, size, rank, 1, calls);
    if (spec.custom_allreduce_kernels > 0) {
      process.AddKernels("void vllm::cross_device_reduce_2stage<half, 4>(...)",
                         spec.custom_allreduce_kernels, 3000);
    }
    process.WriteTo(directory + "/node1." + std::to_string(101 + rank) + ".vtrace");
  }
}

const std::map<std::string, std::string> kRing = {{"NCCL_ALGO", "Ring"}};

Report ReportOf(const std::string& directory, const ConsistencyOptions& options = {}) {
  const TraceFileList traces = ListTraceFiles(directory);
  REQUIRE(traces.error.empty());
  return BuildReport(directory, traces.paths, options);
}

// `text` with every line break and the indent after it made one space, so
// that wrapped sentences can be found whole.
std::string Unwrapped(const std::string& text) {
  std::string result;
  for (size_t at = 0; at < text.size(); ++at) {
    if (text[at] != '\n') {
      result += text[at];
      continue;
    }
    result += ' ';
    while (at + 1 < text.size() && text[at + 1] == ' ') ++at;
  }
  return result;
}

std::string WriteContract(const ScratchDir& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir.File(name)) << text;
  return dir.File(name);
}

ConsistencyOptions WithContract(const std::string& text) {
  const RunContractLoad load = ParseRunContract(text, "contract.json");
  INFO(load.error);
  REQUIRE(load.contract);
  return {false, load.contract};
}

void CheckMismatch(const ConsistencyMismatch& mismatch, const std::string& axis,
                   const std::string& kind, const std::string& source, const std::string& requested,
                   const std::string& actual, uint64_t count, uint32_t processes) {
  CHECK(mismatch.axis == axis);
  CHECK(mismatch.kind == kind);
  CHECK(mismatch.source == source);
  CHECK(mismatch.requested == requested);
  CHECK(mismatch.actual == actual);
  CHECK(mismatch.count == count);
  CHECK(mismatch.processes == processes);
  CHECK(mismatch.violation == (kind != "declared_fallback"));
}

}  // namespace

TEST_CASE("NCCL_ALGO=Ring requested, Tree observed: a mismatch; --strict exits 4") {
  ScratchDir dir;
  WriteRun(dir.path(), {{kRing, {{"RING", "SIMPLE", 4, 6}}},
                        {kRing, {{"RING", "SIMPLE", 4, 2}, {"TREE", "SIMPLE", 4, 4}}}});
  const Report report = ReportOf(dir.path());
  REQUIRE(report.consistency);
  const ConsistencyReport& consistency = *report.consistency;
  CHECK(consistency.mode == ConsistencyMode::kAuto);
  CHECK(consistency.mode_source == "default");
  REQUIRE(consistency.mismatches.size() == 1);
  CheckMismatch(consistency.mismatches[0], "nccl_algo", "undeclared_fallback", "NCCL_ALGO", "Ring",
                "AllReduce TREE", 4, 1);
  CHECK(consistency.violations == 1);
  CHECK_FALSE(report.strict_failed());  // auto: reported, not failed

  // Fingerprints of the canonical forms, written out here by hand.
  CHECK(consistency.requested_fingerprint ==
        "sha256:" + Sha256Hex(R"({"contract":null,"nccl_env":{"NCCL_ALGO":["Ring"]}})"));
  CHECK(consistency.actual_fingerprint ==
        "sha256:" +
            Sha256Hex(
                R"({"collectives":[{"comm_size":2,"count":1024,"dtype":"ncclFloat32",)"
                R"("func":"ncclAllReduce","ranks":[0,1],"red_op":"-","unranked":0}],)"
                R"("custom_allreduce":false,"nccl":[)"
                R"({"algo":"RING","channels":4,"func":"AllReduce","proto":"SIMPLE"},)"
                R"({"algo":"TREE","channels":4,"func":"AllReduce","proto":"SIMPLE"}],)"
                R"("placement":[{"device":0,"host":0,"rank":0},{"device":0,"host":0,"rank":1}],)"
                R"("plugin_evidence":true})"));
  CHECK(consistency.actual_algorithms.at({"AllReduce", "RING", "SIMPLE", 4}) == 8);
  CHECK(consistency.actual_algorithms.at({"AllReduce", "TREE", "SIMPLE", 4}) == 4);
  REQUIRE(consistency.requested_env.size() == 1);
  CHECK(consistency.requested_env[0].values == std::vector<std::string>{"Ring"});
  CHECK(consistency.requested_env[0].processes_set == 2);

  std::ostringstream text;
  WriteTextReport(report, text);
  INFO(text.str());
  CHECK(Contains(text.str(),
                 "\n  ! nccl_algo undeclared_fallback: NCCL_ALGO requested Ring; "
                 "actual AllReduce TREE (4×, 1 process)\n"));
  // The fingerprint, never broken across lines, then what it covers.
  CHECK(Contains(Unwrapped(text.str()),
                 " requested: sha256:" + consistency.requested_fingerprint.substr(7) +
                     " (NCCL_* of 2 processes) NCCL_ALGO=Ring "));

  CHECK(Run({"report", dir.path()}).status == kExitOk);
  const CliResult strict = Run({"report", dir.path(), "--strict", "--format", "json"});
  CHECK(strict.status == kExitStrictViolation);
  CHECK(strict.status == 4);
  CHECK(Contains(strict.err, "vprof: report: strict consistency failed: 1 violation(s): "));
  const JsonValue json = JsonValue::Parse(strict.out);
  const JsonValue& checked = json["consistency"];
  CHECK(checked["mode"].string() == "strict");
  CHECK(checked["mode_source"].string() == "flag");
  CHECK(checked["failed"].boolean());
  CHECK(checked["violations"].number() == 1);
  const JsonValue& mismatch = checked["mismatches"][0];
  CHECK(mismatch["axis"].string() == "nccl_algo");
  CHECK(mismatch["kind"].string() == "undeclared_fallback");
  CHECK(mismatch["source"].string() == "NCCL_ALGO");
  CHECK(mismatch["requested"].string() == "Ring");
  CHECK(mismatch["actual"].string() == "AllReduce TREE");
  CHECK(mismatch["count"].number() == 4);
  CHECK(mismatch["processes"].number() == 1);
  CHECK(mismatch["violation"].boolean());
  CHECK(checked["requested"]["fingerprint"].string() == consistency.requested_fingerprint);
  CHECK(checked["actual"]["nccl"][1]["algo"].string() == "TREE");
}

TEST_CASE("a strict run that ran as requested exits 0") {
  ScratchDir dir;
  WriteRun(dir.path(), {{kRing, {{"RING", "SIMPLE", 4, 5}}}, {kRing, {{"RING", "LL", 2, 5}}}});
  const CliResult flag = Run({"report", dir.path(), "--strict"});
  INFO(flag.out << flag.err);
  CHECK(flag.status == kExitOk);
  CHECK(flag.err.empty());
  CHECK(Contains(flag.out, "Consistency (requested vs actual): mode strict (--strict)"));
  CHECK(Contains(flag.out, "\n  mismatches: none\n"));

  // The same made strict by the contract instead of the flag.
  ScratchDir contracts;
  const std::string contract =
      WriteContract(contracts, "c.json",
                    R"({"version": 1, "consistency": "strict", "nccl": {"algorithms": ["ring"],
                        "protocols": ["Simple", "LL"], "channels": {"min": 2, "max": 4}}})");
  const CliResult by_contract = Run({"report", dir.path(), "--contract", contract});
  INFO(by_contract.out);
  CHECK(by_contract.status == kExitOk);
  CHECK(Contains(by_contract.out, "mode strict (contract)"));
}

TEST_CASE("a custom all-reduce kernel in a strict run") {
  ScratchDir dir;
  WriteRun(dir.path(), {{kRing, {{"RING", "SIMPLE", 4, 5}}},
                        {kRing, {{"RING", "SIMPLE", 4, 5}}, /*custom_allreduce_kernels=*/3}});
  const Report strict = ReportOf(dir.path(), {true, std::nullopt});
  REQUIRE(strict.consistency);
  REQUIRE(strict.consistency->mismatches.size() == 1);
  CheckMismatch(strict.consistency->mismatches[0], "all_reduce_backend", "not_allowed",
                "strict mode", "no custom all-reduce", "custom all-reduce kernels", 3, 1);
  CHECK(strict.strict_failed());
  CHECK(strict.consistency->custom_allreduce_kernels.count == 3);
  CHECK(strict.consistency->custom_allreduce_kernels.total_ns == 9000);
  CHECK(Run({"report", dir.path(), "--strict"}).status == kExitStrictViolation);

  // Not strict: custom all-reduce is allowed, nothing to report.
  CHECK(ReportOf(dir.path()).consistency->mismatches.empty());

  // A contract that allows it; one that declares NCCL the backend (a switch
  // away from it is a fallback), with and without that axis declared.
  CHECK_FALSE(ReportOf(dir.path(), WithContract(R"({"version": 1, "consistency": "strict",
      "custom_allreduce_allowed": true})"))
                  .strict_failed());
  const Report switched = ReportOf(dir.path(), WithContract(R"({"version": 1,
      "consistency": "strict", "custom_allreduce_allowed": true, "all_reduce_backend": "nccl"})"));
  REQUIRE(switched.consistency->mismatches.size() == 1);
  CheckMismatch(switched.consistency->mismatches[0], "all_reduce_backend", "undeclared_fallback",
                "contract all_reduce_backend", "nccl", "custom all-reduce kernels", 3, 1);
  CHECK(switched.strict_failed());
  const Report declared = ReportOf(dir.path(), WithContract(R"({"version": 1,
      "consistency": "strict", "custom_allreduce_allowed": true, "all_reduce_backend": "nccl",
      "fallback_axes": ["all_reduce_backend"]})"));
  REQUIRE(declared.consistency->mismatches.size() == 1);
  CHECK(declared.consistency->mismatches[0].kind == "declared_fallback");
  CHECK_FALSE(declared.consistency->mismatches[0].violation);
  CHECK_FALSE(declared.strict_failed());
}

TEST_CASE("a strict run without plugin evidence fails closed, with the reason") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());  // wrapper events only: no plugin status at all
  const CliResult strict = Run({"report", dir.path(), "--strict", "--format", "json"});
  CHECK(strict.status == kExitStrictViolation);
  const JsonValue json = JsonValue::Parse(strict.out);
  const JsonValue& mismatches = json["consistency"]["mismatches"];
  REQUIRE(mismatches.array().size() == 1);
  CHECK(mismatches[0]["axis"].string() == "evidence");
  CHECK(mismatches[0]["kind"].string() == "no_evidence");
  CHECK(mismatches[0]["actual"].string() ==
        "NCCL profiler plugin not attached: the trace holds no status of the "
        "NCCL_PROFILER_PLUGIN hook");
  CHECK(mismatches[0]["processes"].number() == 4);  // the ranks; the launcher took no part
  CHECK(json["consistency"]["actual"]["plugin_processes"].number() == 0);
  // --strict makes the check, so coverage is there too.
  CHECK(json["coverage"]["processes"].array().size() == 4);
}

TEST_CASE("the contract's NCCL declarations, declared fallbacks, a fallback from its backend") {
  ScratchDir dir;
  WriteRun(dir.path(), {{{}, {{"RING", "SIMPLE", 4, 3}, {"TREE", "LL128", 24, 2}}}});
  const Report undeclared = ReportOf(dir.path(), WithContract(R"({"version": 1,
      "nccl": {"algorithms": ["Ring"], "protocols": ["Simple"], "channels": {"max": 16}}})"));
  REQUIRE(undeclared.consistency);
  const auto& mismatches = undeclared.consistency->mismatches;
  REQUIRE(mismatches.size() == 3);  // by axis name, then source, requested, actual
  CheckMismatch(mismatches[0], "nccl_algo", "undeclared_fallback", "contract nccl.algorithms",
                "RING", "AllReduce TREE", 2, 1);
  CheckMismatch(mismatches[1], "nccl_channels", "undeclared_fallback", "contract nccl.channels",
                "≤ 16 channels", "AllReduce on 24 channels", 2, 1);
  CheckMismatch(mismatches[2], "nccl_proto", "undeclared_fallback", "contract nccl.protocols",
                "SIMPLE", "AllReduce LL128", 2, 1);
  CHECK_FALSE(undeclared.strict_failed());  // auto

  const Report declared = ReportOf(dir.path(), WithContract(R"({"version": 1,
      "consistency": "strict", "nccl": {"algorithms": ["Ring"]}, "fallback_axes": ["nccl_algo"]})"));
  REQUIRE(declared.consistency->mismatches.size() == 1);
  CHECK(declared.consistency->mismatches[0].kind == "declared_fallback");
  CHECK_FALSE(declared.strict_failed());

  // All-reduce declared to run on vLLM's custom all-reduce ran on NCCL.
  const Report backend = ReportOf(dir.path(), WithContract(R"({"version": 1,
      "custom_allreduce_allowed": true, "all_reduce_backend": "custom_allreduce"})"));
  REQUIRE(backend.consistency->mismatches.size() == 1);
  CheckMismatch(backend.consistency->mismatches[0], "all_reduce_backend", "undeclared_fallback",
                "contract all_reduce_backend", "custom_allreduce", "AllReduce on NCCL", 5, 1);

  // Consistency off: nothing compared.
  const Report off = ReportOf(dir.path(), WithContract(R"({"version": 1, "consistency": "off",
      "nccl": {"algorithms": ["Ring"]}})"));
  CHECK(off.consistency->mode == ConsistencyMode::kOff);
  CHECK(off.consistency->mismatches.empty());
}

TEST_CASE("each process is held to its own NCCL_* settings") {
  ScratchDir dir;
  WriteRun(dir.path(),
           {{{{"NCCL_PROTO", "^LL128"},
              {"NCCL_MAX_NCHANNELS", "8"},
              {"NCCL_DEBUG", "INFO"},
              {"NCCL_VERSION", "2.28.9"}},
             {{"RING", "LL128", 16, 2}}},
            {{{"NCCL_NVLS_ENABLE", "0"}, {"NCCL_PROTO", "LL128"}}, {{"NVLS", "LL128", 16, 3}}}});
  const Report report = ReportOf(dir.path());
  REQUIRE(report.consistency);
  const auto& mismatches = report.consistency->mismatches;
  REQUIRE(mismatches.size() == 3);
  CheckMismatch(mismatches[0], "nccl_algo", "undeclared_fallback", "NCCL_NVLS_ENABLE",
                "0 (NVLS off)", "AllReduce NVLS", 3, 1);
  CheckMismatch(mismatches[1], "nccl_channels", "undeclared_fallback", "NCCL_MAX_NCHANNELS",
                "≤ 8 channels", "AllReduce on 16 channels", 2, 1);
  CheckMismatch(mismatches[2], "nccl_proto", "undeclared_fallback", "NCCL_PROTO", "^LL128",
                "AllReduce LL128", 2, 1);

  // NCCL_DEBUG says how NCCL logs, not what it does, and NCCL_VERSION is a container image's
  // note of the NCCL it ships: neither is a request.
  const std::vector<RequestedSetting>& requested = report.consistency->requested_env;
  REQUIRE(requested.size() == 3);
  CHECK(requested[0].name == "NCCL_MAX_NCHANNELS");
  CHECK(requested[0].processes_set == 1);
  CHECK(requested[0].processes_unset == 1);
  CHECK(requested[2].name == "NCCL_PROTO");
  CHECK(requested[2].values == std::vector<std::string>{"LL128", "^LL128"});
  CHECK(report.consistency->requested_fingerprint ==
        "sha256:" +
            Sha256Hex(R"({"contract":null,"nccl_env":{"NCCL_MAX_NCHANNELS":["8",null],)"
                      R"("NCCL_NVLS_ENABLE":["0",null],"NCCL_PROTO":["LL128","^LL128"]}})"));
}

TEST_CASE("a bad contract file is a usage error naming the file, the field and what was expected") {
  ScratchDir dir, contracts;
  WriteRun(dir.path(), {{kRing, {{"RING", "SIMPLE", 4, 1}}}});
  const std::string file = WriteContract(
      contracts, "bad.json", R"({"version": 1, "nccl": {"channels": {"min": 1, "max": 0}}})");
  const CliResult bad = Run({"report", dir.path(), "--contract", file});
  CHECK(bad.status == kExitUsage);
  CHECK(bad.err == "vprof: report: bad contract: " + file +
                       ": field 'nccl.channels.max': expected an integer ≥ 1, got 0\n");
  CHECK(bad.out.empty());

  const std::string broken = WriteContract(contracts, "broken.json", "{\"version\": 1\n\"x\": 2}");
  const CliResult syntax = Run({"report", dir.path(), "--contract=" + broken});
  CHECK(syntax.status == kExitUsage);
  CHECK(syntax.err == "vprof: report: bad contract: " + broken +
                          ": not valid JSON: line 2, column 1: expected ',' or '}' in an object\n");

  const CliResult missing = Run({"report", dir.path(), "--contract", contracts.File("none.json")});
  CHECK(missing.status == kExitUsage);
  CHECK(Contains(missing.err, contracts.File("none.json") +
                                  ": cannot read: No such file or directory (the contract)"));
  CHECK(Run({"report", dir.path(), "--contract"}).status == kExitUsage);
  CHECK(Contains(Run({"help", "report"}).out, "--contract FILE"));
  CHECK(Contains(Run({"report", "--help"}).out, "--strict"));
}

TEST_CASE("the requested fingerprint does not depend on the contract's key order") {
  ScratchDir dir, contracts;
  WriteRun(dir.path(), {{kRing, {{"RING", "SIMPLE", 4, 1}}}});
  const auto fingerprint = [&](const std::string& text) {
    const std::string file = WriteContract(contracts, "c.json", text);
    const RunContractLoad load = LoadRunContract(file);
    REQUIRE(load.contract);
    return ReportOf(dir.path(), {false, load.contract}).consistency->requested_fingerprint;
  };
  const std::string one = fingerprint(
      R"({"version": 1, "consistency": "strict", "nccl": {"protocols": ["Simple"], "algorithms": ["Ring", "Tree"]}})");
  const std::string reordered = fingerprint(
      R"({"nccl": {"algorithms": ["tree", "RING"], "protocols": ["SIMPLE"]}, "consistency": "strict", "version": 1})");
  CHECK(one == reordered);
  CHECK(one.starts_with("sha256:"));
  CHECK(one.size() == 7 + 64);
  CHECK(fingerprint(
            R"({"version": 1, "consistency": "strict", "nccl": {"algorithms": ["Ring"]}})") != one);
}

namespace {

// `vprof report --node-summary` of the run in `traces` (one host, node1), into `summaries`.
std::string SummarizeNode(const ScratchDir& traces, const ScratchDir& summaries) {
  const std::string summary = summaries.File("node1.vsummary");
  const CliResult made = Run({"report", "--node-summary", summary, "--host", "node1", "--clock",
                              "monotonic", traces.path()});
  INFO(made.err);
  REQUIRE(made.status == kExitOk);
  return summary;
}

}  // namespace

TEST_CASE("merged node summaries are held to --strict and --contract as the traces are") {
  ScratchDir summaries, contracts;
  SECTION("NCCL_ALGO=Ring requested, Tree observed: exit 4") {
    ScratchDir traces;
    WriteRun(traces.path(), {{kRing, {{"RING", "SIMPLE", 4, 6}}},
                             {kRing, {{"RING", "SIMPLE", 4, 2}, {"TREE", "SIMPLE", 4, 4}}}});
    const std::string summary = SummarizeNode(traces, summaries);
    // Without --strict the mismatch is reported, not failed (mode auto), as for the traces.
    CHECK(Run({"report", "--merge-summaries", summary}).status == kExitOk);

    const CliResult strict =
        Run({"report", "--merge-summaries", summary, "--strict", "--format", "json"});
    CHECK(strict.status == kExitStrictViolation);
    CHECK(strict.status == 4);
    CHECK(Contains(strict.err, "vprof: report: strict consistency failed: 1 violation(s): "));
    const JsonValue json = JsonValue::Parse(strict.out);
    const JsonValue& checked = json["consistency"];
    CHECK(checked["mode"].string() == "strict");
    CHECK(checked["mode_source"].string() == "flag");
    CHECK(checked["violations"].number() == 1);
    // The same mismatch as `vprof report DIR --strict`: 4 Tree all-reduces on 1 process.
    const JsonValue& mismatch = checked["mismatches"][0];
    CHECK(mismatch["axis"].string() == "nccl_algo");
    CHECK(mismatch["source"].string() == "NCCL_ALGO");
    CHECK(mismatch["actual"].string() == "AllReduce TREE");
    CHECK(mismatch["count"].number() == 4);
    CHECK(mismatch["processes"].number() == 1);
    CHECK(Run({"report", traces.path(), "--strict"}).status == 4);

    // Strict by the contract instead of the flag.
    const std::string contract = WriteContract(
        contracts, "c.json",
        R"({"version": 1, "consistency": "strict", "nccl": {"algorithms": ["ring"]}})");
    const CliResult by_contract =
        Run({"report", "--merge-summaries", summary, "--contract", contract});
    INFO(by_contract.out);
    CHECK(by_contract.status == 4);
    CHECK(Contains(by_contract.out, "mode strict (contract)"));
  }
  SECTION("ran as requested: exit 0") {
    ScratchDir traces;
    WriteRun(traces.path(), {{kRing, {{"RING", "SIMPLE", 4, 5}}}, {kRing, {{"RING", "LL", 2, 5}}}});
    const std::string summary = SummarizeNode(traces, summaries);
    const CliResult strict = Run({"report", "--merge-summaries", summary, "--strict"});
    INFO(strict.out << strict.err);
    CHECK(strict.status == kExitOk);
    CHECK(strict.err.empty());
    CHECK(Contains(strict.out, "Consistency (requested vs actual): mode strict (--strict)"));
    CHECK(Contains(strict.out, "\n  mismatches: none\n"));
  }
  SECTION("a bad contract is a usage error naming the file") {
    ScratchDir traces;
    WriteRun(traces.path(), {{kRing, {{"RING", "SIMPLE", 4, 5}}}});
    const std::string summary = SummarizeNode(traces, summaries);
    const std::string contract =
        WriteContract(contracts, "bad.json", R"({"version": 1, "consistency": "sometimes"})");
    const CliResult bad = Run({"report", "--merge-summaries", summary, "--contract", contract});
    CHECK(bad.status == kExitUsage);
    CHECK(Contains(bad.err, "vprof: report: bad contract: " + contract));
  }
}

namespace {

// Two ranks of one 2-rank communicator, for the actual side's collective
// shapes and placement: each issues `all_reduces` all-reduces of 1024
// elements (rank 1's in `rank1_dtype`; float32 on rank 0) with ncclSum, two
// reduce-scatters of bf16 (512 elements on rank 0, `rank1_shard` on rank 1)
// and a send, which is no collective; rank r runs on hosts[r], CUDA device
// devices[r].
struct LayoutSpec {
  std::array<std::string, 2> hosts = {"node1", "node2"};
  std::array<int32_t, 2> devices = {0, 3};
  uint64_t all_reduces = 3;
  int32_t rank1_dtype = 7;  // ncclFloat32
  uint64_t rank1_shard = 256;
};

void WriteLayoutRun(const std::string& directory, const LayoutSpec& spec) {
  for (uint32_t rank = 0; rank < 2; ++rank) {
    PluginTraceBuilder process(spec.hosts[rank], 101 + rank, static_cast<int32_t>(rank));
    process.AddInjection(true, 5);
    TraceFileBuilder& trace = process.trace();
    vprof::trace::TracePacket packet;
    vprof::trace::Communicator& comm = *packet.mutable_communicator();
    comm.set_comm_id(kWorld);
    comm.set_nranks(2);
    comm.set_rank(rank);
    comm.set_cuda_device(spec.devices[rank]);
    trace.AddPacket(std::move(packet));
    std::vector<vprof::trace::NcclEvent> events;
    uint64_t seq = 1;
    const auto add = [&](std::string_view function, uint64_t count, int32_t dtype) {
      vprof::trace::NcclEvent event =
          trace.Event(function, kWorld, 2, rank, seq, count * 4, seq * 1000, seq * 1000 + 500);
      event.set_count(count);
      event.set_datatype(dtype);
      event.set_red_op(0);  // ncclSum
      events.push_back(event);
      ++seq;
    };
    for (uint64_t i = 0; i < spec.all_reduces; ++i) {
      add("ncclAllReduce", 1024, rank == 1 ? spec.rank1_dtype : 7);
    }
    for (int i = 0; i < 2; ++i) add("ncclReduceScatter", rank == 1 ? spec.rank1_shard : 512, 9);
    vprof::trace::NcclEvent send =
        trace.Event("ncclSend", kWorld, 2, rank, 1, 4096, 90'000, 91'000);
    send.set_peer(1 - static_cast<int32_t>(rank));
    events.push_back(send);
    trace.AddBatch(events);
    process.WriteTo(directory + "/" + spec.hosts[rank] + "." + std::to_string(101 + rank) +
                    ".vtrace");
  }
}

std::string ActualFingerprintOf(const LayoutSpec& spec) {
  ScratchDir dir;
  WriteLayoutRun(dir.path(), spec);
  const Report report = ReportOf(dir.path());
  REQUIRE(report.consistency);
  return report.consistency->actual_fingerprint;
}

}  // namespace

TEST_CASE("the actual side lists each collective shape with its ranks, and where ranks ran") {
  ScratchDir dir;
  WriteLayoutRun(dir.path(), {});
  const Report report = ReportOf(dir.path());
  REQUIRE(report.consistency);
  const ConsistencyReport& actual = *report.consistency;
  REQUIRE(actual.collective_shapes.size() == 3);
  const CollectiveShapeReport& all_reduce = actual.collective_shapes[0];
  CHECK(std::tie(all_reduce.function, all_reduce.datatype, all_reduce.red_op) ==
        std::tie("ncclAllReduce", "ncclFloat32", "ncclSum"));
  CHECK(all_reduce.count == 1024);
  CHECK(all_reduce.comm_size == 2);
  CHECK(all_reduce.ranks == std::vector<int32_t>{0, 1});
  CHECK(all_reduce.calls == 6);
  // An uneven shard layout: each rank's reduce-scatter count is a shape of its own.
  const CollectiveShapeReport& rank1_shard = actual.collective_shapes[1];
  CHECK(std::tie(rank1_shard.function, rank1_shard.datatype) ==
        std::tie("ncclReduceScatter", "ncclBfloat16"));
  CHECK(rank1_shard.count == 256);
  CHECK(rank1_shard.ranks == std::vector<int32_t>{1});
  CHECK(rank1_shard.calls == 2);
  CHECK(actual.collective_shapes[2].count == 512);
  CHECK(actual.collective_shapes[2].ranks == std::vector<int32_t>{0});
  CHECK(actual.collective_calls_left_out == 0);

  REQUIRE(actual.placement.size() == 2);
  CHECK(actual.placement[0].rank == 0);
  CHECK(actual.placement[0].host == "node1");
  CHECK(actual.placement[0].cuda_device == 0);
  CHECK(actual.placement[1].rank == 1);
  CHECK(actual.placement[1].host == "node2");
  CHECK(actual.placement[1].cuda_device == 3);

  std::ostringstream written;
  WriteTextReport(report, written);
  // The text, unwrapped, with the tables' runs of spaces made one.
  std::string text = Unwrapped(written.str());
  text.erase(
      std::unique(text.begin(), text.end(), [](char a, char b) { return a == ' ' && b == ' '; }),
      text.end());
  CHECK(Contains(text, "ncclReduceScatter ncclBfloat16 ncclSum 256 2 1 2"));
  CHECK(Contains(text, "rank 1: node2, CUDA device 3"));
}

TEST_CASE(
    "the actual fingerprint changes with shapes and placement, not with call counts or host "
    "names") {
  const std::string base = ActualFingerprintOf({});
  LayoutSpec longer;
  longer.all_reduces = 5;
  CHECK(ActualFingerprintOf(longer) == base);
  LayoutSpec renamed;
  renamed.hosts = {"nodeA", "nodeB"};
  CHECK(ActualFingerprintOf(renamed) == base);

  LayoutSpec one_host;
  one_host.hosts = {"node1", "node1"};
  CHECK(ActualFingerprintOf(one_host) != base);
  LayoutSpec other_device;
  other_device.devices = {0, 1};
  CHECK(ActualFingerprintOf(other_device) != base);
  LayoutSpec bf16;
  bf16.rank1_dtype = 9;  // ncclBfloat16
  CHECK(ActualFingerprintOf(bf16) != base);
  LayoutSpec even;
  even.rank1_shard = 512;
  CHECK(ActualFingerprintOf(even) != base);
}

TEST_CASE("the JSON report's actual side has the collective shapes and the placement") {
  ScratchDir dir;
  WriteLayoutRun(dir.path(), {});
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  REQUIRE(result.status == kExitOk);
  const JsonValue json = JsonValue::Parse(result.out);
  const JsonValue& actual = json["consistency"]["actual"];
  const JsonValue& shard = actual["collective_shapes"][1];
  CHECK(shard["function"].string() == "ncclReduceScatter");
  CHECK(shard["datatype"].string() == "ncclBfloat16");
  CHECK(shard["red_op"].string() == "ncclSum");
  CHECK(shard["count"].number() == 256);
  CHECK(shard["ranks"][0].number() == 1);
  CHECK(shard["calls"].number() == 2);
  CHECK(actual["collective_calls_left_out"].number() == 0);
  const JsonValue& rank1 = actual["placement"][1];
  CHECK(rank1["rank"].number() == 1);
  CHECK(rank1["host"].string() == "node2");
  CHECK(rank1["cuda_device"].number() == 3);
}

TEST_CASE("a process keeps 4,096 collective shapes and counts the calls of the others") {
  CollectiveShapes shapes;
  for (uint64_t count = 1; count <= CollectiveShapes::kMaxShapes + 2; ++count) {
    shapes.Add({NcclFunction::kAllGather, 9, -1, count, 8}, 3);
  }
  shapes.Add({NcclFunction::kAllGather, 9, -1, 1, 8});  // a kept shape still counts
  CHECK(shapes.calls.size() == CollectiveShapes::kMaxShapes);
  CHECK(shapes.calls.at({NcclFunction::kAllGather, 9, -1, 1, 8}) == 4);
  CHECK(shapes.calls_left_out == 2 * 3);
}

TEST_CASE("NCCL's reduction ops by name, a program's own ops by number") {
  CHECK(NcclRedOpName(0) == "ncclSum");
  CHECK(NcclRedOpName(4) == "ncclAvg");
  CHECK(NcclRedOpName(5) == "user op 5");
  CHECK(NcclRedOpName(-1) == "none");
}

TEST_CASE("a merged node summary keeps the collective shapes and placement, and the fingerprint") {
  ScratchDir traces, summaries;
  LayoutSpec one_host;
  one_host.hosts = {"node1", "node1"};
  WriteLayoutRun(traces.path(), one_host);
  const std::string summary = SummarizeNode(traces, summaries);
  const CliResult merged = Run({"report", "--merge-summaries", summary, "--format", "json"});
  const CliResult direct = Run({"report", traces.path(), "--format", "json"});
  REQUIRE(merged.status == kExitOk);
  REQUIRE(direct.status == kExitOk);
  const JsonValue merged_json = JsonValue::Parse(merged.out);
  const JsonValue direct_json = JsonValue::Parse(direct.out);
  const JsonValue& from_summary = merged_json["consistency"]["actual"];
  const JsonValue& from_traces = direct_json["consistency"]["actual"];
  CHECK(from_summary["fingerprint"].string() == from_traces["fingerprint"].string());
  CHECK(from_summary["collective_shapes"][1]["count"].number() == 256);
  CHECK(from_summary["collective_shapes"][1]["ranks"][0].number() == 1);
  CHECK(from_summary["collective_shapes"][0]["calls"].number() == 6);
  CHECK(from_summary["placement"][1]["cuda_device"].number() == 3);
}
