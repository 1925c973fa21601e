#include "common/utf8_repair.h"

#include <cstring>

namespace vprof {
namespace {

constexpr uint8_t kReplacement[] = {0xEF, 0xBF, 0xBD};  // U+FFFD

bool IsContinuation(uint8_t b) { return (b & 0xC0) == 0x80; }

// How many bytes a character starting with `lead` claims, valid or not.
size_t SequenceBytes(uint8_t lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

Utf8Char Utf8Next(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  const uint8_t b = p[0];
  if (b < 0x80) return {1, true};
  // The bytes after the lead, and the range the first of them must lie in
  // (Unicode table 3-7), which rules out overlong forms, surrogates and
  // code points above U+10FFFF.
  size_t need = 0;
  uint8_t lo = 0x80;
  uint8_t hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    need = 2;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    need = 3;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return {1, false};
  }
  size_t i = 1;
  if (i < n && p[i] >= lo && p[i] <= hi) {
    ++i;
    while (i <= need && i < n && IsContinuation(p[i])) ++i;
  }
  return {i, i == need + 1};
}

namespace {

// Reads `s` as repaired text of at most `max` bytes, handing each piece of it
// to put(bytes, size). Measuring and writing share it, so they cannot differ.
template <typename Put>
Utf8Fit Walk(std::string_view s, size_t max, Put put) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  // ASCII, most of what vprof writes, needs no decoding; a cut after an ASCII
  // byte is always between characters.
  size_t i = 0;
  while (i < n && i < max && p[i] < 0x80) ++i;
  if (i > 0) put(p, i);
  Utf8Fit fit{i, true};
  while (i < n) {
    const Utf8Char c = Utf8Next(s.substr(i));
    const size_t out = c.valid ? c.bytes : sizeof kReplacement;
    if (out > max - fit.bytes) break;
    put(c.valid ? p + i : kReplacement, out);
    fit.bytes += out;
    fit.unchanged = fit.unchanged && c.valid;
    i += c.bytes;
  }
  return fit;
}

}  // namespace

Utf8Fit FitUtf8(std::string_view s, size_t max) {
  return Walk(s, max, [](const uint8_t*, size_t) {});
}

void Utf8Repair(std::string_view s, Utf8Fit fit, uint8_t* out) {
  if (fit.bytes == 0) return;  // s.data() may be null
  if (fit.unchanged) {
    std::memcpy(out, s.data(), fit.bytes);
    return;
  }
  Walk(s, fit.bytes, [&out](const uint8_t* p, size_t n) {
    std::memcpy(out, p, n);
    out += n;
  });
}

size_t Utf8Cut(std::string_view s, size_t max) {
  if (s.size() <= max) return s.size();
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  if (!IsContinuation(p[max])) return max;
  // A character is at most 4 bytes: its lead byte lies at most 3 before the
  // continuation byte the cut falls on.
  for (size_t lead = max; lead-- > 0 && max - lead <= 3;) {
    if (IsContinuation(p[lead])) continue;
    return lead + SequenceBytes(p[lead]) > max ? lead : max;
  }
  return max;
}

void Utf8CopyCut(const char* from, char* to, size_t size) {
  // strnlen reads one byte past the cap, which Utf8Cut needs to see whether
  // the cap splits a character.
  const std::string_view s(from, strnlen(from, size));
  const size_t n = Utf8Cut(s, size - 1);
  std::memcpy(to, from, n);
  to[n] = '\0';
}

}  // namespace vprof
