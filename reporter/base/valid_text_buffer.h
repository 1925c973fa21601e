// A stream buffer that hands what is written through it on to a sink in
// pieces, made valid UTF-8 (valid_utf8.h) and, when asked, with its control
// characters shown (visible_controls.h): the same bytes as repairing the whole
// text at once, without holding it. A 1,024-rank JSON report is over 100 MB;
// built whole in memory, then repaired into a second copy, it cost several
// hundred MB of peak memory and a tenth of the report's CPU time.
#pragma once

#include <cstddef>
#include <functional>
#include <streambuf>
#include <string>
#include <string_view>

#include "reporter/base/visible_controls.h"

namespace vprof::reporter {

class ValidTextBuffer : public std::streambuf {
 public:
  // Takes each piece; false when it cannot be written, after which the
  // buffer writes nothing more and ok() is false.
  using Sink = std::function<bool(std::string_view)>;

  // `show_controls`: pieces go through ShowControlCharacters with line breaks
  // kept (text and Markdown; JSON and HTML escape in their own syntax).
  // `piece_bytes`: how much is gathered before a piece is handed on.
  ValidTextBuffer(Sink sink, bool show_controls, size_t piece_bytes = size_t{1} << 20);

  // Hands on what is left, an unfinished UTF-8 sequence at the end repaired
  // as the whole text's end would be. False when the sink refused a piece.
  bool Finish();
  bool ok() const { return ok_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  // Hands on the gathered bytes up to the last place a UTF-8 sequence may
  // start (`final`: all of them), keeping the rest for the next piece.
  void Pass(bool final);

  Sink sink_;
  bool show_controls_;
  size_t piece_bytes_;
  std::string pending_;
  bool ok_ = true;
};

}  // namespace vprof::reporter
