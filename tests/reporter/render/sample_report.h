// Test helper: a hand-built Report with round figures, so the rendered
// numbers and chart geometry can be worked out by hand (sample_report.cc
// shows the arithmetic).
#pragma once

#include "reporter/model/report.h"

namespace vprof::reporter::testing {

// Two ranks; measured steps 2-3 (steps 0-1 warm-up); NVTX phases of rank 0
// 60% forward / 40% backward; one communicator with two ops; three
// candidates, one of each strict tag; names holding <, >, &, | and quotes.
Report SampleReport();

// `ranks` ranks (0, 1, ...), each with one measured step (step 2) and two NVTX
// phases, for the folding of many ranks. Rank r's window and NVTX span are
// 10 ms + ((7r + 5) mod 40) × 10 µs: over 40 ranks a permutation whose least
// is rank 5, most rank 22 and upper median (the 21st smallest) rank 25. Rank
// r has 1000 + r NCCL events; ranks 12 and 31 lost GPU records (late), rank
// 31 dropped NCCL events, ranks 7 and 12 dropped NVTX ranges; every process
// lists the same top kernel.
Report ManyRanksReport(int ranks);

}  // namespace vprof::reporter::testing
