#include "profiler_plugin.h"

#include <dlfcn.h>
#include <strings.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "comm.h"
#include "errors.h"
#include "profiler_events.h"
#include "unique_id.h"

namespace fake_nccl::profiler {
namespace {

namespace abi = profiler_abi;

struct Loaded {
  void* library = nullptr;
  int version = 0;  // 0: none loaded
  const abi::Plugin4* v4 = nullptr;
  const abi::Plugin5* v5 = nullptr;  // v5 and v6 share the layout the stand-in uses
  int communicators = 0;
  bool failed = false;  // NCCL does not try again in the same process
};

std::mutex g_lock;
Loaded g_plugin;
// NCCL's single activation mask: every init may write it, every API call reads it.
int g_mask = 0;

void IgnoreLog(int, unsigned long, const char*, int, const char*, ...) {}

bool ParseMaxVersion(int* out) {
  const char* value = std::getenv("FAKE_NCCL_PROFILER_API");
  if (value == nullptr) {
    *out = 6;
    return true;
  }
  const std::string v = value;
  if (v != "4" && v != "5" && v != "6") return false;
  *out = v[0] - '0';
  return true;
}

void* OpenLibrary() {
  const char* name = std::getenv("NCCL_PROFILER_PLUGIN");
  if (name != nullptr && strcasecmp(name, "none") == 0) return nullptr;
  const std::string first = name != nullptr && *name ? name : "libnccl-profiler.so";
  if (void* library = dlopen(first.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
  if (name == nullptr || *name == '\0') return nullptr;
  const std::string n = name;
  const bool library_name =
      n.rfind("lib", 0) == 0 && n.size() >= 3 && n.compare(n.size() - 3, 3, ".so") == 0;
  if (n.find('/') != std::string::npos || library_name) return nullptr;
  return dlopen(("libnccl-profiler-" + n + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
}

// With g_lock held.
bool Load(int max_version) {
  if (g_plugin.version != 0) return true;
  if (g_plugin.failed) return false;
  void* library = OpenLibrary();
  for (int version = max_version; library != nullptr && version >= 4; --version) {
    void* symbol = dlsym(library, ("ncclProfiler_v" + std::to_string(version)).c_str());
    if (symbol == nullptr) continue;
    g_plugin.library = library;
    g_plugin.version = version;
    g_plugin.v4 = version == 4 ? static_cast<const abi::Plugin4*>(symbol) : nullptr;
    g_plugin.v5 = version >= 5 ? static_cast<const abi::Plugin5*>(symbol) : nullptr;
    return true;
  }
  if (library != nullptr) dlclose(library);
  g_plugin.failed = true;
  return false;
}

uint64_t HashOfId(const std::string& region_name) {
  const ncclUniqueId id = UniqueIdFor(region_name);
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a over the id's bytes
  for (const char byte : id.internal) {
    hash = (hash ^ static_cast<uint8_t>(byte)) * 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

ncclResult_t Attach(ncclComm& comm, const ncclConfig_t* config) {
  int max_version = 0;
  if (!ParseMaxVersion(&max_version)) {
    return SystemFail("FAKE_NCCL_PROFILER_API='" +
                      std::string(std::getenv("FAKE_NCCL_PROFILER_API")) +
                      "' is invalid: expected 4, 5 or 6");
  }
  {
    std::lock_guard<std::mutex> lock(g_lock);
    if (!Load(max_version)) return ncclSuccess;
    ++g_plugin.communicators;
  }
  comm.profiler_attached = true;
  ChooseAlgorithm(comm);
  const char* name = config != nullptr ? config->commName : nullptr;
  const uint64_t hash = HashOfId(comm.name);
  // As in NCCL, init runs without the loader's lock held, and NCCL goes on without the plugin's
  // events when init fails; so does the stand-in.
  if (g_plugin.v4 != nullptr) {
    g_plugin.v4->init(&comm.profiler_context, &g_mask, name, hash, 1, comm.nranks, comm.rank,
                      IgnoreLog);
  } else {
    g_plugin.v5->init(&comm.profiler_context, hash, &g_mask, name, 1, comm.nranks, comm.rank,
                      IgnoreLog);
  }
  return ncclSuccess;
}

void Detach(ncclComm& comm) {
  if (!comm.profiler_attached) return;
  if (comm.profiler_context != nullptr) {
    if (g_plugin.v4 != nullptr) {
      g_plugin.v4->finalize(comm.profiler_context);
    } else {
      g_plugin.v5->finalize(comm.profiler_context);
    }
  }
  comm.profiler_attached = false;
  comm.profiler_context = nullptr;
  std::lock_guard<std::mutex> lock(g_lock);
  if (--g_plugin.communicators == 0) {
    dlclose(g_plugin.library);
    g_plugin = {};
  }
}

uint64_t Mask() { return static_cast<uint64_t>(__atomic_load_n(&g_mask, __ATOMIC_RELAXED)); }

// The callers below, and init and finalize above, run only while a communicator holds the
// plugin loaded: the struct pointers do not change then, so they are read without the lock.
void* Start(void* context, const abi::Descr5& descr) {
  void* handle = nullptr;
  if (g_plugin.v5 != nullptr) {
    abi::Descr5 copy = descr;  // the plugin gets a pointer to non-const, as from NCCL
    g_plugin.v5->startEvent(context, &handle, &copy);
    return handle;
  }
  abi::Descr4 d{};
  d.type = static_cast<uint8_t>(descr.type);
  d.parentObj = descr.parentObj;
  d.rank = descr.rank;
  if (descr.type == abi::kColl) {
    d.coll = {descr.coll.seqNumber, descr.coll.func, descr.coll.sendBuff, descr.coll.recvBuff,
              descr.coll.count,     descr.coll.root, descr.coll.datatype, descr.coll.nChannels,
              descr.coll.nWarps,    descr.coll.algo, descr.coll.proto};
    d.parentObj = descr.coll.parentGroup;
  } else if (descr.type == abi::kP2p) {
    d.p2p = {descr.p2p.func,  descr.p2p.buff, descr.p2p.datatype,
             descr.p2p.count, descr.p2p.peer, descr.p2p.nChannels};
    d.parentObj = descr.p2p.parentGroup;
  } else if (descr.type == abi::kKernelCh) {
    d.kernelCh = {descr.kernelCh.channelId, descr.kernelCh.pTimer};
  } else if (descr.type != abi::kGroup) {
    return nullptr;  // v5 event types a v4 plugin does not know
  }
  g_plugin.v4->startEvent(context, &handle, &d);
  return handle;
}

void Stop(void* handle) {
  if (handle == nullptr) return;
  if (g_plugin.v5 != nullptr) {
    g_plugin.v5->stopEvent(handle);
  } else {
    g_plugin.v4->stopEvent(handle);
  }
}

void Record(void* handle, int state, abi::StateArgs* args) {
  if (handle == nullptr) return;
  if (g_plugin.v5 != nullptr) {
    g_plugin.v5->recordEventState(handle, state, args);
  } else if (state == abi::kStateKernelChStop) {  // the group API states are v5's
    g_plugin.v4->recordEventState(handle, state, args);
  }
}

}  // namespace fake_nccl::profiler
