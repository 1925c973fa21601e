// `vprof report --merge-summaries` of one node summary of fuzzed bytes: the
// summary reader, its decoders, the merge, and the text and JSON reports.
#include <cstddef>
#include <cstdint>

#include "reporter/node_summary/summary_merge.h"
#include "reporter/render/json/json_page.h"
#include "reporter/render/text/text_page.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vprof;
  const std::string path = fuzz::InputFile(data, size, "fuzz.vsummary");
  const reporter::MergeResult merged = reporter::MergeSummaries({path});
  if (!merged.report) return 0;
  reporter::WriteTextReport(*merged.report, fuzz::Discard());
  reporter::WriteJsonReport(*merged.report, fuzz::Discard());
  return 0;
}
