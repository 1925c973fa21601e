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
// Text goes through add_string, which writes valid UTF-8 whatever it is given
// (utf8_repair.h); binary values (UUIDs) through add_bytes, unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "utf8_repair.h"

namespace vprof {

class ProtoEncoder {
 public:
  ProtoEncoder(uint8_t* buf, size_t capacity) : buf_(buf), cap_(capacity) {}

  // A position to return to with rollback(); also clears overflow.
  size_t mark() const { return len_; }
  void rollback(size_t mark) {
    len_ = mark;
    overflow_ = false;
  }
  void clear() { rollback(0); }

  bool overflow() const { return overflow_; }
  size_t size() const { return len_; }
  const uint8_t* data() const { return buf_; }
  size_t capacity() const { return cap_; }

  void add_varint(uint32_t field, uint64_t v) {
    put_tag(field, kVarint);
    put_varint(v);
  }
  void add_int32(uint32_t field, int32_t v) {
    // int32 is sign-extended to 64 bits on the wire, as protobuf does.
    add_varint(field, static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  void add_sint32(uint32_t field, int32_t v) {
    add_varint(field, (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31));
  }
  void add_bool(uint32_t field, bool v) { add_varint(field, v ? 1 : 0); }
  void add_double(uint32_t field, double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    add_fixed64(field, bits);
  }
  void add_fixed64(uint32_t field, uint64_t bits) {
    put_tag(field, kFixed64);
    uint8_t le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<uint8_t>(bits >> (8 * i));
    put_bytes(le, 8);
  }
  // Text, repaired to valid UTF-8 and cut between characters to at most
  // max_bytes once repaired.
  void add_string(uint32_t field, std::string_view s, size_t max_bytes = SIZE_MAX) {
    const Utf8Fit fit = utf8_fit(s, max_bytes);
    put_tag(field, kLengthDelimited);
    put_varint(fit.bytes);
    if (uint8_t* at = reserve(fit.bytes)) utf8_repair(s, fit, at);
  }
  void add_bytes(uint32_t field, std::string_view b) {
    put_tag(field, kLengthDelimited);
    put_varint(b.size());
    put_bytes(reinterpret_cast<const uint8_t*>(b.data()), b.size());
  }

  // Starts a nested message; returns the token end_nested() needs.
  size_t begin_nested(uint32_t field) {
    put_tag(field, kLengthDelimited);
    size_t at = len_;
    static const uint8_t kReserved[kLengthBytes] = {0x80, 0x80, 0x80, 0x00};
    put_bytes(kReserved, kLengthBytes);
    return at;
  }
  void end_nested(size_t token) {
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

  void put_tag(uint32_t field, WireType wt) { put_varint((uint64_t{field} << 3) | wt); }
  void put_varint(uint64_t v) {
    uint8_t tmp[10];
    size_t n = 0;
    do {
      tmp[n] = static_cast<uint8_t>(v & 0x7f);
      v >>= 7;
      if (v) tmp[n] |= 0x80;
      ++n;
    } while (v);
    put_bytes(tmp, n);
  }
  void put_bytes(const uint8_t* p, size_t n) {
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
