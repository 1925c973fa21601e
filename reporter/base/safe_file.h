// Files vprof's launchers create and read in a run's folder, which others may
// be able to write into: created private (0600) and never through a link
// planted there, read only when they are regular files of a bounded size, so
// that a symbolic link, FIFO or device there cannot be overwritten, hang
// vprof or exhaust its memory.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace vprof::reporter {

// Writes `contents` to a new private file beside `path` and renames it into
// place, so a reader never sees half of it and a link at `path` is not
// followed. Refuses, with `error` naming the file, when something other than
// a regular file is at `path`.
bool WriteFilePrivately(const std::string& path, std::string_view contents, std::string* error);

// Takes one piece of a file's contents; false when it could not be written.
using PieceSink = std::function<bool(std::string_view piece)>;

// WriteFilePrivately with contents made in pieces: `write` hands each to the
// sink it is given (and returns false when one was refused), so that a large
// file is never held whole. Nothing is renamed into place unless every piece
// was written.
bool WriteFilePrivatelyFrom(const std::string& path,
                            const std::function<bool(const PieceSink&)>& write, std::string* error);

// `path` opened for reading when it is a regular file, not through a link and
// never waiting on a FIFO or device. -1 otherwise: with `refusal` naming the
// file and what is there instead when it is no regular file, else with errno
// saying why it could not be opened.
int OpenRegularFile(const std::string& path, std::string* refusal);

// Why `path` is no file to read ("P is a FIFO, not a regular file: ..."),
// judged without opening it (opening a device can act on it); "" for a
// regular file, and when nothing is there.
std::string WhyNotRegular(const std::string& path);

struct RegularFileRead {
  std::optional<std::string> contents;  // none when absent or refused
  std::string error;                    // set when refused; "" when absent
};

// The contents of the regular file at `path`, not through a link, never
// waiting on a FIFO or device; refused when larger than `max_bytes`.
RegularFileRead ReadRegularFile(const std::string& path, size_t max_bytes);

// A file the user named on the command line (a contract, an audit, phase
// rules, a report to diff): a link is followed, since the user chose it, but
// only a regular file of at most `max_bytes` is read, never waiting on a FIFO
// or reading a device such as /dev/zero. A missing file is an error too.
RegularFileRead ReadNamedFile(const std::string& path, size_t max_bytes);

}  // namespace vprof::reporter
