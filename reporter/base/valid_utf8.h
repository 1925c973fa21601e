// Text for people, made valid UTF-8: traces carry names from programs and the
// OS as bytes (schema/vprof_trace.proto), which may not be UTF-8, and a report
// a browser, a terminal or a JSON parser refuses is no report. Each maximal
// ill-formed subsequence becomes U+FFFD, as the capture side repairs
// (common/utf8_repair.h, the one implementation both use).
#pragma once

#include <string>
#include <string_view>

namespace vprof::reporter {

std::string ValidUtf8(std::string_view text);

}  // namespace vprof::reporter
