// --audit: reading vime's consistency audit (result cubes and drift reports,
// shaped as vime/utils/consistency_audit.py and consistency_drift_report.py
// write them), linking its operators to the candidates of candidate_fixture.h,
// the text and JSON that show the links, and the errors for bad files.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "candidate_fixture.h"
#include "reporter/base/exit_status.h"
#include "reporter/base/text_layout.h"
#include "reporter/candidates/audit_links.h"
#include "reporter/candidates/rank_candidates.h"
#include "reporter/candidates/vime_audit.h"
#include "reporter/render/json/candidates_json.h"
#include "reporter/render/report_tables.h"
#include "reporter/render/text/candidates_text.h"
#include "tests/reporter/cli_runner.h"
#include "tests/reporter/gpu_batch_builder.h"
#include "tests/reporter/mini_json.h"
#include "tests/reporter/scratch_dir.h"
#include "tests/reporter/trace_file_builder.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// One rank's result cube as vime's build_consistency_result_cube lays it out.
std::string Cube(int rank, const std::string& provenance, const std::string& metrics) {
  return R"({"schema_version": 1, "mode": "audit", "rank": )" + std::to_string(rank) +
         R"(, "axes": {"dtype": "bf16", "tp": 2, "logp_backend": null},
  "metrics": {"active_token_count": 512.0, "sample_count": 4.0, )" +
         metrics + R"(},
  "worst_token": {"abs_dlogp": 0.25, "sample_position": 1, "token_position": 7},
  "metadata_validation": {"warnings": [], "failures": []},
  "runtime_provenance": {)" +
         provenance + R"(}, "fingerprint": "sha256:00"})";
}

constexpr const char* kQuiet =
    R"("max_abs_dlogp": 0.0, "warning_count": 0.0, "metadata_warning_count": 0.0,
       "metadata_failure_count": 0.0, "runtime_fallback": 0.0, "runtime_strict_failure": 0.0)";

// Four ranks: a custom all-reduce that drifted (warning), a linear_logp that
// drifted (warning) and only faster kernels touch, an rmsnorm that agreed
// (pass) and an NCCL all-reduce that failed strict.
std::string FourRankAudit() {
  return "[" +
         Cube(1,
              R"("operator": "custom_all_reduce", "backend_id": "vllm.custom_ar",
                 "contract_id": "rlk.comm.v1", "fallback": false, "strict_failure": false)",
              R"("max_abs_dlogp": 0.25, "warning_count": 2.0, "metadata_warning_count": 0.0,
                 "metadata_failure_count": 0.0, "runtime_fallback": 0.0,
                 "runtime_strict_failure": 0.0)") +
         ",\n" +
         Cube(0,
              R"("operator": "linear_logp", "backend_id": "rlk.linear_logp.fast",
                 "contract_id": "rlk.linear_logp.fp32")",
              R"("max_abs_dlogp": 0.5, "warning_count": 1.0)") +
         ",\n" +
         Cube(0, R"("operator": "RMSNorm", "actual_backend": "rlk.rmsnorm.triton")", kQuiet) +
         ",\n" +
         Cube(2,
              R"("operator": "allreduce", "backend_id": "nccl", "strict_failure": true,
                 "contract_id": "rlk.comm.v1")",
              R"("max_abs_dlogp": 0.125, "warning_count": 0.0)") +
         "]";
}

VimeAudit Parsed(const std::string& text) {
  const VimeAuditLoad load = ParseVimeAudit(text, "audit.json");
  INFO(load.error);
  REQUIRE(load.audit);
  return *load.audit;
}

std::string ErrorOf(const std::string& text) {
  const VimeAuditLoad load = ParseVimeAudit(text, "audit.json");
  CHECK_FALSE(load.audit);
  return load.error;
}

Report Linked() {
  Report report = StepsFixture();
  report.candidates = RankCandidates(report, std::nullopt);
  LinkAudit(Parsed(FourRankAudit()), report.candidates);
  return report;
}

