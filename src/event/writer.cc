#include "event/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "event/decode.h"
#include "event/direct_file.h"
#include "event/encode.h"
#include "event/read_back.h"

namespace rastrace::event {
namespace {

constexpr size_t kBufferBytes = 256 * 1024;
// How much of a cut log is read back at a time to find its last whole event.
constexpr size_t kCutWindowBytes = size_t{1} << 20;

// Errors that mean the file system has no room (or no more for this file): the log is cut and
// the loss counted, instead of the log just ending where the disk did.
bool IsNoRoom(int err) {
  return err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO;
}

// How many traced events `hook_id` stands for: a 006 its count, the trace's own bookkeeping
// (TRACE ON/OFF, header, wrap, 00A utility events) none, any other event one.
uint64_t TracedEvents(uint16_t hook_id, const EventFields& fields) {
  switch (hook_id) {
    case kHookLost:
      return fields.word_count >= 1 ? fields.words[0] : 0;
    case kHookTraceOn:
    case kHookTraceOff:
    case kHookHeader:
    case kHookLogWrapped:
    case kHookUtil:
      return 0;
    default:
      return 1;
  }
}

// The 006 event that ends a cut log. Its size does not depend on the count.
EventFields LostEvent(uint64_t count, uint64_t timestamp) {
  EventFields fields;
  fields.hook_id = kHookLost;
  fields.word_count = 2;
  fields.words[0] = count;
  fields.words[1] = 0;  // no one thread: the writer's own loss
  fields.timestamped = true;
  fields.timestamp = timestamp;
  return fields;
}

}  // namespace

struct LogWriter::Impl {
  std::string path;
  WriterOptions options;
  int fd = -1;
  bool owns_fd = false;
  bool regular = false;  // a regular file: a full one is cut (a device or a pipe cannot be)
  std::vector<uint8_t> buffer;
  std::unique_ptr<DirectFile> direct;  // set: every byte goes through it, `buffer` stays empty
  uint64_t bytes_written = 0;
  bool failed = false;  // a write failed: the file is incomplete, later writes are refused
  Error error;

  // Where whole events end, for cutting a full log back to one. `stream_boundary`: the stream
  // offset after the last append that ended an event; `safe_last`/`safe_prev`: the last two such
  // offsets known to be in the file (noted after each complete write of the buffer).
  uint64_t file_bytes = 0;  // bytes the file is known to hold (direct: as of the last Sync)
  uint64_t stream_boundary = 0;
  uint64_t safe_last = 0;
  uint64_t safe_prev = 0;

  // The cut (see LogWriter::cut).
  bool cut = false;
  bool cut_marked = false;  // the 006 is in the file, at cut_at
  uint64_t cut_at = 0;      // where the log ends (before its 006)
  uint64_t cut_timestamp = 0;
  uint64_t not_written = 0;
  int cut_errno = 0;
  std::vector<uint8_t> cut_partial;  // the start of an event whose rest comes with the next call

  void NoteWritten() {
    if (stream_boundary <= file_bytes && stream_boundary != safe_last) {
      safe_prev = safe_last;
      safe_last = stream_boundary;
    }
  }

  // Counts the traced events in `bytes` (after what is left of an earlier call), keeping the
  // start of an event they stop inside for the next call.
  void CountUnwritten(std::span<const uint8_t> bytes) {
    cut_partial.insert(cut_partial.end(), bytes.begin(), bytes.end());
    size_t at = 0;
    Event event;
    while (at < cut_partial.size()) {
      DecodeResult decoded = DecodeEvent(std::span(cut_partial).subspan(at), options.layout,
                                         options.byte_order, event);
      if (decoded.status == DecodeStatus::kNeedMore) break;
      if (decoded.status == DecodeStatus::kCorrupt || decoded.size == 0) {
        at = cut_partial.size();  // cannot happen with the writer's own events; stop counting
        break;
      }
      not_written += TracedEvents(event.hook_id, event);
      at += decoded.size;
    }
    cut_partial.erase(cut_partial.begin(), cut_partial.begin() + static_cast<ptrdiff_t>(at));
  }

