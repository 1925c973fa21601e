// Integration tests of the simulated training job: sim_launch starting sim_train ranks, the
// ground-truth logs they write, and the launcher's failure handling. The executables' paths
// come from the SIM_LAUNCH and SIM_TRAIN environment variables (set by meson).
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  REQUIRE(value != nullptr);
  return value;
}

struct CommandResult {
  int exit_code;
  std::string out;
};

// Runs a shell command; returns its exit code and standard output.
CommandResult Run(const std::string& command) {
  std::FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "sim_test.XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One line of a sim.rank<R>.jsonl log.
struct LoggedCall {
  std::string op;
  std::string comm;
  long long seq, count, dtype_bytes, bytes, nranks;
  unsigned long long enter_ns, exit_ns;
};

// The value after "key": in a flat JSON object written by the simulator.
std::string Field(const std::string& line, const std::string& key) {
  const std::string marker = "\"" + key + "\":";
  const size_t start = line.find(marker);
  if (start == std::string::npos) return "";
  size_t begin = start + marker.size();
  size_t end = line.find_first_of(",}", begin);
  if (line[begin] == '"') end = line.find('"', ++begin);
  return line.substr(begin, end - begin);
}

std::vector<LoggedCall> ReadLog(const std::string& path) {
  std::ifstream file(path);
  REQUIRE(file.good());
  std::vector<LoggedCall> calls;
  for (std::string line; std::getline(file, line);) {
    calls.push_back({Field(line, "op"), Field(line, "comm"), std::stoll(Field(line, "seq")),
                     std::stoll(Field(line, "count")), std::stoll(Field(line, "dtype_bytes")),
                     std::stoll(Field(line, "bytes")), std::stoll(Field(line, "nranks")),
                     std::stoull(Field(line, "enter_ns")), std::stoull(Field(line, "exit_ns"))});
  }
  return calls;
}

// The stand-in's timing model (README.md) at FAKE_NCCL_BUSBW_GBPS=2 and the default latency.
double SimulatedNs(const LoggedCall& call) {
  const double n = static_cast<double>(call.nranks);
  const double bytes = static_cast<double>(call.bytes);
  if (call.op == "ncclAllReduce") return 5e3 + bytes * 2 * (n - 1) / n / 2;
  if (call.op == "ncclAllGather") return 5e3 + bytes * n * (n - 1) / n / 2;
  return 5e3 + bytes / 2;
}

}  // namespace

