// Where and how a finished report is written, for every command that makes
// one (report, the merge of node summaries, run --report, slurm --report).
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "reporter/base/arg_cursor.h"
#include "reporter/model/report.h"
#include "reporter/render/text_sections.h"

namespace vprof::reporter {

enum class ReportFormat { kText, kJson, kMarkdown, kHtml };

struct ReportOutput {
  ReportFormat format = ReportFormat::kText;
  std::optional<std::string> file;  // standard output when none
  // A file in a run's folder, which others may write into: created private
  // and never through a link (reporter/base/safe_file.h). A file the user names is
  // written as named, through a link too (/dev/stdout, say).
  bool private_file = false;
  TextSections text_sections = kAllTextSections;  // --sections, --brief (text only)
};

// Takes --format text|json|markdown|html, -o/--output FILE, --brief or
// --sections LIST at the cursor.
OptionUse TakeOutputOption(ArgCursor& args, ReportOutput& output);

// After the options: false, having said why, when --sections or --brief was
// given for a format other than text.
bool CheckOutputOptions(const ArgCursor& args, const ReportOutput& output);

// "text", "json", "markdown" or "html"; none for another name.
std::optional<ReportFormat> ReportFormatNamed(std::string_view name);

// Where a launcher's --report puts the report: report.txt, report.json,
// report.md or report.html in the run's folder.
std::string ReportFileIn(const std::string& folder, ReportFormat format);

// Names every trace that is not whole on `err`, then writes the report.
// Returns kExitOk, kExitInputNotWhole, or kExitFailure when it cannot write.
int EmitReport(const Report& report, const ReportOutput& output, std::ostream& out,
               std::ostream& err);

// The line saying a strict run failed (report.strict_failed()), on `err`.
void SayStrictFailure(const Report& report, std::ostream& err);

// A launcher's --report: EmitReport into ReportFileIn(folder, format), a
// private file; then the report's Summary on `out` and a line on `err`
// saying where the report went.
int EmitReportIntoFolder(const Report& report, const std::string& folder, ReportFormat format,
                         std::ostream& out, std::ostream& err);

}  // namespace vprof::reporter