  std::string CutMessage() const {
    std::string reason = std::strerror(cut_errno);
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(reason[0]));
    const uint64_t size = cut_at + (cut_marked ? LostEventBytes() : 0);
    if (cut_marked) {
      return fmt::format("{}: {} after {} bytes; {} events not written", path, reason, size,
                         not_written);
    }
    return fmt::format(
        "{}: {} after {} bytes; {} events not written (no room left in the log for their 006 "
        "count)",
        path, reason, size, not_written);
  }

  size_t LostEventBytes() const { return EncodedSize(LostEvent(0, 0), options.layout); }

  Result<void> WriteLostEvent() {
    std::vector<uint8_t> bytes;
    if (!Encode(LostEvent(not_written, cut_timestamp), options.layout, options.byte_order, bytes)) {
      return MakeError("{}: cannot encode the 006 event", path);
    }
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t wrote =
          ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(cut_at + done));
      if (wrote < 0 && errno == EINTR) continue;
      if (wrote <= 0) return MakeError("{}: write error: {}", path, std::strerror(errno));
      done += static_cast<size_t>(wrote);
    }
    return Ok();
  }

  // The file holds the stream's first `intact` bytes, and `known` (at most `intact`) is where an
  // event starts; `tail` is the rest of the stream, not written. Cuts the file back to the last
  // whole event that leaves room for the 006 within the bytes the file already has (so writing
  // it needs no new space), writes the 006 there, and counts everything after the cut.
  Result<void> Cut(int err, uint64_t known, uint64_t intact, std::span<const uint8_t> tail) {
    cut = true;
    failed = true;
    cut_errno = err;
    // The log is open write-only: the same file (not whatever now has its name) is opened again
    // to read it back.
    const int reread = OpenAgainForReading(fd);
    struct stat st {};
    if (reread < 0 || ::fstat(reread, &st) != 0) {
      intact = known;
    } else {
      intact = std::min<uint64_t>(intact, static_cast<uint64_t>(st.st_size));
    }
    known = std::min(known, intact);
    const uint64_t room = LostEventBytes();
    // Whole events in the file from `known`: the cut is at the last one whose end leaves room.
    // Read a window at a time (with O_DIRECT the last known event start may be as old as the
    // last sync, the whole log without checkpoints), so the memory stays that of a window.
    uint64_t best = known;
    uint64_t best_timestamp = 0;
    uint64_t last_whole = known;
    uint64_t timestamp = 0;
    std::vector<std::pair<uint64_t, uint64_t>> counts;  // after `best`: (event start, traced)
    std::vector<uint8_t> window;                        // the file's bytes from `last_whole`
    uint64_t read_to = known;
    bool whole = true;  // every event from `known` decoded so far
    Event event;
    while (whole && read_to < intact) {
      const size_t have = window.size();
      const size_t want = std::min<uint64_t>(kCutWindowBytes, intact - read_to);
      window.resize(have + want);
      const size_t got = ReadBack(reread, std::span(window).subspan(have), read_to);
      window.resize(have + got);
      read_to += got;
      // The file cannot be read further: the cut is within what was read.
      if (got < want) intact = read_to;
      size_t at = 0;
      while (at < window.size()) {
        DecodeResult decoded =
            DecodeEvent(std::span(window).subspan(at), options.layout, options.byte_order, event);
        if (decoded.status == DecodeStatus::kNeedMore) break;
        if (decoded.status != DecodeStatus::kOk || decoded.size == 0) {
          whole = false;
          break;
        }
        const uint64_t start = last_whole;
        at += decoded.size;
        last_whole += decoded.size;
        if (event.timestamped) timestamp = event.timestamp;
        if (last_whole + room <= intact) {
          best = last_whole;
          best_timestamp = timestamp;
          counts.clear();
        } else {
          counts.emplace_back(start, TracedEvents(event.hook_id, event));
        }
      }
      window.erase(window.begin(), window.begin() + static_cast<ptrdiff_t>(at));
    }
    if (reread >= 0) ::close(reread);
    cut_marked = best + room <= intact;
    cut_at = cut_marked ? best : last_whole;
    cut_timestamp = best_timestamp;
    for (const auto& [start, traced] : counts) {
      if (start >= cut_at) not_written += traced;
    }
    // What the file holds past its whole events, then what never reached it.
    CountUnwritten(window);
    CountUnwritten(tail);
    if (cut_marked) {
      if (auto wrote = WriteLostEvent(); !wrote) cut_marked = false;
    }
    if (::ftruncate(fd, static_cast<off_t>(cut_at + (cut_marked ? room : 0))) != 0) {
      cut_marked = false;
    }
    file_bytes = cut_at;
    error = Error{CutMessage()};
    return error;
  }

  // The safe boundary to cut from: the last one if it leaves room for the 006 before `intact`.
  uint64_t KnownBoundary(uint64_t intact) const {
    return safe_last + LostEventBytes() <= intact ? safe_last : safe_prev;
  }

  ~Impl() {
    // Errors here have nowhere to go; callers that care call Close() first.
    (void)Close();
  }

  // Writes `bytes`, then `more` (the stream's bytes after them, not yet in the file).
  Result<void> WriteAll(std::span<const uint8_t> bytes, std::span<const uint8_t> more = {}) {
    while (!bytes.empty()) {
      ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
      if (wrote < 0) {
        if (errno == EINTR) continue;
        const int err = errno;
        if (IsNoRoom(err) && regular) {
          std::vector<uint8_t> tail(bytes.begin(), bytes.end());
          tail.insert(tail.end(), more.begin(), more.end());
          return Cut(err, KnownBoundary(file_bytes), file_bytes, tail);
        }
        return Fail(MakeError("{}: write error: {}", path, std::strerror(err)));
      }
      bytes = bytes.subspan(static_cast<size_t>(wrote));
      file_bytes += static_cast<uint64_t>(wrote);
    }
    NoteWritten();
    return Ok();
  }

  Result<void> Fail(Error e) {
    failed = true;
    error = e;
    return e;
  }

  // A call of the direct path failed with `e`; `taken` are the stream's last bytes, handed to
  // it by the call (it may have taken only some). The direct path is closed first: its threads
  // have stopped and every write it started has ended, so what is in the file is known. On a
  // full file system the log is then cut as on the buffered path (Cut): the 006 goes through
  // the ordinary descriptor, into bytes the file already holds, so it needs no new block; an
  // O_DIRECT write could not take its 24 or 40 bytes without rewriting a whole block, which is
  // what the ordinary write does in the page cache.
  Result<void> DirectFailed(const Error& e, std::span<const uint8_t> taken) {
    DirectFile::Failure failure = direct->TakeFailure();
    (void)direct->Close();  // reports `e` again
    direct.reset();
    if (!regular || !IsNoRoom(failure.error_number)) return Fail(e);
    std::vector<uint8_t> tail = std::move(failure.unwritten);
    const uint64_t not_taken = std::min<uint64_t>(bytes_written - failure.appended, taken.size());
    tail.insert(tail.end(), taken.end() - static_cast<ptrdiff_t>(not_taken), taken.end());
    file_bytes = failure.intact;
    return Cut(failure.error_number, KnownBoundary(failure.intact), failure.intact, tail);
  }

  Result<void> Usable() const {
    if (fd < 0) return MakeError("{}: log writer is closed", path);
    if (failed) return error;
    return Ok();
  }

  Result<void> Flush() {
    if (auto usable = Usable(); !usable) return usable;
    if (direct) {
      if (!buffer.empty()) {
        auto appended = direct->Append(buffer);
        if (!appended) {
          auto failed = DirectFailed(appended.error(), buffer);
          buffer.clear();
          return failed;
        }
        buffer.clear();
      }
      auto synced = direct->Sync();
      if (!synced) return DirectFailed(synced.error(), {});
      file_bytes = bytes_written;
      NoteWritten();
      return synced;
    }
    auto result = WriteAll(buffer);
    buffer.clear();
    return result;
  }

  // Appends `bytes`; `ends_an_event`: they end where an event ends.
  Result<void> Append(std::span<const uint8_t> bytes, bool ends_an_event = true) {
    if (cut) {
      CountUnwritten(bytes);
      return error;
    }
    if (auto usable = Usable(); !usable) return usable;
    if (direct) {
      bytes_written += bytes.size();
      if (ends_an_event) stream_boundary = bytes_written;
      auto appended = direct->Append(bytes);
      return appended ? appended : DirectFailed(appended.error(), bytes);
    }
    if (buffer.size() + bytes.size() > kBufferBytes) {
      if (auto flushed = Flush(); !flushed) {
        if (cut) CountUnwritten(bytes);
        return flushed;
      }
    }
    bytes_written += bytes.size();
    const uint64_t boundary_before = stream_boundary;
    if (ends_an_event) stream_boundary = bytes_written;
    if (bytes.size() >= kBufferBytes) {
      // Written straight from the caller's bytes: the boundary counts once they are all in.
      const uint64_t boundary = stream_boundary;
      stream_boundary = boundary_before;
      auto wrote = WriteAll(bytes);
      if (wrote) {
        stream_boundary = boundary;
        NoteWritten();
      }
      return wrote;
    }
    buffer.insert(buffer.end(), bytes.begin(), bytes.end());
    return Ok();
  }

  Result<void> Close() {
    if (fd < 0) return Ok();
    if (cut) {
      // The count is final now: the 006 (same size whatever the count) is rewritten in place.
      if (cut_marked) {
        if (auto wrote = WriteLostEvent(); !wrote) cut_marked = false;
      }
      error = Error{CutMessage()};
    }
    Result<void> result = failed ? Result<void>(error) : Flush();
    if (direct) {
      auto closed = direct->Close();
      if (!closed && result.ok()) result = DirectFailed(closed.error(), {});
      direct.reset();
    }
    if (owns_fd && ::close(fd) != 0 && result.ok()) {
      result = MakeError("{}: close failed: {}", path, std::strerror(errno));
    }
    fd = -1;
    return result;
  }
};

