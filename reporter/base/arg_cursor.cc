#include "reporter/base/arg_cursor.h"

#include <charconv>
#include <cstddef>
#include <utility>

namespace vprof::reporter {

std::vector<std::string_view> CommaSeparated(std::string_view value) {
  std::vector<std::string_view> items;
  size_t begin = 0;
  while (true) {
    const size_t comma = value.find(',', begin);
    items.push_back(value.substr(begin, comma - begin));
    if (comma == std::string_view::npos) return items;
    begin = comma + 1;
  }
}

bool ArgCursor::Next() {
  if (next_ >= args_.size()) return false;
  name_ = args_[next_++];
  inline_value_.reset();
  const size_t equals = name_.find('=');
  if (name_.starts_with("--") && equals != std::string_view::npos) {
    inline_value_ = std::string(name_.substr(equals + 1));
    name_ = name_.substr(0, equals);
  }
  return true;
}

std::optional<std::string> ArgCursor::Value() {
  if (inline_value_) return std::exchange(inline_value_, std::nullopt);
  if (next_ < args_.size()) return args_[next_++];
  Complain(std::string(name_) + " needs a value");
  return std::nullopt;
}

std::optional<uint32_t> ArgCursor::CountValue() {
  const std::string option(name_);
  const std::optional<std::string> value = Value();
  if (!value) return std::nullopt;
  uint32_t count = 0;
  const char* end = value->data() + value->size();
  const auto parsed = std::from_chars(value->data(), end, count);
  if (value->empty() || parsed.ec != std::errc() || parsed.ptr != end) {
    Complain(option + " needs a whole number from 0 to 4294967295, not '" + *value + "'");
    return std::nullopt;
  }
  return count;
}

std::vector<std::string> ArgCursor::Rest() const {
  return std::vector<std::string>(args_.begin() + static_cast<std::ptrdiff_t>(next_), args_.end());
}

std::vector<std::string> ArgCursor::FromCurrent() const {
  return std::vector<std::string>(args_.begin() + static_cast<std::ptrdiff_t>(next_ - 1),
                                  args_.end());
}

void ArgCursor::Complain(std::string_view message) const {
  err_ << "vprof: " << command_ << ": " << message << '\n';
}

bool ArgCursor::TakeDirectory(std::string& directory) {
  if (is_option()) {
    ComplainUnknown();
    return false;
  }
  if (!directory.empty()) {
    Complain("unexpected argument '" + std::string(name_) + "': one DIR only");
    return false;
  }
  directory = std::string(name_);
  return true;
}

void ArgCursor::ComplainUnknown() const {
  Complain("unknown option '" + args_[next_ - 1] + "' (see 'vprof help " + std::string(command_) +
           "')");
}

}  // namespace vprof::reporter
