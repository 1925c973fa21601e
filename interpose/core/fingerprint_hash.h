// The collective fingerprint: one 64-bit value per buffer, the same on the
// GPU (fingerprint_kernel.cu) and on the host (FingerprintBytes, which the
// CPU stand-ins and the tests use), so a value computed on either side can be
// compared with one computed on the other.
//
// The buffer is read as 8-byte little-endian words w_0 .. w_{m-1}, the last
// one zero-padded, and
//     fingerprint = Finish(sum over i of Term(w_i, i) mod 2^64, length in bytes)
// Each word's term depends on its value and its position only, so the sum is
// the same whatever order threads and blocks add their terms in (launch
// configuration and scheduling change nothing), while moving a value to
// another position changes it: the fingerprint is order-sensitive. The length
// is mixed in last, so a buffer and its zero-padded extension differ.
//
// This is a check for accidental divergence, not a cryptographic hash.
// Changing any constant here changes every fingerprint: runs fingerprinted
// by different versions of this file are not comparable (kFingerprintVersion
// goes into the trace).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define VPROF_HOST_DEVICE __host__ __device__
#else
#define VPROF_HOST_DEVICE
#endif

namespace vprof::fingerprint {

inline constexpr uint32_t kFingerprintVersion = 1;

// SplitMix64's finaliser: a bijection on 64-bit values that spreads every
// input bit over the whole output.
VPROF_HOST_DEVICE inline uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Word `index`'s share of the sum. For a fixed position it is a bijection of
// the word, so two buffers that differ in one word always differ in the sum.
VPROF_HOST_DEVICE inline uint64_t Term(uint64_t word, uint64_t index) {
  return Mix(word + Mix(index + 0x9e3779b97f4a7c15ULL));
}

VPROF_HOST_DEVICE inline uint64_t Finish(uint64_t sum, uint64_t bytes) {
  return Mix(sum ^ Mix(bytes ^ 0xd1b54a32d192ed03ULL));
}

#if !defined(__CUDACC__)
// The fingerprint of `bytes` bytes at `data`, on the host.
inline uint64_t FingerprintBytes(const void* data, size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t sum = 0;
  const size_t words = bytes / 8;
  for (size_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, p + 8 * i, 8);  // little-endian hosts only (x86-64, aarch64)
    sum += Term(w, i);
  }
  if (const size_t tail = bytes % 8) {
    uint64_t w = 0;
    std::memcpy(&w, p + 8 * words, tail);
    sum += Term(w, words);
  }
  return Finish(sum, bytes);
}
#endif

}  // namespace vprof::fingerprint