LogWriter::LogWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LogWriter::LogWriter(LogWriter&&) noexcept = default;
LogWriter& LogWriter::operator=(LogWriter&&) noexcept = default;
LogWriter::~LogWriter() = default;

Result<LogWriter> LogWriter::Create(const std::string& path, WriterOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->options = options;
  if (path == "-") {
    impl->fd = STDOUT_FILENO;
  } else {
    if (options.keep_old) {
      std::string old = path + ".old";
      if (::rename(path.c_str(), old.c_str()) != 0 && errno != ENOENT) {
        return MakeError("{}: cannot rename to {}: {}", path, old, std::strerror(errno));
      }
    }
    // Replacing a log means a new file: an existing regular file is unlinked and the log made
    // O_EXCL, never truncated in place, so a hard link to another file (made by whoever can
    // write the directory) is never written through; a symlink put there after the unlink makes
    // the open fail. What is not a regular file (a FIFO, a terminal) is opened as it is.
    bool exclusive = true;
    if (options.overwrite) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0) {
        if (S_ISREG(st.st_mode)) {
          if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
            return MakeError("{}: cannot replace the existing file: {}", path,
                             std::strerror(errno));
          }
        } else {
          exclusive = false;  // O_NOFOLLOW refuses a symlink, O_WRONLY a directory, as before
        }
      }
    }
    int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (exclusive ? O_EXCL : O_TRUNC);
    impl->fd = ::open(path.c_str(), flags, 0600);
    if (impl->fd < 0) {
      int err = errno;
      return MakeError("{}: cannot create trace log: {}{}", path, std::strerror(err),
                       err == EEXIST ? " (refusing to overwrite an existing file)" : "");
    }
    impl->owns_fd = true;
    struct stat st {};
    impl->regular = ::fstat(impl->fd, &st) == 0 && S_ISREG(st.st_mode);
    if (options.direct_io) {
      // Not possible here (tmpfs, or a file system without O_DIRECT): write normally.
      if (auto direct = DirectFile::Open(impl->fd, path)) impl->direct = std::move(*direct);
    }
  }
  impl->buffer.reserve(kBufferBytes);
  std::vector<uint8_t> magic;
  EncodeMagic(options.layout, options.byte_order, magic);
  if (auto appended = impl->Append(magic); !appended) return appended.error();
  // Where the first event starts: the one boundary known before anything is written.
  impl->safe_last = impl->safe_prev = impl->stream_boundary;
  return LogWriter(std::move(impl));
}

