// Writes an active stream to its trace log (posix_trace_create_withlog): a flusher thread in the
// controller drains the stream when a flush is requested (posix_trace_flush, or the FLUSH policy
// when the stream is half full) and at shutdown, honouring the log-full policy.
#pragma once

#include <atomic>
#include <bitset>
#include <cstdint>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "common/byte_order.h"
#include "posix/layout.h"
#include "posix/stream.h"

namespace rastrace::posix {

class LogSink {
 public:
  // Writes the log header to `fd` and starts the flusher. Returns 0 or EBADF / ENOSPC / EIO.
  // `control` is the trace's control mutex (a drained UNTIL_FULL stream is restarted under it).
  static int Start(int fd, StreamShared& s, StreamReader& reader, std::mutex& read_mutex,
                   std::mutex& control, std::unique_ptr<LogSink>& out);
  LogSink(int fd, StreamShared& s, StreamReader& reader, std::mutex& read_mutex,
          std::mutex& control);
  ~LogSink();
  LogSink(const LogSink&) = delete;
  LogSink& operator=(const LogSink&) = delete;

  // Asks the flusher to drain the stream now (posix_trace_flush returns without waiting).
  void RequestFlush();
  // Stops the flusher, drains what is left and writes the final status (posix_trace_shutdown).
  void Finish();

 private:
  void Run();
  void Flush(bool last);
  void AddEvent(const EventRecord& e);
  void Commit();
  // The encoded automatic STOP that ends a full UNTIL_FULL log.
  std::vector<uint8_t> AutomaticStop() const;
  bool WriteAll(const uint8_t* data, size_t size);
  void NoteError(int error);
  std::vector<uint8_t> Header() const;

  int fd_;
  StreamShared& s_;
  StreamReader& reader_;
  std::mutex& read_mutex_;
  std::mutex& control_;
  ByteOrder order_ = NativeByteOrder();
  std::thread thread_;
  std::atomic<bool> stop_{false};
  bool finished_ = false;

  uint64_t file_bytes_ = 0;  // bytes in the file now
  std::bitset<kMaxEventTypes> named_;
  std::set<std::pair<int32_t, int32_t>> processes_;
  std::vector<uint8_t> batch_;             // encoded events of the current flush
  std::vector<size_t> batch_sizes_;        // their sizes, to cut at event boundaries
  std::deque<std::vector<uint8_t>> kept_;  // LOOP: the events the file holds, oldest first
  uint64_t kept_bytes_ = 0;
};

}  // namespace rastrace::posix
