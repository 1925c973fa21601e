#include "interpose/core/run_info.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

#include "common/secret_text.h"
#include "common/utf8_repair.h"
#include "interpose/core/clock.h"
#include "interpose/core/loader_calls.h"
#include "interpose/core/symbol_resolver.h"

extern char** environ;

namespace vprof {
namespace {

std::optional<int32_t> IntVar(EnvLookup lookup, const char* name) {
  const char* v = lookup(name);
  if (!v || !*v) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  // SLURM_NTASKS_PER_NODE may read "4(x2)": take the leading number.
  if (errno || end == v || n < INT32_MIN || n > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(n);
}

std::string StrVar(EnvLookup lookup, const char* name) {
  const char* v = lookup(name);
  return v ? v : "";
}

bool HasPrefix(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool Kept(std::string_view name) {
  // TORCHELASTIC_: torchrun sets these in its workers, whose own command
  // line ("python train_script.py") does not say they were launched by it.
  static constexpr std::string_view kPrefixes[] = {"NCCL_",         "CUDA_", "VPROF_", "TORCH_",
                                                   "TORCHELASTIC_", "VIME_", "SLURM_", "OMPI_"};
  static constexpr std::string_view kNames[] = {
      "RANK",       "LOCAL_RANK",  "WORLD_SIZE",  "LOCAL_WORLD_SIZE",
      "GROUP_RANK", "MASTER_ADDR", "MASTER_PORT", "LD_PRELOAD"};
  for (auto p : kPrefixes) {
    if (HasPrefix(name, p)) return true;
  }
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

std::vector<std::string> ReadCmdline() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> argv;
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i] == '\0') {
      argv.emplace_back(all, start, i - start);
      start = i + 1;
    }
  }
  return argv;
}

const char* GetenvLookup(const char* name) { return std::getenv(name); }

// `text` as the trace writes it (valid UTF-8), cut between characters to at
// most `max` bytes; `*cut` tells whether that left anything out.
std::string WrittenText(std::string_view text, size_t max, bool* cut) {
  const Utf8Fit fit = FitUtf8(text, max);
  *cut = fit.bytes < FitUtf8(text, SIZE_MAX).bytes;
  std::string written(fit.bytes, '\0');
  Utf8Repair(text, fit, reinterpret_cast<uint8_t*>(written.data()));
  return written;
}

// A Slurm field, held to kMaxEnvValueBytes like a variable's value.
void CapField(std::string* field, HeaderCut* cut) {
  bool was_cut = false;
  *field = WrittenText(*field, kMaxEnvValueBytes, &was_cut);
  cut->env_values_cut += was_cut;
}

}  // namespace

RankVars ReadRankVars(EnvLookup lookup) {
  struct Family {
    const char* source;
    const char *rank, *local_rank, *world_size, *local_world_size, *node_rank;
  };
  static constexpr Family kFamilies[] = {
      {"torch", "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK"},
      {"slurm", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS", "SLURM_NTASKS_PER_NODE",
       "SLURM_NODEID"},
      {"ompi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE",
       "OMPI_COMM_WORLD_LOCAL_SIZE", "OMPI_COMM_WORLD_NODE_RANK"},
  };
  RankVars r;
  for (const Family& f : kFamilies) {
    if (!lookup(f.rank)) continue;
    r.source = f.source;
    r.rank = IntVar(lookup, f.rank);
    r.local_rank = IntVar(lookup, f.local_rank);
    r.world_size = IntVar(lookup, f.world_size);
    r.local_world_size = IntVar(lookup, f.local_world_size);
    r.node_rank = IntVar(lookup, f.node_rank);
    break;
  }
  return r;
}

