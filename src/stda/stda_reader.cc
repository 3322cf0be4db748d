// Walking the STDA backward from NEXT, piece by piece, as seed 000's worked example does.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "stda/layout.h"
#include "stda/stda.h"

namespace rastrace::stda {
namespace {

Stamp GetStamp(const uint8_t* p) {
  return {Load16(p, ByteOrder::kLittle), p[2], p[3], p[4], p[5], p[6], p[7]};
}

class BackwardWalk {
 public:
  BackwardWalk(std::span<const uint8_t> stda, uint16_t first, uint16_t last, uint16_t next)
      : stda_(stda), first_(first), last_(last), pos_(next > last ? first : next) {}

  // Reads the `n` bytes that end just before the current position, wrapping from FIRST to LAST;
  // returns false when a byte lies beyond the image (a truncated file). `start` receives the
  // offset of the piece's first byte.
  bool Read(size_t n, uint8_t* out, size_t& start) {
    const size_t distance = pos_ - first_;
    if (n <= distance) {
      start = pos_ - n;
      if (!Copy(start, n, out)) return false;
      pos_ = static_cast<uint16_t>(start);
      return true;
    }
    // The piece's head is at the end of the buffer, its tail right after FIRST.
    const size_t head = n - distance;
    start = size_t{last_} + 1 - head;
    if (!Copy(start, head, out) || !Copy(first_, distance, out + head)) return false;
    pos_ = static_cast<uint16_t>(start);
    return true;
  }

  size_t position() const { return pos_; }

 private:
  bool Copy(size_t from, size_t n, uint8_t* out) {
    if (from + n > stda_.size()) {
      missing_at_ = std::max(from, stda_.size());
      return false;
    }
    if (n) std::memcpy(out, stda_.data() + from, n);
    return true;
  }

 public:
  size_t missing_at_ = 0;

 private:
  std::span<const uint8_t> stda_;
  uint16_t first_, last_;
  uint16_t pos_;
};

}  // namespace

StdaContents ReadStda(std::span<const uint8_t> stda, size_t base) {
  StdaContents c;
  auto problem = [&](size_t offset, std::string message) {
    c.problems.push_back({base + offset, std::move(message)});
  };
  if (stda.size() < layout::kHeaderSize) {
    problem(0, fmt::format("the STDA is {} bytes, shorter than its {}-byte header", stda.size(),
                           layout::kHeaderSize));
    return c;
  }
  if (std::memcmp(stda.data(), kSignature, sizeof kSignature) != 0) {
    problem(0, "the STDA does not start with 'SYSTRACE'");
  }
  c.first = Load16(&stda[layout::kFirstField], ByteOrder::kLittle);
  c.last = Load16(&stda[layout::kLastField], ByteOrder::kLittle);
  c.next = Load16(&stda[layout::kNextField], ByteOrder::kLittle);
  c.format = c.first >= kNewFirst ? Format::kNew : Format::kGa;
  if (c.first != kGaFirst && c.first != kNewFirst) {
    problem(layout::kFirstField,
            fmt::format("FIRST {:#06x} is neither {:#06x} (GA format) nor {:#06x} (new format)",
                        c.first, kGaFirst, kNewFirst));
  }
  if (c.first < layout::kHeaderSize || size_t{c.last} < size_t{c.first} + kTrailerSize - 1) {
    problem(
        layout::kLastField,
        fmt::format("FIRST {:#06x} and LAST {:#06x} leave no room for a record", c.first, c.last));
    return c;
  }
  if (c.next < c.first || c.next > size_t{c.last} + 1) {
    problem(layout::kNextField, fmt::format("NEXT {:#06x} is outside the record area {:#06x} to "
                                            "{:#06x}",
                                            c.next, c.first, c.last));
    return c;
  }
  if (c.last >= stda.size()) {
    problem(stda.size(), fmt::format("LAST {:#06x} is beyond the {} bytes of the STDA: the "
                                     "buffer is truncated",
                                     c.last, stda.size()));
  }
  if (c.format == Format::kNew && stda.size() >= kNewFirst) {
    c.trace_on = GetStamp(&stda[layout::kTraceOnField]);
    c.trace_off = GetStamp(&stda[layout::kTraceOffField]);
  }

  const size_t capacity = size_t{c.last} - c.first + 1;
  const size_t stamp_size = TimestampSize(c.format);
  BackwardWalk walk(stda, c.first, c.last, c.next);
  size_t consumed = 0;
  std::vector<Record> newest_first;
  auto truncated = [&](std::string_view what) {
    problem(walk.missing_at_,
            fmt::format("the {} of a record lies beyond the end of the STDA (truncated)", what));
  };
  while (consumed + kTrailerSize <= capacity) {
    uint8_t raw[kTrailerSize];
    size_t at = 0;
    if (!walk.Read(kTrailerSize, raw, at)) {
      truncated("trailer");
      break;
    }
    const layout::Trailer t = layout::DecodeTrailer(raw);
    if (t.major == 0 && t.length == 0) break;  // the end marker
    const size_t stamp = (t.flags & flag::kNoTimestamp) ? 0 : stamp_size;
    if (size_t{t.length} + stamp + kTrailerSize > capacity) {
      problem(at, fmt::format("record trailer (major {:#04x}, minor {:#06x}): data length {} "
                              "cannot fit the {}-byte record area",
                              t.major, t.minor, t.length, capacity));
      break;
    }
    // The oldest record of a wrapped buffer was partly overwritten by the newest ones.
    if (consumed + kTrailerSize + stamp + t.length > capacity) break;
    Record r;
    r.trailer_offset = static_cast<uint16_t>(at);
    r.major = t.major;
    r.minor = t.minor;
    r.pid = t.pid;
    r.flags = t.flags;
    if (stamp) {
      uint8_t s[4] = {};
      if (!walk.Read(stamp, s, at)) {
        truncated("timestamp");
        break;
      }
      r.time =
          c.format == Format::kGa ? Timestamp{0, 0, s[0], s[1]} : Timestamp{s[0], s[1], s[2], s[3]};
    }
    r.data.resize(t.length);
    if (!walk.Read(t.length, r.data.data(), at)) {
      truncated("data");
      break;
    }
    consumed += kTrailerSize + stamp + t.length;
    newest_first.push_back(std::move(r));
  }
  c.records.assign(std::make_move_iterator(newest_first.rbegin()),
                   std::make_move_iterator(newest_first.rend()));
  return c;
}

}  // namespace rastrace::stda
