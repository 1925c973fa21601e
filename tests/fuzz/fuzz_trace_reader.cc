// `vprof report DIR` over a folder holding one trace file of fuzzed bytes:
// the trace reader, every packet reader behind it, the collective matcher,
// and the text and JSON reports of whatever was read.
#include <cstddef>
#include <cstdint>

#include "reporter/render/json/json_page.h"
#include "reporter/render/text/text_page.h"
#include "reporter/report/build.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vprof;
  const std::string path = fuzz::InputFile(data, size, "fuzz.1.vtrace");
  const reporter::Report report = reporter::BuildReport(fuzz::ScratchFolder(), {path});
  reporter::WriteTextReport(report, fuzz::Discard());
  reporter::WriteJsonReport(report, fuzz::Discard());
  return 0;
}
