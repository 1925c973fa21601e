// Test helper: traces whose timeline step is worked out by hand, for the
// span collection (test_step_timeline_spans.cc) and the page the browser
// test drives (timeline_page.cc).
//
// Two ranks, rank 1 5 µs behind rank 0; step k at o = 1000k (+5 on rank 1),
// three steps, the first one warmup:
//   NVTX "step"    [o, o+400]          NVTX "forward" [o+5, o+100]
//   gemm       s7  launch o+10 [o+50,  o+150]   correlation 4k+1
//   all-reduce s13 launch o+20 [o+150, o+200]   correlation 4k+2, call id 10k+1
//                  (its NCCL call [o+19, o+23])
//   memcpy     s9  launch o+30 [o+200, o+210]   correlation 4k+3
//   gemm       s7  launch o+40 [o+380, o+1020]  correlation 4k+4: the GPU runs
//                  20 µs into the next step
//   and in step 1 only, vprof's own kernel vprof_calibrate on s21, launch
//                  o+60 [o+250, o+260], correlation 9 (after step 1's four):
//                  not the program's, so in no span, lane or idle gap
// Windows (rank 0): step 0 [0, 1020], step 1 [1020, 2020] (it starts where
// step 0's ended), step 2 [2020, 3020]. Both measured steps last 1000 µs
// (1005 across the ranks); the timeline step is step 1, the first of equals.
// Rank 0's step 1 window holds, clipped to it: NVTX "step" [1020, 1400] and
// "forward" [1020, 1100] of step 1, "step" [2000, 2020] and "forward"
// [2005, 2020] of step 2; NCCL calls [1020, 1023] and [2019, 2020]; the GPU
// work of step 1 (correlations 5-8, the last gemm [1380, 2020]); GPU idle
// [1020, 1050] and [1210, 1380].
#pragma once

#include <string>

namespace vprof::reporter::testing {

inline constexpr int kTimelineFixtureSteps = 3;

// Writes rank0.vtrace and rank1.vtrace into `directory`.
void WriteTimelineFixture(const std::string& directory);

}  // namespace vprof::reporter::testing
