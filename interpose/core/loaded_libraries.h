// The shared objects the process loaded, for telling its role: a Ray worker
// or a plain "python3 run.py" names no role, but one that loaded vLLM's
// extension module (site-packages/vllm/_C.abi3.so) is a rollout engine and
// one that loaded Megatron's is a trainer (reporter/phases/process_role.h).
//
// The dynamic loader's list is walked with dl_iterate_phdr, which holds the
// loader's write lock (taken by glibc only around its own list edits, never
// around user code) and calls back without other locks. Only the holder of
// the flush lock looks: the writer thread at most once a second, and whoever
// ends the trace, once. The loader's counts of loads and unloads, handed to
// the first callback, say whether anything changed since the last look; only
// then is the list walked and each object not yet listed in this trace
// written in a LoadedLibraries packet. Nothing is allocated on a look: the
// names found go into a preallocated arena, the objects listed into a
// preallocated table of their hashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace vprof {

class TraceWriter;

// One loaded object, as dl_iterate_phdr reports it.
struct LoadedObject {
  std::string_view path;
  uint64_t base = 0;  // where it is mapped (a reloaded object may move)
};

// The loader's list, walked through `walk` (dl_iterate_phdr in the process;
// a list in tests).
struct LoaderList {
  // The loader's counts of loads and unloads since the process began.
  struct Counts {
    uint64_t adds = 0, subs = 0;
    bool operator==(const Counts&) const = default;
  };
  // Calls `on_counts` once, then, while it and `on_object` return true,
  // `on_object` for each object.
  using Walk = void (*)(void* context, bool (*on_counts)(void*, Counts),
                        bool (*on_object)(void*, const LoadedObject&));
  Walk walk;
};

class LoadedLibraryWatch {
 public:
  static constexpr uint32_t kMostListed = 2048;
  static constexpr uint64_t kReadIntervalNs = 1000000000;
  // Room for the names of the objects new in one look; objects that do not
  // fit are listed at the next look.
  static constexpr size_t kArenaBytes = 64 * 1024;

  LoadedLibraryWatch() = default;
  LoadedLibraryWatch(const LoadedLibraryWatch&) = delete;
  LoadedLibraryWatch& operator=(const LoadedLibraryWatch&) = delete;
  ~LoadedLibraryWatch();
  // Allocates the table and arena; false without memory.
  bool Init(LoaderList list);
  // Looks when kReadIntervalNs passed since the last look, or at once when
  // `at_end`, and writes the objects not listed before. False when the
  // trace cannot be written.
  bool PutNew(TraceWriter& writer, uint64_t now_ns, bool at_end);
  // In a forked child: its trace lists every object again.
  void ResetInChild();

 private:
  static bool OnCounts(void* self, LoaderList::Counts counts);
  static bool OnObject(void* self, const LoadedObject& object);
  bool PutPacket(TraceWriter& writer, uint64_t now_ns);

  LoaderList list_{};
  // Open addressing over hashes of (path, base); 0 is an empty slot. Twice
  // kMostListed slots, so a look never searches long.
  static constexpr size_t kSlots = 2 * kMostListed;
  uint64_t* slots_ = nullptr;
  uint32_t listed_ = 0;
  uint64_t unrecorded_ = 0;
  LoaderList::Counts last_counts_{};
  bool looked_ = false;
  uint64_t next_look_ns_ = 0;
  // This look's new objects: their names, NUL-separated, in arena_.
  char* arena_ = nullptr;
  size_t arena_used_ = 0;
  uint32_t found_ = 0;
  bool arena_full_ = false;
};

// The process's watch over dl_iterate_phdr: made at initialisation, before
// the writer thread starts, and never destroyed; null before, when vprof is
// off, and without memory for it. Only the flush lock's holder uses it after.
void ConfigureLoadedLibraryWatch();
LoadedLibraryWatch* GlobalLoadedLibraryWatch();

}  // namespace vprof
