#include "reporter/base/text_layout.h"

#include <algorithm>

#include "reporter/base/visible_controls.h"

namespace vprof::reporter {

size_t DisplayWidth(std::string_view utf8) {
  // Every byte except UTF-8 continuation bytes (10xxxxxx) starts a code point.
  return static_cast<size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

namespace {

// The byte offset of code point `n` in `utf8` (its size if there are fewer).
size_t CodePointOffset(std::string_view utf8, size_t n) {
  size_t offset = 0;
  for (; offset < utf8.size(); ++offset) {
    if ((static_cast<unsigned char>(utf8[offset]) & 0xC0) == 0x80) continue;
    if (n-- == 0) break;
  }
  return offset;
}

// Narrower than this, an elided name says too little to be worth the space.
constexpr size_t kMinElidedWidth = 12;

}  // namespace

std::string ElideMiddle(std::string_view text, size_t width) {
  const size_t text_width = DisplayWidth(text);
  if (text_width <= width) return std::string(text);
  if (width == 0) return "";
  const size_t head = (width - 1) / 2;
  const size_t tail = width - 1 - head;
  return std::string(text.substr(0, CodePointOffset(text, head))) + "…" +
         std::string(text.substr(CodePointOffset(text, text_width - tail)));
}

namespace {

// A unit after a number: "12.3 ms", "4.00 MiB", "9.66 GB/s". Trailing
// punctuation does not count ("ms,", "MiB)").
bool IsUnit(std::string_view word) {
  while (!word.empty() && std::string_view(",;:.)]").find(word.back()) != std::string_view::npos) {
    word.remove_suffix(1);
  }
  static constexpr std::string_view kUnits[] = {"ns", "µs",  "us",  "ms",   "s",    "min",
                                                "B",  "KiB", "MiB", "GiB",  "TiB",  "KB",
                                                "MB", "GB",  "TB",  "GB/s", "ns/s", "µs/s"};
  for (const std::string_view unit : kUnits) {
    if (word == unit) return true;
  }
  return false;
}

bool EndsInDigit(std::string_view word) {
  return !word.empty() && word.back() >= '0' && word.back() <= '9';
}

}  // namespace

void WriteWrapped(std::ostream& out, std::string_view text, std::string_view first_prefix,
                  std::string_view next_prefix, size_t width) {
  std::string line(first_prefix);
  size_t line_width = DisplayWidth(first_prefix);
  bool line_has_words = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = std::min(text.find(' ', start), text.size());
    // A number and its unit stay on one line: "12.3 ms" is one word here.
    if (EndsInDigit(text.substr(start, end - start)) && end < text.size()) {
      const size_t unit_end = std::min(text.find(' ', end + 1), text.size());
      if (IsUnit(text.substr(end + 1, unit_end - end - 1))) end = unit_end;
    }
    const std::string_view word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    const size_t word_width = DisplayWidth(word);
    if (line_has_words && line_width + 1 + word_width > width) {
      out << line << '\n';
      line = next_prefix;
      line_width = DisplayWidth(next_prefix);
      line_has_words = false;
    }
    if (line_has_words) {
      line += ' ';
      ++line_width;
    }
    line += word;
    line_width += word_width;
    line_has_words = true;
  }
  out << line << '\n';
}

void TextTable::AddRow(std::vector<std::string> cells) {
  for (std::string& cell : cells) cell = ShowControlCharacters(cell, LineBreaks::kEscape);
  rows_.push_back(std::move(cells));
}

void TextTable::Write(std::ostream& out, std::string_view indent, size_t width) const {
  std::vector<size_t> widths;
  for (const Column& column : columns_) widths.push_back(DisplayWidth(column.header));
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  size_t total = DisplayWidth(indent);
  for (size_t column_width : widths) total += column_width;
  const size_t gaps = widths.empty() ? 0 : widths.size() - 1;
  const size_t gap = total + 2 * gaps <= width ? 2 : 1;
  total += gap * gaps;
  while (total > width) {
    size_t widest = widths.size();
    for (size_t i = 0; i < widths.size(); ++i) {
      if (columns_[i].align == Align::kLeft && widths[i] > kMinElidedWidth &&
          (widest == widths.size() || widths[i] > widths[widest])) {
        widest = i;
      }
    }
    if (widest == widths.size()) break;  // nothing left to narrow: let the line run long
    const size_t cut = std::min(total - width, widths[widest] - kMinElidedWidth);
    widths[widest] -= cut;
    total -= cut;
  }

  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.header);
  WriteLine(out, indent, headers, widths, gap);
  for (const auto& row : rows_) WriteLine(out, indent, row, widths, gap);
}

void TextTable::WriteLine(std::ostream& out, std::string_view indent,
                          const std::vector<std::string>& cells, const std::vector<size_t>& widths,
                          size_t gap) const {
  std::string line(indent);
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line.append(gap, ' ');
    const std::string cell = ElideMiddle(cells[i], widths[i]);
    const std::string padding(widths[i] - DisplayWidth(cell), ' ');
    line += columns_[i].align == Align::kRight ? padding + cell : cell + padding;
  }
  // A left-aligned last column would leave trailing spaces.
  line.erase(line.find_last_not_of(' ') + 1);
  out << line << '\n';
}

}  // namespace vprof::reporter
