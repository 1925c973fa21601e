// `vprof export` on the command line: help, usage errors and failures with the
// exit statuses `vprof report` uses.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "export_trace_builder.h"
#include "reporter/base/exit_status.h"
#include "reporter/cli/cli.h"
#include "scratch_dir.h"

using namespace vprof::reporter;
using namespace vprof::reporter::testing;

namespace {}  // namespace

TEST_CASE("export: help") {
  CHECK(Contains(Run({"help"}).out, "export --format chrome|perfetto|hta"));
  const CliResult help = Run({"help", "export"});
  CHECK(help.status == kExitOk);
  CHECK(
      Contains(help.out, "usage: vprof export --format chrome|perfetto|hta [-o OUT] [--ranks R]"));
  CHECK(Contains(Run({"export", "--help"}).out, "rank-<R>.json"));
}

TEST_CASE("export: usage errors exit 2 and say why") {
  ScratchDir dir;
  export_run::Write(dir.path());
  const CliResult no_format = Run({"export", dir.path()});
  CHECK(no_format.status == kExitUsage);
  CHECK(Contains(no_format.err, "vprof: export: missing --format chrome|perfetto|hta"));
  const CliResult bad_format = Run({"export", "--format=xml", dir.path()});
  CHECK(bad_format.status == kExitUsage);
  CHECK(Contains(bad_format.err, "--format must be chrome, perfetto or hta, not 'xml'"));
  CHECK(Run({"export", "--format"}).status == kExitUsage);
  CHECK(Run({"export", "--format", "chrome"}).status == kExitUsage);
  CHECK(Run({"export", "--format", "chrome", dir.path(), dir.path()}).status == kExitUsage);
  CHECK(Run({"export", "--format", "chrome", "-o"}).status == kExitUsage);
  const CliResult unknown = Run({"export", "--format", "hta", "--gzip", dir.path()});
  CHECK(unknown.status == kExitUsage);
  CHECK(Contains(unknown.err, "vprof: export: unknown option '--gzip'"));

  const CliResult missing = Run({"export", "--format", "chrome", dir.File("nope")});
  CHECK(missing.status == kExitUsage);
  CHECK(Contains(missing.err, "vprof: " + dir.File("nope") + ": no such directory"));
  ScratchDir empty;
  const CliResult no_traces = Run({"export", "--format", "hta", empty.path()});
  CHECK(no_traces.status == kExitUsage);
  CHECK(Contains(no_traces.err, "no *.vtrace files"));
}

TEST_CASE("export: an output that cannot be written is a failure (exit 1)") {
  ScratchDir dir;
  export_run::Write(dir.path());
  const CliResult chrome =
      Run({"export", "--format", "chrome", "-o", dir.File("no/such/dir/t.json"), dir.path()});
  CHECK(chrome.status == kExitFailure);
  CHECK(Contains(chrome.err, "vprof: cannot write " + dir.File("no/such/dir/t.json")));

  std::ofstream(dir.File("plain")) << "x";  // a file where the directory should go
  const CliResult hta =
      Run({"export", "--format", "hta", "--output", dir.File("plain"), dir.path()});
  CHECK(hta.status == kExitFailure);
  CHECK(Contains(hta.err, "vprof: cannot create " + dir.File("plain")));
}

TEST_CASE("export: chrome goes to standard output without -o, hta into DIR/hta") {
  ScratchDir dir;
  export_run::Write(dir.path());
  const CliResult chrome = Run({"export", "--format", "chrome", dir.path()});
  CHECK(chrome.status == kExitOk);
  CHECK(chrome.out.starts_with("{\"displayTimeUnit\""));
  CHECK(chrome.err.empty());
  const CliResult hta = Run({"export", "--format", "hta", dir.path()});
  CHECK(hta.status == kExitOk);
  CHECK(std::ifstream(dir.File("hta/rank-1.json")).good());
}
