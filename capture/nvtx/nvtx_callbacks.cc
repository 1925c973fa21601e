#include "nvtx_callbacks.h"

#include <cstddef>
#include <initializer_list>
#include <new>
#include <string>

#define NVTX_NO_IMPL  // types only: vprof is the tool, not a client
#include <nvtx3/nvToolsExt.h>

#include "clock.h"
#include "injection_status.h"
#include "nvtx_handles.h"
#include "nvtx_open_ranges.h"
#include "runtime.h"
#include "thread_buffers.h"
#include "utf8_repair.h"

namespace vprof {
namespace {

// What nvtxRangePush/Pop return when no tool tracks nesting (NVTX's own
// NVTX_NO_PUSH_POP_TRACKING): vprof's answer while it is not recording.
constexpr int kNoPushPopTracking = -2;

void copy_text(const char* from, NvtxMessage* to) {
  utf8_copy_cut(from ? from : "", to->text, NvtxMessage::kTextBytes);
  to->registered = nullptr;
}

// Wide strings keep their ASCII characters; others become '?'.
void copy_wide_text(const wchar_t* from, NvtxMessage* to) {
  size_t i = 0;
  if (from) {
    for (; i + 1 < NvtxMessage::kTextBytes && from[i]; ++i) {
      to->text[i] = from[i] > 0 && from[i] < 0x80 ? static_cast<char>(from[i]) : '?';
    }
  }
  to->text[i] = '\0';
  to->registered = nullptr;
}

std::string narrow(const wchar_t* from) {
  NvtxMessage m;
  copy_wide_text(from, &m);
  return m.text;
}

// The attribute fields vprof keeps. A structure too small to hold a field
// (an older NVTX) leaves it at its default.
struct Attributes {
  uint32_t color = 0;
  uint32_t category = 0;
};

Attributes read_attributes(const nvtxEventAttributes_t* a, NvtxMessage* message) {
  Attributes out;
  message->text[0] = '\0';
  message->registered = nullptr;
  if (!a) return out;
  const size_t size = a->size;
  if (size >= offsetof(nvtxEventAttributes_t, category) + sizeof a->category) {
    out.category = a->category;
  }
  if (size >= offsetof(nvtxEventAttributes_t, color) + sizeof a->color &&
      a->colorType == NVTX_COLOR_ARGB) {
    out.color = a->color;
  }
  if (size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message) return out;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      copy_text(a->message.ascii, message);
      break;
    case NVTX_MESSAGE_TYPE_UNICODE:
      copy_wide_text(a->message.unicode, message);
      break;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      message->registered = reinterpret_cast<const NvtxRegisteredString*>(a->message.registered);
      break;
    default:
      break;  // no message, or a payload type vprof does not read
  }
  return out;
}

const NvtxDomain* domain_of(nvtxDomainHandle_t h) { return reinterpret_cast<const NvtxDomain*>(h); }

// --- push / pop: nesting on the calling thread -------------------------------

template <typename FillMessage>
int push(const NvtxDomain* domain, Attributes attributes, FillMessage&& fill) {
  if (!runtime_recording()) return kNoPushPopTracking;
  ThreadBuffer* b = thread_buffers().current();
  if (!b) {
    thread_buffers().count_lost_without_buffer();
    return kNoPushPopTracking;
  }
  NvtxStack::Pushed p = b->nvtx_stack.push(domain);
  if (!p.entry) return p.depth;
  p.entry->color = attributes.color;
  p.entry->category = attributes.category;
  fill(&p.entry->message);
  p.entry->start_ns = now_ns();  // last: the range's own cost stays outside it
  return p.depth;
}

int pop(const NvtxDomain* domain) {
  if (!runtime_recording()) return kNoPushPopTracking;
  const uint64_t end_ns = now_ns();
  ThreadBuffer* b = thread_buffers().current();
  if (!b) return kNoPushPopTracking;
  NvtxStack::Entry e;
  bool had_entry = false;
  int depth = b->nvtx_stack.pop(domain, &e, &had_entry);
  if (!had_entry) {
    if (depth >= 0) b->nvtx.count_drop();  // pushed past NvtxStack::kMaxDepth
    return depth;
  }
  NvtxRecord r;
  r.start_ns = e.start_ns;
  r.end_ns = end_ns;
  r.domain = domain;
  r.color = e.color;
  r.category = e.category;
  r.start_tid = 0;
  r.depth = static_cast<uint16_t>(depth);
  r.kind = NvtxRecord::kPushPop;
  r.message = e.message;
  b->nvtx.push(r);
  return depth;
}

int NVTX_API range_push_ex(const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = read_attributes(a, &m);
  return push(nullptr, attributes, [&](NvtxMessage* to) { *to = m; });
}
int NVTX_API range_push_a(const char* message) {
  return push(nullptr, {}, [&](NvtxMessage* to) { copy_text(message, to); });
}
int NVTX_API range_push_w(const wchar_t* message) {
  return push(nullptr, {}, [&](NvtxMessage* to) { copy_wide_text(message, to); });
}
int NVTX_API range_pop() { return pop(nullptr); }
int NVTX_API domain_range_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = read_attributes(a, &m);
  return push(domain_of(d), attributes, [&](NvtxMessage* to) { *to = m; });
}
int NVTX_API domain_range_pop(nvtxDomainHandle_t d) { return pop(domain_of(d)); }

