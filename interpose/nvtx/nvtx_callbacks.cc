#include "interpose/nvtx/nvtx_callbacks.h"

#include <cstddef>
#include <initializer_list>
#include <new>
#include <string>

#define NVTX_NO_IMPL  // types only: vprof is the tool, not a client
#include <nvtx3/nvToolsExt.h>

#include "common/utf8_repair.h"
#include "interpose/core/clock.h"
#include "interpose/core/injection_status.h"
#include "interpose/core/runtime.h"
#include "interpose/core/thread_buffers.h"
#include "interpose/nvtx/nvtx_handles.h"
#include "interpose/nvtx/nvtx_open_ranges.h"

namespace vprof {
namespace {

// What nvtxRangePush/Pop return when no tool tracks nesting (NVTX's own
// NVTX_NO_PUSH_POP_TRACKING): vprof's answer while it is not recording.
constexpr int kNoPushPopTracking = -2;

void CopyText(const char* from, NvtxMessage* to) {
  Utf8CopyCut(from ? from : "", to->text, NvtxMessage::kTextBytes);
  to->registered = nullptr;
}

// Wide strings keep their ASCII characters; others become '?'.
void CopyWideText(const wchar_t* from, NvtxMessage* to) {
  size_t i = 0;
  if (from) {
    for (; i + 1 < NvtxMessage::kTextBytes && from[i]; ++i) {
      to->text[i] = from[i] > 0 && from[i] < 0x80 ? static_cast<char>(from[i]) : '?';
    }
  }
  to->text[i] = '\0';
  to->registered = nullptr;
}

std::string Narrow(const wchar_t* from) {
  NvtxMessage m;
  CopyWideText(from, &m);
  return m.text;
}

// The attribute fields vprof keeps. A structure too small to hold a field
// (an older NVTX) leaves it at its default.
struct Attributes {
  uint32_t color = 0;
  uint32_t category = 0;
};

Attributes ReadAttributes(const nvtxEventAttributes_t* a, NvtxMessage* message) {
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
      CopyText(a->message.ascii, message);
      break;
    case NVTX_MESSAGE_TYPE_UNICODE:
      CopyWideText(a->message.unicode, message);
      break;
    case NVTX_MESSAGE_TYPE_REGISTERED:
      message->registered = reinterpret_cast<const NvtxRegisteredString*>(a->message.registered);
      break;
    default:
      break;  // no message, or a payload type vprof does not read
  }
  return out;
}

const NvtxDomain* DomainOf(nvtxDomainHandle_t h) { return reinterpret_cast<const NvtxDomain*>(h); }

// --- push / pop: nesting on the calling thread -------------------------------

template <typename FillMessage>
int Push(const NvtxDomain* domain, Attributes attributes, FillMessage&& fill) {
  if (!RuntimeRecording()) return kNoPushPopTracking;
  ThreadBuffer* b = GlobalThreadBuffers().Current();
  if (!b) {
    GlobalThreadBuffers().CountLostWithoutBuffer();
    return kNoPushPopTracking;
  }
  NvtxStack::Pushed p = b->nvtx_stack.Push(domain);
  if (!p.entry) return p.depth;
  p.entry->color = attributes.color;
  p.entry->category = attributes.category;
  fill(&p.entry->message);
  p.entry->start_ns = NowNs();  // last: the range's own cost stays outside it
  return p.depth;
}

int Pop(const NvtxDomain* domain) {
  if (!RuntimeRecording()) return kNoPushPopTracking;
  const uint64_t end_ns = NowNs();
  ThreadBuffer* b = GlobalThreadBuffers().Current();
  if (!b) return kNoPushPopTracking;
  NvtxStack::Entry e;
  bool had_entry = false;
  int depth = b->nvtx_stack.Pop(domain, &e, &had_entry);
  if (!had_entry) {
    if (depth >= 0) b->nvtx.CountDrop();  // pushed past NvtxStack::kMaxDepth
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
  b->nvtx.Push(r);
  return depth;
}

int NVTX_API RangePushEx(const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = ReadAttributes(a, &m);
  return Push(nullptr, attributes, [&](NvtxMessage* to) { *to = m; });
}
int NVTX_API RangePushA(const char* message) {
  return Push(nullptr, {}, [&](NvtxMessage* to) { CopyText(message, to); });
}
int NVTX_API RangePushW(const wchar_t* message) {
  return Push(nullptr, {}, [&](NvtxMessage* to) { CopyWideText(message, to); });
}
int NVTX_API RangePop() { return Pop(nullptr); }
int NVTX_API DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = ReadAttributes(a, &m);
  return Push(DomainOf(d), attributes, [&](NvtxMessage* to) { *to = m; });
}
int NVTX_API DomainRangePop(nvtxDomainHandle_t d) { return Pop(DomainOf(d)); }

// --- start / end: ranges that may end on another thread -----------------------

nvtxRangeId_t Start(const NvtxDomain* domain, Attributes attributes, const NvtxMessage& message) {
  NvtxOpenRanges* open = GlobalNvtxOpenRanges();
  if (!RuntimeRecording() || !open) return 0;
  ThreadBuffer* b = GlobalThreadBuffers().Current();  // for its tid: no system call
  if (!b) {
    GlobalThreadBuffers().CountLostWithoutBuffer();
    return 0;
  }
  NvtxOpenRanges::Begun begun = open->begin();
  if (!begun.slot) return begun.id;
  begun.slot->tid = static_cast<uint32_t>(b->tid);
  begun.slot->domain = domain;
  begun.slot->color = attributes.color;
  begun.slot->category = attributes.category;
  begun.slot->message = message;
  begun.slot->start_ns = NowNs();
  open->Publish(begun.id);
  return begun.id;
}

void end(nvtxRangeId_t id) {
  NvtxOpenRanges* open = GlobalNvtxOpenRanges();
  if (!RuntimeRecording() || !open) return;
  const uint64_t end_ns = NowNs();
  NvtxOpenRanges::Opened o;
  if (!open->end(id, &o)) return;
  ThreadBuffer* b = GlobalThreadBuffers().Current();
  if (!b) {
    GlobalThreadBuffers().CountLostWithoutBuffer();
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
  b->nvtx.Push(r);
}

nvtxRangeId_t NVTX_API RangeStartEx(const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = ReadAttributes(a, &m);
  return Start(nullptr, attributes, m);
}
nvtxRangeId_t NVTX_API RangeStartA(const char* message) {
  NvtxMessage m;
  CopyText(message, &m);
  return Start(nullptr, {}, m);
}
nvtxRangeId_t NVTX_API RangeStartW(const wchar_t* message) {
  NvtxMessage m;
  CopyWideText(message, &m);
  return Start(nullptr, {}, m);
}
void NVTX_API RangeEnd(nvtxRangeId_t id) { end(id); }
nvtxRangeId_t NVTX_API DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = ReadAttributes(a, &m);
  return Start(DomainOf(d), attributes, m);
}
void NVTX_API DomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) { end(id); }

