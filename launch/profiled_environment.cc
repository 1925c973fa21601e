#include "launch/profiled_environment.h"

#include <string_view>

namespace vprof::reporter {
namespace {

using Variables = std::map<std::string, std::string>;

Variables Parse(const char* const* environment) {
  Variables variables;
  for (const char* const* entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    variables.emplace(text.substr(0, equals), text.substr(equals + 1));
  }
  return variables;
}

std::optional<std::string> Find(const Variables& variables, const std::string& name) {
  const auto found = variables.find(name);
  if (found == variables.end()) return std::nullopt;
  return found->second;
}

// The loader splits LD_PRELOAD at colons and spaces.
bool Lists(const std::string& preload, const std::string& library) {
  size_t start = 0;
  while (start <= preload.size()) {
    const size_t end = preload.find_first_of(": ", start);
    if (preload.substr(start, end - start) == library) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

InjectionVariable Preload(Variables& variables, const std::string& library) {
  InjectionVariable preload{"LD_PRELOAD", Find(variables, "LD_PRELOAD"), {}, false};
  if (!preload.found || preload.found->empty()) {
    preload.value = library;
  } else if (Lists(*preload.found, library)) {
    preload.value = preload.found;  // already preloaded, e.g. by an enclosing vprof run
    return preload;
  } else {
    // First, so vprof's wrappers are bound ahead of any other interposer.
    preload.value = library + ":" + *preload.found;
  }
  preload.set_by_vprof = true;
  variables["LD_PRELOAD"] = *preload.value;
  return preload;
}

// The hooks that load libvprof by variable (the CUDA driver at cuInit, each
// NVTX module on its first call, NCCL at communicator init) survive a
// launcher that replaces LD_PRELOAD. Another tool's library is left in place:
// each hook loads one library only (and CUPTI takes one subscriber anyway).
InjectionVariable ClaimedVariable(Variables& variables, const std::string& name,
                                  const std::string& library) {
  InjectionVariable injection{name, Find(variables, name), {}, false};
  if (injection.found && !injection.found->empty()) {
    injection.value = injection.found;
    return injection;
  }
  injection.value = library;
  injection.set_by_vprof = true;
  variables[name] = library;
  return injection;
}

}  // namespace

ProfiledEnvironment PrepareEnvironment(const char* const* environment, const std::string& library,
                                       const std::string& output_dir,
                                       const std::map<std::string, std::string>& settings) {
  Variables variables = Parse(environment);
  ProfiledEnvironment prepared;
  prepared.injection.push_back(Preload(variables, library));
  for (const char* hook :
       {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "NCCL_PROFILER_PLUGIN"}) {
    prepared.injection.push_back(ClaimedVariable(variables, hook, library));
  }

  for (const auto& [name, value] : settings) variables[name] = value;
  variables["VPROF_OUTPUT_DIR"] = output_dir;
  for (const auto& [name, value] : variables) {
    prepared.entries.push_back(name + "=" + value);
    if (name.starts_with("VPROF_")) prepared.settings[name] = value;
  }
  return prepared;
}

}  // namespace vprof::reporter
