// The command line end to end: exit status, messages naming the file and
// byte, and the JSON output read back with an independent parser.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_runner.h"
#include "common/vprof_build_info.h"
#include "four_rank_run.h"
#include "mini_json.h"
#include "reporter/cli/cli.h"
#include "scratch_dir.h"
#include "trace_file_builder.h"
#include "vprof_trace_fields.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {

// Rewrites rank 1's trace of the four-rank run cut `bytes_into` its third
// batch (seq 3, 4 and the destroy); returns where that batch starts.
uint64_t CutRankOne(const std::string& directory, uint64_t bytes_into) {
  TraceFileBuilder trace("node1", 102);
  trace.AddCommunicator(kFourRankComm, 4, 1, "ncclCommInitRank");
  trace.AddBatch({trace.Event("ncclAllReduce", kFourRankComm, 4, 1, 1, 1 << 20, 1100, 101300)});
  const uint64_t batch_start = trace.bytes().size();
  trace.AddBatch({trace.Event("ncclAllReduce", kFourRankComm, 4, 1, 2, 1 << 20, 200100, 250400)});
  trace.AddFooter();
  trace.WriteTo(directory + "/" + FourRankFile(1), batch_start + bytes_into);
  return batch_start;
}

// Rewrites rank 1's trace of the four-rank run with `raw` after its
// communicator, then two all-reduces and the Footer; returns where `raw` starts.
uint64_t DamageRankOne(const std::string& directory, std::string_view raw) {
  TraceFileBuilder trace("node1", 102);
  trace.AddCommunicator(kFourRankComm, 4, 1, "ncclCommInitRank");
  const uint64_t raw_start = trace.bytes().size();
  trace.AddRawBytes(raw);
  trace.AddBatch({trace.Event("ncclAllReduce", kFourRankComm, 4, 1, 1, 1 << 20, 1100, 101300),
                  trace.Event("ncclAllReduce", kFourRankComm, 4, 1, 2, 1 << 20, 200100, 250400)});
  trace.AddFooter();
  trace.WriteTo(directory + "/" + FourRankFile(1));
  return raw_start;
}

}  // namespace

TEST_CASE("help and usage errors") {
  CHECK(Run({"--help"}).status == kExitOk);
  CHECK(Contains(Run({"help"}).out, "report DIR"));
  CHECK(Contains(Run({"help", "report"}).out, "--format text|json"));
  CHECK(Contains(Run({"report", "--help"}).out, "--output FILE"));

  const CliResult none = Run({});
  CHECK(none.status == kExitUsage);
  CHECK(Contains(none.err, "usage: vprof"));
  const CliResult unknown = Run({"frobnicate"});
  CHECK(unknown.status == kExitUsage);
  CHECK(Contains(unknown.err, "vprof: unknown command 'frobnicate'"));

  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const CliResult flag = Run({"report", dir.path(), "--colour"});
  CHECK(flag.status == kExitUsage);
  CHECK(Contains(flag.err, "vprof: report: unknown option '--colour'"));
  CHECK(Run({"report", dir.path(), "--format", "xml"}).status == kExitUsage);
  CHECK(Run({"report", dir.path(), "--format"}).status == kExitUsage);
  CHECK(Run({"report"}).status == kExitUsage);
  CHECK(Run({"report", dir.path(), dir.path()}).status == kExitUsage);
}

TEST_CASE("vprof help lists every exit status a command's help names") {
  const std::string help = Run({"help"}).out;
  const size_t table = help.find("exit statuses");
  REQUIRE(table != std::string::npos);
  for (const char* command : {"report", "export", "diff", "whatif", "run", "slurm", "trigger"}) {
    const std::string text = Run({"help", command}).out;
    const size_t at = text.find("\nexit status");  // the paragraph, not a mention
    REQUIRE(at != std::string::npos);
    // Every number from "exit status" on that can be a status (128+N is a signal's).
    const std::regex number(R"((\d+)(\+N)?)");
    for (auto it = std::sregex_iterator(text.begin() + static_cast<long>(at), text.end(), number);
         it != std::sregex_iterator(); ++it) {
      if ((*it)[2].matched || std::stoi((*it)[1]) > 127) continue;
      INFO(command << " names exit status " << (*it)[1]);
      CHECK(Contains(help.substr(table), "\n  " + (*it)[1].str() + " "));
    }
  }
}

