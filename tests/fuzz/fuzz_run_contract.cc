// `vprof report --contract FILE` with a file of fuzzed bytes: the contract
// reader, and the JSON of a contract it accepts (what the requested
// fingerprint covers).
#include <cstddef>
#include <cstdint>

#include "reporter/base/json_node.h"
#include "reporter/consistency/run_contract.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vprof;
  const reporter::RunContractLoad load =
      reporter::LoadRunContract(fuzz::InputFile(data, size, "contract.json"));
  if (load.contract) reporter::CanonicalJson(load.contract->ToJson());
  return 0;
}
