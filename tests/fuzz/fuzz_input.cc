#include "tests/fuzz/fuzz_input.h"

#include <fstream>
#include <stdexcept>
#include <streambuf>

#include "reporter/base/protobuf_log.h"
#include "tests/reporter/scratch_dir.h"

namespace vprof::fuzz {
namespace {

class DiscardBuffer : public std::streambuf {
 protected:
  int_type overflow(int_type c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
};

// Installed before any input is read; the targets link this file whole.
const reporter::ScopedProtobufLog protobuf_log(Discard());

}  // namespace

const std::string& ScratchFolder() {
  static const reporter::testing::ScratchDir folder;
  return folder.path();
}

std::string InputFile(const uint8_t* data, size_t size, const std::string& name) {
  const std::string path = ScratchFolder() + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush()) throw std::runtime_error("cannot write the fuzz input to " + path);
  return path;
}

std::ostream& Discard() {
  static DiscardBuffer buffer;
  static std::ostream stream(&buffer);
  return stream;
}

}  // namespace vprof::fuzz
