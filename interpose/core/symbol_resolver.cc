#include "interpose/core/symbol_resolver.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <initializer_list>

#include "interpose/core/load_order.h"
#include "interpose/core/loader_calls.h"

namespace vprof {
namespace {

const void* FindOwnBase() {
  Dl_info info{};
  dladdr(reinterpret_cast<const void*>(&IsOwnAddress), &info);
  return info.dli_fbase;
}

// Found at load (no function-local static guard for a fork to freeze).
LoadFirst<const void*> g_own_base VPROF_LOAD_FIRST(FindOwnBase());

const void* OwnBase() { return *g_own_base; }

const void* ObjectBase(const void* addr) {
  Dl_info info{};
  if (!addr || !dladdr(addr, &info)) return nullptr;
  return info.dli_fbase;
}

bool Usable(const void* sym) { return sym && !IsOwnAddress(sym); }

// Objects loaded after vprof, copied out of dl_iterate_phdr: the loader lock
// it holds must not be held across dlopen (that would deadlock).
struct LoadedObjects {
  static constexpr int kMax = 512;
  static constexpr int kNameMax = 512;
  char names[kMax][kNameMax];
  const void* bases[kMax];
  int count = 0;
  bool after_self = false;
};

int Collect(struct dl_phdr_info* info, size_t, void* data) {
  auto* objs = static_cast<LoadedObjects*>(data);
  const void* base = reinterpret_cast<const void*>(info->dlpi_addr);
  if (base == OwnBase()) {
    objs->after_self = true;
    return 0;
  }
  if (!objs->after_self || !info->dlpi_name || !info->dlpi_name[0]) return 0;
  if (objs->count == LoadedObjects::kMax) return 1;
  if (std::strlen(info->dlpi_name) >= LoadedObjects::kNameMax) return 0;
  std::strcpy(objs->names[objs->count], info->dlpi_name);
  objs->bases[objs->count] = base;
  ++objs->count;
  return 0;
}

void* FindInObject(const char* path, const void* base, const char* name, const char* pname) {
  void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return nullptr;
  void* found = nullptr;
  for (const char* n : {name, pname}) {
    void* sym = dlsym(h, n);
    // dlsym on a handle also searches the object's dependencies: accept only
    // a definition in the object itself.
    if (Usable(sym) && ObjectBase(sym) == base) {
      found = sym;
      break;
    }
  }
  dlclose(h);
  return found;
}

}  // namespace

bool IsOwnAddress(const void* addr) { return ObjectBase(addr) == OwnBase(); }

void* ResolveRealSymbol(const char* name) {
  if (void* sym = dlsym(RTLD_NEXT, name); Usable(sym)) return sym;
  char pname[128];
  if (std::strlen(name) + 2 > sizeof pname) return nullptr;
  pname[0] = 'p';
  std::strcpy(pname + 1, name);
  if (void* sym = dlsym(RTLD_DEFAULT, pname); Usable(sym)) return sym;

  // 256 KiB: too large for the stack of a small application thread.
  static thread_local LoadedObjects* objs = nullptr;
  if (!objs) objs = new LoadedObjects;
  objs->count = 0;
  objs->after_self = false;
  {
    LoaderCallScope loader;
    dl_iterate_phdr(Collect, objs);
  }
  for (int i = 0; i < objs->count; ++i) {
    if (void* sym = FindInObject(objs->names[i], objs->bases[i], name, pname)) return sym;
  }
  return nullptr;
}

}  // namespace vprof
