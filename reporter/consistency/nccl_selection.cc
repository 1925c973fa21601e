#include "reporter/consistency/nccl_selection.h"

#include <cctype>

namespace vprof::reporter {
namespace {

std::string_view Trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

std::string NormalizeNcclName(std::string_view name) {
  std::string normalized;
  for (const char c : Trimmed(name)) {
    if (c == '_' || c == '-') continue;
    normalized += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return normalized;
}

NcclSelection::List NcclSelection::ParseList(std::string_view list) {
  List parsed;
  list = Trimmed(list);
  if (list.starts_with('^')) {
    parsed.exclude = true;
    list.remove_prefix(1);
  }
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string name = NormalizeNcclName(list.substr(0, comma));
    if (!name.empty()) parsed.names.insert(name);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return parsed;
}

NcclSelection NcclSelection::Parse(std::string_view value) {
  NcclSelection selection;
  while (!value.empty()) {
    const size_t semicolon = value.find(';');
    const std::string_view entry = Trimmed(value.substr(0, semicolon));
    value = semicolon == std::string_view::npos ? std::string_view() : value.substr(semicolon + 1);
    if (entry.empty()) continue;
    const size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      selection.every_function_ = ParseList(entry);
    } else {
      selection.per_function_[NormalizeNcclName(entry.substr(0, colon))] =
          ParseList(entry.substr(colon + 1));
    }
  }
  return selection;
}

bool NcclSelection::Allows(std::string_view func, std::string_view name) const {
  const auto specific = per_function_.find(NormalizeNcclName(func));
  const List* list = specific != per_function_.end() ? &specific->second
                     : every_function_               ? &*every_function_
                                                     : nullptr;
  if (list == nullptr) return true;
  return list->names.contains(NormalizeNcclName(name)) != list->exclude;
}

}  // namespace vprof::reporter
