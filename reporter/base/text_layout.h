// Laying out the text report: aligned tables and wrapped paragraphs that fit
// a terminal width, measuring text in code points (the report prints "µ",
// "×" and "−").
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace vprof::reporter {

inline constexpr size_t kTextWidth = 100;

// A text section of more rows than this (ranks, processes, communicator
// members, diff items) folds: it lists at most this many, chosen for what
// stands out, and counts the rest. A world of 1,024 ranks would otherwise bury
// the report; the JSON report keeps every row.
inline constexpr size_t kFoldAbove = 16;

// Columns on a terminal, assuming one column per code point.
size_t DisplayWidth(std::string_view utf8);

// `text` cut to `width` columns by replacing its middle with "…".
std::string ElideMiddle(std::string_view text, size_t width);

// Words of `text` filled into lines of at most `width` columns: the first
// starts with `first_prefix`, the others with `next_prefix` (a hanging
// indent). A word longer than a line gets a line of its own. A number and
// the unit after it ("12.3 ms") are never split.
void WriteWrapped(std::ostream& out, std::string_view text, std::string_view first_prefix,
                  std::string_view next_prefix, size_t width = kTextWidth);

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  struct Column {
    std::string header;
    Align align;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

  // One cell per column. A line break or other control character in a cell
  // (a name from a trace) is shown as \xNN, so the row stays one line.
  void AddRow(std::vector<std::string> cells);

  // Header and rows, each line starting with `indent`. Columns are two
  // spaces apart, or one when two would not fit `width`; if even that is too
  // wide, the widest left-aligned columns (names, not numbers) are narrowed
  // by eliding the middle of their longest cells ("node-0…7.vtrace").
  void Write(std::ostream& out, std::string_view indent, size_t width = kTextWidth) const;

 private:
  void WriteLine(std::ostream& out, std::string_view indent, const std::vector<std::string>& cells,
                 const std::vector<size_t>& widths, size_t gap) const;

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace vprof::reporter