const CandidateReport& OfKind(const Report& report, const std::string& kind) {
  for (const CandidateReport& c : report.candidates) {
    if (c.kind == kind) return c;
  }
  FAIL("no candidate " << kind);
  return report.candidates.front();
}

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("a result cube: operator, backend, contract, figures and vime's status") {
  const VimeAudit audit = Parsed(FourRankAudit());
  REQUIRE(audit.entries.size() == 4);
  CHECK(audit.file == "audit.json");

  const VimeAuditEntry& custom = audit.entries[0];
  CHECK(custom.rank == 1);
  CHECK(custom.operator_name == "custom_all_reduce");
  CHECK(custom.backend_id == "vllm.custom_ar");
  CHECK(custom.contract_id == "rlk.comm.v1");
  CHECK(custom.max_abs_dlogp == 0.25);
  CHECK(custom.dlogp_warnings == 2);
  CHECK_FALSE(custom.fallback);
  CHECK_FALSE(custom.strict_failure);
  CHECK(custom.status == AuditStatus::kWarning);  // 2 dlogp warnings, no failure

  // No backend_id: actual_backend; every figure zero: pass.
  const VimeAuditEntry& rmsnorm = audit.entries[2];
  CHECK(rmsnorm.backend_id == "rlk.rmsnorm.triton");
  CHECK_FALSE(rmsnorm.contract_id);
  CHECK(rmsnorm.status == AuditStatus::kPass);

  // strict_failure in the provenance: failure, whatever the dlogp.
  CHECK(audit.entries[3].strict_failure);
  CHECK(audit.entries[3].status == AuditStatus::kFailure);
}

TEST_CASE("vime's status rule for a result cube, flag by flag") {
  const std::string provenance = R"("operator": "rope")";
  CHECK(Parsed(Cube(0, provenance, kQuiet)).entries[0].status == AuditStatus::kPass);
  // Only max |dlogp| > 0: warning.
  CHECK(Parsed(Cube(0, provenance, R"("max_abs_dlogp": 1e-6)")).entries[0].status ==
        AuditStatus::kWarning);
  // A metadata warning alone: warning.
  CHECK(Parsed(Cube(0, provenance, R"("metadata_warning_count": 1.0)")).entries[0].status ==
        AuditStatus::kWarning);
  // A metadata failure: failure.
  CHECK(Parsed(Cube(0, provenance, R"("metadata_failure_count": 1.0)")).entries[0].status ==
        AuditStatus::kFailure);
  // runtime_fallback as vime's metrics write it (1.0), and as a merged cube does (true).
  const VimeAuditEntry by_number =
      Parsed(Cube(0, provenance, R"("runtime_fallback": 1.0)")).entries[0];
  CHECK(by_number.fallback);
  CHECK(by_number.status == AuditStatus::kWarning);
  CHECK(Parsed(Cube(0, provenance, R"("runtime_fallback": true)")).entries[0].fallback);
}

TEST_CASE("a drift report: its own status, backend from the axes") {
  const VimeAudit audit = Parsed(R"({"schema_version": 1, "title": "Consistency drift report",
    "status": "failure", "status_label": "FAIL", "timeline_mode": "ordinal_diagnostic",
    "lanes": [], "events": [],
    "axes": {"logp_backend": ["rlk.swiglu.a", "rlk.swiglu.b"]},
    "metrics": {"max_abs_dlogp": 0.0},
    "worst_token": {}, "validation": {"warnings": [], "failures": []},
    "runtime_provenance": {}, "sample_count": 0})");
  REQUIRE(audit.entries.size() == 1);
  const VimeAuditEntry& entry = audit.entries[0];
  CHECK_FALSE(entry.rank);
  CHECK_FALSE(entry.operator_name);
  CHECK(entry.backend_id == "rlk.swiglu.a, rlk.swiglu.b");
  // Its figures would grade pass; the report's status is what vime concluded.
  CHECK(entry.status == AuditStatus::kFailure);
}

