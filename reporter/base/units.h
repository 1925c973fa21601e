// Human-readable quantities for the text report: three significant digits and
// a unit, so columns stay narrow whatever the magnitude.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace vprof::reporter {

// "850 ns", "1.23 µs", "45.6 ms", "2.00 s".
std::string FormatDuration(double ns);
// The same, for a whole number of nanoseconds.
inline std::string FormatDurationNs(int64_t ns) { return FormatDuration(static_cast<double>(ns)); }

// A share of 1 as a percentage with one decimal: 0.1234 → "12.3%".
std::string FormatPercent(double share);

// Three significant digits: 24.75 → "24.8", 1.2278e-20 → "1.23e-20".
std::string FormatNumber(double value);

// "512 B", "1.00 KiB", "100 MiB" (IEC units: 1 KiB = 1024 B).
std::string FormatBytes(uint64_t bytes);

// GB/s (1e9 B/s) with two decimals: "15.73".
std::string FormatGBps(double gbps);

// 2^log2 bytes (0 <= log2 <= 64), compactly: 0 → "1B", 11 → "2KiB", 20 → "1MiB".
std::string FormatPowerOfTwoBytes(int log2);

// A count and its noun: 1 → "1 process", 3 → "3 processes".
std::string FormatCount(uint64_t count, std::string_view one, std::string_view many);

// A communicator id: "0x" and lowercase hex (JSON numbers cannot hold 64 bits).
std::string FormatHexId(uint64_t id);

}  // namespace vprof::reporter