// --- marks --------------------------------------------------------------------

void Mark(const NvtxDomain* domain, Attributes attributes, const NvtxMessage& message) {
  if (!RuntimeRecording()) return;
  ThreadBuffer* b = GlobalThreadBuffers().Current();
  if (!b) {
    GlobalThreadBuffers().CountLostWithoutBuffer();
    return;
  }
  NvtxRecord r;
  r.start_ns = r.end_ns = NowNs();
  r.domain = domain;
  r.color = attributes.color;
  r.category = attributes.category;
  r.start_tid = 0;
  r.depth = 0;
  r.kind = NvtxRecord::kMark;
  r.message = message;
  b->nvtx.Push(r);
}

void NVTX_API MarkEx(const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = ReadAttributes(a, &m);
  Mark(nullptr, attributes, m);
}
void NVTX_API MarkA(const char* message) {
  NvtxMessage m;
  CopyText(message, &m);
  Mark(nullptr, {}, m);
}
void NVTX_API MarkW(const wchar_t* message) {
  NvtxMessage m;
  CopyWideText(message, &m);
  Mark(nullptr, {}, m);
}
void NVTX_API DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  NvtxMessage m;
  Attributes attributes = ReadAttributes(a, &m);
  Mark(DomainOf(d), attributes, m);
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

