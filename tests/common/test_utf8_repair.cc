// Text repair to valid UTF-8 and cuts between characters, checked against
// libprotobuf's own UTF-8 validator (not the code under test).
#include <google/protobuf/stubs/common.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "common/utf8_repair.h"

using vprof::FitUtf8;
using vprof::Utf8CopyCut;
using vprof::Utf8Cut;
using vprof::Utf8Repair;

namespace {

constexpr size_t kNoCap = std::numeric_limits<size_t>::max();
const std::string kFffd = "\xEF\xBF\xBD";

std::string Repaired(std::string_view s, size_t max = kNoCap) {
  const vprof::Utf8Fit fit = FitUtf8(s, max);
  std::string out(fit.bytes, '\0');
  Utf8Repair(s, fit, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

bool ValidUtf8(const std::string& s) {
  return google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size()));
}

}  // namespace

TEST_CASE("valid text is written unchanged, and copied as is") {
  for (const std::string s : {"", "plain ascii", "µs × 10³", "日本語", "emoji 😀 end"}) {
    CHECK(Repaired(s) == s);
    CHECK(FitUtf8(s, kNoCap).unchanged);
  }
}

TEST_CASE("each maximal ill-formed subsequence becomes one U+FFFD") {
  // Characters cut short: 2, 3 and 4 bytes with their last byte missing.
  CHECK(Repaired("a\xC3") == "a" + kFffd);
  CHECK(Repaired("a\xE2\x82"
                 "b") == "a" + kFffd + "b");
  CHECK(Repaired("\xF0\x9F\x98"
                 "x") == kFffd + "x");
  // Overlong forms, surrogates and code points above U+10FFFF: the lead
  // byte's second byte is out of range, so every byte is its own subsequence.
  CHECK(Repaired("\xC0\xAF") == kFffd + kFffd);
  CHECK(Repaired("\xE0\x80\xAF") == kFffd + kFffd + kFffd);
  CHECK(Repaired("\xED\xA0\x80") == kFffd + kFffd + kFffd);
  CHECK(Repaired("\xF4\x90\x80\x80") == kFffd + kFffd + kFffd + kFffd);
  // Lone continuation bytes and bytes that never occur.
  CHECK(Repaired("\x80\xBF") == kFffd + kFffd);
  CHECK(Repaired("x\xFF"
                 "y\xFE") == "x" + kFffd + "y" + kFffd);
  CHECK_FALSE(FitUtf8("x\xFF", kNoCap).unchanged);
  // A 3-byte subsequence writes 3 bytes: same length, still repaired.
  CHECK(Repaired("\xF1\x80\x80"
                 "A") == kFffd + "A");
  CHECK_FALSE(FitUtf8("\xF1\x80\x80"
                      "A",
                      kNoCap)
                  .unchanged);
}

TEST_CASE("every byte string repairs to valid UTF-8") {
  // All 1- and 2-byte strings and a spread of 3- and 4-byte ones.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string two{static_cast<char>(a), static_cast<char>(b)};
      REQUIRE(ValidUtf8(Repaired(two)));
      const std::string four{static_cast<char>(a), static_cast<char>(b), '\x80',
                             static_cast<char>(b ^ a)};
      REQUIRE(ValidUtf8(Repaired(four)));
      REQUIRE(ValidUtf8(Repaired(four, static_cast<size_t>(b % 7))));
    }
  }
}

TEST_CASE("a cap on the repaired text cuts between characters") {
  const std::string s = "ab€d";  // € is 3 bytes: a b [E2 82 AC] d
  CHECK(Repaired(s, 2) == "ab");
  CHECK(Repaired(s, 3) == "ab");
  CHECK(Repaired(s, 4) == "ab");
  CHECK(Repaired(s, 5) == "ab€");
  CHECK(Repaired(s, 6) == "ab€d");
  // A replacement is never cut either.
  CHECK(Repaired("a\xFF", 3) == "a");
  CHECK(Repaired("a\xFF", 4) == "a" + kFffd);
}

TEST_CASE("Utf8Cut moves a cut back before the character it would split") {
  const std::string s = "a€😀";  // a [E2 82 AC] [F0 9F 98 80]
  CHECK(Utf8Cut(s, 0) == 0);
  CHECK(Utf8Cut(s, 1) == 1);
  CHECK(Utf8Cut(s, 2) == 1);
  CHECK(Utf8Cut(s, 3) == 1);
  CHECK(Utf8Cut(s, 4) == 4);
  CHECK(Utf8Cut(s, 5) == 4);
  CHECK(Utf8Cut(s, 7) == 4);
  CHECK(Utf8Cut(s, 8) == 8);
  CHECK(Utf8Cut(s, 100) == 8);
  // A stray continuation byte at the cut splits nothing: the cut stays.
  CHECK(Utf8Cut("ab\x80\x80", 2) == 2);
  CHECK(Utf8Cut("ab\x80\x80", 3) == 3);
}

TEST_CASE("Utf8CopyCut fills a fixed buffer, NUL-terminated, between characters") {
  char buf[6];
  Utf8CopyCut("abc€", buf, sizeof buf);  // 6 bytes: 5 fit, € would be cut
  CHECK(std::string(buf) == "abc");
  Utf8CopyCut("ab€", buf, sizeof buf);  // exactly 5
  CHECK(std::string(buf) == "ab€");
  Utf8CopyCut("", buf, sizeof buf);
  CHECK(std::string(buf).empty());
}
