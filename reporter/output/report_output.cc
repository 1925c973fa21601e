#include "reporter/output/report_output.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "reporter/base/exit_status.h"
#include "reporter/base/safe_file.h"
#include "reporter/base/valid_text_buffer.h"
#include "reporter/base/valid_utf8.h"
#include "reporter/base/visible_controls.h"
#include "reporter/render/clock_description.h"
#include "reporter/render/html/html_page.h"
#include "reporter/render/json/json_page.h"
#include "reporter/render/markdown/markdown_page.h"
#include "reporter/render/text/text_page.h"

namespace vprof::reporter {
namespace {

void WriteReport(const Report& report, const ReportOutput& output, std::ostream& out) {
  switch (output.format) {
    case ReportFormat::kText:
      return WriteTextReport(report, out, output.text_sections);
    case ReportFormat::kJson:
      return WriteJsonReport(report, out);
    case ReportFormat::kMarkdown:
      return WriteMarkdownReport(report, out);
    case ReportFormat::kHtml:
      return WriteHtmlReport(report, out);
  }
}

}  // namespace

std::optional<ReportFormat> ReportFormatNamed(std::string_view name) {
  if (name == "text") return ReportFormat::kText;
  if (name == "json") return ReportFormat::kJson;
  if (name == "markdown") return ReportFormat::kMarkdown;
  if (name == "html") return ReportFormat::kHtml;
  return std::nullopt;
}

OptionUse TakeOutputOption(ArgCursor& args, ReportOutput& output) {
  if (args.name() == "--format") {
    const auto format = args.Value();
    if (!format) return OptionUse::kBad;
    const std::optional<ReportFormat> parsed = ReportFormatNamed(*format);
    if (!parsed) {
      args.Complain("--format must be text, json, markdown or html, not '" + *format + "'");
      return OptionUse::kBad;
    }
    output.format = *parsed;
    return OptionUse::kTaken;
  }
  if (args.name() == "--output" || args.name() == "-o") {
    const std::optional<std::string> file = args.Value();
    if (!file) return OptionUse::kBad;
    // "-": standard output, as the command writes without the option.
    output.file = *file == "-" ? std::nullopt : file;
    return OptionUse::kTaken;
  }
  if (args.name() == "--brief") {
    output.text_sections = kBriefTextSections;
    return OptionUse::kTaken;
  }
  if (args.name() == "--sections") {
    const std::optional<std::string> list = args.Value();
    if (!list) return OptionUse::kBad;
    std::string error;
    const std::optional<TextSections> sections = ParseTextSections(*list, error);
    if (!sections) {
      args.Complain("--sections: " + error);
      return OptionUse::kBad;
    }
    output.text_sections = *sections;
    return OptionUse::kTaken;
  }
  return OptionUse::kNotMine;
}

bool CheckOutputOptions(const ArgCursor& args, const ReportOutput& output) {
  if (output.text_sections != kAllTextSections && output.format != ReportFormat::kText) {
    args.Complain(
        "--sections and --brief choose the text report's sections; the other "
        "formats hold every section");
    return false;
  }
  return true;
}

std::string ReportFileIn(const std::string& folder, ReportFormat format) {
  const char* name = "report.txt";
  if (format == ReportFormat::kJson) name = "report.json";
  if (format == ReportFormat::kMarkdown) name = "report.md";
  if (format == ReportFormat::kHtml) name = "report.html";
  return (std::filesystem::path(folder) / name).string();
}

int EmitReport(const Report& report, const ReportOutput& output, std::ostream& out,
               std::ostream& err) {
  for (const ProcessReport& process : report.processes) {
    if (process.problem.empty()) continue;
    err << "vprof: "
        << ValidUtf8((std::filesystem::path(report.directory) / process.file).string() + ": " +
                     process.problem)
        << '\n';
  }
  for (const FarClock& far : report.time_source.far_clocks) {
    err << "vprof: " << ValidUtf8(report.directory + ": " + FarClockDescription(far)) << '\n';
  }
  // Every format is written through here: the one place its text, names from
  // traces included, is made valid UTF-8 and, in the formats a terminal shows
  // as they are, freed of control characters (HTML shows them as its text
  // escapes do, JSON escapes them in its own syntax). In pieces, as it is
  // written (valid_text_buffer.h).
  const bool shown_raw =
      output.format == ReportFormat::kText || output.format == ReportFormat::kMarkdown;
  const auto render = [&](const PieceSink& sink) {
    ValidTextBuffer valid(sink, shown_raw);
    std::ostream text(&valid);
    WriteReport(report, output, text);
    return valid.Finish();
  };
  const auto into_stream = [](std::ostream& stream) {
    return [&stream](std::string_view piece) {
      return static_cast<bool>(
          stream.write(piece.data(), static_cast<std::streamsize>(piece.size())));
    };
  };
  if (output.file && output.private_file) {
    std::string error;
    if (!WriteFilePrivatelyFrom(*output.file, render, &error)) {
      err << "vprof: " << error << '\n';
      return kExitFailure;
    }
  } else if (output.file) {
    std::ofstream file(*output.file, std::ios::out | std::ios::trunc);
    if (file) render(into_stream(file));
    file.close();
    if (!file) {
      err << "vprof: cannot write " << *output.file << ": " << std::strerror(errno) << '\n';
      return kExitFailure;
    }
  } else {
    render(into_stream(out));
    if (!out.flush()) {
      err << "vprof: cannot write the report to standard output\n";
      return kExitFailure;
    }
  }
  return report.all_inputs_whole() ? kExitOk : kExitInputNotWhole;
}

void SayStrictFailure(const Report& report, std::ostream& err) {
  err << "vprof: report: strict consistency failed: " << report.consistency->violations
      << " violation(s): the run differs from what it requested or declared, or cannot be shown "
         "not to (the report's mismatches marked !)\n";
}

int EmitReportIntoFolder(const Report& report, const std::string& folder, ReportFormat format,
                         std::ostream& out, std::ostream& err) {
  const ReportOutput output{format, ReportFileIn(folder, format), true};
  const int status = EmitReport(report, output, out, err);
  if (status == kExitFailure) return status;
  std::ostringstream summary;
  WriteTextSummary(report, summary);
  out << ShowControlCharacters(ValidUtf8(summary.view()), LineBreaks::kKeep);
  err << "vprof: report written to " << *output.file << '\n';
  return status;
}

}  // namespace vprof::reporter
