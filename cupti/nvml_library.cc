#include "cupti/nvml_library.h"

#include <dlfcn.h>

#include <cstdio>

#include "interpose/core/loader_calls.h"

namespace vprof {

namespace {

constexpr const char* kPath = "libnvidia-ml.so.1";

// The loader's part of loading NVML: the library (which joins the loader's
// list) and its functions.
void* OpenNvml(NvmlLibrary* loaded, std::string* error) {
  LoaderCallScope loader;
  void* h = dlopen(kPath, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    *error = why ? why : std::string(kPath) + ": cannot be opened";
    return nullptr;
  }
#define VPROF_NVML_FN(name, ret, params)                           \
  loaded->name = reinterpret_cast<ret(*) params>(dlsym(h, #name)); \
  if (!loaded->name) {                                             \
    *error = std::string(kPath) + " has no " #name;                \
    dlclose(h);                                                    \
    return nullptr;                                                \
  }
#include "cupti/nvml_functions.def"
#undef VPROF_NVML_FN
  return h;
}

}  // namespace

bool LoadNvml(NvmlLibrary* lib, std::string* error) {
  NvmlLibrary loaded;
  void* h = OpenNvml(&loaded, error);
  if (!h) return false;
  // Outside the scope: nvmlInit_v2 talks to the driver, which fork need not wait for.
  if (const nvml::Return r = loaded.nvmlInit_v2(); r != nvml::kSuccess) {
    const char* why = loaded.nvmlErrorString(r);
    *error = "nvmlInit_v2: " + std::string(why ? why : "error") + " (" + std::to_string(r) + ")";
    LoaderCallScope loader;
    dlclose(h);
    return false;
  }
  *lib = loaded;
  return true;
}

std::string NvmlUuid(const std::array<char, 16>& bytes) {
  char text[64];
  int at = std::snprintf(text, sizeof text, "GPU-");
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text[at++] = '-';
    at += std::snprintf(text + at, sizeof text - at, "%02x", static_cast<unsigned char>(bytes[i]));
  }
  return std::string(text, at);
}

}  // namespace vprof
