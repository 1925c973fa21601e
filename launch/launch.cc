#include "launch/launch.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "common/settings.h"
#include "launch/library_locator.h"
#include "launch/output_folder.h"
#include "launch/profiled_environment.h"
#include "reporter/base/host_name.h"
#include "reporter/base/utc_time.h"

extern char** environ;

namespace vprof::reporter {

std::optional<Launch> PrepareLaunch(const LaunchOptions& options, const std::string& run_id,
                                    const std::string& folder, std::string_view command,
                                    std::ostream& err) {
  const auto complain = [&](const std::string& message) {
    err << "vprof: " << command << ": " << message << '\n';
    return std::nullopt;
  };
  const LibraryLocation library = LocateLibrary(options.library, SelfExecutable());
  if (library.path.empty()) return complain(library.error);
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(folder, error).lexically_normal();
  if (error) return complain("cannot resolve " + folder + ": " + error.message());
  // "run1/" names the folder run1, not an empty name inside it.
  if (!absolute.has_filename()) absolute = absolute.parent_path();
  const std::string output_dir = absolute.string();
  // Every VPROF_* setting the processes will read (the environment's, this
  // command's options over them), checked as libvprof checks it at start: a
  // bad one would turn vprof off in every process, so nothing starts.
  const SettingsResult checked = ParseSettings([&](const char* name) -> const char* {
    if (std::string_view(name) == "VPROF_OUTPUT_DIR") return output_dir.c_str();
    const auto set = options.settings.find(name);
    return set != options.settings.end() ? set->second.c_str() : std::getenv(name);
  });
  if (!checked.error.empty()) return complain(checked.error);
  if (std::string refused = ClaimOutputFolder(output_dir, run_id, options.force);
      !refused.empty()) {
    return complain(refused);
  }
  ProfiledEnvironment environment =
      PrepareEnvironment(environ, library.path, output_dir, options.settings);

  Launch launch;
  launch.environment = std::move(environment.entries);
  Manifest& manifest = launch.manifest;
  manifest.run_id = run_id;
  manifest.launcher = "vprof " + std::string(command);
  manifest.command = options.command;
  manifest.working_directory = std::filesystem::current_path(error).string();
  manifest.output_directory = output_dir;
  manifest.library = library.path;
  manifest.start_time = IsoUtc(std::chrono::system_clock::now());
  manifest.hosts = {HostName()};
  manifest.settings = std::move(environment.settings);
  manifest.injection = std::move(environment.injection);
  return launch;
}

ChildEnd RunLaunch(Launch& launch) {
  const ChildEnd end = RunChild(launch.manifest.command, launch.environment);
  launch.manifest.end_time = IsoUtc(std::chrono::system_clock::now());
  launch.manifest.exit_status = end.status;
  if (end.signal != 0) launch.manifest.signal = end.signal;
  return end;
}

bool SaveManifest(const std::string& path, const Manifest& manifest, std::string_view command,
                  std::ostream& err) {
  std::string error;
  if (WriteManifest(path, manifest, &error)) return true;
  err << "vprof: " << command << ": " << error << '\n';
  return false;
}

}  // namespace vprof::reporter
