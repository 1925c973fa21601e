#include "launch/library_locator.h"

#include <cstdlib>
#include <filesystem>

namespace vprof::reporter {
namespace {

namespace fs = std::filesystem;

bool IsFile(const std::string& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

}  // namespace

std::string SelfExecutable() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string() : self.string();
}

LibraryLocation LocateLibrary(const std::optional<std::string>& option, const std::string& self) {
  LibraryLocation location;
  const char* variable = std::getenv("VPROF_LIBRARY");
  std::optional<std::string> explicit_path = option;
  std::string source = "--library";
  if (!explicit_path && variable != nullptr && *variable != '\0') {
    explicit_path = variable;
    source = "VPROF_LIBRARY";
  }
  if (explicit_path) {
    if (IsFile(*explicit_path)) {
      location.path = fs::absolute(*explicit_path).lexically_normal().string();
    } else {
      location.error = source + " names " + *explicit_path + ", which is not a file";
    }
    return location;
  }
  const fs::path folder = fs::path(self).parent_path();
  const fs::path prefix = folder.parent_path();
  location.error = "cannot find libvprof.so: tried";
  for (const fs::path& candidate : {prefix / "interpose" / "libvprof.so",
                                    prefix / "lib" / "libvprof.so", folder / "libvprof.so"}) {
    if (IsFile(candidate.string())) {
      location.path = candidate.lexically_normal().string();
      location.error.clear();
      return location;
    }
    location.error += " " + candidate.lexically_normal().string();
  }
  location.error += "; name it with --library PATH or VPROF_LIBRARY";
  return location;
}

}  // namespace vprof::reporter
