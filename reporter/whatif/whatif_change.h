// `vprof whatif`'s options and the replay change they ask for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reporter/base/arg_cursor.h"
#include "reporter/model/report.h"
#include "reporter/replay/replay_change.h"

namespace vprof::reporter {

struct WhatifQuestion {
  // --faster PATTERN=Nx: kernels (and copies) whose names match PATTERN take
  // 1/N of their time; PATTERN=off removes them.
  std::vector<std::pair<std::string, double>> faster;
  double comm_faster = 1;  // --comm-faster F: every collective's transfer
  bool no_straggler = false;
  bool no_host_gaps = false;
  std::vector<std::pair<int32_t, double>> rank_faster;  // --rank-faster R=F
  bool empty() const {
    return faster.empty() && comm_faster == 1 && !no_straggler && !no_host_gaps &&
           rank_faster.empty();
  }
};

// Takes the option at the cursor when it is one of the question's.
OptionUse TakeWhatifOption(ArgCursor& arg, WhatifQuestion& question);

// The change `question` asks for on this run's steps; none, with the reason
// in `error` (a rank the run has not, no straggler to remove), otherwise.
// `notes` receives what the user should know about the question as read: a
// pattern that matched no kernel of the replayed steps.
std::optional<ReplayChange> WhatifChange(const WhatifQuestion& question, const Report& report,
                                         std::string& error, std::vector<std::string>& notes);

}  // namespace vprof::reporter