Result<void> LogWriter::WriteEncoded(std::span<const uint8_t> bytes, bool ends_an_event) {
  return impl_->Append(bytes, ends_an_event);
}

Result<void> LogWriter::Write(const EventFields& fields) {
  if (impl_->cut) {
    impl_->not_written += TracedEvents(fields.hook_id, fields);
    return impl_->error;
  }
  if (auto usable = impl_->Usable(); !usable) return usable;
  std::vector<uint8_t>& buffer = impl_->buffer;
  size_t size = EncodedSize(fields, impl_->options.layout);
  if (size != 0 && buffer.size() + size > kBufferBytes) {
    if (auto flushed = impl_->Flush(); !flushed) {
      if (impl_->cut) impl_->not_written += TracedEvents(fields.hook_id, fields);
      return flushed;
    }
  }
  // Encoding straight into the buffer: no copy, and no allocation once the buffer is reserved.
  if (auto encoded = Encode(fields, impl_->options.layout, impl_->options.byte_order, buffer);
      !encoded) {
    return MakeError("{}: {}", impl_->path, encoded.error().message);
  }
  impl_->bytes_written += size;
  impl_->stream_boundary = impl_->bytes_written;
  if (impl_->direct) {
    auto appended = impl_->direct->Append(buffer);
    if (!appended) {
      auto failed = impl_->DirectFailed(appended.error(), buffer);
      buffer.clear();
      return failed;
    }
    buffer.clear();
  }
  return Ok();
}

