#include "unique_id.h"

#include <sys/random.h>

#include <cstdint>
#include <cstring>

namespace fake_nccl {
namespace {

constexpr char kPrefix[] = "vprof-fake-nccl-";
constexpr size_t kRandomBytes = 16;

std::string NameFromBytes(const uint8_t (&bytes)[kRandomBytes]) {
  std::string name = kPrefix;
  for (const uint8_t byte : bytes) {
    name += "0123456789abcdef"[byte >> 4];
    name += "0123456789abcdef"[byte & 15];
  }
  return name;
}

// splitmix64's finalizer: spreads every input bit over the output.
uint64_t Mix(uint64_t value) {
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}

}  // namespace

std::string NewRegionName() {
  uint8_t random[kRandomBytes];
  // getrandom never returns short for requests of at most 256 bytes.
  while (getrandom(random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) {
  }
  return NameFromBytes(random);
}

std::string DerivedRegionName(const std::string& parent_name, uint64_t derivation) {
  // The parent's name is random, so hashing it with the count gives a name as unique.
  uint64_t state[2] = {Mix(derivation), Mix(~derivation)};
  for (const char c : parent_name) {
    state[0] = Mix(state[0] ^ static_cast<uint8_t>(c));
    state[1] = Mix(state[1] + static_cast<uint8_t>(c));
  }
  uint8_t bytes[kRandomBytes];
  std::memcpy(bytes, state, sizeof bytes);
  return NameFromBytes(bytes);
}

ncclUniqueId UniqueIdFor(const std::string& region_name) {
  ncclUniqueId id{};
  std::memcpy(id.internal, region_name.c_str(), region_name.size() + 1);
  return id;
}

bool RegionNameFromId(const ncclUniqueId& id, std::string* region_name) {
  const size_t length = strnlen(id.internal, sizeof id.internal);
  const std::string name(id.internal, length);
  // Exactly the shape NewRegionName makes: the name becomes a path under /dev/shm.
  if (length != sizeof kPrefix - 1 + 2 * kRandomBytes || name.rfind(kPrefix, 0) != 0 ||
      name.find_first_not_of("0123456789abcdef", sizeof kPrefix - 1) != std::string::npos) {
    return false;
  }
  *region_name = name;
  return true;
}

}  // namespace fake_nccl
