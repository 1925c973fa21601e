// What `vprof report` is told about steps: how to find them and how many to
// leave out as warmup.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vprof::reporter {

struct StepOptions {
  // ECMAScript regular expressions; an NVTX range whose name matches any of
  // them (std::regex_search) is one step. Empty: the defaults.
  std::vector<std::string> patterns;  // --step-pattern REGEX (repeatable)
  uint32_t warmup_steps = 1;          // --warmup N
};

}  // namespace vprof::reporter
