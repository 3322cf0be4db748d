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
//
// Growth (docs/reliability.md, "Rings that grow"): a ring file is its thread's ring as a table of
// regions, the first right after the header, each grown one appended to the same file (a region
// twice the size of the last, its space reserved when it is offered) and recorded in the table
// with the position where the producer moved into it, before any event is published there. A
// region the writer has left and handed back is punched out of the file, so the file's memory
// follows the ring's, not the sum of its sizes.
#pragma once

#include <sys/types.h>

#include <array>
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
inline constexpr uint32_t kShmLayoutVersion = 2;
inline constexpr size_t kShmPage = 4096;
// A ring's regions: the first, and one per doubling (at least 4 KiB, at most RingBuffer::kMaxBytes,
// so at most 22 doublings).
inline constexpr size_t kShmMaxRegions = 24;
// ShmRegion::start of a region the producer has not moved into.
inline constexpr uint64_t kShmRegionNotTaken = ~uint64_t{0};

// One region of a ring's words in its file.
struct ShmRegion {
  uint64_t offset;          // of its first word in the file: a multiple of kShmPage
  uint64_t capacity_words;  // a power of two
  // The first ring position stored here (0 for the first region), stored by the producer before
  // it publishes an event there; kShmRegionNotTaken while only offered. Word p of the ring, for
  // positions from this start to the next taken region's, is words[p % capacity_words].
  std::atomic<uint64_t> start;
  std::atomic<uint32_t> released;  // the writer handed back every position in it (punched out)
  uint32_t reserved;
};

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
  // regions[0, region_count): regions[0] is the first (offset kShmPage, capacity_words, start 0);
  // the others in the order they were mapped, which is the order they are taken in.
  std::atomic<uint32_t> region_count;
  uint32_t reserved2;
  ShmRegion regions[kShmMaxRegions];
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

// One thread's ring file. As the ring's RegionSource it grows the file: each region the ring asks
// for is appended to the file (space reserved, mapped shared) and entered in the header's table.
class ShmRing final : public RegionSource {
 public:
  ShmRing(ShmMapping mapping, std::shared_ptr<const ShmProcess> process, std::string file);
  ShmRing(const ShmRing&) = delete;
  ShmRing& operator=(const ShmRing&) = delete;
  // In the process that created it, marks the ring released (its thread is gone and every event
  // was handed to the writer); a forked child's copy leaves the parent's file alone. Unmaps the
  // grown regions either way.
  ~ShmRing();

  // Where the RingBuffer lives; `hold` keeps drained space until HandBack. The ring grows through
  // this object (alternate and blocking modes, up to its growth limit).
  RingPlacement placement(bool hold);
  // Writer thread: this ring's part of checkpoint `seq`, before ShmProcess::PublishCheckpoint.
  void WriteCheckpoint(const ShmRingCheckpoint& checkpoint);

  // RegionSource, called by the ring on its cold paths. A region that cannot be had (the file
  // system is full, the table is full) is nullptr: the ring keeps its size and counts what it
  // drops, and the first refusal is said on standard error.
  uint64_t* MapRegion(size_t bytes) override;
  uint64_t* MapRegionToReserve(size_t bytes) override;
  bool ReserveRegion(uint64_t* words, size_t offset, size_t bytes) override;
  void RegionTaken(const uint64_t* words, uint64_t start) override;
  void ReleaseRegion(uint64_t* words, size_t bytes) override;

 private:
  ShmRingHeader* header() const { return static_cast<ShmRingHeader*>(mapping_.address()); }
  // The table entry whose words are at `words`; kShmMaxRegions when none.
  size_t RegionIndex(const uint64_t* words) const;
  // Says (once per ring) why a region of `bytes` cannot be had; nullptr.
  uint64_t* Refuse(size_t bytes, std::string_view why);

  ShmMapping mapping_;                         // the header and the first region
  std::shared_ptr<const ShmProcess> process_;  // kept: a ring may outlive its session's object
  std::string file_;                           // its name in the process's directory
  pid_t owner_;
  // The grown regions' mappings, by table entry (entry 0 is in mapping_). An entry is filled by
  // the side that maps it (the ring lets one side map at a time) and emptied by the consumer.
  std::array<std::atomic<uint64_t*>, kShmMaxRegions> words_{};
  std::atomic<uint64_t> file_bytes_{0};  // where the next region goes
  std::atomic<bool> refusal_said_{false};
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
  // The directory, for the rings' regions.
  int dir_fd() const { return dir_fd_; }
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
