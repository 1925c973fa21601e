// `vprof diff A B` with a JSON report of fuzzed bytes as A and as B: the
// report reader, the comparison (of the report with itself, and with an
// empty report, so that items are both matched and one-sided), its verdict
// and both renderings of each.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "reporter/diff/compare_reports.h"
#include "reporter/diff/diff_input.h"
#include "reporter/diff/diff_json.h"
#include "reporter/diff/diff_text.h"
#include "reporter/diff/diff_verdict.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

// The comparison of `a` with `b`, with its verdict, written both ways.
void Render(const vprof::reporter::DiffSide& side, const vprof::reporter::JsonNode& a,
            const vprof::reporter::JsonNode& b) {
  vprof::reporter::RunDiff diff{side, side, vprof::reporter::CompareReports(a, b), ""};
  diff.verdict = vprof::reporter::DiffVerdict(diff.sections);
  vprof::reporter::WriteDiffText(diff, vprof::fuzz::Discard());
  vprof::reporter::WriteDiffJson(diff, vprof::fuzz::Discard());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vprof;
  const std::string path = fuzz::InputFile(data, size, "report.json");
  const std::optional<reporter::DiffInput> input =
      reporter::LoadDiffInput(path, {}, fuzz::Discard());
  if (!input) return 0;
  const reporter::JsonNode empty = reporter::JsonNode::EmptyObject();
  const reporter::DiffSide side{path, false, true};
  Render(side, input->report, input->report);
  Render(side, input->report, empty);
  Render(side, empty, input->report);
  return 0;
}
