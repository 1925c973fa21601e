// A record's figures (reporter/model/report_figures.h) as members of the JSON
// object being written, in the table's order.
#pragma once

#include <span>
#include <type_traits>
#include <variant>

#include "reporter/base/json_writer.h"
#include "reporter/model/figure.h"

namespace vprof::reporter {

template <typename Struct>
void WriteFigures(JsonWriter& json, const Struct& record, std::span<const Figure<Struct>> figures) {
  for (const Figure<Struct>& figure : figures) {
    std::visit(
        [&](const auto& where) {
          if constexpr (std::is_member_object_pointer_v<std::decay_t<decltype(where)>>) {
            json.Field(figure.key, record.*where);
          } else {
            json.Field(figure.key, where(record));
          }
        },
        figure.value);
  }
}

}  // namespace vprof::reporter
