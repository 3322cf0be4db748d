#include "event/direct_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/started_thread.h"
#include "event/read_back.h"

namespace rastrace::event {
namespace {

constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;

// Writes all of `bytes` at `offset`. An O_DIRECT write the file system turns down (EINVAL: it
// does not really support it) or cuts short is finished through `fallback_fd`. Returns 0, or the
// errno of the write that failed with `written` the bytes that reached the file before it.
int WriteAt(int fd, int fallback_fd, const uint8_t* bytes, size_t size, uint64_t offset,
            size_t& written) {
  written = 0;
  while (size != 0) {
    const ssize_t wrote = ::pwrite(fd, bytes, size, static_cast<off_t>(offset));
    if (wrote < 0) {
      if (errno == EINTR) continue;
      if (errno == EINVAL && fd != fallback_fd) {
        fd = fallback_fd;
        continue;
      }
      return errno;
    }
    bytes += wrote;
    size -= static_cast<size_t>(wrote);
    offset += static_cast<uint64_t>(wrote);
    written += static_cast<size_t>(wrote);
    if (size != 0) fd = fallback_fd;  // the rest is no longer block-aligned
  }
  return 0;
}

}  // namespace

DirectFile::MappedChunks::~MappedChunks() {
  if (mapping != nullptr) ::munmap(mapping, mapped);
}

Result<std::unique_ptr<DirectFile>> DirectFile::Open(int fd, std::string path,
                                                     DirectFileOptions options) {
  if (options.chunk_bytes == 0 || options.chunk_bytes % kBlockBytes != 0 || options.chunks < 2 ||
      options.in_flight == 0 || options.in_flight >= options.chunks) {
    return MakeError("{}: bad O_DIRECT chunk options ({} x {} bytes, {} in flight)", path,
                     options.chunks, options.chunk_bytes, options.in_flight);
  }
  struct statfs fs {};
  if (::fstatfs(fd, &fs) != 0) return MakeError("{}: fstatfs: {}", path, std::strerror(errno));
  // tmpfs keeps the file in memory anyway: O_DIRECT would only add a copy there.
  if (fs.f_type == TMPFS_MAGIC) return MakeError("{}: tmpfs: no O_DIRECT", path);
  // A second open file description of the same inode, reached through the descriptor rather
  // than the path, so that nothing can swap the file in between.
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  const int direct_fd = ::open(self.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
  if (direct_fd < 0) return MakeError("{}: O_DIRECT: {}", path, std::strerror(errno));
  MappedChunks chunks;
  chunks.length = options.chunk_bytes * options.chunks;
  // In huge pages where the kernel allows them: a chunk is then physically contiguous, so a
  // 1 MiB write goes to the disk as one request of a few segments rather than being split
  // (a virtio disk takes 128 segments of at most 64 KiB: 4 KiB pages split a 1 MiB write in two).
  chunks.mapped = chunks.length + kHugePageBytes;
  chunks.mapping =
      ::mmap(nullptr, chunks.mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (chunks.mapping == MAP_FAILED) {
    chunks.mapping = nullptr;
    ::close(direct_fd);
    return MakeError("{}: no memory for write chunks: {}", path, std::strerror(errno));
  }
  const auto start = reinterpret_cast<uintptr_t>(chunks.mapping);
  chunks.base = reinterpret_cast<void*>((start + kHugePageBytes - 1) & ~(kHugePageBytes - 1));
  (void)::madvise(chunks.base, chunks.length, MADV_HUGEPAGE);
  // Touched now: the appends never take page faults.
  std::memset(chunks.base, 0, chunks.length);
  return std::make_unique<DirectFile>(Token{}, fd, direct_fd, std::move(path), options,
                                      std::move(chunks));
}

DirectFile::DirectFile(Token, int fd, int direct_fd, std::string path, DirectFileOptions options,
                       MappedChunks chunks)
    : fd_(fd),
      direct_fd_(direct_fd),
      path_(std::move(path)),
      options_(options),
      chunks_(std::move(chunks)) {
  auto* base = static_cast<uint8_t*>(chunks_.base);
  current_ = {base, 0, 0};
  queued_.resize(options_.chunks);
  done_.assign(options_.chunks, Chunk{nullptr, 0, 0});
  free_.reserve(options_.chunks);
  unwritten_.reserve(options_.chunks);
  for (size_t i = 1; i < options_.chunks; ++i) free_.push_back(base + i * options_.chunk_bytes);
  // Returns once the I/O threads run, so that a program may fork right after opening the log.
  for (size_t i = 0; i < options_.in_flight; ++i) {
    io_.push_back(StartThreadAndWait([this] { IoThread(); }));
  }
}

DirectFile::~DirectFile() {
  (void)Close();
}

void DirectFile::IoThread() {
  // Named so that `top -H` and the benchmarks can tell the log's I/O from the program's threads.
  pthread_setname_np(pthread_self(), "rastrace-io");
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return queued_count_ != 0 || stopping_; });
    if (queued_count_ == 0) return;
    const Chunk chunk = queued_[queued_first_];
    queued_first_ = (queued_first_ + 1) % queued_.size();
    --queued_count_;
    const uint64_t turn = next_turn_++;
    // After a failed write the file is incomplete anyway; writing the chunks behind the failure
    // would only put data after a gap the reader cannot tell from events.
    const bool skip = error_.has_value();
    ++writing_;
    lock.unlock();
    // A chunk enters write(2) only after the chunk before it has: once in, a write completes
    // even if the process is killed, so a kill leaves the file a prefix of the log instead of
    // data after a gap of zeros (which would read as events). Only the few instructions between
    // the store and the system call are left open.
    for (uint64_t at = started_.load(std::memory_order_acquire); at != turn;
         at = started_.load(std::memory_order_acquire)) {
      started_.wait(at, std::memory_order_acquire);
    }
    started_.store(turn + 1, std::memory_order_release);
    started_.notify_all();
    int error_number = 0;
    size_t written = 0;
    if (!skip)
      error_number = WriteAt(direct_fd_, fd_, chunk.data, chunk.bytes, chunk.offset, written);
    lock.lock();
    --writing_;
    if (skip || error_number != 0) {
      // Kept out of the free list: TakeFailure reads its bytes. Never counted as written:
      // written_ stops before it.
      NoteUnwrittenLocked(chunk, written, error_number);
    } else {
      NoteWritten(turn, chunk);
    }
    changed_.notify_all();
  }
}

