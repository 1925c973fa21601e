// ValidTextBuffer against repairing the whole text at once: text written in
// pieces of every size, through buffers of a few bytes, so that sequences of
// every length and ill-formed bytes fall across each boundary, gives the same
// bytes as ValidUtf8 (and ShowControlCharacters) of the whole.
#include <catch2/catch.hpp>
#include <ostream>
#include <random>
#include <string>

#include "reporter/base/valid_text_buffer.h"
#include "reporter/base/valid_utf8.h"

using namespace vprof::reporter;

namespace {

// What the buffer hands on for `text`, written `write_bytes` at a time.
std::string Through(const std::string& text, bool show_controls, size_t piece_bytes,
                    size_t write_bytes, size_t* pieces = nullptr) {
  std::string out;
  size_t count = 0;
  ValidTextBuffer buffer(
      [&](std::string_view piece) {
        out += piece;
        ++count;
        return true;
      },
      show_controls, piece_bytes);
  std::ostream stream(&buffer);
  for (size_t i = 0; i < text.size(); i += write_bytes) {
    if (write_bytes == 1) {
      stream.put(text[i]);
    } else {
      stream.write(text.data() + i,
                   static_cast<std::streamsize>(std::min(write_bytes, text.size() - i)));
    }
  }
  REQUIRE(buffer.Finish());
  if (pieces) *pieces = count;
  return out;
}

std::string Whole(const std::string& text, bool show_controls) {
  const std::string valid = ValidUtf8(text);
  return show_controls ? ShowControlCharacters(valid, LineBreaks::kKeep) : valid;
}

}  // namespace

TEST_CASE("text in pieces comes out as the whole text repaired at once") {
  // Valid sequences of 1 to 4 bytes, C1 controls (0xC2 0x80..0x9F), ill-formed leads, stray
  // continuations, a sequence cut short, surrogates and overlong forms, at every offset.
  const std::string samples[] = {
      "plain ascii\nline two\tTAB\x1b]0;title\x07",
      "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\x85\xc2\x9b end",
      "\xe2\x82 cut \xf0\x9f\x98 cut \xc3 cut \x80\x80 stray \xff\xfe bad",
      "\xed\xa0\x80 surrogate \xc0\xaf overlong \xf4\x90\x80\x80 beyond \xf0\x9f",
  };
  for (const std::string& text : samples) {
    for (const bool show : {false, true}) {
      const std::string expected = Whole(text, show);
      for (size_t piece = 1; piece <= 9; ++piece) {
        for (const size_t write : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, text.size()}) {
          INFO("piece " << piece << ", write " << write << ", show " << show);
          CHECK(Through(text, show, piece, write) == expected);
        }
      }
    }
  }
}

TEST_CASE("random bytes in random pieces come out as the whole repaired at once") {
  std::mt19937 random(7);
  // Bytes drawn mostly from the ones that start, continue or break sequences.
  const std::string alphabet =
      "a\n\x1b\x7f\xc2\x80\x9f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\xed\xa0\xff";
  for (int round = 0; round < 300; ++round) {
    std::string text(random() % 200, ' ');
    for (char& c : text) c = alphabet[random() % alphabet.size()];
    const bool show = round % 2 == 0;
    const size_t piece = 1 + random() % 16;
    const size_t write = 1 + random() % 24;
    INFO("round " << round);
    CHECK(Through(text, show, piece, write) == Whole(text, show));
  }
}

TEST_CASE("a long text is handed on in pieces of about the size asked, not whole") {
  const std::string line = "rank 12: \xe2\x82\xac 3.5 ms\n";
  std::string text;
  for (int i = 0; i < 10000; ++i) text += line;
  size_t pieces = 0;
  CHECK(Through(text, false, 4096, 100, &pieces) == text);
  // 180,000 bytes in pieces of 4,096 (one cut short before a euro sign now and then).
  CHECK(pieces >= text.size() / 4096);
  CHECK(pieces <= text.size() / 4096 + 2);
}

TEST_CASE("a sink that refuses stops the writing, and Finish says so") {
  size_t calls = 0;
  ValidTextBuffer buffer(
      [&](std::string_view) {
        ++calls;
        return false;
      },
      false, 4);
  std::ostream stream(&buffer);
  stream << "0123456789abcdef";
  CHECK_FALSE(buffer.ok());
  CHECK_FALSE(buffer.Finish());
  CHECK(calls == 1);
  CHECK(stream.bad());
}
