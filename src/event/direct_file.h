// Appending to a file with O_DIRECT from page-aligned chunks written by threads of its own.
//
// Why: a trace log is written once and read later, so copying it into the page cache only costs
// the writer CPU (the kernel's copy is most of a buffered write), and on a virtual machine whose
// memory the host provides on first touch a buffered write of fresh pages runs at a few hundred
// MB/s. With O_DIRECT the caller copies events into a chunk and goes on while the disk takes the
// previous chunks (docs/recorder.md, "Writing the log").
//
// Only whole aligned blocks go through O_DIRECT. Sync() writes the partial last block through an
// ordinary descriptor of the same file and keeps it, so the next aligned write rewrites that block
// with more data after it; the file always ends at the last byte appended.
//
// Why two writes in flight: with one, the disk idles from the end of a write until the I/O thread
// has been scheduled again and issued the next; on a loaded 2-core guest two in flight wrote
// about 15% more (docs/performance.md, "Drain rate"). Each chunk carries its own offset,
// so the writes may complete in any order; they enter write(2) in file order (see IoThread).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/result.h"

namespace rastrace::event {

struct DirectFileOptions {
  size_t chunk_bytes = size_t{1} << 20;  // a multiple of DirectFile::kBlockBytes
  // Memory: chunks x chunk_bytes. Eight or sixteen wrote no faster than four (slower, if
  // anything: docs/performance.md, "Drain rate").
  size_t chunks = 4;
  size_t in_flight = 2;  // I/O threads, each with one write at a time; fewer than `chunks`
};

class DirectFile {
 public:
  static constexpr size_t kBlockBytes = 4096;

  // Takes an open descriptor of `path` at offset `start` (a multiple of kBlockBytes, usually 0)
  // and opens the same file again with O_DIRECT. Fails (and the caller writes normally) when the
  // file system refuses O_DIRECT.
  static Result<std::unique_ptr<DirectFile>> Open(int fd, std::string path,
                                                  DirectFileOptions options = {});
  ~DirectFile();
  DirectFile(const DirectFile&) = delete;
  DirectFile& operator=(const DirectFile&) = delete;

  Result<void> Append(std::span<const uint8_t> bytes);
  // Every byte appended so far is in the file when this returns.
  Result<void> Sync();
  // The file holds every byte before this offset: the writes of all chunks before it have
  // completed (or Sync wrote them). Any thread; it only grows. The flight recorder publishes a
  // checkpoint once the file holds the log up to it, instead of waiting for the writes
  // (docs/reliability.md, "Checkpoints").
  uint64_t written_bytes() const { return written_.load(std::memory_order_acquire); }
  // Bytes handed to the I/O threads (queued, being written or written); the rest waits in the
  // chunk being filled until it is full or Sync writes it. Appending thread only.
  uint64_t submitted_bytes() const { return current_.offset; }
  // Sync, then stop the I/O thread and close the O_DIRECT descriptor (not the caller's).
  Result<void> Close();

  // What reached the file, once a call has failed (for a writer that cuts the file back to a
  // whole event and counts the rest: event/writer.h).
  struct Failure {
    int error_number = 0;  // errno of the first write that failed
    // The file holds the first `intact` bytes appended (bytes after them may be there too: a
    // later chunk's write can succeed after an earlier one failed, or fail half-way).
    uint64_t intact = 0;
    uint64_t appended = 0;  // bytes Append took in all (a failed Append may take only some)
    // The appended bytes from `intact` to `appended`: from the chunks that were not written,
    // and read back from the file for those written after the failure. Shorter only if the
    // file cannot be read back.
    std::vector<uint8_t> unwritten;
  };
  // Waits until no write is in flight, then says what reached the file. Call after a failure.
  Failure TakeFailure();

 private:
  struct Chunk {
    uint8_t* data;
    size_t bytes;     // filled
    uint64_t offset;  // where it goes in the file
  };
  struct MappedChunks {
    void* base = nullptr;  // the chunks, aligned to a huge page inside the mapping
    size_t length = 0;
    void* mapping = nullptr;
    size_t mapped = 0;
    MappedChunks() = default;
    MappedChunks(MappedChunks&& other) noexcept
        : base(std::exchange(other.base, nullptr)),
          length(other.length),
          mapping(std::exchange(other.mapping, nullptr)),
          mapped(other.mapped) {}
    MappedChunks& operator=(MappedChunks&&) = delete;
    ~MappedChunks();
  };
  struct Token {};

 public:
  DirectFile(Token, int fd, int direct_fd, std::string path, DirectFileOptions options,
             MappedChunks chunks);

 private:
  void IoThread();
  // Queues the current chunk and takes a free one (waiting for the I/O thread if none is).
  Result<void> Submit();
  Result<void> WaitIdle();
  // Under mutex_: the write of `turn` completed; frees the chunks of the turns counted.
  void NoteWritten(uint64_t turn, const Chunk& chunk);
  Result<void> Failed() const;
  // Under mutex_: a chunk not (or not wholly) written, `written` bytes of it in the file, and the
  // error that stopped it (0: skipped after an earlier failure).
  void NoteUnwrittenLocked(const Chunk& chunk, size_t written, int error_number);

  int fd_;         // the caller's descriptor: partial blocks
  int direct_fd_;  // O_DIRECT: whole blocks
  std::string path_;
  DirectFileOptions options_;
  MappedChunks chunks_;
  Chunk current_;

  std::mutex mutex_;
  std::condition_variable changed_;
  // For the I/O threads, in file order: a fixed ring (a deque would allocate as it cycles, and
  // the recorder's writer must not allocate in its steady state, see recorder/drain.h).
  std::vector<Chunk> queued_;
  size_t queued_first_ = 0;
  size_t queued_count_ = 0;
  std::vector<uint8_t*> free_;        // chunks neither filled nor queued
  size_t writing_ = 0;                // chunks held by I/O threads
  uint64_t next_turn_ = 0;            // of the next chunk an I/O thread takes, in file order
  std::atomic<uint64_t> started_{0};  // chunks [0, started_) have entered write(2)
  // Writes complete in any order: done_[turn % chunks] is turn's chunk once its write completed
  // (data nullptr: not yet), next_done_ the first turn not completed. A failed or skipped write
  // never completes, so written_ stops before it.
  std::vector<Chunk> done_;
  uint64_t next_done_ = 0;
  std::atomic<uint64_t> written_{0};
  bool stopping_ = false;
  std::optional<Error> error_;  // the first write error
  int error_number_ = 0;        // its errno
  // The chunks whose write failed or was skipped after a failure, with how many of their bytes
  // reached the file: what TakeFailure reports. At most one entry per chunk (reserved).
  struct Unwritten {
    Chunk chunk;
    size_t written;
  };
  std::vector<Unwritten> unwritten_;
  uint64_t appended_ = 0;  // bytes Append took (the writer's thread only)
  uint64_t synced_ = 0;    // appended bytes in the file as of the last successful Sync
  std::vector<std::thread> io_;
};

}  // namespace rastrace::event
