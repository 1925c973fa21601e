#include "interpose/core/loaded_libraries.h"

#include <link.h>

#include <cstring>
#include <new>

#include "common/utf8_repair.h"
#include "interpose/core/loader_calls.h"
#include "interpose/core/proto_encoder.h"
#include "interpose/core/trace_writer.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = schema;

LoadedLibraryWatch* g_watch = nullptr;  // created once, never destroyed (see load_order.h)

// Objects counted past kMostListed still take a slot, so one is counted once;
// past this many slots in use nothing more is looked at.
constexpr size_t kMostSlotsUsed = LoadedLibraryWatch::kMostListed * 3 / 2;

uint64_t ObjectKey(const LoadedObject& object) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a
  for (const char c : object.path) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h ^= object.base * 0x9e3779b97f4a7c15ull;
  return h ? h : 1;  // 0 marks an empty slot
}

struct PhdrWalk {
  void* context;
  bool (*on_counts)(void*, LoaderList::Counts);
  bool (*on_object)(void*, const LoadedObject&);
  bool first = true;
};

// dl_iterate_phdr's callback: a non-zero return stops the walk. The loader's
// write lock is held here, so nothing that may load or allocate is called.
int OnPhdr(struct dl_phdr_info* info, size_t size, void* data) {
  auto* walk = static_cast<PhdrWalk*>(data);
  // dlpi_adds and dlpi_subs follow dlpi_phnum in the struct; a size without
  // them is a loader too old to count, and then every look walks the list.
  if (walk->first) {
    walk->first = false;
    LoaderList::Counts counts{};
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
      counts = {info->dlpi_adds, info->dlpi_subs};
    }
    if (!walk->on_counts(walk->context, counts)) return 1;
  }
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;  // the program itself
  return walk->on_object(walk->context, {info->dlpi_name, info->dlpi_addr}) ? 0 : 1;
}

void WalkLoader(void* context, bool (*on_counts)(void*, LoaderList::Counts),
                bool (*on_object)(void*, const LoadedObject&)) {
  PhdrWalk walk{context, on_counts, on_object};
  LoaderCallScope loader;
  dl_iterate_phdr(OnPhdr, &walk);
}

}  // namespace

LoadedLibraryWatch::~LoadedLibraryWatch() {
  delete[] slots_;
  delete[] arena_;
}

bool LoadedLibraryWatch::Init(LoaderList list) {
  list_ = list;
  slots_ = new (std::nothrow) uint64_t[kSlots]();
  arena_ = new (std::nothrow) char[kArenaBytes];
  return slots_ && arena_;
}

void LoadedLibraryWatch::ResetInChild() {
  std::memset(slots_, 0, kSlots * sizeof *slots_);
  listed_ = 0;
  unrecorded_ = 0;
  looked_ = false;
  next_look_ns_ = 0;
}

bool LoadedLibraryWatch::OnCounts(void* self, LoaderList::Counts counts) {
  auto* w = static_cast<LoadedLibraryWatch*>(self);
  // Unchanged counts (of a loader that keeps them): nothing to walk.
  const bool changed = !w->looked_ || counts != w->last_counts_ || counts == LoaderList::Counts{};
  w->last_counts_ = counts;
  return changed;
}

bool LoadedLibraryWatch::OnObject(void* self, const LoadedObject& object) {
  auto* w = static_cast<LoadedLibraryWatch*>(self);
  if (w->listed_ + w->found_ + w->unrecorded_ >= kMostSlotsUsed) return false;
  const uint64_t key = ObjectKey(object);
  size_t i = key % kSlots;
  while (w->slots_[i] != 0 && w->slots_[i] != key) i = (i + 1) % kSlots;
  if (w->slots_[i] == key) return true;  // listed (or counted) before
  if (w->listed_ + w->found_ >= kMostListed) {
    w->slots_[i] = key;
    ++w->unrecorded_;
    return true;
  }
  // Names that do not fit wait for the next look, which the walk then makes
  // happen whatever the counts say.
  if (object.path.size() + 1 > kArenaBytes - w->arena_used_) {
    w->arena_full_ = true;
    return true;
  }
  w->slots_[i] = key;
  std::memcpy(w->arena_ + w->arena_used_, object.path.data(), object.path.size());
  w->arena_used_ += object.path.size();
  w->arena_[w->arena_used_++] = '\0';
  ++w->found_;
  return true;
}

bool LoadedLibraryWatch::PutNew(TraceWriter& writer, uint64_t now_ns, bool at_end) {
  if (!at_end && now_ns < next_look_ns_) return true;
  next_look_ns_ = now_ns + kReadIntervalNs;
  const uint64_t unrecorded_before = unrecorded_;
  arena_used_ = 0;
  found_ = 0;
  arena_full_ = false;
  list_.walk(this, OnCounts, OnObject);
  looked_ = !arena_full_;  // a full arena: look again, whatever the counts
  if (found_ == 0 && unrecorded_ == unrecorded_before) return true;
  return PutPacket(writer, now_ns);
}

bool LoadedLibraryWatch::PutPacket(TraceWriter& writer, uint64_t now_ns) {
  if (!writer.EnsureRoom(Utf8RepairedBound(arena_used_) + 16 * (size_t{found_} + 2))) {
    return false;
  }
  ProtoEncoder& enc = writer.encoder();
  auto t = writer.BeginPacket(sf::TracePacket::kLoadedLibraries);
  enc.AddVarint(sf::LoadedLibraries::kObservedNs, now_ns);
  for (size_t at = 0; at < arena_used_;) {
    const std::string_view path(arena_ + at);
    enc.AddString(sf::LoadedLibraries::kPath, path);
    at += path.size() + 1;
  }
  if (unrecorded_) enc.AddVarint(sf::LoadedLibraries::kUnrecorded, unrecorded_);
  writer.EndPacket(t);
  listed_ += found_;
  return true;
}

void ConfigureLoadedLibraryWatch() {
  auto* watch = new (std::nothrow) LoadedLibraryWatch;
  if (watch && watch->Init({WalkLoader})) {
    g_watch = watch;
  } else {
    delete watch;
  }
}

LoadedLibraryWatch* GlobalLoadedLibraryWatch() { return g_watch; }

}  // namespace vprof
