#include "interpose/core/injection_status.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "interpose/core/trace_writer.h"
#include "vprof_trace_fields.h"

namespace vprof {
namespace {

namespace sf = vprof::schema;

struct HookState {
  // Set once at load, before the writer thread starts.
  char found[512] = {};
  bool claimed = false;
  // Set from whichever thread the hook's owner calls in on.
  std::atomic<uint32_t> version{0};
  std::atomic<const char*> not_attached_why{nullptr};
  std::atomic<bool> attached{false};
  std::atomic<uint32_t> changes{0};
  uint32_t written = 0;  // writer thread only
};

// Plain statics are safe here: trivially destructible, and zero-initialised
// before any code runs.
HookState g_hooks[2];

HookState& StateOf(InjectionHook hook) { return g_hooks[static_cast<uint32_t>(hook) - 1]; }

}  // namespace

std::string ClaimVariable(const char* variable, const char* self_path) {
  const char* found = getenv(variable);
  if (found && *found && (!self_path || std::string_view(found) != self_path)) return found;
  if (self_path) setenv(variable, self_path, 1);
  return "";
}

void NoteHookClaim(InjectionHook hook, const std::string& found, bool claimed) {
  HookState& s = StateOf(hook);
  std::strncpy(s.found, found.c_str(), sizeof s.found - 1);
  s.claimed = claimed;
  s.changes.fetch_add(1, std::memory_order_release);
}

void NoteHookAttached(InjectionHook hook, uint32_t version) {
  HookState& s = StateOf(hook);
  s.version.store(version, std::memory_order_relaxed);
  s.attached.store(true, std::memory_order_relaxed);
  s.changes.fetch_add(1, std::memory_order_release);
}

void NoteHookNotAttached(InjectionHook hook, const char* why) {
  HookState& s = StateOf(hook);
  s.not_attached_why.store(why, std::memory_order_relaxed);
  s.changes.fetch_add(1, std::memory_order_release);
}

bool PutInjectionStatus(TraceWriter& w) {
  for (uint32_t i = 0; i < 2; ++i) {
    HookState& s = g_hooks[i];
    const uint32_t changes = s.changes.load(std::memory_order_acquire);
    if (changes == s.written) continue;
    if (!w.EnsureRoom(sizeof s.found + 256)) return false;
    namespace k = sf::InjectionStatus;
    auto t = w.BeginPacket(sf::TracePacket::kInjection);
    ProtoEncoder& e = w.encoder();
    e.AddVarint(k::kHook, i + 1);
    if (s.found[0]) e.AddString(k::kFound, s.found);
    if (s.claimed) e.AddVarint(k::kClaimed, 1);
    const bool attached = s.attached.load(std::memory_order_relaxed);
    if (attached) {
      e.AddVarint(k::kAttached, 1);
      e.AddVarint(k::kVersion, s.version.load(std::memory_order_relaxed));
    } else if (const char* why = s.not_attached_why.load(std::memory_order_relaxed)) {
      e.AddString(k::kDetail, why);
    }
    w.EndPacket(t);
    s.written = changes;
  }
  return true;
}

void RewriteInjectionStatusInChild() {
  for (HookState& s : g_hooks) {
    const uint32_t changes = s.changes.load(std::memory_order_relaxed);
    if (changes) s.written = changes - 1;
  }
}

}  // namespace vprof
