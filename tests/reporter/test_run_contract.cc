// The run contract read from JSON: defaults, names compared as NCCL compares
// them, every mistake named with its field and what was expected; the JSON
// reader's own errors with line and column; NCCL_ALGO/NCCL_PROTO as NCCL reads
// them.
#include <catch2/catch.hpp>
#include <fstream>

#include "reporter/base/json_node.h"
#include "reporter/consistency/nccl_selection.h"
#include "reporter/consistency/run_contract.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

RunContract Parsed(const std::string& text) {
  const RunContractLoad load = ParseRunContract(text, "c.json");
  INFO(load.error);
  REQUIRE(load.contract);
  return *load.contract;
}

std::string ErrorOf(const std::string& text) {
  const RunContractLoad load = ParseRunContract(text, "c.json");
  CHECK_FALSE(load.contract);
  return load.error;
}

}  // namespace

TEST_CASE("a contract with only its version takes the defaults") {
  const RunContract contract = Parsed(R"({"version": 1})");
  CHECK(contract.file == "c.json");
  CHECK(contract.consistency == ConsistencyMode::kAuto);
  CHECK(contract.nccl_algorithms.empty());
  CHECK(contract.nccl_protocols.empty());
  CHECK_FALSE(contract.min_channels);
  CHECK_FALSE(contract.max_channels);
  CHECK_FALSE(contract.custom_allreduce_allowed);
  CHECK_FALSE(contract.all_reduce_backend);
  CHECK(contract.fallback_axes.empty());
  CHECK(CanonicalJson(contract.ToJson()) ==
        R"({"all_reduce_backend":null,"consistency":"auto","custom_allreduce_allowed":false,)"
        R"("fallback_axes":[],"nccl":{"algorithms":null,"channels":null,"protocols":null},)"
        R"("version":1})");
}

TEST_CASE("every field of a contract") {
  const RunContract contract = Parsed(R"({
    "version": 1,
    "consistency": "strict",
    "nccl": {"algorithms": ["Ring", "nvls_tree"], "protocols": ["simple", "LL128"],
             "channels": {"min": 2, "max": 16}},
    "custom_allreduce_allowed": true,
    "all_reduce_backend": "custom_allreduce",
    "fallback_axes": ["nccl_proto", "all_reduce_backend", "nccl_proto"]
  })");
  CHECK(contract.consistency == ConsistencyMode::kStrict);
  CHECK(contract.nccl_algorithms == std::set<std::string>{"NVLSTREE", "RING"});
  CHECK(contract.nccl_protocols == std::set<std::string>{"LL128", "SIMPLE"});
  CHECK(contract.min_channels == 2u);
  CHECK(contract.max_channels == 16u);
  CHECK(contract.custom_allreduce_allowed);
  CHECK(contract.all_reduce_backend == AllReduceBackend::kCustomAllReduce);
  CHECK(contract.fallback_axes ==
        std::set<ConsistencyAxis>{ConsistencyAxis::kNcclProto, ConsistencyAxis::kAllReduceBackend});
  CHECK(CanonicalJson(contract.ToJson()) ==
        R"({"all_reduce_backend":"custom_allreduce","consistency":"strict",)"
        R"("custom_allreduce_allowed":true,"fallback_axes":["nccl_proto","all_reduce_backend"],)"
        R"("nccl":{"algorithms":["NVLSTREE","RING"],"channels":{"max":16,"min":2},)"
        R"("protocols":["LL128","SIMPLE"]},"version":1})");
}

