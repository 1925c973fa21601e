#include "reporter/base/safe_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace vprof::reporter {
namespace {

std::string KindOf(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// What to do about it: a file in a run's folder, or one the user named.
constexpr std::string_view kInFolderAdvice = "remove it or choose another folder";
constexpr std::string_view kNamedAdvice = "name a regular file";

std::string NotRegular(const std::string& path, mode_t mode, std::string_view advice) {
  return path + " is " + KindOf(mode) + ", not a regular file: " + std::string(advice);
}

bool WriteAll(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t written = ::write(fd, contents.data(), contents.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    contents.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

}  // namespace

bool WriteFilePrivately(const std::string& path, std::string_view contents, std::string* error) {
  return WriteFilePrivatelyFrom(
      path, [&](const PieceSink& sink) { return sink(contents); }, error);
}

bool WriteFilePrivatelyFrom(const std::string& path,
                            const std::function<bool(const PieceSink&)>& write,
                            std::string* error) {
  // Said here for a clear message; the rename below replaces whatever is
  // planted at `path` meanwhile rather than writing through it.
  if (std::string refusal = WhyNotRegular(path); !refusal.empty()) {
    *error = std::move(refusal);
    return false;
  }
  const std::filesystem::path target(path);
  // mkstemp picks an unpredictable name, creates it with O_EXCL (so never
  // through a link) and mode 0600.
  std::string draft =
      (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkostemp(draft.data(), O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot create a file beside " + path + ": " + std::strerror(errno);
    return false;
  }
  int write_errno = 0;
  const bool written = write([&](std::string_view piece) {
    if (WriteAll(fd, piece)) return true;
    write_errno = errno;
    return false;
  });
  if (::close(fd) != 0 || !written || std::rename(draft.c_str(), path.c_str()) != 0) {
    const int why = !written && write_errno != 0 ? write_errno : errno;
    *error = "cannot write " + path + ": " + std::strerror(why);
    ::unlink(draft.c_str());
    return false;
  }
  return true;
}

std::string WhyNotRegular(const std::string& path) {
  struct stat entry {};
  if (::lstat(path.c_str(), &entry) != 0 || S_ISREG(entry.st_mode)) return "";
  return NotRegular(path, entry.st_mode, kInFolderAdvice);
}

namespace {

// OpenRegularFile, with links followed or refused.
int OpenRegular(const std::string& path, bool follow_links, std::string* refusal) {
  const std::string_view advice = follow_links ? kNamedAdvice : kInFolderAdvice;
  // O_NONBLOCK: opening a FIFO with no writer returns at once; O_NOFOLLOW: a
  // link (to /dev/zero, say) is refused, not read.
  const int fd =
      ::open(path.c_str(), O_RDONLY | (follow_links ? 0 : O_NOFOLLOW) | O_NONBLOCK | O_CLOEXEC);
  struct stat file {};
  if (fd < 0) {
    if (errno == ELOOP && ::lstat(path.c_str(), &file) == 0)
      *refusal = NotRegular(path, file.st_mode, advice);
    return -1;
  }
  if (::fstat(fd, &file) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  if (S_ISREG(file.st_mode)) return fd;
  *refusal = NotRegular(path, file.st_mode, advice);
  ::close(fd);
  return -1;
}

// The contents of the regular file `fd` (closed here), at most `max_bytes`.
RegularFileRead ReadOpenFile(int fd, const std::string& path, size_t max_bytes) {
  RegularFileRead read;
  struct stat file {};
  if (::fstat(fd, &file) != 0) {
    read.error = "cannot read " + path + ": " + std::strerror(errno);
  } else if (static_cast<unsigned long long>(file.st_size) > max_bytes) {
    read.error = path + " is " + std::to_string(file.st_size) + " bytes, more than the " +
                 std::to_string(max_bytes) + " it could be";
  } else {
    std::string text(static_cast<size_t>(file.st_size), '\0');
    size_t filled = 0;
    // Up to the size fstat gave: a file that grows meanwhile is read no further.
    while (filled < text.size()) {
      const ssize_t got = ::read(fd, text.data() + filled, text.size() - filled);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) {
        read.error = "cannot read " + path + ": " + std::strerror(errno);
        break;
      }
      if (got == 0) break;
      filled += static_cast<size_t>(got);
    }
    text.resize(filled);
    if (read.error.empty()) read.contents = std::move(text);
  }
  ::close(fd);
  return read;
}

}  // namespace

int OpenRegularFile(const std::string& path, std::string* refusal) {
  return OpenRegular(path, false, refusal);
}

RegularFileRead ReadRegularFile(const std::string& path, size_t max_bytes) {
  RegularFileRead read;
  const int fd = OpenRegular(path, false, &read.error);
  if (fd >= 0) return ReadOpenFile(fd, path, max_bytes);
  if (read.error.empty() && errno != ENOENT) {
    read.error = "cannot read " + path + ": " + std::strerror(errno);
  }
  return read;
}

RegularFileRead ReadNamedFile(const std::string& path, size_t max_bytes) {
  RegularFileRead read;
  const int fd = OpenRegular(path, true, &read.error);
  if (fd >= 0) return ReadOpenFile(fd, path, max_bytes);
  if (read.error.empty()) read.error = path + ": cannot read: " + std::strerror(errno);
  return read;
}

}  // namespace vprof::reporter
