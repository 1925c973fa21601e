// The fingerprint function (interpose/core/fingerprint_hash.h): the properties the
// drift audit relies on, each checked against values computed here another
// way (sums of terms in other orders and partitions, as GPU blocks make them).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "interpose/core/fingerprint_hash.h"

namespace fp = vprof::fingerprint;

namespace {

std::vector<unsigned char> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(gen());
  return v;
}

uint64_t word_at(const std::vector<unsigned char>& v, size_t i) {
  uint64_t w = 0;
  std::memcpy(&w, v.data() + 8 * i, std::min<size_t>(8, v.size() - 8 * i));
  return w;
}

}  // namespace

TEST_CASE("the sum of terms in any order and any partition gives the same fingerprint") {
  const auto bytes = random_bytes(8 * 1000 + 5, 1);
  const size_t words = (bytes.size() + 7) / 8;
  std::vector<size_t> order(words);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(2));
  // Blocks of 37 words summed apart, then the block sums added from the last.
  std::vector<uint64_t> blocks;
  for (size_t start = 0; start < words; start += 37) {
    uint64_t s = 0;
    for (size_t k = start; k < std::min(words, start + 37); ++k)
      s += fp::Term(word_at(bytes, order[k]), order[k]);
    blocks.push_back(s);
  }
  uint64_t total = 0;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) total += *it;
  CHECK(fp::Finish(total, bytes.size()) == fp::FingerprintBytes(bytes.data(), bytes.size()));
}

TEST_CASE("the same bytes at any address give the same fingerprint") {
  const auto bytes = random_bytes(1001, 3);
  std::vector<unsigned char> shifted(bytes.size() + 16);
  for (size_t offset = 0; offset < 9; ++offset) {
    std::memcpy(shifted.data() + offset, bytes.data(), bytes.size());
    CHECK(fp::FingerprintBytes(shifted.data() + offset, bytes.size()) ==
          fp::FingerprintBytes(bytes.data(), bytes.size()));
  }
}

TEST_CASE("moving a value, changing one bit or padding with zeros changes the fingerprint") {
  auto bytes = random_bytes(4096, 4);
  const uint64_t original = fp::FingerprintBytes(bytes.data(), bytes.size());
  auto swapped = bytes;
  std::swap_ranges(swapped.begin(), swapped.begin() + 8,
                   swapped.begin() + 8);  // two words trade places
  CHECK(fp::FingerprintBytes(swapped.data(), swapped.size()) != original);
  auto flipped = bytes;
  flipped[2049] ^= 0x10;
  CHECK(fp::FingerprintBytes(flipped.data(), flipped.size()) != original);
  bytes.push_back(0);
  CHECK(fp::FingerprintBytes(bytes.data(), bytes.size()) != original);
}

TEST_CASE("every length of one pattern, and the empty buffer, fingerprint apart") {
  const auto bytes = random_bytes(64, 5);
  std::vector<uint64_t> values;
  for (size_t n = 0; n <= bytes.size(); ++n)
    values.push_back(fp::FingerprintBytes(bytes.data(), n));
  std::sort(values.begin(), values.end());
  CHECK(std::adjacent_find(values.begin(), values.end()) == values.end());
  CHECK(fp::FingerprintBytes(nullptr, 0) == fp::Finish(0, 0));
}