TEST_CASE("bad audit files: the file, the key path and what was expected") {
  CHECK(ErrorOf("{\"metrics\": ").rfind("audit.json: not valid JSON: line 1", 0) == 0);
  CHECK(ErrorOf("42") ==
        "audit.json: expected an object (a vime result cube or drift report) or an array of "
        "them, got a number");
  CHECK(ErrorOf("[]") == "audit.json: expected at least one audit entry, got []");
  CHECK(ErrorOf("[" + Cube(0, R"("operator": "rope")", kQuiet) + ", 7]") ==
        "audit.json: key '[1]': expected an object (a vime result cube or drift report), got a "
        "number");
  CHECK(ErrorOf(R"([{"runtime_provenance": {"operator": "rope"}}])") ==
        "audit.json: key '[0].metrics': expected an object, got nothing (the key is missing)");
  CHECK(ErrorOf(R"({"metrics": {}, "runtime_provenance": "rope"})") ==
        "audit.json: key 'runtime_provenance': expected an object, got a string");
  CHECK(ErrorOf(Cube(0, R"("operator": "rope")", R"("max_abs_dlogp": "big")")) ==
        "audit.json: key 'metrics.max_abs_dlogp': expected a number or null, got a string");
  CHECK(ErrorOf(Cube(0, R"("operator": 3)", kQuiet)) ==
        "audit.json: key 'runtime_provenance.operator': expected a string or null, got a number");
  CHECK(ErrorOf(Cube(0, R"("operator": "rope", "fallback": "no")", kQuiet)) ==
        "audit.json: key 'runtime_provenance.fallback': expected true, false, a number or null, "
        "got a string");
  CHECK(ErrorOf(R"({"rank": 1.5, "metrics": {}, "runtime_provenance": {"operator": "rope"}})") ==
        "audit.json: key 'rank': expected an integer or null, got a number");
  CHECK(ErrorOf(R"({"schema_version": 2, "metrics": {}, "runtime_provenance": {}})") ==
        "audit.json: key 'schema_version': expected 1 (the version this reader knows), got 2");
  CHECK(ErrorOf(R"({"status": "ok", "metrics": {}, "runtime_provenance": {"operator": "a"}})") ==
        "audit.json: key 'status': expected \"pass\", \"warning\" or \"failure\", got \"ok\"");
  CHECK(ErrorOf(R"({"metrics": {}, "runtime_provenance": {"fallback": false}})") ==
        "audit.json: key 'runtime_provenance': expected an \"operator\" or a backend "
        "(\"backend_id\", \"actual_backend\", \"requested_backend\", or axes.logp_backend) to "
        "link candidates to, got none");
}

TEST_CASE("links: communication to collectives, fusion to elementwise, worst first") {
  const Report report = Linked();

  // tp_communication (A1): the NCCL all-reduce (failure) before the custom
  // all-reduce (warning); linear_logp and RMSNorm are not collectives.
  const CandidateReport& tp = OfKind(report, "tp_communication");
  REQUIRE(tp.audit);
  CHECK(tp.audit->file == "audit.json");
  CHECK(tp.audit->drifted);
  REQUIRE(tp.audit->links.size() == 2);
  CHECK(tp.audit->links[0].rule_id == "A1");
  CHECK(tp.audit->links[0].matched == "allreduce");
  CHECK(tp.audit->links[0].entry.rank == 2);
  CHECK(tp.audit->links[0].entry.status == AuditStatus::kFailure);
  CHECK(tp.audit->links[1].matched == "all_reduce");  // in "custom_all_reduce"
  CHECK(tp.audit->links[1].entry.backend_id == "vllm.custom_ar");
  // The tag stays the strict table's: S3, needs a contract, drift or not.
  CHECK(tp.rule_id == "S3");
  CHECK(tp.strict == StrictTag::kNeedsContract);

  // launch_bound_kernels (A2): RMSNorm (case folded), which passed.
  const CandidateReport& launch = OfKind(report, "launch_bound_kernels");
  REQUIRE(launch.audit);
  CHECK_FALSE(launch.audit->drifted);
  REQUIRE(launch.audit->links.size() == 1);
  CHECK(launch.audit->links[0].rule_id == "A2");
  CHECK(launch.audit->links[0].matched == "rmsnorm");
  CHECK(launch.strict == StrictTag::kEligible);

  // compute (A4): faster kernels replace linear_logp (warning) and RMSNorm (pass), worst first.
  const CandidateReport& compute = OfKind(report, "compute");
  REQUIRE(compute.audit);
  CHECK(compute.audit->drifted);
  REQUIRE(compute.audit->links.size() == 2);
  CHECK(compute.audit->links[0].rule_id == "A4");
  CHECK(compute.audit->links[0].matched == "linear");
  CHECK(compute.audit->links[1].matched == "norm");
  CHECK(compute.strict == StrictTag::kNotEligible);

  // host_idle: no rule row; the audit was read, nothing relates.
  const CandidateReport& idle = OfKind(report, "host_idle");
  REQUIRE(idle.audit);
  CHECK(idle.audit->links.empty());
  CHECK_FALSE(idle.audit->drifted);
}

TEST_CASE("links: weight sync to weight-update operators") {
  Report report;
  CandidateReport sync;
  sync.kind = "weight_sync";
  report.candidates.push_back(sync);
  LinkAudit(Parsed(Cube(0, R"("operator": "update_weights_from_tensor", "backend_id": "ipc")",
                        R"("max_abs_dlogp": 0.0, "runtime_fallback": 1.0)")),
            report.candidates);
  const CandidateAudit& audit = *report.candidates[0].audit;
  REQUIRE(audit.links.size() == 1);
  CHECK(audit.links[0].rule_id == "A3");
  CHECK(audit.links[0].matched == "update_weight");
  CHECK(audit.drifted);  // a fallback is a warning
}

