// Reads a command's arguments one at a time, the way every vprof command takes
// them: options as "--name value" or "--name=value", anything else positional,
// and "--" ending the options (the rest is a command to run).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace vprof::reporter {

// The items of an option's comma-separated value ("0-7,12"), empty ones kept
// (the option's parser says what it expected of them).
std::vector<std::string_view> CommaSeparated(std::string_view value);

// What a command's option taker made of the argument at the cursor: not its
// option, taken, or its option with a bad value (already said on `err`).
enum class OptionUse { kNotMine, kTaken, kBad };

class ArgCursor {
 public:
  // `command` names the command in messages ("vprof: <command>: ...").
  ArgCursor(const std::vector<std::string>& args, std::string_view command, std::ostream& err)
      : args_(args), command_(command), err_(err) {}

  // Moves to the next argument; false at the end. The current argument is
  // then name() (for "--name=value", the "--name" part).
  bool Next();
  std::string_view name() const { return name_; }
  bool is_option() const { return name_.starts_with("-") && name_.size() > 1; }
  // The current argument is "--": what follows it is not for vprof.
  bool is_separator() const { return name_ == "--"; }

  // The current option's value: its "=value" part or the next argument. None
  // (after saying so on `err`) when there is none.
  std::optional<std::string> Value();
  // Value() as a whole number from 0 to 2^32 - 1; none (after saying what was
  // expected) otherwise.
  std::optional<uint32_t> CountValue();
  // Every argument after the current one; FromCurrent() includes it, as given.
  std::vector<std::string> Rest() const;
  std::vector<std::string> FromCurrent() const;

  // The current argument, which no option of the command took, as its one
  // DIR: false (after saying so) when it is an unknown option or a second DIR.
  bool TakeDirectory(std::string& directory);

  // Prints "vprof: <command>: <message>" on `err`.
  void Complain(std::string_view message) const;
  void ComplainUnknown() const;  // about the current argument as an option

 private:
  const std::vector<std::string>& args_;
  std::string_view command_;
  std::ostream& err_;
  size_t next_ = 0;  // index of the argument after the current one
  std::string_view name_;
  std::optional<std::string> inline_value_;
};

}  // namespace vprof::reporter
