#include "reporter/render/short_kernel_name.h"

#include "reporter/gpu/export_names.h"

namespace vprof::reporter {

std::string ShortKernelName(std::string_view name) {
  if (name.starts_with("_Z")) {
    // Demangled, it no longer starts "_Z"; kept whole when it does not demangle.
    const std::string demangled = DemangledKernelName(name);
    return demangled.starts_with("_Z") ? demangled : ShortKernelName(demangled);
  }
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