TEST_CASE("--sections and --brief print only some sections of the text report, and say so") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const std::string whole = Run({"report", dir.path()}).out;
  // The headings of the four-rank run's text report, each present in the whole report.
  const std::string summary = "\nSummary (", ranks = "\nRanks (", processes = "\nProcesses";
  const std::string communicator = "\nCommunicator 0xabc:";
  for (const std::string& heading : {summary, ranks, processes, communicator}) {
    INFO(heading);
    REQUIRE(Contains(whole, heading));
  }
  const CliResult part = Run({"report", dir.path(), "--sections", "ranks,processes"});
  CHECK(part.status == kExitOk);
  CHECK(Contains(part.out, ranks));
  CHECK(Contains(part.out, processes));
  CHECK_FALSE(Contains(part.out, summary));
  CHECK_FALSE(Contains(part.out, communicator));
  CHECK(Contains(part.out, "(sections shown: processes ranks; every section: without --sections"));
  // The ranks section is the whole report's, byte for byte.
  const size_t from = whole.find(ranks);
  const std::string ranks_text = whole.substr(from, whole.find("\n\n", from + 1) - from);
  CHECK(Contains(part.out, ranks_text));

  const CliResult brief = Run({"report", dir.path(), "--brief"});
  CHECK(Contains(brief.out, summary));
  CHECK_FALSE(Contains(brief.out, ranks));
  CHECK(Contains(brief.out, "(sections shown: summary candidates;"));
  CHECK_FALSE(Contains(whole, "(sections shown"));

  const CliResult bad = Run({"report", dir.path(), "--sections", "ranks,gpus"});
  CHECK(bad.status == kExitUsage);
  CHECK(Contains(bad.err, "--sections: 'gpus' is not a section (expected some of summary run"));
  const CliResult json = Run({"report", dir.path(), "--brief", "--format", "json"});
  CHECK(json.status == kExitUsage);
  CHECK(Contains(json.err, "--sections and --brief choose the text report's sections"));
}

TEST_CASE("DIR that is missing, not a directory or without traces is a usage error") {
  ScratchDir dir;
  const CliResult missing = Run({"report", dir.File("nope")});
  CHECK(missing.status == kExitUsage);
  CHECK(Contains(missing.err, "vprof: " + dir.File("nope") + ": no such directory"));

  std::ofstream(dir.File("plain")) << "x";
  const CliResult plain = Run({"report", dir.File("plain")});
  CHECK(plain.status == kExitUsage);
  CHECK(Contains(plain.err, dir.File("plain") + ": not a directory"));

  const CliResult empty = Run({"report", dir.path()});  // holds only "plain"
  CHECK(empty.status == kExitUsage);
  CHECK(Contains(empty.err, dir.path() + ": no *.vtrace files"));
  CHECK(empty.out.empty());
}

TEST_CASE("whole traces exit 0") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const CliResult result = Run({"report", dir.path()});
  CHECK(result.status == kExitOk);
  CHECK(result.err.empty());
  CHECK(Contains(result.out, "Communicator 0xabc"));
}