TEST_CASE("a mistake in a contract names its field and what was expected") {
  CHECK(ErrorOf(R"({})") == "c.json: field 'version': missing; expected 1");
  CHECK(ErrorOf(R"({"version": 2})") == "c.json: field 'version': expected 1, got 2");
  CHECK(ErrorOf(R"({"version": "1"})") == "c.json: field 'version': expected 1, got \"1\"");
  CHECK(ErrorOf(R"([1])") == "c.json: expected a JSON object at the top, got an array");
  CHECK(ErrorOf(R"({"version": 1, "consistency": "paranoid"})") ==
        "c.json: field 'consistency': expected off, auto or strict, got \"paranoid\"");
  CHECK(ErrorOf(R"({"version": 1, "nccl": {"algos": ["Ring"]}})") ==
        "c.json: field 'nccl.algos': unknown field; expected one of algorithms, protocols or "
        "channels");
  CHECK(ErrorOf(R"({"version": 1, "strict": true})") ==
        "c.json: field 'strict': unknown field; expected one of version, consistency, nccl, "
        "custom_allreduce_allowed, all_reduce_backend, fallback_axes or alignment");
  CHECK(ErrorOf(R"({"version": 1, "alignment": {"profile": "A9", "reference": "r"}})") ==
        "c.json: field 'alignment.profile': expected one of A0, A1, A2, A3, A4, A5, got \"A9\"");
  CHECK(ErrorOf(R"({"version": 1, "alignment": {"profile": "A1"}})") ==
        "c.json: field 'alignment.reference': expected the reference run's directory");
  CHECK(ErrorOf(R"({"version": 1, "alignment": {"profile": "A1", "ref": "r"}})") ==
        "c.json: field 'alignment.ref': unknown field; expected one of profile or reference");
  CHECK(ErrorOf(R"({"version": 1, "nccl": {"algorithms": ["Ring", "Rign"]}})") ==
        "c.json: field 'nccl.algorithms[1]': expected one of Ring, Tree, CollnetDirect, "
        "CollnetChain, NVLS, NVLSTree or PAT (case ignored), got \"Rign\"");
  CHECK(ErrorOf(R"({"version": 1, "nccl": {"protocols": []}})") ==
        "c.json: field 'nccl.protocols': expected a non-empty array of names from LL, LL128 or "
        "Simple, got an array");
  CHECK(ErrorOf(R"({"version": 1, "nccl": {"channels": {"min": 0}}})") ==
        "c.json: field 'nccl.channels.min': expected an integer ≥ 1, got 0");
  CHECK(ErrorOf(R"({"version": 1, "nccl": {"channels": {"min": 8, "max": 4}}})") ==
        "c.json: field 'nccl.channels.max': expected an integer ≥ 8, got 4");
  CHECK(ErrorOf(R"({"version": 1, "nccl": {"channels": {"max": 2.5}}})") ==
        "c.json: field 'nccl.channels.max': expected an integer ≥ 1, got 2.5");
  CHECK(ErrorOf(R"({"version": 1, "custom_allreduce_allowed": "yes"})") ==
        "c.json: field 'custom_allreduce_allowed': expected true or false, got \"yes\"");
  CHECK(ErrorOf(R"({"version": 1, "all_reduce_backend": "custom_allreduce"})") ==
        "c.json: field 'custom_allreduce_allowed': expected true when all_reduce_backend is "
        "\"custom_allreduce\"");
  CHECK(ErrorOf(R"({"version": 1, "fallback_axes": ["nccl_algo", "topology"]})") ==
        "c.json: field 'fallback_axes[1]': expected nccl_algo, nccl_proto, nccl_channels or "
        "all_reduce_backend, got \"topology\"");
  CHECK(ErrorOf(R"({"version": 1,})") ==
        "c.json: not valid JSON: line 1, column 15: expected a key in double quotes");
  CHECK(ErrorOf("{\"version\": 1,\n \"version\": 1}") ==
        "c.json: not valid JSON: line 2, column 2: key \"version\" appears twice in one object");
}

TEST_CASE("a declared alignment is read, and only a contract that declares it fingerprints it") {
  const auto load = ParseRunContract(
      R"({"version": 1, "alignment": {"profile": "A2", "reference": "/runs/a"}})", "c.json");
  REQUIRE(load.contract);
  REQUIRE(load.contract->alignment);
  CHECK(load.contract->alignment->profile == "A2");
  CHECK(load.contract->alignment->reference == "/runs/a");
  CHECK(load.contract->ToJson().object().count("alignment") == 1);
  const auto plain = ParseRunContract(R"({"version": 1})", "c.json");
  REQUIRE(plain.contract);
  CHECK(plain.contract->ToJson().object().count("alignment") == 0);
}

