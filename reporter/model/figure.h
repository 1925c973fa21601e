// A figure of the report, declared once: its JSON key, where its value lies
// in the model, and whether and how `vprof diff` compares it. The JSON writer
// writes a struct's figures in the order of its table (report_figures.h) and
// the diff reads the compared ones back by the same keys and units, so a
// figure added to a table is written, and, in a record the diff reads (a
// section of reporter/diff/report_sections.cc), compared, without another
// edit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace vprof::reporter {

// How a compared figure reads; numbers of kNs, kBytes and kCount are whole.
enum class FigureUnit : uint8_t { kNs, kBytes, kCount, kGbps, kShare, kText };

// Where a figure's value lies in `Struct`: a member, or, for a figure the
// JSON names in words (an enum's name), a function of the struct.
template <typename Struct>
using FigureValue =
    std::variant<int64_t Struct::*, uint64_t Struct::*, uint32_t Struct::*, double Struct::*,
                 bool Struct::*, std::string Struct::*, std::optional<double> Struct::*,
                 std::optional<int32_t> Struct::*, std::optional<int64_t> Struct::*,
                 std::optional<bool> Struct::*, std::string_view (*)(const Struct&)>;

template <typename Struct>
struct Figure {
  std::string_view key;  // in the JSON report
  FigureValue<Struct> value;
  // How `vprof diff` compares it; none: it does not.
  std::optional<FigureUnit> compared = std::nullopt;
};

// The key `figures` gives `member`, found as the program is compiled: for the
// figures a reader of the JSON report matches or names its items by.
template <typename Struct, typename Member, size_t N>
consteval std::string_view KeyOf(const std::array<Figure<Struct>, N>& figures,
                                 Member Struct::*member) {
  for (const Figure<Struct>& figure : figures) {
    // By value, not std::get_if: UBSan's pointer checks are not constant expressions.
    if (std::holds_alternative<Member Struct::*>(figure.value) &&
        std::get<Member Struct::*>(figure.value) == member) {
      return figure.key;
    }
  }
  throw "the member is not among the figures";  // stops the compilation
}

}  // namespace vprof::reporter
