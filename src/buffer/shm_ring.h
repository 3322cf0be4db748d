// The crash-safe flight recorder's files (docs/reliability.md): per-thread rings and a small
// per-process header placed in files under a directory (--shm-path DIR, RASTRACE_SHM_PATH) and
// mapped MAP_SHARED, so that the kernel keeps every word written when the process dies, SIGKILL
// included. `rastrace recover DIR` (buffer/recover.h) rebuilds a trace log from them.
//
// Consistency with the log the writer thread produces: after each flush of the log, the writer
// records a checkpoint (the log's size and, per ring, how far it was drained and how many losses
// were reported), double-buffered and published by one release store of its sequence number.
// Rings hold drained space until the checkpoint is published (RingBuffer::HandBack), so a
// recovery takes the log up to the checkpoint and each ring from its checkpointed position: every
// committed event exactly once.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "buffer/ring_buffer.h"
#include "common/result.h"

namespace rastrace::buffer {

// Stored as native words: the bytes found tell a recovery the recording machine's byte order.
inline constexpr uint64_t kShmProcessMagic = 0x52415354'50524F43;  // "RASTPROC"
inline constexpr uint64_t kShmRingMagic = 0x52415354'52494E47;     // "RASTRING"
inline constexpr uint32_t kShmLayoutVersion = 1;
inline constexpr size_t kShmPage = 4096;

// What a checkpoint remembers about one ring.
struct ShmRingCheckpoint {
  uint64_t seq = 0;             // the process checkpoint this belongs to
  uint64_t read = 0;            // ring position drained into the log
  uint64_t lost_reported = 0;   // losses already in the log as 006 events
  uint64_t lost_by_writer = 0;  // events the writer discarded (log full with -s)
};

// Offset 0 of DIR/rastrace-<pid>-<n>.ring; the ring's words start at kShmPage.
struct ShmRingHeader {
  uint64_t magic;  // kShmRingMagic in the recording machine's byte order
  uint32_t version;
  uint32_t mode;  // buffer::Mode
  uint64_t pid;
  uint64_t thread_id;
  uint64_t capacity_words;
  char name[16];  // prctl(PR_GET_NAME) of the thread, NUL-terminated
  // The thread exited and its ring was freed after this process checkpoint was published: every
  // event it committed was handed to the writer, so checkpoints after this one have it in the log.
  std::atomic<uint64_t> released_after_seq;
  std::atomic<uint32_t> released;
  uint32_t reserved;
  ShmRingCheckpoint checkpoint[2];  // slot seq % 2
  alignas(kCacheLine) RingControl control;
};
static_assert(sizeof(ShmRingHeader) <= kShmPage);
static_assert(std::atomic<uint64_t>::is_always_lock_free);

// Offset 0 of DIR/rastrace-<pid>.proc, followed by the header events and the log path.
struct ShmProcessHeader {
  uint64_t magic;  // kShmProcessMagic in the recording machine's byte order
  uint32_t version;
  uint32_t mode;
  uint64_t pid;
  std::atomic<uint64_t> checkpoint_seq;  // the last published checkpoint
  uint64_t log_bytes[2];                 // slot seq % 2: the log's size at that checkpoint
  std::atomic<uint32_t> complete;        // 1: the log was closed normally
  uint32_t header_events_bytes;          // encoded header events (native order, 64-bit layout)
  uint32_t log_path_bytes;
  uint32_t reserved;
};
inline constexpr size_t kShmProcessEventsOffset = 128;
static_assert(sizeof(ShmProcessHeader) <= kShmProcessEventsOffset);

// A mapped file: unmapped on destruction (the file stays).
class ShmMapping {
 public:
  ShmMapping() = default;
  ShmMapping(void* address, size_t bytes) : address_(address), bytes_(bytes) {}
  ShmMapping(ShmMapping&& other) noexcept;
  ShmMapping& operator=(ShmMapping&& other) noexcept;
  ~ShmMapping();
  void* address() const { return address_; }
  size_t bytes() const { return bytes_; }

 private:
  void* address_ = nullptr;
  size_t bytes_ = 0;
};

class ShmProcess;

// One thread's ring file.
class ShmRing {
 public:
  ShmRing(ShmMapping mapping, std::shared_ptr<const ShmProcess> process);
  ShmRing(const ShmRing&) = delete;
  ShmRing& operator=(const ShmRing&) = delete;
  // In the process that created it, marks the ring released (its thread is gone and every event
  // was handed to the writer); a forked child's copy leaves the parent's file alone.
  ~ShmRing();

  // Where the RingBuffer lives; `hold` keeps drained space until HandBack.
  RingPlacement placement(bool hold) const;
  // Writer thread: this ring's part of checkpoint `seq`, before ShmProcess::PublishCheckpoint.
  void WriteCheckpoint(const ShmRingCheckpoint& checkpoint);

 private:
  ShmMapping mapping_;
  std::shared_ptr<const ShmProcess> process_;  // kept: a ring may outlive its session's object
  pid_t owner_;
};

// One process's files in DIR.
class ShmProcess : public std::enable_shared_from_this<ShmProcess> {
 public:
  // Checks DIR (a directory owned by this user, not a symlink) and creates rastrace-<pid>.proc
  // (mode 0600; a stale file of an earlier process with this pid is replaced).
  static Result<std::shared_ptr<ShmProcess>> Create(const std::string& dir, Mode mode,
                                                    std::span<const uint8_t> header_events,
                                                    std::string_view log_path);
  ShmProcess(const ShmProcess&) = delete;
  ShmProcess& operator=(const ShmProcess&) = delete;
  ~ShmProcess();

  ShmProcess(std::string dir, int dir_fd, ShmMapping mapping);
  // Creates, sizes and maps the ring file of a thread (at least kMinBytes, a power of two). Safe
  // from any thread.
  Result<std::unique_ptr<ShmRing>> CreateRing(size_t capacity_bytes, Mode mode, uint64_t thread_id,
                                              std::string_view name);

  // Writer thread: the sequence number of the next checkpoint, then (after every ring's
  // WriteCheckpoint) its publication with the log's size.
  uint64_t next_checkpoint() const;
  void PublishCheckpoint(uint64_t seq, uint64_t log_bytes);
  uint64_t published_checkpoint() const;

  // The log was completed normally: the files are removed (nothing to recover).
  void RemoveFiles();
  const std::string& dir() const { return dir_; }

 private:
  ShmProcessHeader* header() const;

  std::string dir_;
  int dir_fd_ = -1;
  ShmMapping mapping_;
  pid_t pid_;
  std::atomic<uint64_t> rings_created_{0};
};

// Opens DIR for the flight recorder: a directory owned by this user, not a symlink. Returns an
// O_DIRECTORY descriptor the caller closes.
Result<int> OpenShmDirectory(const std::string& dir);

}  // namespace rastrace::buffer
