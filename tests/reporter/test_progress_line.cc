// The progress line of `vprof report`, at given times: silent for the first
// second, then redrawn in place at most every 200 ms with the time left at the
// rate so far, then "analyzing", then erased.
#include <catch2/catch.hpp>
#include <sstream>

#include "reporter/cli/progress_line.h"

using namespace vprof::reporter;
using namespace std::chrono_literals;

TEST_CASE("progress line: nothing in the first second, then the reading, in place") {
  std::ostringstream err;
  ProgressLine line(err, true, 1000);
  const auto start = ProgressLine::Clock::now();
  line.Reading({1, 4, 100}, start + 500ms);
  CHECK(err.str().empty());
  // 250 of 1,000 bytes in 1.5 s: 750 more at that rate take 4.5 s.
  line.Reading({1, 4, 250}, start + 1500ms);
  CHECK(err.str() == "\rvprof: reading 4 traces: 1 read, 250 B of 1000 B, about 5 s left\x1b[K");
  err.str("");
  line.Reading({2, 4, 300}, start + 1600ms);  // 100 ms later: not redrawn
  CHECK(err.str().empty());
  line.Reading({4, 4, 1000}, start + 1800ms);  // all read: no time left to guess
  CHECK(err.str() == "\rvprof: reading 4 traces: 4 read, 1000 B of 1000 B\x1b[K");
  err.str("");
  line.Analyzing(start + 3200ms);
  CHECK(err.str() == "\rvprof: 4 traces read in 3 s; analyzing\x1b[K");
  err.str("");
  line.Erase();
  CHECK(err.str() == "\r\x1b[K");
  err.str("");
  line.Erase();  // once: the line is gone
  CHECK(err.str().empty());
}

TEST_CASE("progress line: a run read within a second prints nothing, nor does a disabled line") {
  std::ostringstream quick;
  {
    ProgressLine line(quick, true, 10);
    const auto start = ProgressLine::Clock::now();
    line.Reading({1, 1, 10}, start + 300ms);
    line.Analyzing(start + 400ms);
  }
  CHECK(quick.str().empty());
  std::ostringstream off;
  {
    ProgressLine line(off, false, 10);
    const auto start = ProgressLine::Clock::now();
    line.Reading({0, 1, 5}, start + 5s);
    line.Analyzing(start + 6s);
  }
  CHECK(off.str().empty());
}
