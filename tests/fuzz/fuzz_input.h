// What every fuzz target needs around the reader it drives. The readers the
// `vprof` command uses open a path, so an input's bytes become a file in a
// folder of this process's own. libprotobuf's messages about bad bytes, which
// the command routes to its error stream, go to Discard() from the start of
// the process rather than flooding the fuzzer's output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace vprof::fuzz {

// This process's scratch folder (made on first use, removed at exit).
const std::string& ScratchFolder();

// Writes the input to ScratchFolder()/name, replacing what was there, and
// returns its path.
std::string InputFile(const uint8_t* data, size_t size, const std::string& name);

// A stream that drops what is written to it: where reports and messages go.
std::ostream& Discard();

}  // namespace vprof::fuzz
