// Test helper: a hand-built Report with round figures, so the rendered
// numbers and chart geometry can be worked out by hand (sample_report.cc
// shows the arithmetic).
#pragma once

#include "reporter/report.h"

namespace vprof::reporter::testing {

// Two ranks; measured steps 2-3 (steps 0-1 warm-up); NVTX phases of rank 0
// 60% forward / 40% backward; one communicator with two ops; three
// candidates, one of each strict tag; names holding <, >, &, | and quotes.
Report SampleReport();

}  // namespace vprof::reporter::testing