void DirectFile::NoteUnwrittenLocked(const Chunk& chunk, size_t written, int error_number) {
  if (error_number != 0 && !error_) {
    error_ = MakeError("{}: write error: {}", path_, std::strerror(error_number));
    error_number_ = error_number;
  }
  unwritten_.push_back({chunk, written});
}

void DirectFile::NoteWritten(uint64_t turn, const Chunk& chunk) {
  done_[turn % done_.size()] = chunk;
  for (;;) {
    Chunk& done = done_[next_done_ % done_.size()];
    if (done.data == nullptr) return;
    written_.store(std::max(written_.load(std::memory_order_relaxed), done.offset + done.bytes),
                   std::memory_order_release);
    // Free again only now: each turn not yet counted holds its chunk, so there are never more of
    // them than chunks, and their slots never collide.
    free_.push_back(done.data);
    done.data = nullptr;
    ++next_done_;
  }
}

Result<void> DirectFile::Failed() const {
  if (error_) return *error_;
  return Ok();
}

Result<void> DirectFile::Submit() {
  std::unique_lock lock(mutex_);
  // Every chunk but the one being filled is free or queued, so the ring never overflows.
  queued_[(queued_first_ + queued_count_) % queued_.size()] = current_;
  ++queued_count_;
  changed_.notify_all();
  changed_.wait(lock, [&] { return !free_.empty() || error_; });
  if (error_) {
    current_.data = nullptr;  // queued: no longer ours to fill
    return *error_;
  }
  current_ = {free_.back(), 0, current_.offset + current_.bytes};
  free_.pop_back();
  return Ok();
}

