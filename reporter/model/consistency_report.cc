#include "reporter/model/consistency_report.h"

namespace vprof::reporter {

std::string_view ConsistencyModeName(ConsistencyMode mode) {
  switch (mode) {
    case ConsistencyMode::kOff:
      return "off";
    case ConsistencyMode::kAuto:
      return "auto";
    case ConsistencyMode::kStrict:
      return "strict";
  }
  return "unknown";
}

}  // namespace vprof::reporter
