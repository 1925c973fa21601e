#include "sim_options.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>

namespace sim {
namespace {

constexpr char kUsage[] =
    "usage: sim_train [--steps N] [--layers N] [--bucket-layers N] [--bucket-elems N]\n"
    "                 [--fwd-us N] [--bwd-us N] [--opt-kernels N] [--opt-us N]\n"
    "                 [--sync-every N] [--sync-elems N] [--slow-rank R|-1] [--slow-ms N]\n"
    "                 [--log-dir DIR] [--peer-copy-bytes N] [--graph-opt]\n"
    "                 [--cuda-after-ms N] [--fork-child] [--train-in-child]\n"
    "                 [--tp-elems N] [--shard-elems N] [--launch-gap-us N]\n"
    "                 [--launch-gap-steps N]\n"
    "                 [--alloc-per-step N] [--late-start-ms N] [--late-buckets]\n"
    "                 [--input-bytes N] [--pinned-input] [--graph-step]\n";

// Parses a whole decimal integer of at least `minimum` that fits T.
template <typename T>
bool ParseInteger(const char* text, long long minimum, T* value) {
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || parsed < minimum ||
      (parsed > 0 && static_cast<unsigned long long>(parsed) > std::numeric_limits<T>::max())) {
    return false;
  }
  *value = static_cast<T>(parsed);
  return true;
}

// An option with a value (set receives it), or a flag (set receives null).
struct Option {
  const char* name;
  std::function<bool(const char*)> set;
  bool flag = false;
};

}  // namespace

bool ParseOptions(int argc, char** argv, SimOptions* options) {
  SimOptions& o = *options;
  const Option table[] = {
      {"--steps", [&](const char* v) { return ParseInteger(v, 0, &o.steps); }},
      {"--layers", [&](const char* v) { return ParseInteger(v, 1, &o.layers); }},
      {"--bucket-layers", [&](const char* v) { return ParseInteger(v, 1, &o.bucket_layers); }},
      {"--bucket-elems", [&](const char* v) { return ParseInteger(v, 1, &o.bucket_elems); }},
      {"--fwd-us", [&](const char* v) { return ParseInteger(v, 0, &o.fwd_us); }},
      {"--bwd-us", [&](const char* v) { return ParseInteger(v, 0, &o.bwd_us); }},
      {"--opt-kernels", [&](const char* v) { return ParseInteger(v, 0, &o.opt_kernels); }},
      {"--opt-us", [&](const char* v) { return ParseInteger(v, 0, &o.opt_us); }},
      {"--sync-every", [&](const char* v) { return ParseInteger(v, 0, &o.sync_every); }},
      {"--sync-elems", [&](const char* v) { return ParseInteger(v, 1, &o.sync_elems); }},
      {"--slow-rank", [&](const char* v) { return ParseInteger(v, -1, &o.slow_rank); }},
      {"--slow-ms", [&](const char* v) { return ParseInteger(v, 0, &o.slow_ms); }},
      {"--peer-copy-bytes", [&](const char* v) { return ParseInteger(v, 0, &o.peer_copy_bytes); }},
      {"--cuda-after-ms", [&](const char* v) { return ParseInteger(v, 0, &o.cuda_after_ms); }},
      {"--tp-elems", [&](const char* v) { return ParseInteger(v, 0, &o.tp_elems); }},
      {"--shard-elems", [&](const char* v) { return ParseInteger(v, 0, &o.shard_elems); }},
      {"--launch-gap-us", [&](const char* v) { return ParseInteger(v, 0, &o.launch_gap_us); }},
      {"--launch-gap-steps",
       [&](const char* v) { return ParseInteger(v, 0, &o.launch_gap_steps); }},
      {"--alloc-per-step", [&](const char* v) { return ParseInteger(v, 0, &o.alloc_per_step); }},
      {"--late-start-ms", [&](const char* v) { return ParseInteger(v, 0, &o.late_start_ms); }},
      {"--input-bytes", [&](const char* v) { return ParseInteger(v, 0, &o.input_bytes); }},
      {"--log-dir",
       [&](const char* v) {
         o.log_dir = v;
         return !o.log_dir.empty();
       }},
      {"--graph-opt",
       [&](const char*) {
         o.graph_opt = true;
         return true;
       },
       true},
      {"--graph-step",
       [&](const char*) {
         o.graph_step = true;
         return true;
       },
       true},
      {"--pinned-input",
       [&](const char*) {
         o.pinned_input = true;
         return true;
       },
       true},
      {"--late-buckets",
       [&](const char*) {
         o.late_buckets = true;
         return true;
       },
       true},
      {"--fork-child",
       [&](const char*) {
         o.fork_child = true;
         return true;
       },
       true},
      {"--train-in-child",
       [&](const char*) {
         o.train_in_child = true;
         return true;
       },
       true},
  };
  for (int i = 1; i < argc; ++i) {
    const Option* option = nullptr;
    for (const Option& candidate : table) {
      if (std::strcmp(argv[i], candidate.name) == 0) option = &candidate;
    }
    if (option == nullptr) {
      std::fprintf(stderr, "sim_train: unknown option %s\n%s", argv[i], kUsage);
      return false;
    }
    if (option->flag) {
      option->set(nullptr);
      continue;
    }
    if (i + 1 == argc || !option->set(argv[i + 1])) {
      std::fprintf(stderr, "sim_train: bad or missing value for %s\n%s", argv[i], kUsage);
      return false;
    }
    ++i;
  }
  return true;
}

}  // namespace sim
