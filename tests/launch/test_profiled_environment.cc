// The environment a launcher gives the profiled command.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "reporter/profiled_environment.h"

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

TEST_CASE("CUDA_INJECTION64_PATH names libvprof unless another tool holds it") {
  const ProfiledEnvironment unset = Prepare({});
  CHECK(ValueOf(unset, "CUDA_INJECTION64_PATH") == kLibrary);
  CHECK(ValueOf(unset, "LD_PRELOAD") == kLibrary);
  CHECK(Injection(unset, "CUDA_INJECTION64_PATH").set_by_vprof);
  CHECK_FALSE(Injection(unset, "CUDA_INJECTION64_PATH").found);

  const ProfiledEnvironment taken = Prepare({"CUDA_INJECTION64_PATH=/nsys/libToolsInjection64.so"});
  CHECK(ValueOf(taken, "CUDA_INJECTION64_PATH") == "/nsys/libToolsInjection64.so");
  const InjectionVariable& kept = Injection(taken, "CUDA_INJECTION64_PATH");
  CHECK(kept.found == "/nsys/libToolsInjection64.so");
  CHECK_FALSE(kept.set_by_vprof);
}

TEST_CASE("NVTX and NCCL plugin variables are only noted, never set") {
  const ProfiledEnvironment prepared = Prepare({"NCCL_PROFILER_PLUGIN=/x/libplugin.so"});
  CHECK(Injection(prepared, "NCCL_PROFILER_PLUGIN").found == "/x/libplugin.so");
  CHECK_FALSE(Injection(prepared, "NCCL_PROFILER_PLUGIN").set_by_vprof);
  CHECK_FALSE(Injection(prepared, "NVTX_INJECTION64_PATH").value);
  for (const std::string& entry : prepared.entries) CHECK_FALSE(entry.starts_with("NVTX_"));
}

TEST_CASE("settings and the output folder become VPROF_* variables") {
  const ProfiledEnvironment prepared =
      Prepare({"VPROF_LOG_LEVEL=info", "VPROF_OUTPUT_DIR=/elsewhere"}, {{"VPROF_FLUSH_MS", "50"}});
  CHECK(ValueOf(prepared, "VPROF_OUTPUT_DIR") == "/runs/r1");
  CHECK(prepared.settings == std::map<std::string, std::string>{{"VPROF_FLUSH_MS", "50"},
                                                                {"VPROF_LOG_LEVEL", "info"},
                                                                {"VPROF_OUTPUT_DIR", "/runs/r1"}});
}