nvtxDomainHandle_t NVTX_API DomainCreateA(const char* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(make_handle<NvtxDomain>(name ? name : ""));
}
nvtxDomainHandle_t NVTX_API DomainCreateW(const wchar_t* name) {
  return reinterpret_cast<nvtxDomainHandle_t>(make_handle<NvtxDomain>(Narrow(name)));
}
void NVTX_API DomainDestroy(nvtxDomainHandle_t) {}  // kept: see nvtx_handles.h
nvtxStringHandle_t NVTX_API DomainRegisterStringA(nvtxDomainHandle_t, const char* s) {
  return reinterpret_cast<nvtxStringHandle_t>(make_handle<NvtxRegisteredString>(s ? s : ""));
}
nvtxStringHandle_t NVTX_API DomainRegisterStringW(nvtxDomainHandle_t, const wchar_t* s) {
  return reinterpret_cast<nvtxStringHandle_t>(make_handle<NvtxRegisteredString>(Narrow(s)));
}

// --- installation -------------------------------------------------------------

struct Slot {
  uint32_t id;
  NvtxFunctionPointer function;
};

template <typename F>
NvtxFunctionPointer AsSlot(F* f) {
  return reinterpret_cast<NvtxFunctionPointer>(f);
}

// Fills the module's slots vprof implements; the others keep NVTX's no-op.
bool Install(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module,
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

int AttachNvtx(const void* (*get_export_table)(uint32_t)) {
  if (!RuntimeTracking() || !get_export_table) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      !callbacks->GetModuleFunctionTable) {
    NoteHookNotAttached(InjectionHook::kNvtx, "NVTX offered no callback table vprof reads");
    return 0;
  }
  const auto* version =
      static_cast<const NvtxExportTableVersionInfo*>(get_export_table(NVTX_ETID_VERSIONINFO));
  if (version && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion) {
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  }
  MakeNvtxOpenRanges();
  bool core = Install(*callbacks, NVTX_CB_MODULE_CORE,
                      {{NVTX_CBID_CORE_MarkEx, AsSlot(MarkEx)},
                       {NVTX_CBID_CORE_MarkA, AsSlot(MarkA)},
                       {NVTX_CBID_CORE_MarkW, AsSlot(MarkW)},
                       {NVTX_CBID_CORE_RangeStartEx, AsSlot(RangeStartEx)},
                       {NVTX_CBID_CORE_RangeStartA, AsSlot(RangeStartA)},
                       {NVTX_CBID_CORE_RangeStartW, AsSlot(RangeStartW)},
                       {NVTX_CBID_CORE_RangeEnd, AsSlot(RangeEnd)},
                       {NVTX_CBID_CORE_RangePushEx, AsSlot(RangePushEx)},
                       {NVTX_CBID_CORE_RangePushA, AsSlot(RangePushA)},
                       {NVTX_CBID_CORE_RangePushW, AsSlot(RangePushW)},
                       {NVTX_CBID_CORE_RangePop, AsSlot(RangePop)}});
  bool core2 = Install(*callbacks, NVTX_CB_MODULE_CORE2,
                       {{NVTX_CBID_CORE2_DomainMarkEx, AsSlot(DomainMarkEx)},
                        {NVTX_CBID_CORE2_DomainRangeStartEx, AsSlot(DomainRangeStartEx)},
                        {NVTX_CBID_CORE2_DomainRangeEnd, AsSlot(DomainRangeEnd)},
                        {NVTX_CBID_CORE2_DomainRangePushEx, AsSlot(DomainRangePushEx)},
                        {NVTX_CBID_CORE2_DomainRangePop, AsSlot(DomainRangePop)},
                        {NVTX_CBID_CORE2_DomainRegisterStringA, AsSlot(DomainRegisterStringA)},
                        {NVTX_CBID_CORE2_DomainRegisterStringW, AsSlot(DomainRegisterStringW)},
                        {NVTX_CBID_CORE2_DomainCreateA, AsSlot(DomainCreateA)},
                        {NVTX_CBID_CORE2_DomainCreateW, AsSlot(DomainCreateW)},
                        {NVTX_CBID_CORE2_DomainDestroy, AsSlot(DomainDestroy)}});
  if (!core && !core2) {
    NoteHookNotAttached(InjectionHook::kNvtx, "NVTX gave no core function table");
    return 0;
  }
  NoteHookAttached(InjectionHook::kNvtx, NVTX_VERSION);
  return 1;
}

}  // namespace vprof