SlurmVars ReadSlurmVars(EnvLookup lookup) {
  SlurmVars s;
  s.job_id = StrVar(lookup, "SLURM_JOB_ID");
  s.step_id = StrVar(lookup, "SLURM_STEP_ID");
  s.node_list = StrVar(lookup, "SLURM_JOB_NODELIST");
  s.tasks_per_node = StrVar(lookup, "SLURM_TASKS_PER_NODE");
  s.proc_id = IntVar(lookup, "SLURM_PROCID");
  s.local_id = IntVar(lookup, "SLURM_LOCALID");
  s.node_id = IntVar(lookup, "SLURM_NODEID");
  return s;
}

std::vector<EnvEntry> SelectEnv(char** env) {
  std::vector<EnvEntry> out;
  for (char** e = env; e && *e; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = kv.substr(0, eq);
    if (!Kept(name)) continue;
    EnvEntry entry;
    entry.name = std::string(name);
    entry.redacted = NameLooksSecret(name);
    if (!entry.redacted) entry.value = RedactUrlCredentials(kv.substr(eq + 1));
    out.push_back(std::move(entry));
  }
  std::sort(out.begin(), out.end(),
            [](const EnvEntry& a, const EnvEntry& b) { return a.name < b.name; });
  return out;
}

void CapArgv(std::vector<std::string>* argv, HeaderCut* cut) {
  size_t room = kMaxArgvBytes;
  for (size_t i = 0; i < argv->size(); ++i) {
    bool was_cut = false;
    std::string& arg = (*argv)[i];
    arg = WrittenText(arg, room, &was_cut);
    room -= arg.size();
    if (was_cut) {
      cut->argv_args_cut += argv->size() - i;
      argv->resize(arg.empty() ? i : i + 1);
      return;
    }
  }
}

void CapEnv(std::vector<EnvEntry>* env, HeaderCut* cut) {
  size_t room = kMaxEnvBytes;
  for (size_t i = 0; i < env->size(); ++i) {
    EnvEntry& entry = (*env)[i];
    bool name_cut = false, value_cut = false;
    entry.name = WrittenText(entry.name, kMaxEnvValueBytes, &name_cut);
    entry.value = WrittenText(entry.value, kMaxEnvValueBytes, &value_cut);
    const size_t bytes = entry.name.size() + entry.value.size();
    if (bytes > room) {
      cut->env_vars_left_out += env->size() - i;
      env->resize(i);
      return;
    }
    room -= bytes;
    cut->env_values_cut += name_cut || value_cut;
  }
}

RunInfo CollectRunInfo() {
  RunInfo info;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown-host");
  info.host = host;
  info.pid = getpid();
  info.ppid = getppid();
  // Redacted before the cap: a cut never leaves half a secret.
  info.argv = RedactArgv(ReadCmdline());
  CapArgv(&info.argv, &info.cut);
  info.rank = ReadRankVars(GetenvLookup);
  info.slurm = ReadSlurmVars(GetenvLookup);
  for (std::string* field : {&info.slurm.job_id, &info.slurm.step_id, &info.slurm.node_list,
                             &info.slurm.tasks_per_node}) {
    CapField(field, &info.cut);
  }
  info.env = SelectEnv(environ);
  CapEnv(&info.env, &info.cut);
  info.start_ns = NowNs();
  info.start_realtime_ns = RealtimeNs();
  return info;
}

LibraryVersions DetectVersions() {
  LibraryVersions v;
  using VersionFn = int (*)(int*);  // ncclResult_t / cudaError_t: 0 is success
  auto ask = [](const char* name) -> uint32_t {
    auto fn = reinterpret_cast<VersionFn>(ResolveRealSymbol(name));
    int out = 0;
    // The runtime loads libcuda on its first call, which may be this one.
    LoaderCallScope loader;
    return (fn && fn(&out) == 0 && out > 0) ? static_cast<uint32_t>(out) : 0;
  };
  v.nccl = ask("ncclGetVersion");
  v.cuda_runtime = ask("cudaRuntimeGetVersion");
  v.cuda_driver = ask("cudaDriverGetVersion");
  return v;
}

}  // namespace vprof
