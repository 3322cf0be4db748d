#include "posix/log_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "common/started_thread.h"
#include "event/encode.h"
#include "posix/futex.h"
#include "posix/log_format.h"

namespace rastrace::posix {
namespace {

std::string ExecutablePath(int32_t pid) {
  char link[64];
  std::snprintf(link, sizeof link, "/proc/%d/exe", static_cast<int>(pid));
  char path[PATH_MAX];
  ssize_t n = readlink(link, path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

}  // namespace

int LogSink::Start(int fd, StreamShared& s, StreamReader& reader, std::mutex& read_mutex,
                   std::mutex& control, std::unique_ptr<LogSink>& out) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) return EBADF;
  auto sink = std::make_unique<LogSink>(fd, s, reader, read_mutex, control);
  std::string name;
  for (unsigned id = kFirstUserId; id < kMaxEventTypes; ++id) {
    if (NameOf(s, id, name)) sink->named_.set(id);
  }
  std::vector<uint8_t> header = sink->Header();
  if (!sink->WriteAll(header.data(), header.size())) {
    // Only the errors posix_trace_create_withlog lists: any other write failure is "no space".
    int error = errno;
    return error == EBADF || error == EFBIG ? error : ENOSPC;
  }
  sink->file_bytes_ = header.size();
  // Returns once the flusher runs, so that a program may fork right after creating the stream.
  sink->thread_ = StartThreadAndWait([raw = sink.get()] { raw->Run(); });
  out = std::move(sink);
  return 0;
}

LogSink::LogSink(int fd, StreamShared& s, StreamReader& reader, std::mutex& read_mutex,
                 std::mutex& control)
    : fd_(fd), s_(s), reader_(reader), read_mutex_(read_mutex), control_(control) {}

LogSink::~LogSink() {
  Finish();
}

std::vector<uint8_t> LogSink::Header() const {
  std::vector<uint8_t> out;
  event::EncodeMagic(event::Layout::k64, order_, out);
  EncodeTimeIsNanoseconds(order_, out);
  EncodeStreamAttributes(s_.attr, order_, out);
  std::string name;
  for (unsigned id = 0; id < kMaxEventTypes; ++id) {
    // Every type named so far: a rewritten (LOOP) log may have lost the events that named them.
    if ((id < kFirstUserId || named_.test(id)) && NameOf(s_, id, name)) {
      EncodeEventType(id, name, order_, out);
    }
  }
  for (const auto& [pid, tid] : processes_)
    EncodeProcess(pid, tid, ExecutablePath(pid), order_, out);
  return out;
}

void LogSink::RequestFlush() {
  s_.flush_request.store(1, std::memory_order_release);
  FutexWakeAll(s_.flush_request);
}

void LogSink::Run() {
  while (!stop_.load(std::memory_order_acquire)) {
    if (s_.flush_request.load(std::memory_order_acquire) == 0) {
      timespec deadline = RealtimeAfterMs(100);
      FutexWait(s_.flush_request, 0, &deadline);
    }
    if (s_.flush_request.exchange(0, std::memory_order_acq_rel) != 0) Flush(/*last=*/false);
  }
}

void LogSink::Finish() {
  if (finished_) return;
  finished_ = true;
  stop_.store(true, std::memory_order_release);
  FutexWakeAll(s_.flush_request);
  if (thread_.joinable()) thread_.join();
  Flush(/*last=*/true);
  StatusRecord status;
  status.stream_overrun = s_.stream_overrun.load();
  status.log_overrun = s_.log_overrun.load();
  status.log_full = s_.log_full.load();
  status.flush_error = static_cast<uint64_t>(s_.flush_error.load());
  status.stream_full = s_.full.load();
  std::vector<uint8_t> bytes;
  EncodeStatus(status, order_, bytes);
  // The status record closes the log even when the log-full policy refused more events.
  if (WriteAll(bytes.data(), bytes.size())) file_bytes_ += bytes.size();
}

void LogSink::AddEvent(const EventRecord& e) {
  size_t before = batch_.size();
  std::string name;
  if (!NameOf(s_, e.event_id, name)) name.assign(1, '?');
  if (!named_.test(e.event_id) && e.event_id >= kFirstUserId) {
    named_.set(e.event_id);
    EncodeEventType(e.event_id, name, order_, batch_);
  }
  if (e.pid != 0 && processes_.emplace(e.pid, e.kernel_tid).second) {
    EncodeProcess(e.pid, e.kernel_tid, ExecutablePath(e.pid), order_, batch_);
  }
  EncodePosixEvent(e, name, order_, batch_);
  batch_sizes_.push_back(batch_.size() - before);
}

void LogSink::Flush(bool last) {
  std::lock_guard lock(read_mutex_);
  s_.flush_status.store(POSIX_TRACE_FLUSHING);
  // FLUSH_START goes through the stream, so the log stays in time order: it is the newest event
  // of this flush. FLUSH_STOP opens the next flush, or ends the log.
  RecordSystemEvent(s_, POSIX_TRACE_FLUSH_START, nullptr, 0);
  EventRecord e;
  while (reader_.TryTake(e)) AddEvent(e);
  if (last) {
    EventRecord stop;
    stop.event_id = POSIX_TRACE_FLUSH_STOP;
    stop.realtime_ns = RealtimeNs();
    AddEvent(stop);
  }
  Commit();
  s_.lost_in_flush.store(0, std::memory_order_relaxed);
  if (s_.stream_policy == POSIX_TRACE_FLUSH) s_.full.store(0);  // drained
  s_.flush_status.store(POSIX_TRACE_NOT_FLUSHING);
  if (!last && s_.auto_stopped.load() != 0) {
    // UNTIL_FULL: flushing reuses the room of the flushed events; the drained stream runs again.
    std::lock_guard control(control_);
    RestartWhenDrained(s_);
  }
  if (!last) RecordSystemEvent(s_, POSIX_TRACE_FLUSH_STOP, nullptr, 0);
}

void LogSink::Commit() {
  const uint64_t limit = s_.attr.__log_size;
  const int policy = s_.attr.__log_policy;
  if (policy == POSIX_TRACE_APPEND) {
    if (WriteAll(batch_.data(), batch_.size())) file_bytes_ += batch_.size();
  } else if (policy == POSIX_TRACE_UNTIL_FULL) {
    // "The last recorded trace event shall be the POSIX_TRACE_STOP trace event": room for an
    // automatic STOP is kept, written after the last event that fits; the stream then stops.
    std::vector<uint8_t> stop = AutomaticStop();
    size_t fit = 0;
    size_t events = 0;
    const bool was_full = s_.log_full.load() != 0;
    for (size_t size : batch_sizes_) {
      if (was_full || file_bytes_ + fit + size + stop.size() > limit) break;
      fit += size;
      ++events;
    }
    if (events < batch_sizes_.size()) {
      s_.log_overrun.store(1);
      if (!was_full) {
        s_.log_full.store(1);
        batch_.resize(fit);
        batch_.insert(batch_.end(), stop.begin(), stop.end());
        fit += stop.size();
        // Suspended without auto_stopped: a full UNTIL_FULL log never restarts the stream.
        uint32_t running = kStateRunning;
        s_.state.compare_exchange_strong(running, kStateSuspended);
      }
    }
    if (fit != 0 && WriteAll(batch_.data(), fit)) file_bytes_ += fit;
  } else {  // LOOP: keep the newest events that fit, rewriting the file when it wraps
    size_t at = 0;
    for (size_t size : batch_sizes_) {
      kept_.emplace_back(batch_.begin() + static_cast<std::ptrdiff_t>(at),
                         batch_.begin() + static_cast<std::ptrdiff_t>(at + size));
      kept_bytes_ += size;
      at += size;
    }
    std::vector<uint8_t> header = Header();
    bool wrapped = false;
    while (!kept_.empty() && header.size() + kept_bytes_ > limit) {
      kept_bytes_ -= kept_.front().size();
      kept_.pop_front();
      wrapped = true;
    }
    if (!wrapped) {
      if (WriteAll(batch_.data(), batch_.size())) file_bytes_ += batch_.size();
    } else {
      s_.log_full.store(1);
      s_.log_overrun.store(1);
      if (ftruncate(fd_, 0) != 0 || lseek(fd_, 0, SEEK_SET) != 0) {
        NoteError(errno);
      } else {
        std::vector<uint8_t> all = std::move(header);
        for (const auto& bytes : kept_) all.insert(all.end(), bytes.begin(), bytes.end());
        if (WriteAll(all.data(), all.size())) file_bytes_ = all.size();
      }
    }
  }
  batch_.clear();
  batch_sizes_.clear();
}

std::vector<uint8_t> LogSink::AutomaticStop() const {
  EventRecord stop;
  stop.event_id = POSIX_TRACE_STOP;
  stop.realtime_ns = RealtimeNs();
  const int automatic = 1;
  stop.data.resize(sizeof automatic);
  std::memcpy(stop.data.data(), &automatic, sizeof automatic);
  std::vector<uint8_t> out;
  EncodePosixEvent(stop, SystemEventName(POSIX_TRACE_STOP), order_, out);
  return out;
}

bool LogSink::WriteAll(const uint8_t* data, size_t size) {
  errno = 0;
  while (size != 0) {
    ssize_t n = write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      NoteError(n < 0 ? errno : ENOSPC);
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

void LogSink::NoteError(int error) {
  int none = 0;
  s_.flush_error.compare_exchange_strong(none, error);  // the first error is the one reported
}

}  // namespace rastrace::posix
