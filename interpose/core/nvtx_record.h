// The fixed-size record an NVTX callback writes on the hot path: one whole
// range (or mark), made when the range ends. The writer thread turns it into an
// NvtxRange of the trace schema.
#pragma once

#include <cstdint>

namespace vprof {

struct NvtxDomain;
struct NvtxRegisteredString;

// The message of a range. NVTX hands over either a registered string (kept by
// vprof for the life of the process) or text that may be gone once the call
// returns, so text is copied, cut between characters to at most kTextBytes - 1
// bytes.
struct NvtxMessage {
  static constexpr size_t kTextBytes = 96;

  const NvtxRegisteredString* registered = nullptr;  // set: text is unused
  char text[kTextBytes] = {};
};

struct NvtxRecord {
  enum Kind : uint8_t { kPushPop = 1, kStartEnd = 2, kMark = 3 };  // NvtxKind values

  uint64_t start_ns;
  uint64_t end_ns;
  const NvtxDomain* domain;  // nullptr: the default domain
  uint32_t color;            // ARGB; 0 when none was given
  uint32_t category;
  uint32_t start_tid;  // kStartEnd started on another thread than it ended: that one; else 0
  uint16_t depth;      // kPushPop: nesting depth in its domain at push
  Kind kind;
  NvtxMessage message;
};

}  // namespace vprof
