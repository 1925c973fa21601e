#include "reporter/short_kernel_name.h"

#include <cctype>

namespace vprof::reporter {
namespace {

// "_Z<length><identifier>...": the identifier; empty for other manglings
// (nested names start "_ZN", which has no length right after "_Z").
std::string_view MangledIdentifier(std::string_view name) {
  if (!name.starts_with("_Z")) return {};
  size_t at = 2;
  size_t length = 0;
  while (at < name.size() && std::isdigit(static_cast<unsigned char>(name[at]))) {
    length = length * 10 + static_cast<size_t>(name[at++] - '0');
  }
  if (at == 2 || length > name.size() - at) return {};
  return name.substr(at, length);
}

}  // namespace

std::string ShortKernelName(std::string_view name) {
  if (const std::string_view identifier = MangledIdentifier(name); !identifier.empty()) {
    return std::string(identifier);
  }
  if (name.starts_with("_Z")) return std::string(name);
  if (name.starts_with("void ")) name.remove_prefix(5);
  constexpr std::string_view kAnonymous = "(anonymous namespace)";
  std::string text;
  int template_depth = 0;
  int param_depth = 0;  // inside the parameter list, whose parentheses may nest
  for (size_t at = 0; at < name.size(); ++at) {
    const char c = name[at];
    if (param_depth > 0) {
      param_depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      continue;
    }
    if (c == '(' && template_depth == 0) {
      if (!name.substr(at).starts_with(kAnonymous)) {
        param_depth = 1;
        continue;
      }
      text += kAnonymous;
      at += kAnonymous.size() - 1;
      continue;
    }
    if (c == '<' && ++template_depth == 2) text += "<…>";
    const bool shown = template_depth <= 1;
    if (c == '>') --template_depth;
    if (shown) text += c;
  }
  return text;
}

}  // namespace vprof::reporter
