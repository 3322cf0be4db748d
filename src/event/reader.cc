#include "event/reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "event/decode.h"
#include "event/reformat.h"
#include "event/sizes.h"

namespace rastrace::event {

struct LogReader::Impl {
  std::string name;
  ReaderOptions options;
  int fd = -1;
  bool owns_fd = false;
  // File mode: bytes read but not consumed are window[begin, end). Memory mode: `data` is the
  // caller's bytes and the window is unused.
  std::vector<uint8_t> window;
  const uint8_t* data = nullptr;
  size_t begin = 0;
  size_t end = 0;
  bool eof = false;
  uint64_t offset = 0;  // file offset of data[begin]
  Layout layout = Layout::k64;
  ByteOrder order = ByteOrder::kLittle;
  bool done = false;
  Error error;
  std::vector<uint8_t> scratch;  // reformatted events

  ~Impl() {
    if (owns_fd && fd >= 0) ::close(fd);
  }

  size_t available() const { return end - begin; }

  // Reads until `need` bytes are available or the file ends. Moves what is left to the front of
  // the window first, so the window never holds more than its size or one event.
  Result<void> Fill(size_t need) {
    if (fd < 0 || eof || available() >= need) return Ok();
    if (begin > 0) {
      std::memmove(window.data(), window.data() + begin, available());
      end -= begin;
      begin = 0;
    }
    if (window.size() < need) window.resize(need);
    data = window.data();
    while (!eof && available() < need) {
      ssize_t got = ::read(fd, window.data() + end, window.size() - end);
      if (got < 0) {
        if (errno == EINTR) continue;
        return MakeError("{}: read error at offset {:#x}: {}", name, offset + available(),
                         std::strerror(errno));
      }
      if (got == 0) eof = true;
      end += static_cast<size_t>(got);
    }
    return Ok();
  }

  ReadStatus Fail(Error e) {
    error = std::move(e);
    done = true;
    return ReadStatus::kError;
  }

  Result<void> ReadMagic() {
    if (auto filled = Fill(4); !filled) return filled.error();
    std::span<const uint8_t> head(data + begin, std::min<size_t>(available(), 4));
    if (head.size() == 4) {
      for (ByteOrder candidate : {ByteOrder::kBig, ByteOrder::kLittle}) {
        uint32_t magic = Load32(head.data(), candidate);
        if (magic == kMagic64 || magic == kMagic32) {
          order = candidate;
          layout = magic == kMagic64 ? Layout::k64 : Layout::k32;
          begin += 4;
          offset = 4;
          return Ok();
        }
      }
    }
    std::string found = head.empty() ? "(empty file)" : "";
    for (size_t i = 0; i < head.size(); ++i) {
      found += fmt::format("{}{:02x}", i == 0 ? "" : " ", head[i]);
    }
    return MakeError(
        "{}: not a trace log: first bytes {} (expected a magic number: ef df 11 14 or 14 11 df ef "
        "for 64-bit events, ef df 11 12 or 12 11 df ef for 32-bit events)",
        name, found);
  }

  ReadStatus Next(Event& out) {
    if (done) return ReadStatus::kEnd;
    DecodeResult decoded;
    for (;;) {
      decoded = DecodeEvent({data + begin, available()}, layout, order, out);
      if (decoded.status != DecodeStatus::kNeedMore) break;
      if (eof) {
        if (available() == 0) {
          done = true;
          return ReadStatus::kEnd;
        }
        return Fail(MakeError("{}: offset {:#x}: truncated event (need {} bytes, {} left)", name,
                              offset, decoded.size, available()));
      }
      if (auto filled = Fill(decoded.size); !filled) return Fail(filled.error());
    }
    if (decoded.status == DecodeStatus::kCorrupt) {
      return Fail(MakeError("{}: offset {:#x}: {}", name, offset, decoded.problem));
    }
    out.offset = offset;
    begin += decoded.size;
    offset += decoded.size;
    if (options.reformat && NeedsReformat(out, layout)) {
      if (auto reformatted = Reformat(out, layout, order, scratch, out); !reformatted) {
        return Fail(MakeError("{}: {}", name, reformatted.error().message));
      }
    }
    return ReadStatus::kEvent;
  }
};

LogReader::LogReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LogReader::LogReader(LogReader&&) noexcept = default;
LogReader& LogReader::operator=(LogReader&&) noexcept = default;
LogReader::~LogReader() = default;

Result<LogReader> LogReader::Open(const std::string& path, ReaderOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->name = path;
  impl->options = options;
  if (path == "-") {
    impl->fd = STDIN_FILENO;
  } else {
    impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl->fd < 0) return MakeError("{}: cannot open: {}", path, std::strerror(errno));
    impl->owns_fd = true;
  }
  impl->window.resize(std::max<size_t>(options.window_bytes, 64));
  impl->data = impl->window.data();
  if (auto magic = impl->ReadMagic(); !magic) return magic.error();
  return LogReader(std::move(impl));
}

Result<LogReader> LogReader::FromBytes(std::span<const uint8_t> bytes, std::string name,
                                       ReaderOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->options = options;
  impl->data = bytes.data();
  impl->end = bytes.size();
  impl->eof = true;
  if (auto magic = impl->ReadMagic(); !magic) return magic.error();
  return LogReader(std::move(impl));
}

Result<LogReader> LogReader::FromOwnedBytes(std::vector<uint8_t> bytes, std::string name,
                                            ReaderOptions options) {
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(name);
  impl->options = options;
  impl->window = std::move(bytes);  // memory mode leaves the window unused: it holds the bytes
  impl->data = impl->window.data();
  impl->end = impl->window.size();
  impl->eof = true;
  if (auto magic = impl->ReadMagic(); !magic) return magic.error();
  return LogReader(std::move(impl));
}

Layout LogReader::layout() const {
  return impl_->layout;
}
ByteOrder LogReader::byte_order() const {
  return impl_->order;
}
const std::string& LogReader::name() const {
  return impl_->name;
}
ReadStatus LogReader::Next(Event& out) {
  return impl_->Next(out);
}
const Error& LogReader::error() const {
  return impl_->error;
}
uint64_t LogReader::offset() const {
  return impl_->offset;
}

}  // namespace rastrace::event
