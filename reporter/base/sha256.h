// SHA-256 (FIPS 180-4), for the fingerprints of what a run requested and what
// it ran: small enough to write here rather than depend on a crypto library.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace vprof::reporter {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest Sha256(std::string_view message);

// The digest as 64 lowercase hex digits.
std::string Sha256Hex(std::string_view message);

}  // namespace vprof::reporter
