#include "reporter/render/text/table_text.h"

#include <utility>

namespace vprof::reporter {

ReportTable UntitledTable(std::vector<TableColumn> columns) {
  return ReportTable{.id = "",
                     .title = "",
                     .scope = "",
                     .note = "",
                     .columns = std::move(columns),
                     .rows = {},
                     .empty_text = ""};
}

TextTable TextTableOf(const ReportTable& table) {
  std::vector<TextTable::Column> columns;
  for (const TableColumn& column : table.columns) {
    if (!column.in_text) continue;
    columns.push_back(
        {column.header, column.numeric ? TextTable::Align::kRight : TextTable::Align::kLeft});
  }
  TextTable text(std::move(columns));
  for (const std::vector<TableCell>& row : table.rows) {
    std::vector<std::string> cells;
    for (size_t i = 0; i < row.size(); ++i) {
      if (table.columns[i].in_text) cells.push_back(row[i].text);
    }
    text.AddRow(std::move(cells));
  }
  return text;
}

}  // namespace vprof::reporter