TEST_CASE("four ranks of sim_train log every collective they make", "[sim]") {
  constexpr int kRanks = 4;
  // Rank 3 (the default --slow-rank) sleeps this long before each bucket's all-reduce: long
  // enough that a loaded machine rarely delays another rank by as much.
  constexpr unsigned long long kSlowMs = 20;
  TempDir logs;
  const CommandResult result = Run("FAKE_NCCL_BUSBW_GBPS=2 '" + Env("SIM_LAUNCH") + "' -n 4 '" +
                                   Env("SIM_TRAIN") + "' --steps 3 --sync-every 2 --slow-ms " +
                                   std::to_string(kSlowMs) + " --log-dir '" + logs.path() + "'");
  REQUIRE(result.exit_code == 0);
  CHECK(result.out ==
        "sim_train: 4 ranks, 3 steps, 12 all-reduce, 3 all-gather, 1 broadcast, ok\n");

  std::vector<std::vector<LoggedCall>> ranks;
  for (int rank = 0; rank < kRanks; ++rank) {
    ranks.push_back(ReadLog(logs.path() + "/sim.rank" + std::to_string(rank) + ".jsonl"));
  }
  const std::map<std::string, long long> expected_count = {
      {"ncclAllReduce", 262144}, {"ncclAllGather", 1024}, {"ncclBroadcast", 1048576}};
  for (const std::vector<LoggedCall>& calls : ranks) {
    REQUIRE(calls.size() == 16);  // per step: 4 buckets and 1 all-gather; 1 broadcast at step 2
    std::map<std::string, long long> last_seq;
    std::map<std::string, int> per_op;
    for (const LoggedCall& call : calls) {
      CHECK(call.seq == ++last_seq[call.comm]);
      CHECK(call.comm == (call.op == "ncclBroadcast" ? "wsync" : "world"));
      CHECK(call.count == expected_count.at(call.op));
      CHECK(call.dtype_bytes == 4);
      CHECK(call.bytes == call.count * 4);
      CHECK(call.nranks == kRanks);
      CHECK(call.enter_ns <= call.exit_ns);
      ++per_op[call.op];
    }
    CHECK(per_op == std::map<std::string, int>{
                        {"ncclAllReduce", 12}, {"ncclAllGather", 3}, {"ncclBroadcast", 1}});
  }

  // Calls with the same (comm, seq) are one collective: the same call on every rank, and no
  // rank leaves before the last one entered plus the simulated time.
  int straggler_last = 0;
  for (size_t i = 0; i < ranks[0].size(); ++i) {
    unsigned long long last_enter = 0;
    int last_rank = 0;
    for (int rank = 0; rank < kRanks; ++rank) {
      const auto same = std::find_if(ranks[rank].begin(), ranks[rank].end(), [&](const auto& c) {
        return c.comm == ranks[0][i].comm && c.seq == ranks[0][i].seq;
      });
      REQUIRE(same != ranks[rank].end());
      CHECK(same->op == ranks[0][i].op);
      if (same->enter_ns > last_enter) {
        last_enter = same->enter_ns;
        last_rank = rank;
      }
    }
    for (int rank = 0; rank < kRanks; ++rank) {
      for (const LoggedCall& call : ranks[rank]) {
        if (call.comm == ranks[0][i].comm && call.seq == ranks[0][i].seq) {
          CHECK(call.exit_ns >= last_enter + SimulatedNs(call));
        }
      }
    }
    if (ranks[0][i].op == "ncclAllReduce" && last_rank == 3) ++straggler_last;
  }
  // The straggler is usually the last to enter; scheduling may make another rank later.
  CHECK(straggler_last >= 9);

  // Its own delay does not depend on scheduling: one thread runs the buckets' all-reduces in
  // turn, and sleeps between one's exit and the next one's entry.
  std::vector<LoggedCall> straggler_reduces;
  std::copy_if(ranks[3].begin(), ranks[3].end(), std::back_inserter(straggler_reduces),
               [](const LoggedCall& call) { return call.op == "ncclAllReduce"; });
  for (size_t i = 1; i < straggler_reduces.size(); ++i) {
    CHECK(straggler_reduces[i].enter_ns >= straggler_reduces[i - 1].exit_ns + kSlowMs * 1000000);
  }
}

TEST_CASE("sim_launch gives each rank its place and removes the rendezvous directory", "[sim]") {
  TempDir out;
  const CommandResult result = Run(
      "OUT='" + out.path() + "' '" + Env("SIM_LAUNCH") +
      "' -n 2 -- sh -c 'test \"$WORLD_SIZE\" = 2 && test \"$LOCAL_WORLD_SIZE\" = 2 && "
      "test \"$GROUP_RANK\" = 0 && test \"$RANK\" = \"$LOCAL_RANK\" && test -d \"$VPROF_SIM_RDZV\" "
      "&& echo \"$VPROF_SIM_RDZV\" > \"$OUT/rank$RANK\"'");
  REQUIRE(result.exit_code == 0);
  std::string rendezvous_0, rendezvous_1;
  std::getline(std::ifstream(out.path() + "/rank0"), rendezvous_0);
  std::getline(std::ifstream(out.path() + "/rank1"), rendezvous_1);
  CHECK(!rendezvous_0.empty());
  CHECK(rendezvous_0 == rendezvous_1);
  CHECK_FALSE(std::filesystem::exists(rendezvous_0));
}

TEST_CASE("sim_launch exits with the first failure and stops the other ranks", "[sim]") {
  const auto start = std::chrono::steady_clock::now();
  const CommandResult result =
      Run("'" + Env("SIM_LAUNCH") +
          "' -n 3 sh -c 'if [ \"$RANK\" = 1 ]; then exit 7; fi; exec sleep 30'");
  CHECK(result.exit_code == 7);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
}

TEST_CASE("sim_train rejects unknown options", "[sim]") {
  CHECK(Run("'" + Env("SIM_TRAIN") + "' --no-such-option 1 2>/dev/null").exit_code == 2);
}
