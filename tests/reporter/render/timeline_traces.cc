// Writes timeline_fixture.h's traces into DIR, for check_timeline.cjs to
// report on with `vprof report DIR --format html`.
//
// Usage: render_timeline_traces DIR
#include <iostream>

#include "timeline_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: render_timeline_traces DIR\n";
    return 2;
  }
  vprof::reporter::testing::WriteTimelineFixture(argv[1]);
  return 0;
}
