#include "symbol_resolver.h"
#include "load_order.h"

#include <dlfcn.h>
#include <link.h>

#include <cstring>
#include <initializer_list>

namespace vprof {
namespace {

const void* find_own_base() {
  Dl_info info{};
  dladdr(reinterpret_cast<const void*>(&is_own_address), &info);
  return info.dli_fbase;
}

// Found at load (no function-local static guard for a fork to freeze).
LoadFirst<const void*> g_own_base VPROF_LOAD_FIRST(find_own_base());

const void* own_base() { return *g_own_base; }

const void* object_base(const void* addr) {
  Dl_info info{};
  if (!addr || !dladdr(addr, &info)) return nullptr;
  return info.dli_fbase;
}

bool usable(const void* sym) { return sym && !is_own_address(sym); }

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

int collect(struct dl_phdr_info* info, size_t, void* data) {
  auto* objs = static_cast<LoadedObjects*>(data);
  const void* base = reinterpret_cast<const void*>(info->dlpi_addr);
  if (base == own_base()) {
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

void* find_in_object(const char* path, const void* base, const char* name, const char* pname) {
  void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return nullptr;
  void* found = nullptr;
  for (const char* n : {name, pname}) {
    void* sym = dlsym(h, n);
    // dlsym on a handle also searches the object's dependencies: accept only
    // a definition in the object itself.
    if (usable(sym) && object_base(sym) == base) {
      found = sym;
      break;
    }
  }
  dlclose(h);
  return found;
}

}  // namespace

bool is_own_address(const void* addr) { return object_base(addr) == own_base(); }

void* resolve_real_symbol(const char* name) {
  if (void* sym = dlsym(RTLD_NEXT, name); usable(sym)) return sym;
  char pname[128];
  if (std::strlen(name) + 2 > sizeof pname) return nullptr;
  pname[0] = 'p';
  std::strcpy(pname + 1, name);
  if (void* sym = dlsym(RTLD_DEFAULT, pname); usable(sym)) return sym;

  // 256 KiB: too large for the stack of a small application thread.
  static thread_local LoadedObjects* objs = nullptr;
  if (!objs) objs = new LoadedObjects;
  objs->count = 0;
  objs->after_self = false;
  dl_iterate_phdr(collect, objs);
  for (int i = 0; i < objs->count; ++i) {
    if (void* sym = find_in_object(objs->names[i], objs->bases[i], name, pname)) return sym;
  }
  return nullptr;
}

}  // namespace vprof
