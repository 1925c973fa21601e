#include "cupti/cupti_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <type_traits>
#include <vector>

#include "interpose/core/loader_calls.h"
#include "interpose/core/symbol_resolver.h"

namespace vprof {
namespace {

// The table's parameter lists must be the header's.
#define VPROF_CUPTI_FN(name, ret, params)                                       \
  static_assert(std::is_same_v<decltype(&::name), ret(CUPTIAPI*) params>, #name \
                " "                                                             \
                "in cupti_functions.def differs from cupti.h");
#include "cupti/cupti_functions.def"
#undef VPROF_CUPTI_FN

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// The folder of the libcudart already loaded in this process, if any.
std::string LoadedCudartDir() {
  void* sym = ResolveRealSymbol("cudaRuntimeGetVersion");
  Dl_info info{};
  if (!sym || !dladdr(sym, &info) || !info.dli_fname) return "";
  return DirectoryOf(info.dli_fname);
}

}  // namespace

std::vector<std::string> CuptiCandidates(const std::string& cudart_dir,
                                         const char* vprof_cupti_path,
                                         const std::string& cuda_home) {
  std::vector<std::string> out;
  if (!cudart_dir.empty()) out.push_back(cudart_dir + "/libcupti.so.13");
  if (vprof_cupti_path && *vprof_cupti_path) out.emplace_back(vprof_cupti_path);
  out.push_back(cuda_home + "/extras/CUPTI/lib64/libcupti.so.13");
  out.push_back(cuda_home + "/lib64/libcupti.so.13");
  return out;
}

bool LoadCuptiFrom(const std::string& path, CuptiLibrary* lib, std::string* error) {
  LoaderCallScope loader;  // libcupti joins the loader's list
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    *error = path + ": " + (why ? why : "cannot be opened");
    return false;
  }
  CuptiLibrary loaded;
  std::string missing;
#define VPROF_CUPTI_OPTIONAL_FN(name, ret, params) \
  loaded.name = reinterpret_cast<ret(CUPTIAPI*) params>(dlsym(h, #name));
#define VPROF_CUPTI_FN(name, ret, params)    \
  VPROF_CUPTI_OPTIONAL_FN(name, ret, params) \
  if (!loaded.name) missing += (missing.empty() ? "" : ", ") + std::string(#name);
#include "cupti/cupti_functions.def"
#undef VPROF_CUPTI_FN
  if (!missing.empty()) {
    *error = path + ": lacks " + missing;
    dlclose(h);
    return false;
  }
  loaded.path = path;
  *lib = loaded;
  return true;
}

bool LoadCupti(CuptiLibrary* lib, std::string* error) {
  const char* home = std::getenv("CUDA_HOME");
  std::string tried;
  for (const std::string& path : CuptiCandidates(LoadedCudartDir(), std::getenv("VPROF_CUPTI_PATH"),
                                                 home && *home ? home : "/usr/local/cuda")) {
    std::string why;
    if (LoadCuptiFrom(path, lib, &why)) return true;
    tried += (tried.empty() ? "" : "; ") + why;
  }
  *error = "no usable libcupti (tried " + tried + ")";
  return false;
}

}  // namespace vprof
