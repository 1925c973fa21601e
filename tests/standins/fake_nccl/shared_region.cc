#include "shared_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "errors.h"
#include "futex.h"

namespace fake_nccl {
namespace {

constexpr char kMagic[sizeof RegionHeader::magic] = "vprof-fake-nccl";
constexpr size_t kAlignment = 64;

size_t AlignUp(size_t value) { return (value + kAlignment - 1) / kAlignment * kAlignment; }
size_t AlignDown(size_t value) { return value / kAlignment * kAlignment; }

std::string ErrnoText() { return std::strerror(errno); }

std::byte* Map(int fd) {
  void* base = mmap(nullptr, SharedRegion::kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return base == MAP_FAILED ? nullptr : static_cast<std::byte*>(base);
}

}  // namespace

SharedRegion::SharedRegion(std::byte* base, int nranks, std::string path)
    : base_(base), nranks_(nranks), path_(std::move(path)) {
  const size_t n = static_cast<size_t>(nranks);
  size_t offset = AlignUp(sizeof(RegionHeader));
  rank_states_offset_ = offset;
  offset += n * sizeof(RankState);
  channels_offset_ = offset;
  offset += n * n * sizeof(P2pChannel);
  // A quarter of the data area for p2p buffers, the rest for collective slots.
  p2p_buffers_offset_ = offset;
  p2p_buffer_bytes_ = AlignDown((kBytes - offset) / 4 / (n * n));
  offset += n * n * p2p_buffer_bytes_;
  slots_offset_ = offset;
  slot_bytes_ = AlignDown((kBytes - offset) / (2 * n));
}

SharedRegion::~SharedRegion() { munmap(base_, kBytes); }

RankState& SharedRegion::rank_state(int rank) {
  return reinterpret_cast<RankState*>(base_ + rank_states_offset_)[rank];
}

P2pChannel& SharedRegion::channel(int sender, int receiver) {
  return reinterpret_cast<P2pChannel*>(base_ + channels_offset_)[sender * nranks_ + receiver];
}

std::byte* SharedRegion::p2p_buffer(int sender, int receiver) {
  return base_ + p2p_buffers_offset_ +
         static_cast<size_t>(sender * nranks_ + receiver) * p2p_buffer_bytes_;
}

std::byte* SharedRegion::slot(int rank, int half) {
  return base_ + slots_offset_ + static_cast<size_t>(2 * rank + half) * slot_bytes_;
}

ncclResult_t SharedRegion::Publish(const std::string& path, int nranks) {
  const std::string draft =
      path + ".draft-" + std::to_string(getpid()) + "-" + std::to_string(gettid());
  const int draft_fd = open(draft.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (draft_fd < 0) return SystemFail("cannot create " + draft + ": " + ErrnoText());
  std::byte* base = ftruncate(draft_fd, kBytes) == 0 ? Map(draft_fd) : nullptr;
  close(draft_fd);
  if (base == nullptr) {
    const std::string error = ErrnoText();
    unlink(draft.c_str());
    return SystemFail("cannot size or map " + draft + ": " + error);
  }
  SharedRegion draft_region(base, nranks, draft);
  auto* header = new (base) RegionHeader{};
  std::memcpy(header->magic, kMagic, sizeof kMagic);
  header->nranks = static_cast<uint32_t>(nranks);
  for (int r = 0; r < nranks; ++r) {
    new (&draft_region.rank_state(r)) RankState{};
    for (int peer = 0; peer < nranks; ++peer) new (&draft_region.channel(r, peer)) P2pChannel{};
  }
  const bool linked = link(draft.c_str(), path.c_str()) == 0 || errno == EEXIST;
  const std::string error = ErrnoText();
  unlink(draft.c_str());
  return linked ? ncclSuccess : SystemFail("cannot publish " + path + ": " + error);
}

ncclResult_t SharedRegion::Join(const std::string& name, int nranks, int rank,
                                std::unique_ptr<SharedRegion>* region) {
  const std::string path = "/dev/shm/" + name;
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    if (const ncclResult_t result = Publish(path, nranks)) return result;
    fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  }
  if (fd < 0) return SystemFail("cannot open " + path + ": " + ErrnoText());
  struct stat status;
  std::byte* base = (fstat(fd, &status) == 0 && static_cast<size_t>(status.st_size) == kBytes)
                        ? Map(fd)
                        : nullptr;
  close(fd);
  if (base == nullptr) return SystemFail("cannot map " + path + " (wrong size or mmap failed)");
  std::unique_ptr<SharedRegion> joined(new SharedRegion(base, nranks, path));

  RegionHeader& header = joined->header();
  if (std::memcmp(header.magic, kMagic, sizeof kMagic) != 0) {
    return Fail(ncclInvalidUsage, path + " is not a fake NCCL communicator");
  }
  if (header.nranks != static_cast<uint32_t>(nranks)) {
    return Fail(ncclInvalidUsage, "nranks " + std::to_string(nranks) +
                                      " differs from the other ranks' " +
                                      std::to_string(header.nranks));
  }
  if (joined->rank_state(rank).claimed.exchange(1, std::memory_order_acq_rel) != 0) {
    return Fail(ncclInvalidUsage, "rank " + std::to_string(rank) + " joined twice");
  }
  if (header.joined_ranks.fetch_add(1, std::memory_order_acq_rel) + 1 ==
      static_cast<uint32_t>(nranks)) {
    // Everyone has the region mapped; the name is no longer needed, and unlinking it now means
    // a crashed run leaves nothing behind in /dev/shm.
    unlink(path.c_str());
    FutexWakeAll(header.joined_ranks);
  }
  *region = std::move(joined);
  return ncclSuccess;
}

bool SharedRegion::WaitForAllRanks(uint64_t deadline_ns) {
  std::atomic<uint32_t>& joined = header().joined_ranks;
  for (uint32_t seen = joined.load(std::memory_order_acquire);
       seen != static_cast<uint32_t>(nranks_); seen = joined.load(std::memory_order_acquire)) {
    if (!FutexWaitUntil(joined, seen, deadline_ns)) {
      RemoveName();
      return false;
    }
  }
  return true;
}

void SharedRegion::RemoveName() { unlink(path_.c_str()); }

}  // namespace fake_nccl
