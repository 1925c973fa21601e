// Test helper: text report output with its wrapped lines joined again.
#pragma once

#include <string>

namespace vprof::reporter::testing {

// `text` with each line break before a four-space hanging indent (the
// continuation lines WriteWrapped writes) replaced by one space, so that a
// test can find a sentence wherever the width broke it.
inline std::string Unwrapped(std::string text) {
  for (size_t at; (at = text.find("\n    ")) != std::string::npos;) text.replace(at, 5, " ");
  return text;
}

}  // namespace vprof::reporter::testing