TEST_CASE("contract files: read, missing, a directory") {
  ScratchDir dir;
  std::ofstream(dir.File("run.json")) << R"({"version": 1, "consistency": "off"})";
  const RunContractLoad good = LoadRunContract(dir.File("run.json"));
  REQUIRE(good.contract);
  CHECK(good.contract->file == dir.File("run.json"));
  CHECK(good.contract->consistency == ConsistencyMode::kOff);
  CHECK(LoadRunContract(dir.File("none.json")).error ==
        dir.File("none.json") + ": cannot read: No such file or directory (the contract)");
  CHECK(LoadRunContract(dir.path()).error == dir.path() + ": is a directory, not a contract file");
}

TEST_CASE("JSON reading: values, escapes and errors with line and column") {
  const JsonParse parsed = ParseJson(R"( {"a": [1, -2.5e1, "\u00e9\ud83d\ude00\t", true, null]} )");
  REQUIRE(parsed.value);
  const JsonNode::Array& a = parsed.value->object().at("a").array();
  REQUIRE(a.size() == 5);
  CHECK(a[0].integer() == 1);
  CHECK_FALSE(a[1].integer());
  CHECK(a[1].number() == -25.0);
  CHECK(a[2].text() == "\xc3\xa9\xf0\x9f\x98\x80\t");
  CHECK(a[3].boolean());
  CHECK(a[4].type() == JsonNode::Type::kNull);

  CHECK(ParseJson("").error == "line 1, column 1: unexpected end of text, expected a value");
  CHECK(ParseJson("[1 2]").error == "line 1, column 4: expected ',' or ']' in an array");
  CHECK(ParseJson("{} x").error == "line 1, column 4: unexpected text after the JSON value");
  CHECK(ParseJson("[01]").error == "line 1, column 2: a number with a leading zero");
  CHECK(ParseJson("\"\\x\"").error == "line 1, column 3: unknown escape '\\x'");
  CHECK(ParseJson("[\"\\ud800\"]").error ==
        "line 1, column 9: a \\u high surrogate without its low surrogate");
  CHECK(ParseJson(std::string(100, '[')).error == "line 1, column 66: nested too deeply");
}

TEST_CASE("NCCL_ALGO and NCCL_PROTO are read as NCCL reads them") {
  const NcclSelection ring = NcclSelection::Parse("Ring");
  CHECK(ring.Allows("AllReduce", "RING"));
  CHECK_FALSE(ring.Allows("AllReduce", "TREE"));

  const NcclSelection not_nvls = NcclSelection::Parse("^NVLS,nvlstree");
  CHECK(not_nvls.Allows("AllGather", "RING"));
  CHECK_FALSE(not_nvls.Allows("AllGather", "NVLS"));
  CHECK_FALSE(not_nvls.Allows("AllGather", "NVLS_TREE"));

  // A list for all functions, then lists for single ones.
  const NcclSelection mixed =
      NcclSelection::Parse("ring,collnetdirect;allreduce:tree; broadcast:^ring");
  CHECK(mixed.Allows("AllGather", "COLLNET_DIRECT"));
  CHECK_FALSE(mixed.Allows("AllGather", "TREE"));
  CHECK(mixed.Allows("AllReduce", "TREE"));
  CHECK_FALSE(mixed.Allows("AllReduce", "RING"));
  CHECK_FALSE(mixed.Allows("Broadcast", "RING"));
  CHECK(mixed.Allows("Broadcast", "TREE"));

  // Only one function named: the others are free.
  const NcclSelection only_allreduce = NcclSelection::Parse("allreduce:LL128");
  CHECK(only_allreduce.Allows("AllReduce", "LL128"));
  CHECK_FALSE(only_allreduce.Allows("AllReduce", "SIMPLE"));
  CHECK(only_allreduce.Allows("ReduceScatter", "SIMPLE"));

  CHECK(NormalizeNcclName(" NVLS_Tree ") == "NVLSTREE");
}