TEST_CASE("a cut file is named with the byte where it breaks, used up to there, exit 3") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const uint64_t batch_start = CutRankOne(dir.path(), 7);
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  CHECK(result.status == kExitInputNotWhole);
  const std::string file = dir.File(FourRankFile(1));
  CHECK(Contains(result.err, "vprof: " + file + ": cut at byte " + std::to_string(batch_start) +
                                 ": incomplete packet"));

  const JsonValue report = JsonValue::Parse(result.out);
  CHECK_FALSE(report["all_inputs_whole"].boolean());
  const JsonValue& rank1 = report["processes"][2];
  CHECK(rank1["file"].string() == FourRankFile(1));
  CHECK(rank1["state"].string() == "cut");
  CHECK_FALSE(rank1["whole"].boolean());
  CHECK(rank1["end_reason"].is_null());
  CHECK(rank1["nccl_events"].number() == 1);
  // seq 1 (before the cut) still matched across all four ranks; seq 2 on is
  // missing rank 1.
  const JsonValue& comm = report["communicators"][0];
  const JsonValue& op = comm["ops"][0];
  CHECK(op["op"].string() == "ncclAllReduce");
  CHECK(op["size_bucket"]["label"].string() == "[1MiB,2MiB)");
  CHECK(op["count"].number() == 1);
  CHECK(op["total_time_ns"].number() == 100000);
  const JsonValue& incomplete = comm["incomplete"][0];
  CHECK(incomplete["first_seq"].number() == 2);
  CHECK(incomplete["last_seq"].number() == 3);
  CHECK(incomplete["missing_comm_ranks"][0].string() == "1");
}

TEST_CASE("a file without a footer is cut at its end") {
  ScratchDir dir;
  TraceFileBuilder trace("node1", 7, 0);
  trace.AddBatch({trace.Event("ncclAllReduce", 1, 1, 0, 1, 8, 10, 20)});
  trace.WriteTo(dir.File("node1.7.vtrace"));
  const CliResult result = Run({"report", dir.path()});
  CHECK(result.status == kExitInputNotWhole);
  CHECK(Contains(result.err, "node1.7.vtrace: cut at byte " + std::to_string(trace.bytes().size()) +
                                 ": no Footer packet"));
}

TEST_CASE("bytes that frame no packet are named with their byte, exit 3") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const uint64_t bad = DamageRankOne(dir.path(), std::string("\x12\x02\x08\x01", 4));  // field 2
  const CliResult result = Run({"report", dir.path()});
  CHECK(result.status == kExitInputNotWhole);
  CHECK(Contains(result.err, FourRankFile(1) + ": corrupt packet at byte " + std::to_string(bad)));
}

TEST_CASE("a damaged packet is skipped and counted; the packets after it are used, exit 3") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  // A framed packet holding a varint that never ends.
  const uint64_t bad = DamageRankOne(dir.path(), std::string("\x0a\x02\xff\xff", 4));
  const CliResult result = Run({"report", dir.path(), "--format=json"});
  CHECK(result.status == kExitInputNotWhole);
  CHECK(Contains(result.err, FourRankFile(1) +
                                 ": 1 packet does not parse as a TracePacket (at byte " +
                                 std::to_string(bad) + "): skipped"));
  const JsonValue report = JsonValue::Parse(result.out);
  const JsonValue* rank_one = nullptr;
  for (const JsonValue& process : report["processes"].array()) {
    if (process["file"].string() == FourRankFile(1)) rank_one = &process;
  }
  REQUIRE(rank_one != nullptr);
  CHECK((*rank_one)["unreadable_packets"].number() == 1);
  CHECK((*rank_one)["state"].string() == "corrupt");
  CHECK((*rank_one)["end_reason"].string() == "exit");  // the Footer after it was read
  CHECK((*rank_one)["nccl_events"].number() == 2);
  CHECK(Run({"report", dir.path()}).out.find("1 packet does not parse") != std::string::npos);
}

TEST_CASE("a newer format_version is skipped with a message, exit 3") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  TraceFileBuilder future("node1", 102, std::nullopt, vprof::schema::kFormatVersion + 1);
  future.AddBatch({future.Event("ncclAllReduce", kFourRankComm, 4, 1, 1, 1 << 20, 1100, 101300)});
  future.AddFooter();
  future.WriteTo(dir.File(FourRankFile(1)));
  const CliResult result = Run({"report", dir.path(), "--format=json"});
  CHECK(result.status == kExitInputNotWhole);
  CHECK(Contains(result.err, FourRankFile(1) + ": format_version " +
                                 std::to_string(vprof::schema::kFormatVersion + 1) +
                                 " is newer than this vprof reads"));
  const JsonValue report = JsonValue::Parse(result.out);
  CHECK(report["processes"][2]["state"].string() == "newer_format");
  CHECK(report["processes"][2]["nccl_events"].number() == 0);
  CHECK(report["communicators"][0]["ops"].array().empty());  // rank 1 never arrives
}

