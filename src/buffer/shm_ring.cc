#include "buffer/shm_ring.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <memory>
#include <utility>

#include "buffer/anonymous_memory.h"

namespace rastrace::buffer {
namespace {

size_t RoundToPage(size_t bytes) {
  return (bytes + kShmPage - 1) / kShmPage * kShmPage;
}

// Creates DIR/name (0600, never through a symlink, replacing only a regular file of ours left by
// an earlier process with the same pid), sizes it and maps it shared.
Result<ShmMapping> CreateMappedFile(int dir_fd, const std::string& dir, const std::string& name,
                                    size_t bytes) {
  const int flags = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = openat(dir_fd, name.c_str(), flags, 0600);
  if (fd < 0 && errno == EEXIST) {
    struct stat st {};
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid()) {
      unlinkat(dir_fd, name.c_str(), 0);
      fd = openat(dir_fd, name.c_str(), flags, 0600);
    } else {
      errno = EEXIST;
    }
  }
  if (fd < 0) return MakeError("{}/{}: cannot create: {}", dir, name, std::strerror(errno));
  // The space is reserved for real, not only the size set: a file system with less room than the
  // file (a small tmpfs) would otherwise raise SIGBUS at the first store into a page it cannot
  // supply, and kill the traced program (docs/reliability.md).
  if (const int err = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); err != 0) {
    close(fd);
    unlinkat(dir_fd, name.c_str(), 0);
    return MakeError("{}/{}: cannot reserve {} bytes: {}", dir, name, bytes, std::strerror(err));
  }
  void* address = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  close(fd);
  if (address == MAP_FAILED) {
    unlinkat(dir_fd, name.c_str(), 0);
    return MakeError("{}/{}: cannot map: {}", dir, name, std::strerror(err));
  }
  // The page-table entries are made now, when the thread registers, so that the hooks do not
  // take a minor fault on each page of the ring's first pass (docs/performance.md).
  PopulateForWriting(address, bytes);
  return ShmMapping(address, bytes);
}

}  // namespace

