// The environment a launcher gives the profiled command.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "launch/profiled_environment.h"

using namespace vprof::reporter;

namespace {

constexpr char kLibrary[] = "/opt/vprof/lib/libvprof.so";

ProfiledEnvironment Prepare(std::vector<std::string> entries,
                            const std::map<std::string, std::string>& settings = {}) {
  std::vector<const char*> environment;
  for (const std::string& entry : entries) environment.push_back(entry.c_str());
  environment.push_back(nullptr);
  return PrepareEnvironment(environment.data(), kLibrary, "/runs/r1", settings);
}

std::string ValueOf(const ProfiledEnvironment& prepared, const std::string& name) {
  for (const std::string& entry : prepared.entries) {
    if (entry.starts_with(name + "=")) return entry.substr(name.size() + 1);
  }
  FAIL(name << " is not set");
  return "";
}

const InjectionVariable& Injection(const ProfiledEnvironment& prepared, const std::string& name) {
  for (const InjectionVariable& variable : prepared.injection) {
    if (variable.name == name) return variable;
  }
  FAIL(name << " is not recorded");
  throw;
}

}  // namespace

TEST_CASE("libvprof goes in front of a preload already set, never replacing it") {
  const ProfiledEnvironment prepared = Prepare({"PATH=/bin", "LD_PRELOAD=/usr/lib/libhook.so"});
  CHECK(ValueOf(prepared, "LD_PRELOAD") == std::string(kLibrary) + ":/usr/lib/libhook.so");
  CHECK(ValueOf(prepared, "PATH") == "/bin");
  const InjectionVariable& preload = Injection(prepared, "LD_PRELOAD");
  CHECK(preload.found == "/usr/lib/libhook.so");
  CHECK(preload.set_by_vprof);
}

TEST_CASE("a preload that already lists libvprof is left alone") {
  const std::string listed = std::string("/a.so ") + kLibrary;
  const ProfiledEnvironment prepared = Prepare({"LD_PRELOAD=" + listed});
  CHECK(ValueOf(prepared, "LD_PRELOAD") == listed);
  CHECK_FALSE(Injection(prepared, "LD_PRELOAD").set_by_vprof);
}

TEST_CASE("each injection variable names libvprof unless another tool holds it") {
  const std::string others[] = {"/nsys/libToolsInjection64.so", "/nsys/libnvtx-inject.so",
                                "/x/libnccl-profiler-inspector.so"};
  const std::string names[] = {"CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH",
                               "NCCL_PROFILER_PLUGIN"};
  for (size_t i = 0; i < 3; ++i) {
    INFO(names[i]);
    const ProfiledEnvironment unset = Prepare({});
    CHECK(ValueOf(unset, names[i]) == kLibrary);
    CHECK(Injection(unset, names[i]).set_by_vprof);
    CHECK_FALSE(Injection(unset, names[i]).found);

    const ProfiledEnvironment taken = Prepare({names[i] + "=" + others[i]});
    CHECK(ValueOf(taken, names[i]) == others[i]);
    const InjectionVariable& kept = Injection(taken, names[i]);
    CHECK(kept.found == others[i]);
    CHECK_FALSE(kept.set_by_vprof);
    // The other hooks are still vprof's.
    CHECK(ValueOf(taken, names[(i + 1) % 3]) == kLibrary);
  }
  // An empty value is no tool's: vprof takes the hook.
  CHECK(ValueOf(Prepare({"NVTX_INJECTION64_PATH="}), "NVTX_INJECTION64_PATH") == kLibrary);
}

TEST_CASE("settings and the output folder become VPROF_* variables") {
  const ProfiledEnvironment prepared =
      Prepare({"VPROF_LOG_LEVEL=info", "VPROF_OUTPUT_DIR=/elsewhere"}, {{"VPROF_FLUSH_MS", "50"}});
  CHECK(ValueOf(prepared, "VPROF_OUTPUT_DIR") == "/runs/r1");
  CHECK(prepared.settings == std::map<std::string, std::string>{{"VPROF_FLUSH_MS", "50"},
                                                                {"VPROF_LOG_LEVEL", "info"},
                                                                {"VPROF_OUTPUT_DIR", "/runs/r1"}});
}