TEST_CASE("JSON output holds the report's values") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const CliResult result = Run({"report", dir.path(), "--format", "json"});
  REQUIRE(result.status == kExitOk);
  const JsonValue report = JsonValue::Parse(result.out);
  CHECK(report["report_version"].number() == 3);
  CHECK(report["directory"].string() == dir.path());
  CHECK(report["all_inputs_whole"].boolean());
  CHECK(report["time_source"]["clock"].string() == "monotonic");
  CHECK(report["time_source"]["hosts"][0].string() == "node1");
  CHECK(report["processes"].array().size() == 5);
  CHECK_FALSE(report["processes"][0]["is_rank"].boolean());
  CHECK(report["processes"][0]["rank"].is_null());

  const JsonValue& comm = report["communicators"][0];
  CHECK(comm["comm_id"].string() == "0xabc");
  CHECK(comm["size"].number() == 4);
  CHECK(comm["created_by"].string() == "ncclCommInitRank");
  CHECK(comm["parent_comm_id"].is_null());
  CHECK(comm["lifecycle"][0]["total_ns"].number() == 1000);

  const JsonValue& big = comm["ops"][1];  // all-reduce, [1MiB,2MiB)
  CHECK(big["size_bucket"]["min_bytes"].number() == 1048576);
  CHECK(big["size_bucket"]["max_bytes"].number() == 2097152);
  CHECK(big["count"].number() == 2);
  CHECK(big["total_time_ns"].number() == 150000);
  CHECK(big["algbw_gbps"].number() == Approx(2097152.0 / 150000.0));
  CHECK(big["busbw_gbps"].number() == Approx(2097152.0 / 150000.0 * 1.5));
  CHECK(big["bus_factor"].number() == 1.5);
  CHECK(big["arrival_skew_mean_ns"].number() == 350);
  CHECK(big["most_often_last"]["rank"].number() == 2);
  CHECK(big["most_often_last"]["times"].number() == 2);

  CHECK(report["ranks"][2]["rank"].number() == 2);
  CHECK(report["ranks"][2]["last_arrivals"].number() == 3);
  CHECK(report["ranks"][2]["mean_lateness_ns"].number() == 300);
}

TEST_CASE("--output writes the report to a file") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const std::string output = dir.File("report.txt");
  const CliResult result = Run({"report", "--output", output, dir.path()});
  CHECK(result.status == kExitOk);
  CHECK(result.out.empty());
  std::ifstream file(output);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(Contains(text, "Communicator 0xabc"));

  const CliResult unwritable = Run({"report", dir.path(), "--output", dir.File("no/such/dir")});
  CHECK(unwritable.status == kExitFailure);
  CHECK(Contains(unwritable.err, "vprof: cannot write " + dir.File("no/such/dir")));
}

TEST_CASE("-o is --output; '-' is standard output") {
  ScratchDir dir;
  WriteFourRankRun(dir.path());
  const std::string output = dir.File("short.txt");
  CHECK(Run({"report", "-o", output, dir.path()}).status == kExitOk);
  std::ifstream file(output);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  CHECK(Contains(text, "Communicator 0xabc"));

  const CliResult dash = Run({"report", dir.path(), "--output", "-"});
  CHECK(dash.status == kExitOk);
  CHECK(Contains(dash.out, "Communicator 0xabc"));
  CHECK_FALSE(std::filesystem::exists("-"));
}

TEST_CASE("--version names the version and the build") {
  const CliResult result = Run({"--version"});
  CHECK(result.status == kExitOk);
  CHECK(result.out ==
        std::string("vprof ") + vprof::kVprofVersion + " (build " + vprof::kVprofBuildId + ")\n");
  CHECK(std::string(vprof::kVprofVersion).find('.') != std::string::npos);
  CHECK_FALSE(std::string(vprof::kVprofBuildId).empty());
}
