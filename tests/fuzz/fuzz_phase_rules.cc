// `vprof report --phase-rules FILE` with a file of fuzzed bytes: the rules
// reader, and matching range names against the rules it accepts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reporter/phases/phase_rules.h"
#include "reporter/phases/phase_rules_file.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vprof;
  reporter::PhaseRulesLoad load =
      reporter::LoadPhaseRulesFile(fuzz::InputFile(data, size, "phases.rules"));
  if (!load.rules) return 0;
  std::vector<std::string> names;
  for (const reporter::UserPhaseRule& rule : *load.rules) {
    names.push_back(rule.pattern);
    names.push_back(rule.pattern + " #1");
    names.push_back(rule.phase);
  }
  const reporter::PhaseRulesScope scope(std::move(*load.rules));
  for (const std::string& name : names) reporter::MatchPhaseRule(name);
  return 0;
}
