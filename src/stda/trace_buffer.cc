#include <algorithm>
#include <cstring>

#include "stda/layout.h"
#include "stda/stda.h"

namespace rastrace::stda {
namespace {

void PutStamp(uint8_t* p, const Stamp& s) {
  Store<uint16_t>(p, s.year, ByteOrder::kLittle);
  p[2] = s.month;
  p[3] = s.day;
  p[4] = s.hour;
  p[5] = s.minute;
  p[6] = s.second;
  p[7] = s.hundredths;
}

}  // namespace

Result<TraceBuffer> TraceBuffer::Create(Format format, size_t size) {
  const size_t minimum = FirstOffset(format) + 0x20;
  if (size < minimum || size > kMaxStdaSize) {
    return MakeError("STDA size {} is outside {} to {} bytes", size, minimum, kMaxStdaSize);
  }
  return TraceBuffer(format, size);
}

TraceBuffer::TraceBuffer(Format format, size_t size)
    : format_(format),
      bytes_(size, 0),
      first_(FirstOffset(format)),
      last_(static_cast<uint16_t>(size - 1)) {
  ResetLocked();
}

TraceBuffer::TraceBuffer(TraceBuffer&& other) noexcept
    : format_(other.format_),
      bytes_(std::move(other.bytes_)),
      first_(other.first_),
      last_(other.last_),
      next_(other.next_) {}

TraceBuffer& TraceBuffer::operator=(TraceBuffer&& other) noexcept {
  if (this != &other) {
    std::scoped_lock lock(mutex_, other.mutex_);
    format_ = other.format_;
    bytes_ = std::move(other.bytes_);
    first_ = other.first_;
    last_ = other.last_;
    next_ = other.next_;
  }
  return *this;
}

// An empty buffer: the end marker (a trailer with major 0 and length 0) at FIRST, so a reader
// walking back from NEXT stops there.
void TraceBuffer::ResetLocked() {
  std::fill(bytes_.begin(), bytes_.end(), 0);
  std::memcpy(bytes_.data(), kSignature, sizeof kSignature);
  Store<uint16_t>(&bytes_[layout::kFirstField], first_, ByteOrder::kLittle);
  Store<uint16_t>(&bytes_[layout::kLastField], last_, ByteOrder::kLittle);
  if (format_ == Format::kNew) PutStamp(&bytes_[layout::kTraceOnField], NowStamp());
  next_ = first_;
  const auto marker = layout::EncodeTrailer({flag::kNotKernel | flag::kNoTimestamp, 0, 0, 0, 0});
  PutLocked(marker.data(), marker.size());
}

void TraceBuffer::PutLocked(const uint8_t* bytes, size_t n) {
  while (n > 0) {
    const size_t room = size_t{last_} + 1 - next_;
    const size_t chunk = std::min(room, n);
    std::memcpy(&bytes_[next_], bytes, chunk);
    bytes += chunk;
    n -= chunk;
    next_ = static_cast<uint16_t>(chunk == room ? first_ : next_ + chunk);
  }
  Store<uint16_t>(&bytes_[layout::kNextField], next_, ByteOrder::kLittle);
}

Result<void> TraceBuffer::Write(const RecordSpec& record) {
  if (record.major == 0) return MakeError("major code 0 is reserved for the end marker");
  const bool stamped = (record.flags & flag::kNoTimestamp) == 0;
  const size_t stamp_size = stamped ? TimestampSize(format_) : 0;
  const size_t capacity = size_t{last_} - first_ + 1;
  const size_t total = record.data.size() + stamp_size + kTrailerSize;
  if (record.data.size() > 0xFFFF || total > capacity) {
    return MakeError("a record of {} data bytes does not fit the {}-byte STDA record area",
                     record.data.size(), capacity);
  }
  uint8_t stamp[4];
  if (format_ == Format::kGa) {
    stamp[0] = record.time.seconds;
    stamp[1] = record.time.hundredths;
  } else {
    stamp[0] = record.time.hours;
    stamp[1] = record.time.minutes;
    stamp[2] = record.time.seconds;
    stamp[3] = record.time.hundredths;
  }
  const auto trailer =
      layout::EncodeTrailer({record.flags, record.pid, record.minor,
                             static_cast<uint16_t>(record.data.size()), record.major});
  std::lock_guard lock(mutex_);
  PutLocked(record.data.data(), record.data.size());
  PutLocked(stamp, stamp_size);
  PutLocked(trailer.data(), trailer.size());
  return Ok();
}

void TraceBuffer::SetTraceOff(const Stamp& stamp) {
  if (format_ != Format::kNew) return;
  std::lock_guard lock(mutex_);
  PutStamp(&bytes_[layout::kTraceOffField], stamp);
}

std::vector<uint8_t> TraceBuffer::Snapshot() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

std::vector<uint8_t> TraceBuffer::GetStda() {
  std::lock_guard lock(mutex_);
  std::vector<uint8_t> copy = bytes_;
  if (format_ == Format::kNew) PutStamp(&copy[layout::kTraceOffField], NowStamp());
  ResetLocked();
  return copy;
}

}  // namespace rastrace::stda
