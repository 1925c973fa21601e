#include "reporter/render/chart_palette.h"

namespace vprof::reporter {

std::string_view StrictTagColour(StrictTag tag) {
  for (const StrictTagStyle& style : kStrictTagStyles) {
    if (style.tag == tag) return style.colour;
  }
  return kStrictTagStyles.back().colour;
}

}  // namespace vprof::reporter