// --- start / end: ranges that may end on another thread -----------------------

nvtxRangeId_t start(const NvtxDomain* domain, Attributes attributes, const NvtxMessage& message) {
  NvtxOpenRanges* open = nvtx_open_ranges();
  if (!runtime_recording() || !open) return 0;
  ThreadBuffer* b = thread_buffers().current();  // for its tid: no system call
  if (!b) {
    thread_buffers().count_lost_without_buffer();
    return 0;
  }
  NvtxOpenRanges::Begun begun = open->begin();
  if (!begun.slot) return begun.id;
  begun.slot->tid = static_cast<uint32_t>(b->tid);
  begun.slot->domain = domain;
  begun.slot->color = attributes.color;
  begun.slot->category = attributes.category;
  begun.slot->message = message;
  begun.slot->start_ns = now_ns();
  open->publish(begun.id);
  return begun.id;
}

void end(nvtxRangeId_t id) {
  NvtxOpenRanges* open = nvtx_open_ranges();
  if (!runtime_recording() || !open) return;
  const uint64_t end_ns = now_ns();
  NvtxOpenRanges::Opened o;
  if (!open->end(id, &o)) return;
  ThreadBuffer* b = thread_buffers().current();
  if (!b) {
    thread_buffers().count_lost_without_buffer();
    return;
  }
  NvtxRecord r;
  r.start_ns = o.start_ns;
  r.end_ns = end_ns;
  r.domain = o.domain;
  r.color = o.color;
  r.category = o.category;
  // Batches are written per recording thread, here the one that ended it;
  // the range belongs to the one that started it, so say when they differ.
  r.start_tid = o.tid != static_cast<uint32_t>(b->tid) ? o.tid : 0;
  r.depth = 0;
  r.kind = NvtxRecord::kStartEnd;
  r.message = o.message;
  b->nvtx.push(r);
}

nvtxRangeId_t NVTX_API range_start_ex(const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = read_attributes(a, &m);
  return start(nullptr, attributes, m);
}
nvtxRangeId_t NVTX_API range_start_a(const char* message) {
  NvtxMessage m;
  copy_text(message, &m);
  return start(nullptr, {}, m);
}
nvtxRangeId_t NVTX_API range_start_w(const wchar_t* message) {
  NvtxMessage m;
  copy_wide_text(message, &m);
  return start(nullptr, {}, m);
}
void NVTX_API range_end(nvtxRangeId_t id) { end(id); }
nvtxRangeId_t NVTX_API domain_range_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = read_attributes(a, &m);
  return start(domain_of(d), attributes, m);
}
void NVTX_API domain_range_end(nvtxDomainHandle_t, nvtxRangeId_t id) { end(id); }

// --- marks --------------------------------------------------------------------

void mark(const NvtxDomain* domain, Attributes attributes, const NvtxMessage& message) {
  if (!runtime_recording()) return;
  ThreadBuffer* b = thread_buffers().current();
  if (!b) {
    thread_buffers().count_lost_without_buffer();
    return;
  }
  NvtxRecord r;
  r.start_ns = r.end_ns = now_ns();
  r.domain = domain;
  r.color = attributes.color;
  r.category = attributes.category;
  r.start_tid = 0;
  r.depth = 0;
  r.kind = NvtxRecord::kMark;
  r.message = message;
  b->nvtx.push(r);
}

void NVTX_API mark_ex(const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = read_attributes(a, &m);
  mark(nullptr, attributes, m);
}
void NVTX_API mark_a(const char* message) {
  NvtxMessage m;
  copy_text(message, &m);
  mark(nullptr, {}, m);
}
void NVTX_API mark_w(const wchar_t* message) {
  NvtxMessage m;
  copy_wide_text(message, &m);
  mark(nullptr, {}, m);
}
void NVTX_API domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = read_attributes(a, &m);
  mark(domain_of(d), attributes, m);
}

