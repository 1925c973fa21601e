// Escaping names for HTML and Markdown: hostile kernel, file and range names
// come out as text, never as markup or table structure.
#include <catch2/catch.hpp>

#include "reporter/render/text_escape.h"

using namespace vprof::reporter;

TEST_CASE("HtmlEscape turns every markup character into an entity") {
  CHECK(HtmlEscape("<script>alert('x') & \"y\"</script>") ==
        "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  CHECK(HtmlEscape("void gemm<float, 128>(float*)") == "void gemm&lt;float, 128&gt;(float*)");
  // An entity in a name stays the name, not the character it stands for.
  CHECK(HtmlEscape("&lt;") == "&amp;lt;");
  CHECK(HtmlEscape("plain µs × text") == "plain µs × text");
  // Control characters as the text report shows them; a line feed stays.
  CHECK(HtmlEscape("a\x1b[1m\x07\tb\nc\xc2\x9b<") == "a\\x1B[1m\\x07\\x09b\nc\\x9B&lt;");
}

TEST_CASE("MarkdownEscape keeps a name inside its table cell and out of formatting") {
  CHECK(MarkdownEscape("a|b") == "a\\|b");
  CHECK(MarkdownEscape("void f<T>(x*)&") == "void f&lt;T&gt;(x\\*)&amp;");
  CHECK(MarkdownEscape("__init__") == "\\_\\_init\\_\\_");
  CHECK(MarkdownEscape("[link](x) `code` # ~") == "\\[link\\](x) \\`code\\` \\# \\~");
  CHECK(MarkdownEscape("back\\slash") == "back\\\\slash");
  CHECK(MarkdownEscape("two\nlines\r\n") == "two lines  ");
  CHECK(MarkdownEscape("12.0 ms (60.0%)") == "12.0 ms (60.0%)");
}
