// gen_scale_traces: writes the synthetic traces of the reporter's scale
// benchmark (scale_trace_generator.h) and prints what it wrote.
//   gen_scale_traces --ranks N --events-per-rank M [--ranks-per-host K] [--seed S] DIR
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>

#include "bench/scale/scale_trace_generator.h"

namespace {

constexpr std::string_view kUsage =
    "usage: gen_scale_traces --ranks N --events-per-rank M [--ranks-per-host K] [--seed S] DIR\n";

bool ParseCount(const char* text, uint64_t* value) {
  char* end = nullptr;
  const unsigned long long parsed = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0' || parsed == 0) return false;
  *value = parsed;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  vprof::bench::ScaleShape shape;
  std::string directory;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    uint64_t value = 0;
    const bool has_value = i + 1 < argc && ParseCount(argv[i + 1], &value);
    if (arg == "--ranks" && has_value) {
      shape.ranks = static_cast<uint32_t>(value);
    } else if (arg == "--events-per-rank" && has_value) {
      shape.events_per_rank = value;
    } else if (arg == "--ranks-per-host" && has_value) {
      shape.ranks_per_host = static_cast<uint32_t>(value);
    } else if (arg == "--seed" && has_value) {
      shape.seed = value;
    } else if (!arg.starts_with("--") && directory.empty()) {
      directory = std::string(arg);
      continue;
    } else {
      std::cerr << "gen_scale_traces: bad argument '" << arg << "' (counts are positive integers)\n"
                << kUsage;
      return 2;
    }
    ++i;
  }
  if (directory.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  try {
    std::filesystem::create_directories(directory);
    const vprof::bench::GeneratedTraces written = vprof::bench::WriteScaleTraces(directory, shape);
    const vprof::bench::StepContents step = vprof::bench::StepContentsFor(shape);
    std::cout << "files " << written.files << "\nsteps_per_rank " << vprof::bench::StepsFor(shape)
              << "\nevents_per_step " << step.events() << "\nevents " << written.events
              << "\nbytes " << written.bytes << '\n';
  } catch (const std::exception& error) {
    std::cerr << "gen_scale_traces: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
