// `vprof whatif`'s answer, in text for people or JSON.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reporter/replay/step_replays.h"

namespace vprof::reporter {

struct WhatifAnswer {
  std::string directory;
  std::string change;  // the change in words
  ReplayCheck check;   // how close the unchanged replay comes
  std::optional<Projection> projection;
  std::string withheld;  // why there is no projection
  std::vector<std::string> notes;
};

void WriteWhatifText(const WhatifAnswer& answer, std::ostream& out);
void WriteWhatifJson(const WhatifAnswer& answer, std::ostream& out);

}  // namespace vprof::reporter
