// Text fields of a trace are valid UTF-8: program and OS strings (argv,
// environment values, thread names the kernel cut at 15 bytes, NVTX messages)
// may not be, and a reader that checks UTF-8 (libprotobuf does for `string`)
// would reject the whole packet. Invalid bytes are replaced by U+FFFD, one per
// maximal ill-formed subsequence as Unicode (3.9, "U+FFFD substitution of
// maximal subparts") and every browser do, and caps cut between characters.
//
// Nothing here allocates: the encoder measures first, then writes in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vprof {

// The character `s` (not empty) starts with: its bytes, which are a
// well-formed character or else one maximal ill-formed subsequence (the lead
// byte and the continuation bytes that could still have completed it), which
// one U+FFFD replaces.
struct Utf8Char {
  size_t bytes;
  bool valid;
};
Utf8Char Utf8Next(std::string_view s);

// How `s` is written as valid UTF-8 of at most a given number of bytes.
struct Utf8Fit {
  size_t bytes;    // length once repaired and cut
  bool unchanged;  // the first `bytes` bytes of s are that text: copy them
};

// Measures `s` repaired and cut, between characters, to at most `max` bytes.
Utf8Fit FitUtf8(std::string_view s, size_t max);

// Writes the fit.bytes bytes FitUtf8(s, max) measured to `out`.
void Utf8Repair(std::string_view s, Utf8Fit fit, uint8_t* out);

// The longest prefix of `s` of at most `max` bytes that does not end inside a
// character (a cut that would split one moves back before it).
size_t Utf8Cut(std::string_view s, size_t max);

// Copies the NUL-terminated `from` into to[0..size), NUL-terminated, cut as
// Utf8Cut does: for text kept in fixed buffers on hot paths.
void Utf8CopyCut(const char* from, char* to, size_t size);

// Repair at most triples a text's length: one byte becomes one U+FFFD.
constexpr size_t Utf8RepairedBound(size_t bytes) { return 3 * bytes; }

}  // namespace vprof
