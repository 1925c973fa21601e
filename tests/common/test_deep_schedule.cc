// VPROF_DEEP schedules and the trigger file: what opens a deep window when.
#include <catch2/catch.hpp>
#include <string>

#include "common/deep_schedule.h"

using vprof::DeepSchedule;

namespace {
constexpr uint64_t kS = 1000000000ull;
}

TEST_CASE("schedules parse to their mode and times, and print as they were given") {
  DeepSchedule s;
  REQUIRE(vprof::ParseDeepSchedule("always", &s));
  CHECK(s.mode == DeepSchedule::Mode::kAlways);
  REQUIRE(vprof::ParseDeepSchedule("trigger", &s));
  CHECK(s.mode == DeepSchedule::Mode::kTrigger);
  REQUIRE(vprof::ParseDeepSchedule("5/60", &s));
  CHECK(s.mode == DeepSchedule::Mode::kDutyCycle);
  CHECK(s.on_ns == 5 * kS);
  CHECK(s.period_ns == 60 * kS);
  CHECK(vprof::DeepScheduleText(s) == "5/60");
  REQUIRE(vprof::ParseDeepSchedule("0.25/1.5", &s));
  CHECK(s.on_ns == 250000000ull);
  CHECK(s.period_ns == 1500000000ull);
  CHECK(vprof::DeepScheduleText(s) == "0.25/1.5");
}

TEST_CASE("malformed schedules are refused") {
  DeepSchedule s;
  for (const char* bad :
       {"", "Always", "sometimes", "5", "5/", "/60", "60/5", "5/5", "0/60", "-1/60", "5/86401",
        "5/60/120", "5 /60", "nan/60", "5/inf", "+5/60", "1e400/1e401"}) {
    INFO(bad);
    CHECK_FALSE(vprof::ParseDeepSchedule(bad, &s));
  }
}

TEST_CASE("a duty cycle's window is the last ON seconds of each wall-clock period") {
  DeepSchedule s;
  REQUIRE(vprof::ParseDeepSchedule("5/60", &s));
  const uint64_t period_start = 1764700000ull / 60 * 60 * kS;  // a multiple of 60 s
  CHECK_FALSE(vprof::InDutyWindow(s, period_start));
  CHECK_FALSE(vprof::InDutyWindow(s, period_start + 55 * kS - 1));
  CHECK(vprof::InDutyWindow(s, period_start + 55 * kS));
  CHECK(vprof::InDutyWindow(s, period_start + 60 * kS - 1));
  CHECK_FALSE(vprof::InDutyWindow(s, period_start + 60 * kS));
  CHECK(vprof::InDutyWindow(s, period_start + 119 * kS));
  // Other schedules have no duty windows.
  REQUIRE(vprof::ParseDeepSchedule("trigger", &s));
  CHECK_FALSE(vprof::InDutyWindow(s, period_start + 59 * kS));
}

TEST_CASE("a trigger file reads back what FormatTrigger wrote, and nothing else") {
  const vprof::TriggerWindow window{1764700000123456789ull, 1764700010123456789ull};
  const std::string text = vprof::FormatTrigger(window);
  CHECK(text == "vprof-trigger 1 1764700000123456789 1764700010123456789\n");
  vprof::TriggerWindow read;
  std::string error;
  REQUIRE(vprof::ParseTrigger(text, &read, &error));
  CHECK(read.start_realtime_ns == window.start_realtime_ns);
  CHECK(read.end_realtime_ns == window.end_realtime_ns);
  for (const char* bad :
       {"", "vprof-trigger 1 10 20", "vprof-trigger 2 10 20\n", "vprof-trigger 1 20 10\n",
        "vprof-trigger 1 10 10\n", "vprof-trigger 1 10 3600000000011\n", "vprof-trigger 1 x 20\n",
        "vprof-trigger 1 10 20 30\n", "vprof-trigger 1  10 20\n", "vprof-trigger 1 -10 20\n",
        "vprof-trigger 1 10 99999999999999999999999\n"}) {
    INFO(bad);
    error.clear();
    CHECK_FALSE(vprof::ParseTrigger(bad, &read, &error));
    CHECK(error.find("vprof-trigger 1 START_NS END_NS") != std::string::npos);
  }
  // An hour exactly is the longest window.
  CHECK(vprof::ParseTrigger("vprof-trigger 1 10 3600000000010\n", &read, &error));
}