// --- registration (not the hot path: may allocate) ----------------------------

template <typename T, typename... Args>
T* make_handle(Args&&... args) {
  try {
    return new T{std::forward<Args>(args)...};
  } catch (...) {
    return nullptr;  // NVTX treats a null handle as "no such domain/string"
  }
}

nvtxDomainHandle_t NVTX_API domain_create_a(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(make_handle<NvtxDomain>(name ? name : ""));
}
nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(make_handle<NvtxDomain>(narrow(name)));
}
void NVTX_API domain_destroy(nvtxDomainHandle_t) {}  // kept: see nvtx_handles.h
nvtxStringHandle_t NVTX_API domain_register_string_a(nvtxDomainHandle_t, const char* s) {
  return reinterpret_cast<nvtxStringHandle_t>(make_handle<NvtxRegisteredString>(s ? s : ""));
}
nvtxStringHandle_t NVTX_API domain_register_string_w(nvtxDomainHandle_t, const wchar_t* s) {
  return reinterpret_cast<nvtxStringHandle_t>(make_handle<NvtxRegisteredString>(narrow(s)));
}

// --- installation -------------------------------------------------------------

struct Slot {
  uint32_t id;
  NvtxFunctionPointer function;
};

template <typename F>
NvtxFunctionPointer as_slot(F* f) {
  return reinterpret_cast<NvtxFunctionPointer>(f);
}

// Fills the module's slots vprof implements; the others keep NVTX's no-op.
bool install(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module,
             std::initializer_list<Slot> slots) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (!callbacks.GetModuleFunctionTable(module, &table, &size) || !table) return false;
  for (const Slot& s : slots) {
    if (s.id < size && table[s.id]) *table[s.id] = s.function;
  }
  return true;
}

}  // namespace

int attach_nvtx(const void* (*get_export_table)(uint32_t)) {
  if (!runtime_tracking() || !get_export_table) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      !callbacks->GetModuleFunctionTable) {
    note_hook_not_attached(InjectionHook::kNvtx, "NVTX offered no callback table vprof reads");
    return 0;
  }
  const auto* version =
      static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
  if (version && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion) {
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  }
  make_nvtx_open_ranges();
  bool core = install(*callbacks, NVTX_CB_MODULE_CORE,
                      {{NVTX_CBID_CORE_MarkEx, as_slot(mark_ex)},
                       {NVTX_CBID_CORE_MarkA, as_slot(mark_a)},
                       {NVTX_CBID_CORE_MarkW, as_slot(mark_w)},
                       {NVTX_CBID_CORE_RangeStartEx, as_slot(range_start_ex)},
                       {NVTX_CBID_CORE_RangeStartA, as_slot(range_start_a)},
                       {NVTX_CBID_CORE_RangeStartW, as_slot(range_start_w)},
                       {NVTX_CBID_CORE_RangeEnd, as_slot(range_end)},
                       {NVTX_CBID_CORE_RangePushEx, as_slot(range_push_ex)},
                       {NVTX_CBID_CORE_RangePushA, as_slot(range_push_a)},
                       {NVTX_CBID_CORE_RangePushW, as_slot(range_push_w)},
                       {NVTX_CBID_CORE_RangePop, as_slot(range_pop)}});
  bool core2 = install(*callbacks, NVTX_CB_MODULE_CORE2,
                       {{NVTX_CBID_CORE2_DomainMarkEx, as_slot(domain_mark_ex)},
                        {NVTX_CBID_CORE2_DomainRangeStartEx, as_slot(domain_range_start_ex)},
                        {NVTX_CBID_CORE2_DomainRangeEnd, as_slot(domain_range_end)},
                        {NVTX_CBID_CORE2_DomainRangePushEx, as_slot(domain_range_push_ex)},
                        {NVTX_CBID_CORE2_DomainRangePop, as_slot(domain_range_pop)},
                        {NVTX_CBID_CORE2_DomainRegisterStringA, as_slot(domain_register_string_a)},
                        {NVTX_CBID_CORE2_DomainRegisterStringW, as_slot(domain_register_string_w)},
                        {NVTX_CBID_CORE2_DomainCreateA, as_slot(domain_create_a)},
                        {NVTX_CBID_CORE2_DomainCreateW, as_slot(domain_create_w)},
                        {NVTX_CBID_CORE2_DomainDestroy, as_slot(domain_destroy)}});
  if (!core && !core2) {
    note_hook_not_attached(InjectionHook::kNvtx, "NVTX gave no core function table");
    return 0;
  }
  note_hook_attached(InjectionHook::kNvtx, NVTX_VERSION);
  return 1;
}

}  // namespace vprof