Result<void> LogWriter::Flush() {
  return impl_->Flush();
}
Result<void> LogWriter::Close() {
  return impl_->Close();
}
bool LogWriter::cut() const {
  return impl_->cut;
}
uint64_t LogWriter::events_not_written() const {
  return impl_->not_written;
}
uint64_t LogWriter::bytes_written() const {
  return impl_->bytes_written;
}
uint64_t LogWriter::bytes_in_file() const {
  return impl_->direct ? impl_->direct->written_bytes() : impl_->file_bytes;
}
uint64_t LogWriter::bytes_on_the_way() const {
  return impl_->direct ? impl_->direct->submitted_bytes() : impl_->file_bytes;
}
Layout LogWriter::layout() const {
  return impl_->options.layout;
}
ByteOrder LogWriter::byte_order() const {
  return impl_->options.byte_order;
}

std::optional<uint64_t> CutLogLostCount(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::optional<uint64_t> count;
  uint8_t head[16] = {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
      ::pread(fd, head, sizeof head, 0) == static_cast<ssize_t>(sizeof head)) {
    for (Layout layout : {Layout::k64, Layout::k32}) {
      for (ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
        std::vector<uint8_t> magic;
        EncodeMagic(layout, order, magic);
        if (magic.size() > sizeof head || std::memcmp(magic.data(), head, magic.size()) != 0) {
          continue;
        }
        const size_t size = EncodedSize(LostEvent(0, 0), layout);
        if (static_cast<uint64_t>(st.st_size) < magic.size() + size) break;
        std::vector<uint8_t> last(size);
        if (::pread(fd, last.data(), size, st.st_size - static_cast<off_t>(size)) !=
            static_cast<ssize_t>(size)) {
          break;
        }
        Event event;
        const DecodeResult decoded = DecodeEvent(last, layout, order, event);
        if (decoded.status == DecodeStatus::kOk && decoded.size == size &&
            event.hook_id == kHookLost && !event.generic && event.word_count == 2 &&
            event.words[1] == 0 && event.thread_id == 0) {
          count = event.words[0];
        }
        break;
      }
    }
  }
  ::close(fd);
  return count;
}

}  // namespace rastrace::event
