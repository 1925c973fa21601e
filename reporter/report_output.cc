#include "reporter/report_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "reporter/exit_status.h"
#include "reporter/json_report.h"
#include "reporter/text_report.h"

namespace vprof::reporter {

OptionUse TakeOutputOption(ArgCursor& args, ReportOutput& output) {
  if (args.name() == "--format") {
    const auto format = args.Value();
    if (!format) return OptionUse::kBad;
    if (*format != "text" && *format != "json") {
      args.Complain("--format must be text or json, not '" + *format + "'");
      return OptionUse::kBad;
    }
    output.json = *format == "json";
    return OptionUse::kTaken;
  }
  if (args.name() == "--output") {
    output.file = args.Value();
    return output.file ? OptionUse::kTaken : OptionUse::kBad;
  }
  return OptionUse::kNotMine;
}

std::string ReportFileIn(const std::string& folder, bool json) {
  return (std::filesystem::path(folder) / (json ? "report.json" : "report.txt")).string();
}

int EmitReport(const Report& report, const ReportOutput& output, std::ostream& out,
               std::ostream& err) {
  for (const ProcessReport& process : report.processes) {
    if (process.problem.empty()) continue;
    err << "vprof: " << (std::filesystem::path(report.directory) / process.file).string() << ": "
        << process.problem << '\n';
  }
  const auto write = [&](std::ostream& to) {
    output.json ? WriteJsonReport(report, to) : WriteTextReport(report, to);
  };
  if (output.file) {
    std::ofstream file(*output.file, std::ios::out | std::ios::trunc);
    if (file) write(file);
    file.close();
    if (!file) {
      err << "vprof: cannot write " << *output.file << ": " << std::strerror(errno) << '\n';
      return kExitFailure;
    }
  } else {
    write(out);
    if (!out.flush()) {
      err << "vprof: cannot write the report to standard output\n";
      return kExitFailure;
    }
  }
  return report.all_inputs_whole() ? kExitOk : kExitInputNotWhole;
}

int EmitReportIntoFolder(const Report& report, const std::string& folder, bool json,
                         std::ostream& out, std::ostream& err) {
  const ReportOutput output{json, ReportFileIn(folder, json)};
  const int status = EmitReport(report, output, out, err);
  if (status != kExitFailure) err << "vprof: report written to " << *output.file << '\n';
  return status;
}

}  // namespace vprof::reporter
