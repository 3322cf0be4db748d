#include "query/event_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "event/decode.h"

namespace rastrace::query {

namespace {

// The most bytes an event can take (a generic one with a 65535-byte buffer and a timestamp).
constexpr size_t kMaxEventBytes = 65568;
// Most events fit in this much; larger ones are read again whole.
constexpr size_t kFirstRead = 128;

Result<void> WriteAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError("writing the events' temporary file: {}", std::strerror(errno));
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Ok();
}

}  // namespace

Result<int> CreateTemporaryFile() {
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // No O_TMPFILE on this file system: a named file, unlinked at once.
  std::string path = dir + "/rastrace-sql-XXXXXX";
  fd = mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) {
    return MakeError("cannot create a temporary file in {} (set TMPDIR to another directory): {}",
                     dir, std::strerror(errno));
  }
  unlink(path.c_str());
  return fd;
}

EventStore::EventStore(int fd) : fd_(fd) {}

EventStore::~EventStore() {
  if (fd_ >= 0) close(fd_);
  for (auto& input : inputs_) {
    if (input.fd >= 0) close(input.fd);
  }
}

Result<std::unique_ptr<EventStore>> EventStore::Create() {
  auto fd = CreateTemporaryFile();
  if (!fd) return fd.error();
  return std::unique_ptr<EventStore>(new EventStore(*fd));
}

Result<void> EventStore::SetInputs(std::vector<Input> inputs) {
  for (auto& input : inputs) {
    OpenInput open_input;
    open_input.fd = open(input.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (open_input.fd < 0) {
      const int error = errno;
      for (auto& done : inputs_) close(done.fd);
      inputs_.clear();
      return MakeError("{}: cannot open it again: {}", input.path, std::strerror(error));
    }
    open_input.reader = std::make_unique<BlockReader>(open_input.fd, input.path);
    open_input.input = std::move(input);
    inputs_.push_back(std::move(open_input));
  }
  return Ok();
}

Result<void> EventStore::FlushBuffer() {
  auto written = WriteAll(fd_, buffer_.data(), buffer_.size());
  written_ += buffer_.size();
  buffer_.clear();
  return written;
}

Result<void> EventStore::Finish(std::vector<size_t> source_inputs) {
  if (auto flushed = FlushBuffer(); !flushed) return flushed;
  buffer_.shrink_to_fit();
  source_inputs_ = std::move(source_inputs);
  index_ = std::make_unique<BlockReader>(fd_, "the events' temporary file");
  finished_ = true;
  return Ok();
}

Result<void> EventStore::Rewrite(const std::function<Result<void>(StoredEvent&)>& change) {
  constexpr size_t kChunk = 4096;
  std::vector<StoredEvent> records(kChunk);
  for (uint64_t first = 0; first < count_; first += kChunk) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, count_ - first));
    const size_t bytes = n * sizeof(StoredEvent);
    const auto at = static_cast<off_t>(first * sizeof(StoredEvent));
    auto* data = reinterpret_cast<uint8_t*>(records.data());
    if (pread(fd_, data, bytes, at) != static_cast<ssize_t>(bytes)) {
      return MakeError("reading the events' temporary file: {}", std::strerror(errno));
    }
    for (size_t i = 0; i < n; ++i) {
      if (auto changed = change(records[i]); !changed) return changed;
    }
    if (pwrite(fd_, data, bytes, at) != static_cast<ssize_t>(bytes)) {
      return MakeError("writing the events' temporary file: {}", std::strerror(errno));
    }
  }
  // Blocks read before hold the old records.
  index_ = std::make_unique<BlockReader>(fd_, "the events' temporary file");
  return Ok();
}

Result<StoredEvent> EventStore::Get(uint64_t index) {
  auto bytes = index_->Read(index * sizeof(StoredEvent), sizeof(StoredEvent));
  if (!bytes) return bytes.error();
  StoredEvent record;
  std::memcpy(&record, bytes->data(), sizeof(record));
  return record;
}

Result<void> EventStore::Decode(const StoredEvent& record, event::Event& out) {
  if (record.source >= source_inputs_.size() || source_inputs_[record.source] >= inputs_.size()) {
    return MakeError("internal error: event of unknown source {}", record.source);
  }
  OpenInput& input = inputs_[source_inputs_[record.source]];
  auto bytes = input.reader->ReadUpTo(record.offset, kFirstRead);
  if (!bytes) return bytes.error();
  auto decoded = event::DecodeEvent(*bytes, input.input.layout, input.input.byte_order, out);
  if (decoded.status == event::DecodeStatus::kNeedMore && decoded.size <= kMaxEventBytes) {
    bytes = input.reader->Read(record.offset, decoded.size);
    if (!bytes) return bytes.error();
    decoded = event::DecodeEvent(*bytes, input.input.layout, input.input.byte_order, out);
  }
  if (decoded.status != event::DecodeStatus::kOk) {
    return MakeError(
        "{}: offset {:#x}: the event read at load time is not there any more ({}); "
        "was the log changed while being queried?",
        input.input.path, record.offset, decoded.problem.empty() ? "truncated" : decoded.problem);
  }
  out.offset = record.offset;
  return Ok();
}

}  // namespace rastrace::query