ShmMapping::ShmMapping(ShmMapping&& other) noexcept
    : address_(std::exchange(other.address_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

ShmMapping& ShmMapping::operator=(ShmMapping&& other) noexcept {
  if (this != &other) {
    if (address_ != nullptr) munmap(address_, bytes_);
    address_ = std::exchange(other.address_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

ShmMapping::~ShmMapping() {
  if (address_ != nullptr) munmap(address_, bytes_);
}

Result<int> OpenShmDirectory(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    struct stat st {};
    if (lstat(dir.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      return MakeError("{}: is a symlink (refused: the directory itself must be given)", dir);
    }
    if (err == ENOTDIR) return MakeError("{}: not a directory", dir);
    errno = err;
    return MakeError("{}: cannot open: {}", dir, std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
    close(fd);
    return MakeError("{}: not owned by this user (uid {})", dir, geteuid());
  }
  return fd;
}

// ---- ShmRing

ShmRing::ShmRing(ShmMapping mapping, std::shared_ptr<const ShmProcess> process, std::string file)
    : mapping_(std::move(mapping)),
      process_(std::move(process)),
      file_(std::move(file)),
      owner_(getpid()) {
  file_bytes_.store(mapping_.bytes(), std::memory_order_relaxed);
}

ShmRing::~ShmRing() {
  if (mapping_.address() == nullptr) return;
  for (size_t i = 1; i < kShmMaxRegions; ++i) {
    const ShmRegion& region = header()->regions[i];
    if (uint64_t* words = words_[i].load(std::memory_order_relaxed); words != nullptr) {
      munmap(words, region.capacity_words * 8);
    }
  }
  if (getpid() != owner_) return;
  header()->released_after_seq.store(process_->published_checkpoint(), std::memory_order_relaxed);
  header()->released.store(1, std::memory_order_release);
}

RingPlacement ShmRing::placement(bool hold) {
  RingPlacement placement;
  placement.words = reinterpret_cast<uint64_t*>(static_cast<char*>(mapping_.address()) + kShmPage);
  placement.capacity_words = header()->capacity_words;
  placement.control = &header()->control;
  placement.hold_until_handed_back = hold;
  placement.regions = this;
  return placement;
}

void ShmRing::WriteCheckpoint(const ShmRingCheckpoint& checkpoint) {
  header()->checkpoint[checkpoint.seq % 2] = checkpoint;
}

size_t ShmRing::RegionIndex(const uint64_t* words) const {
  if (words ==
      reinterpret_cast<const uint64_t*>(static_cast<const char*>(mapping_.address()) + kShmPage)) {
    return 0;
  }
  for (size_t i = 1; i < kShmMaxRegions; ++i) {
    if (words_[i].load(std::memory_order_acquire) == words) return i;
  }
  return kShmMaxRegions;
}

uint64_t* ShmRing::MapRegion(size_t bytes) {
  uint64_t* words = MapRegionToReserve(bytes);
  if (words != nullptr && !ReserveRegion(words, 0, bytes)) {
    ReleaseRegion(words, bytes);
    return nullptr;
  }
  return words;
}

uint64_t* ShmRing::Refuse(size_t bytes, std::string_view why) {
  if (!refusal_said_.exchange(true)) {
    // Said once per ring, with one write: this may run on the hooking thread.
    const std::string message = fmt::format(
        "rastrace: {}/{}: cannot grow the ring of thread {} to {} bytes: {} (it keeps its "
        "size; events it cannot hold are counted lost)\n",
        process_->dir(), file_, header()->thread_id, bytes, why);
    (void)!write(STDERR_FILENO, message.data(), message.size());
  }
  return nullptr;
}

uint64_t* ShmRing::MapRegionToReserve(size_t bytes) {
  ShmRingHeader& h = *header();
  // The ring lets one side map at a time; the counters keep two callers apart all the same.
  const uint32_t index = h.region_count.load(std::memory_order_acquire);
  if (index == 0 || index >= kShmMaxRegions) {
    return Refuse(bytes, "its file has no room for more regions");
  }
  const uint64_t offset = file_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  const int fd = openat(process_->dir_fd(), file_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Refuse(bytes, std::strerror(errno));
  // Mapping past the end of the file is allowed; storing there before ReserveRegion is not (the
  // ring offers the region only once it is reserved).
  void* address =
      mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(offset));
  const int err = errno;
  close(fd);
  if (address == MAP_FAILED) return Refuse(bytes, std::strerror(err));
  ShmRegion& region = h.regions[index];
  region.offset = offset;
  region.capacity_words = bytes / 8;
  region.released.store(0, std::memory_order_relaxed);
  region.start.store(kShmRegionNotTaken, std::memory_order_relaxed);
  auto* words = static_cast<uint64_t*>(address);
  words_[index].store(words, std::memory_order_release);
  // The entry is complete before it is counted: a recovery never reads a half-made one (and
  // skips one never taken).
  h.region_count.store(index + 1, std::memory_order_release);
  return words;
}

bool ShmRing::ReserveRegion(uint64_t* words, size_t offset, size_t bytes) {
  const size_t index = RegionIndex(words);
  if (index == kShmMaxRegions || index == 0) return false;
  const ShmRegion& region = header()->regions[index];
  const int fd = openat(process_->dir_fd(), file_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    Refuse(region.capacity_words * 8, std::strerror(errno));
    return false;
  }
  // Reserved for real before the producer can store there (a full file system must not raise
  // SIGBUS in the traced program, docs/reliability.md); tmpfs gives the pages now (3 us per
  // 4 KiB page here), which is why the ring has this done off the writer's drain and the hooks'
  // path (docs/recorder.md, "Ring growth").
  const int err =
      posix_fallocate(fd, static_cast<off_t>(region.offset + offset), static_cast<off_t>(bytes));
  close(fd);
  if (err != 0) {
    Refuse(region.capacity_words * 8, std::strerror(err));
    return false;
  }
  return true;
}

void ShmRing::RegionTaken(const uint64_t* words, uint64_t start) {
  const size_t index = RegionIndex(words);
  if (index == kShmMaxRegions) return;  // not ours: cannot happen
  // Before the producer publishes any event there (its head's release store comes after).
  header()->regions[index].start.store(start, std::memory_order_release);
}

void ShmRing::ReleaseRegion(uint64_t* words, size_t bytes) {
  const size_t index = RegionIndex(words);
  if (index == kShmMaxRegions) return;
  ShmRegion& region = header()->regions[index];
  // Every position in it was handed back after a published checkpoint: the log has them, and a
  // recovery starts past them. Its memory goes back to the file system.
  region.released.store(1, std::memory_order_release);
  if (getpid() == owner_) {
    if (const int fd = openat(process_->dir_fd(), file_.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        fd >= 0) {
      (void)fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                      static_cast<off_t>(region.offset), static_cast<off_t>(bytes));
      close(fd);
    }
  }
  if (index != 0) {
    words_[index].store(nullptr, std::memory_order_release);
    munmap(words, bytes);
  }
}

// ---- ShmProcess

ShmProcess::ShmProcess(std::string dir, int dir_fd, ShmMapping mapping)
    : dir_(std::move(dir)), dir_fd_(dir_fd), mapping_(std::move(mapping)), pid_(getpid()) {}

ShmProcess::~ShmProcess() {
  if (dir_fd_ >= 0) close(dir_fd_);
}

ShmProcessHeader* ShmProcess::header() const {
  return static_cast<ShmProcessHeader*>(mapping_.address());
}

Result<std::shared_ptr<ShmProcess>> ShmProcess::Create(const std::string& dir, Mode mode,
                                                       std::span<const uint8_t> header_events,
                                                       std::string_view log_path) {
  auto dir_fd = OpenShmDirectory(dir);
  if (!dir_fd) return dir_fd.error();
  const std::string name = fmt::format("rastrace-{}.proc", getpid());
  const size_t bytes =
      RoundToPage(kShmProcessEventsOffset + header_events.size() + log_path.size());
  auto mapping = CreateMappedFile(*dir_fd, dir, name, bytes);
  if (!mapping) {
    close(*dir_fd);
    return mapping.error();
  }
  auto* base = static_cast<char*>(mapping->address());
  auto* header = std::construct_at(reinterpret_cast<ShmProcessHeader*>(base));
  header->version = kShmLayoutVersion;
  header->mode = static_cast<uint32_t>(mode);
  header->pid = static_cast<uint64_t>(getpid());
  header->header_events_bytes = static_cast<uint32_t>(header_events.size());
  header->log_path_bytes = static_cast<uint32_t>(log_path.size());
  if (!header_events.empty()) {
    std::memcpy(base + kShmProcessEventsOffset, header_events.data(), header_events.size());
  }
  if (!log_path.empty()) {
    std::memcpy(base + kShmProcessEventsOffset + header_events.size(), log_path.data(),
                log_path.size());
  }
  // The magic last: a file without it was never complete and is not recovered.
  std::atomic_ref<uint64_t>(header->magic).store(kShmProcessMagic, std::memory_order_release);
  return std::make_shared<ShmProcess>(dir, *dir_fd, std::move(*mapping));
}

Result<std::unique_ptr<ShmRing>> ShmProcess::CreateRing(size_t capacity_bytes, Mode mode,
                                                        uint64_t thread_id, std::string_view name) {
  const size_t bytes =
      std::bit_ceil(std::clamp(capacity_bytes, RingBuffer::kMinBytes, RingBuffer::kMaxBytes));
  const std::string file =
      fmt::format("rastrace-{}-{}.ring", pid_, rings_created_.fetch_add(1) + 1);
  auto mapping = CreateMappedFile(dir_fd_, dir_, file, kShmPage + bytes);
  if (!mapping) return mapping.error();
  auto* header = std::construct_at(static_cast<ShmRingHeader*>(mapping->address()));
  header->version = kShmLayoutVersion;
  header->mode = static_cast<uint32_t>(mode);
  header->pid = static_cast<uint64_t>(pid_);
  header->thread_id = thread_id;
  header->capacity_words = bytes / 8;
  header->regions[0].offset = kShmPage;
  header->regions[0].capacity_words = bytes / 8;
  header->regions[0].start.store(0, std::memory_order_relaxed);
  header->region_count.store(1, std::memory_order_relaxed);
  std::memcpy(header->name, name.data(), std::min(name.size(), sizeof header->name - 1));
  // Touching every page now keeps page faults off the hot path (as the heap ring does).
  std::memset(static_cast<char*>(mapping->address()) + kShmPage, 0, bytes);
  std::atomic_ref<uint64_t>(header->magic).store(kShmRingMagic, std::memory_order_release);
  return std::make_unique<ShmRing>(std::move(*mapping), shared_from_this(), file);
}

uint64_t ShmProcess::next_checkpoint() const {
  return header()->checkpoint_seq.load(std::memory_order_relaxed) + 1;
}

uint64_t ShmProcess::published_checkpoint() const {
  return header()->checkpoint_seq.load(std::memory_order_acquire);
}

void ShmProcess::PublishCheckpoint(uint64_t seq, uint64_t log_bytes) {
  header()->log_bytes[seq % 2] = log_bytes;
  // Every ring's slot and the log size are stored before the sequence number that selects them.
  header()->checkpoint_seq.store(seq, std::memory_order_release);
}

void ShmProcess::RemoveFiles() {
  header()->complete.store(1, std::memory_order_release);
  unlinkat(dir_fd_, fmt::format("rastrace-{}.proc", pid_).c_str(), 0);
  for (uint64_t n = 1; n <= rings_created_.load(); ++n) {
    unlinkat(dir_fd_, fmt::format("rastrace-{}-{}.ring", pid_, n).c_str(), 0);
  }
}

}  // namespace rastrace::buffer
