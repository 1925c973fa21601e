#include "reporter/safe_file.h"

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

std::string NotRegular(const std::string& path, mode_t mode) {
  return path + " is " + KindOf(mode) + ", not a regular file: remove it or choose another folder";
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
  const bool written = WriteAll(fd, contents);
  const int saved = errno;
  if (::close(fd) != 0 || !written || std::rename(draft.c_str(), path.c_str()) != 0) {
    *error = "cannot write " + path + ": " + std::strerror(written ? errno : saved);
    ::unlink(draft.c_str());
    return false;
  }
  return true;
}

std::string WhyNotRegular(const std::string& path) {
  struct stat entry {};
  if (::lstat(path.c_str(), &entry) != 0 || S_ISREG(entry.st_mode)) return "";
  return NotRegular(path, entry.st_mode);
}

int OpenRegularFile(const std::string& path, std::string* refusal) {
  // O_NONBLOCK: opening a FIFO with no writer returns at once; O_NOFOLLOW: a
  // link (to /dev/zero, say) is refused, not read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat file {};
  if (fd < 0) {
    if (errno == ELOOP && ::lstat(path.c_str(), &file) == 0)
      *refusal = NotRegular(path, file.st_mode);
    return -1;
  }
  if (::fstat(fd, &file) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  if (S_ISREG(file.st_mode)) return fd;
  *refusal = NotRegular(path, file.st_mode);
  ::close(fd);
  return -1;
}

RegularFileRead ReadRegularFile(const std::string& path, size_t max_bytes) {
  RegularFileRead read;
  const int fd = OpenRegularFile(path, &read.error);
  if (fd < 0) {
    if (read.error.empty() && errno != ENOENT) {
      read.error = "cannot read " + path + ": " + std::strerror(errno);
    }
    return read;
  }
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

}  // namespace vprof::reporter
