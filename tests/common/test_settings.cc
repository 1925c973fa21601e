#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "common/settings.h"

namespace {

std::map<std::string, std::string> g_env;

const char* fake_env(const char* name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}

vprof::SettingsResult parse(std::map<std::string, std::string> env) {
  g_env = std::move(env);
  return vprof::ParseSettings(fake_env);
}

}  // namespace

TEST_CASE("defaults when nothing is set") {
  auto r = parse({});
  REQUIRE(r.error.empty());
  CHECK(r.settings.enabled);
  CHECK(r.settings.output_dir == "vprof-traces");
  CHECK(r.settings.flush_interval_ms == 250);
  CHECK(r.settings.buffer_kib == 1024);
  CHECK(r.settings.start_after_s == 0);
  CHECK(r.settings.stop_after_s == 0);
  CHECK(r.settings.log_level == vprof::LogLevel::kWarn);
  CHECK(r.settings.nccl_plugin);
  CHECK_FALSE(r.settings.nccl_kernel_ch);
  CHECK_FALSE(r.settings.nccl_proxy);
}

TEST_CASE("every setting is read") {
  auto r = parse({{"VPROF_ENABLE", "1"},
                  {"VPROF_OUTPUT_DIR", "/tmp/x"},
                  {"VPROF_FLUSH_MS", "40"},
                  {"VPROF_BUFFER_KB", "64"},
                  {"VPROF_START_AFTER_S", "1.5"},
                  {"VPROF_STOP_AFTER_S", "30"},
                  {"VPROF_LOG_LEVEL", "debug"},
                  {"VPROF_NCCL_PLUGIN", "0"},
                  {"VPROF_NCCL_KERNEL_CH", "1"},
                  {"VPROF_NCCL_PROXY", "1"}});
  REQUIRE(r.error.empty());
  CHECK(r.settings.output_dir == "/tmp/x");
  CHECK(r.settings.flush_interval_ms == 40);
  CHECK(r.settings.buffer_kib == 64);
  CHECK(r.settings.start_after_s == 1.5);
  CHECK(r.settings.stop_after_s == 30);
  CHECK(r.settings.log_level == vprof::LogLevel::kDebug);
  CHECK_FALSE(r.settings.nccl_plugin);
  CHECK(r.settings.nccl_kernel_ch);
  CHECK(r.settings.nccl_proxy);
  CHECK_FALSE(parse({{"VPROF_ENABLE", "0"}}).settings.enabled);
}