TEST_CASE("every link rule has candidate kinds and words in normalized form") {
  for (const AuditLinkRule& rule : AuditLinkRules()) {
    INFO(rule.id);
    CHECK_FALSE(rule.kinds.empty());
    CHECK_FALSE(rule.words.empty());
    for (const std::string_view word : rule.words) {
      // Words are matched against lower-cased names with "-" and " " as "_".
      CHECK(word.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ- ") == std::string_view::npos);
    }
  }
}

TEST_CASE("text: the links under each candidate, drift flagged") {
  std::ostringstream out;
  WriteCandidatesText(Linked(), out);
  const std::string text = out.str();
  INFO(text);
  // The heading's paragraph, its wrapped lines joined again.
  CHECK(Contains(std::regex_replace(text, std::regex("\n +"), " "),
                 " Audit: audit.json (vime): under each candidate,"));
  // tp_communication: both collectives, the failure first (figures from FourRankAudit).
  CHECK(Contains(text,
                 "   audit drift (vime):\n"
                 "     - A1 allreduce: rank 2 operator allreduce, backend nccl, contract "
                 "rlk.comm.v1: failure, max\n"
                 "       |dlogp| 0.125, strict failure\n"
                 "     - A1 all_reduce: rank 1 operator custom_all_reduce, backend vllm.custom_ar, "
                 "contract\n"
                 "       rlk.comm.v1: warning, max |dlogp| 0.25, dlogp warnings 2\n"));
  CHECK(Contains(text, "   audit: no audited operator relates to this candidate\n"));
  CHECK(Contains(text,
                 "   audit (vime), no drift:\n"
                 "     - A2 rmsnorm: rank 0 operator RMSNorm, backend rlk.rmsnorm.triton: pass, "
                 "max |dlogp| 0\n"));
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK(DisplayWidth(line) <= kTextWidth);
}

TEST_CASE("text: at most three links per candidate, then how many more") {
  Report report = StepsFixture();
  report.candidates = RankCandidates(report, std::nullopt);
  std::string entries;
  for (int rank = 0; rank < 5; ++rank) {
    entries += (rank ? "," : "") + Cube(rank, R"("operator": "all_gather")", kQuiet);
  }
  LinkAudit(Parsed("[" + entries + "]"), report.candidates);
  std::ostringstream out;
  WriteCandidatesText(report, out);
  // 5 all_gather entries link to tp_communication: 3 shown, 5 - 3 = 2 more.
  CHECK(Contains(out.str(), "     - and 2 more (the JSON report lists all)\n"));
  CHECK(report.candidates[0].audit->links.size() == 5);
}

TEST_CASE("text without --audit has no audit column") {
  Report report = StepsFixture();
  report.candidates = RankCandidates(report, std::nullopt);
  std::ostringstream out;
  WriteCandidatesText(report, out);
  CHECK_FALSE(Contains(out.str(), "audit"));
}

TEST_CASE("JSON: an audit object per candidate with every link") {
  std::ostringstream out;
  JsonWriter json(out);
  json.BeginObject();
  WriteCandidatesJson(json, Linked());
  json.EndObject();
  const JsonValue parsed = JsonValue::Parse(out.str());
  const JsonValue& tp = parsed["candidates"][0];
  REQUIRE(tp["kind"].string() == "tp_communication");
  const JsonValue& audit = tp["audit"];
  CHECK(audit["file"].string() == "audit.json");
  CHECK(audit["drifted"].boolean());
  REQUIRE(audit["links"].array().size() == 2);
  const JsonValue& link = audit["links"][1];
  std::set<std::string> keys;
  for (const auto& [key, value] : link.object()) keys.insert(key);
  CHECK(keys == std::set<std::string>{"rule_id", "matched", "rank", "operator", "backend_id",
                                      "contract_id", "status", "max_abs_dlogp", "dlogp_warnings",
                                      "fallback", "strict_failure"});
  CHECK(link["rule_id"].string() == "A1");
  CHECK(link["matched"].string() == "all_reduce");
  CHECK(link["rank"].number() == 1);
  CHECK(link["operator"].string() == "custom_all_reduce");
  CHECK(link["backend_id"].string() == "vllm.custom_ar");
  CHECK(link["contract_id"].string() == "rlk.comm.v1");
  CHECK(link["status"].string() == "warning");
  CHECK(link["max_abs_dlogp"].number() == 0.25);
  CHECK(link["dlogp_warnings"].number() == 2);
  CHECK_FALSE(link["fallback"].boolean());
  CHECK_FALSE(link["strict_failure"].boolean());

  const JsonValue& idle = parsed["candidates"][1];
  REQUIRE(idle["kind"].string() == "host_idle");
  CHECK_FALSE(idle["audit"]["drifted"].boolean());
  CHECK(idle["audit"]["links"].array().empty());
}

TEST_CASE("Markdown and HTML: the candidates table's evidence ends with the audit") {
  const ReportTable table = CandidatesTable(Linked());
  REQUIRE(table.rows.size() == 4);
  // The worst link of tp_communication, and how many more there are.
  CHECK(Contains(table.rows[0].back().text,
                 "; audit drift: allreduce on rank 2 (failure, max |dlogp| 0.125, strict "
                 "failure) +1 more"));
  CHECK(Contains(table.rows[1].back().text, "; audit: no audited operator relates"));
  CHECK(Contains(table.rows[2].back().text,
                 "; audit drift: linear_logp on rank 0 (warning, max |dlogp| 0.5"));
  CHECK(table.rows[2].back().text.ends_with(" +1 more"));
  CHECK(Contains(table.rows[3].back().text, "; audit: RMSNorm on rank 0 (pass, max |dlogp| 0)"));
}

TEST_CASE("vprof report --audit: a bad file is a usage error naming it, before any trace") {
  ScratchDir dir;
  const std::string path = dir.File("audit.json");
  WriteFile(path, R"({"metrics": [], "runtime_provenance": {}})");
  const CliResult bad = Run({"report", dir.path(), "--audit", path});
  CHECK(bad.status == kExitUsage);
  CHECK(bad.err == "vprof: report: bad audit: " + path +
                       ": key 'metrics': expected an object, got an array\n");

  const CliResult missing = Run({"report", dir.path(), "--audit", dir.File("none.json")});
  CHECK(missing.status == kExitUsage);
  CHECK(Contains(missing.err, "vprof: report: bad audit: " + dir.File("none.json") +
                                  ": cannot read: No such file or directory (the audit)"));
  // A FIFO given as the audit is refused at once, not waited on.
  const std::string fifo = dir.File("audit.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const CliResult from_fifo = Run({"report", dir.path(), "--audit", fifo});
  CHECK(from_fifo.status == kExitUsage);
  CHECK(Contains(from_fifo.err, fifo + " is a FIFO, not a regular file: name a regular file"));

  CHECK(Run({"report", dir.path(), "--audit"}).status == kExitUsage);
}

TEST_CASE("vprof report --audit: the JSON report links a real trace's candidate") {
  // One rank, 100 elementwise kernels of 5 µs and no steps: the launch-bound
  // candidate (100 per window at a 5 µs mean, the detector's thresholds).
  ScratchDir dir;
  TraceFileBuilder trace("node1", 500, 0);
  AddGpuCaptureStatus(trace, vprof::trace::GPU_CAPTURE_ACTIVE);
  GpuBatchBuilder batch(trace);
  for (int i = 0; i < 100; ++i) batch.Kernel("vectorized_elementwise_kernel<add>", 5000);
  batch.Write();
  trace.AddFooter();
  trace.WriteTo(dir.File("node1.500.vtrace"));
  const std::string audit = dir.File("audit.json");
  WriteFile(audit, Cube(0, R"("operator": "swiglu", "backend_id": "rlk.swiglu.fused")",
                        R"("max_abs_dlogp": 0.5, "warning_count": 3.0)"));

  const CliResult result = Run({"report", dir.path(), "--format", "json", "--audit", audit});
  INFO(result.err);
  REQUIRE(result.status == kExitOk);
  const JsonValue report = JsonValue::Parse(result.out);
  REQUIRE(report["candidates"].array().size() == 1);
  const JsonValue& candidate = report["candidates"][0];
  CHECK(candidate["kind"].string() == "launch_bound_kernels");
  CHECK(candidate["strict"].string() == "eligible");  // S1, drift or not
  CHECK(candidate["audit"]["file"].string() == audit);
  CHECK(candidate["audit"]["drifted"].boolean());  // 3 dlogp warnings: warning
  REQUIRE(candidate["audit"]["links"].array().size() == 1);
  CHECK(candidate["audit"]["links"][0]["matched"].string() == "swiglu");
  CHECK(candidate["audit"]["links"][0]["backend_id"].string() == "rlk.swiglu.fused");
  CHECK(candidate["audit"]["links"][0]["max_abs_dlogp"].number() == 0.5);
}
