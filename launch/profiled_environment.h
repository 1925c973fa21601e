// The environment a launcher gives the command it profiles: libvprof.so put
// in front of any LD_PRELOAD already there (never replacing it), named by
// CUDA_INJECTION64_PATH unless another tool holds that variable, and the
// VPROF_* settings. Every process the command starts inherits it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vprof::reporter {

// One variable through which a library enters a process, before and after.
struct InjectionVariable {
  std::string name;
  std::optional<std::string> found;  // in vprof's own environment
  std::optional<std::string> value;  // in the command's
  bool set_by_vprof = false;
};

struct ProfiledEnvironment {
  std::vector<std::string> entries;  // "NAME=value", for execve
  // LD_PRELOAD, CUDA_INJECTION64_PATH, and (found only: libvprof does not
  // implement their entry points yet) NVTX_INJECTION64_PATH, NCCL_PROFILER_PLUGIN.
  std::vector<InjectionVariable> injection;
  std::map<std::string, std::string> settings;  // every VPROF_* variable the command sees
};

// `environment` is vprof's own (environ); `settings` maps VPROF_* names to
// values and overrides them; VPROF_OUTPUT_DIR is set to `output_dir`.
ProfiledEnvironment PrepareEnvironment(const char* const* environment, const std::string& library,
                                       const std::string& output_dir,
                                       const std::map<std::string, std::string>& settings);

}  // namespace vprof::reporter