TEST_CASE("a malformed setting is named with what was expected") {
  struct Case {
    const char* name;
    const char* value;
    const char* expected;
  } cases[] = {
      {"VPROF_ENABLE", "yes", "0 or 1"},
      {"VPROF_FLUSH_MS", "5", "from 10 to 600000"},
      {"VPROF_FLUSH_MS", "100ms", "from 10 to 600000"},
      {"VPROF_FLUSH_MS", "-100", "from 10 to 600000"},
      {"VPROF_BUFFER_KB", "99999999999", "from 16 to 16384"},
      {"VPROF_BUFFER_KB", "16385", "from 16 to 16384"},
      {"VPROF_DEEP", "5/2", "always, trigger, or ON/PERIOD"},
      {"VPROF_DEEP", "sometimes", "always, trigger, or ON/PERIOD"},
      {"VPROF_START_AFTER_S", "-1", "a number >= 0"},
      {"VPROF_STOP_AFTER_S", "nan", "a number >= 0"},
      {"VPROF_LOG_LEVEL", "loud", "one of trace"},
      {"VPROF_OUTPUT_DIR", "", "a folder path"},
      {"VPROF_NCCL_PLUGIN", "on", "0 or 1"},
      {"VPROF_NCCL_KERNEL_CH", "2", "0 or 1"},
      {"VPROF_NCCL_PROXY", "", "0 or 1"},
      {"VPROF_AUDIT", "on", "fingerprint or off"},
      {"VPROF_AUDIT_EVERY", "0", "1 or more"},
      {"VPROF_AUDIT_EVERY", "2x", "1 or more"},
      {"VPROF_AUDIT_MIN_BYTES", "-1", "0 or more"},
      {"VPROF_CUPTI_KINDS", "CONCURRENT_KERNEL,BOGUS", "light, all, or a comma-separated list"},
      {"VPROF_CUPTI_KINDS", "CONCURRENT_KERNEL,", "of light, CONCURRENT_KERNEL, MEMCPY"},
      {"VPROF_CUPTI_KINDS", "ful", "MEMORY2, SELECTED_API"},
  };
  for (const auto& c : cases) {
    INFO(c.name << "=" << c.value);
    auto r = parse({{c.name, c.value}});
    CHECK(r.error.find(c.name) == 0);
    CHECK(r.error.find(std::string("'") + c.value + "'") != std::string::npos);
    CHECK(r.error.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("VPROF_CUPTI_KINDS and VPROF_DEEP are parsed with the rest, into typed values") {
  const vprof::Settings unset = parse({}).settings;
  CHECK(unset.gpu_kinds.mode == "light");
  CHECK(unset.gpu_kinds.api_records == vprof::ApiRecords::kSelected);
  CHECK(unset.gpu_kinds.Has(vprof::GpuKind::kGRAPH_TRACE));
  CHECK_FALSE(unset.gpu_kinds.Has(vprof::GpuKind::kMEMORY2));
  CHECK(unset.deep.mode == vprof::DeepSchedule::Mode::kAlways);

  const vprof::Settings set =
      parse({{"VPROF_CUPTI_KINDS", " memset,Runtime "}, {"VPROF_DEEP", "5/60"}}).settings;
  CHECK(set.gpu_kinds.mode == "memset,Runtime");
  CHECK(set.gpu_kinds.kinds.count() == 2);
  CHECK(set.gpu_kinds.Has(vprof::GpuKind::kMEMSET));
  CHECK(set.gpu_kinds.Has(vprof::GpuKind::kRUNTIME));
  CHECK(set.gpu_kinds.api_records == vprof::ApiRecords::kAll);
  CHECK(set.deep.mode == vprof::DeepSchedule::Mode::kDutyCycle);
}

TEST_CASE("collective fingerprints are off unless VPROF_AUDIT asks, and sampled as told") {
  auto off = parse({}).settings;
  CHECK_FALSE(off.audit_fingerprints);
  CHECK(off.audit_every == 1);
  CHECK(off.audit_min_bytes == 0);
  auto on = parse({{"VPROF_AUDIT", "fingerprint"},
                   {"VPROF_AUDIT_EVERY", "8"},
                   {"VPROF_AUDIT_MIN_BYTES", "1048576"}})
                .settings;
  CHECK(on.audit_fingerprints);
  CHECK(on.audit_every == 8);
  CHECK(on.audit_min_bytes == 1048576);
  CHECK_FALSE(parse({{"VPROF_AUDIT", "off"}}).settings.audit_fingerprints);
}

TEST_CASE("a control character in a bad value keeps the warning on one line") {
  auto r = parse({{"VPROF_FLUSH_MS", "100\nVPROF: all good\x1b]0;x\x07"}});
  CHECK(r.error ==
        "VPROF_FLUSH_MS='100\\x0aVPROF: all good\\x1b]0;x\\x07' is invalid: "
        "expected milliseconds, an integer from 10 to 600000");
}

TEST_CASE("the capture window must end after it starts") {
  auto r = parse({{"VPROF_START_AFTER_S", "10"}, {"VPROF_STOP_AFTER_S", "5"}});
  CHECK(r.error.find("VPROF_STOP_AFTER_S") == 0);
  CHECK(parse({{"VPROF_START_AFTER_S", "10"}, {"VPROF_STOP_AFTER_S", "0"}}).error.empty());
}
