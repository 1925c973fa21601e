// An allocation-free protobuf writer over a caller-owned byte buffer.
//
// The capture side cannot use libprotobuf (Debian's libprotobuf.a is not
// position-independent, and a second protobuf runtime inside PyTorch's process
// is a hazard), so it writes the wire format by hand. Nested messages reserve
// a fixed 4-byte length (a redundant varint: 0x80 0x80 0x80 0x0N), filled in
// when the message ends, so nothing is copied or measured twice. 4 bytes bound
// a nested message to 256 MiB, far above any packet vprof writes.
//
// Running out of space sets a sticky overflow flag instead of writing past the
// end; the caller rolls back to a mark and retries after flushing.
//
// Text goes through AddString, which writes valid UTF-8 whatever it is given
// (utf8_repair.h); binary values (UUIDs) through AddBytes, unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "common/utf8_repair.h"

namespace vprof {

class ProtoEncoder {
 public:
  ProtoEncoder(uint8_t* buf, size_t capacity) : buf_(buf), cap_(capacity) {}

  // A position to return to with Rollback(); also clears overflow.
  size_t Mark() const { return len_; }
  void Rollback(size_t mark) {
    len_ = mark;
    overflow_ = false;
  }
  void clear() { Rollback(0); }

  bool Overflow() const { return overflow_; }
  size_t size() const { return len_; }
  const uint8_t* data() const { return buf_; }
  size_t capacity() const { return cap_; }

  void AddVarint(uint32_t field, uint64_t v) {
    PutTag(field, kVarint);
    PutVarint(v);
  }
  void AddInt32(uint32_t field, int32_t v) {
    // int32 is sign-extended to 64 bits on the wire, as protobuf does.
    AddVarint(field, static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  void AddSint32(uint32_t field, int32_t v) {
    AddVarint(field, (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
  }
  void AddBool(uint32_t field, bool v) { AddVarint(field, v ? 1 : 0); }
  void AddDouble(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    AddFixed64(field, bits);
  }
  void AddFixed64(uint32_t field, uint64_t bits) {
    PutTag(field, kFixed64);
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(bits >> (8 * i));
    PutBytes(le, 8);
  }
  // Text, repaired to valid UTF-8 and cut between characters to at most
  // max_bytes once repaired.
  void AddString(uint32_t field, std::string_view s, size_t max_bytes = SIZE_MAX) {
    const Utf8Fit fit = FitUtf8(s, max_bytes);
    PutTag(field, kLengthDelimited);
    PutVarint(fit.bytes);
    if (uint8_t* at = reserve(fit.bytes)) Utf8Repair(s, fit, at);
  }
  void AddBytes(uint32_t field, std::string_view b) {
    PutTag(field, kLengthDelimited);
    PutVarint(b.size());
    PutBytes(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  }

  // Starts a nested message; returns the token EndNested() needs.
  size_t BeginNested(uint32_t field) {
    PutTag(field, kLengthDelimited);
    size_t at = len_;
    static const uint8_t kReserved[kLengthBytes] = {0x80, 0x80, 0x80, 0x00};
    PutBytes(kReserved, kLengthBytes);
    return at;
  }
  void EndNested(size_t token) {
    if (overflow_) return;
    size_t n = len_ - token - kLengthBytes;
    buf_[token + 0] = static_cast<uint8_t>(0x80 | (n & 0x7f));
    buf_[token + 1] = static_cast<uint8_t>(0x80 | ((n >> 7) & 0x7f));
    buf_[token + 2] = static_cast<uint8_t>(0x80 | ((n >> 14) & 0x7f));
    buf_[token + 3] = static_cast<uint8_t>((n >> 21) & 0x7f);
  }

 private:
  enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };
  static constexpr size_t kLengthBytes = 4;

  void PutTag(uint32_t field, WireType wt) { PutVarint((uint64_t{field} << 3) | wt); }
  void PutVarint(uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
      tmp[n] = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      if (v) tmp[n] |= 0x80;
      ++n;
    } while (v);
    PutBytes(tmp, n);
  }
  void PutBytes(const uint8_t* p, size_t n) {
    if (uint8_t* at = reserve(n); at && n > 0) std::memcpy(at, p, n);
  }
  // The next n bytes of the buffer, to be written by the caller; null (and
  // overflow set) when they do not fit.
  uint8_t* reserve(size_t n) {
    if (overflow_ || n > cap_ - len_) {
      overflow_ = true;
      return nullptr;
    }
    uint8_t* at = buf_ + len_;
    len_ += n;
    return at;
  }

  uint8_t* buf_;
  size_t cap_;
  size_t len_ = 0;
  bool overflow_ = false;
};

}  // namespace vprof
