// The fuzz targets in the normal build, where libFuzzer is not linked: runs
// the target's LLVMFuzzerTestOneInput over every file of the folders given
// (its seed corpus and its regression cases), so the unit suite, and its
// ASan + UBSan build, replays each of them. A folder that does not exist is
// skipped (git keeps no empty regression folder); finding no file at all
// fails, as a mistyped corpus path would.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::filesystem::is_directory(argv[i])) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      const std::vector<uint8_t> bytes = ReadBytes(entry.path());
      std::cout << "replaying " << entry.path().string() << " (" << bytes.size() << " bytes)\n";
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++replayed;
    }
  }
  std::cout << replayed << " inputs replayed\n";
  return replayed > 0 ? 0 : 1;
}