Result<void> DirectFile::Append(std::span<const uint8_t> bytes) {
  if (current_.data == nullptr) {
    std::lock_guard lock(mutex_);
    return Failed();
  }
  while (!bytes.empty()) {
    const size_t n = std::min(bytes.size(), options_.chunk_bytes - current_.bytes);
    std::memcpy(current_.data + current_.bytes, bytes.data(), n);
    current_.bytes += n;
    appended_ += n;
    bytes = bytes.subspan(n);
    if (current_.bytes == options_.chunk_bytes) {
      if (auto submitted = Submit(); !submitted) return submitted;
    }
  }
  return Ok();
}

Result<void> DirectFile::WaitIdle() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queued_count_ == 0 && writing_ == 0; });
  return Failed();
}

Result<void> DirectFile::Sync() {
  if (auto idle = WaitIdle(); !idle) return idle;
  if (current_.data == nullptr) return Failed();
  const size_t aligned = current_.bytes & ~(kBlockBytes - 1);
  const size_t tail = current_.bytes - aligned;
  size_t written = 0;
  int error_number = 0;
  if (aligned != 0) {
    error_number = WriteAt(direct_fd_, fd_, current_.data, aligned, current_.offset, written);
  }
  if (error_number == 0 && tail != 0) {
    size_t tail_written = 0;
    error_number =
        WriteAt(fd_, fd_, current_.data + aligned, tail, current_.offset + aligned, tail_written);
    written += tail_written;
  }
  if (error_number != 0) {
    std::lock_guard lock(mutex_);
    NoteUnwrittenLocked(current_, written, error_number);
    current_.data = nullptr;  // its bytes are TakeFailure's now
    return Failed();
  }
  synced_ = appended_;
  written_.store(appended_, std::memory_order_release);  // no write is in flight now
  // The partial block stays: the next whole-block write starts with it again.
  std::memmove(current_.data, current_.data + aligned, tail);
  current_.offset += aligned;
  current_.bytes = tail;
  return Ok();
}

DirectFile::Failure DirectFile::TakeFailure() {
  (void)WaitIdle();
  std::lock_guard lock(mutex_);
  Failure failure;
  failure.error_number = error_number_;
  failure.appended = appended_;
  std::vector<Unwritten> pending = unwritten_;
  if (current_.data != nullptr && current_.bytes != 0) pending.push_back({current_, 0});
  std::sort(pending.begin(), pending.end(),
            [](const Unwritten& a, const Unwritten& b) { return a.chunk.offset < b.chunk.offset; });
  // Every chunk before the first one not written whole reached the file (none is queued or in
  // flight now); what the last successful Sync wrote is there whatever came after (a failed
  // rewrite of its partial block leaves the bytes the block held).
  uint64_t intact = appended_;
  for (const Unwritten& u : pending) intact = std::min(intact, u.chunk.offset + u.written);
  failure.intact = std::max(intact, synced_);
  // From the memory of the chunks not written, and from the file between them (chunks whose
  // write completed after the failure). The caller's descriptor is write-only: the same file is
  // opened again to read.
  const int reread = OpenAgainForReading(fd_);
  uint64_t at = failure.intact;
  for (auto next = pending.begin(); at < appended_;) {
    while (next != pending.end() && next->chunk.offset + next->chunk.bytes <= at) ++next;
    if (next != pending.end() && next->chunk.offset <= at) {
      const uint8_t* from = next->chunk.data + (at - next->chunk.offset);
      const uint64_t end = next->chunk.offset + next->chunk.bytes;
      failure.unwritten.insert(failure.unwritten.end(), from, from + (end - at));
      at = end;
      continue;
    }
    const uint64_t end = next != pending.end() ? next->chunk.offset : appended_;
    const size_t have = failure.unwritten.size();
    failure.unwritten.resize(have + (end - at));
    const size_t got = ReadBack(reread, std::span(failure.unwritten).subspan(have), at);
    if (got != end - at) {
      failure.unwritten.resize(have + got);
      break;
    }
    at = end;
  }
  if (reread >= 0) ::close(reread);
  return failure;
}

Result<void> DirectFile::Close() {
  if (direct_fd_ < 0) return Ok();
  Result<void> synced = Sync();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& thread : io_) thread.join();
  ::close(direct_fd_);
  direct_fd_ = -1;
  return synced;
}

}  // namespace rastrace::event
