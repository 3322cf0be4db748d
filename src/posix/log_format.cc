#include "posix/log_format.h"

#include <algorithm>
#include <cstring>

#include "event/encode.h"
#include "event/format.h"
#include "event/timebase.h"

namespace rastrace::posix {
namespace {

void Put16(std::vector<uint8_t>& b, uint16_t v, ByteOrder o) {
  size_t at = b.size();
  b.resize(at + 2);
  Store<uint16_t>(b.data() + at, v, o);
}
void Put32(std::vector<uint8_t>& b, uint32_t v, ByteOrder o) {
  size_t at = b.size();
  b.resize(at + 4);
  Store<uint32_t>(b.data() + at, v, o);
}
void Put64(std::vector<uint8_t>& b, uint64_t v, ByteOrder o) {
  size_t at = b.size();
  b.resize(at + 8);
  Store<uint64_t>(b.data() + at, v, o);
}
void PutS2(std::vector<uint8_t>& b, std::string_view s, ByteOrder o) {
  size_t n = std::min<size_t>(s.size(), 0xFFFF);
  Put16(b, static_cast<uint16_t>(n), o);
  b.insert(b.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
}

uint64_t TimespecNs(const timespec& ts) {
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void Append(const event::EventFields& f, ByteOrder order, std::vector<uint8_t>& out) {
  // Every event built here fits the 64-bit layout (buffers stay far below 64 KiB).
  (void)event::Encode(f, event::Layout::k64, order, out);
}

event::EventFields Generic(uint16_t hook, uint16_t subhook, uint64_t word,
                           std::span<const uint8_t> buffer) {
  event::EventFields f;
  f.hook_id = hook;
  f.subhook = subhook;
  f.generic = true;
  f.generic_word = word;
  f.buffer = buffer;
  return f;
}

// A cursor over a generic buffer that fails softly at its end.
struct Cursor {
  std::span<const uint8_t> bytes;
  ByteOrder order;
  size_t at = 0;
  bool ok = true;
  uint64_t Take(size_t n) {
    if (!ok || bytes.size() - at < n) {
      ok = false;
      return 0;
    }
    uint64_t v = LoadUnsigned(bytes.data() + at, n, order);
    at += n;
    return v;
  }
  std::string TakeS2() {
    size_t n = Take(2);
    if (!ok || bytes.size() - at < n) {
      ok = false;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(bytes.data() + at), n);
    at += n;
    return s;
  }
};

}  // namespace

void EncodePosixEvent(const EventRecord& e, std::string_view name, ByteOrder order,
                      std::vector<uint8_t>& out) {
  std::vector<uint8_t> buffer;
  size_t data_len = std::min<size_t>(e.data.size(), 0xFFFF - 64);
  Put32(buffer, static_cast<uint32_t>(e.pid), order);
  Put16(buffer, e.truncation, order);
  Put16(buffer, static_cast<uint16_t>(data_len), order);
  Put64(buffer, e.thread, order);
  PutS2(buffer, name.substr(0, TRACE_EVENT_NAME_MAX), order);
  buffer.insert(buffer.end(), e.data.begin(),
                e.data.begin() + static_cast<std::ptrdiff_t>(data_len));
  event::EventFields f = Generic(kHookPosixEvent, e.event_id, e.prog_address, buffer);
  f.thread_id = static_cast<uint64_t>(e.kernel_tid);
  f.timestamped = true;
  f.timestamp = e.realtime_ns;
  Append(f, order, out);
}

void EncodeEventType(unsigned id, std::string_view name, ByteOrder order,
                     std::vector<uint8_t>& out) {
  std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(name.data()), name.size());
  Append(Generic(kHookPosixEventType, static_cast<uint16_t>(id), 0, bytes), order, out);
}

void EncodeStreamAttributes(const trace_attr_t& attr, ByteOrder order, std::vector<uint8_t>& out) {
  std::vector<uint8_t> buffer;
  Put32(buffer, kStreamRecordVersion, order);
  Put32(buffer, static_cast<uint32_t>(attr.__stream_policy), order);
  Put32(buffer, static_cast<uint32_t>(attr.__log_policy), order);
  Put32(buffer, static_cast<uint32_t>(attr.__inheritance), order);
  Put64(buffer, attr.__max_data_size, order);
  Put64(buffer, attr.__stream_size, order);
  Put64(buffer, attr.__log_size, order);
  Put64(buffer, TimespecNs(attr.__create_time), order);
  Put64(buffer, TimespecNs(attr.__clock_res), order);
  PutS2(buffer, attr.__name, order);
  PutS2(buffer, attr.__version, order);
  Append(Generic(kHookPosixStream, 0, 0, buffer), order, out);
}

void EncodeStatus(const StatusRecord& s, ByteOrder order, std::vector<uint8_t>& out) {
  event::EventFields f;
  f.hook_id = kHookPosixStatus;
  f.word_count = 5;
  f.words = {s.stream_overrun, s.log_overrun, s.log_full, s.flush_error, s.stream_full};
  f.timestamped = true;
  f.timestamp = RealtimeNs();
  Append(f, order, out);
}

void EncodeTimeIsNanoseconds(ByteOrder order, std::vector<uint8_t>& out) {
  std::vector<uint8_t> buffer = event::EncodeTimeConversion(event::TimeConversion{}, order);
  Append(Generic(event::kHookUtil, event::kUtilTimeConversion, 0, buffer), order, out);
}

void EncodeProcess(int32_t pid, int32_t tid, std::string_view path, ByteOrder order,
                   std::vector<uint8_t>& out) {
  std::vector<uint8_t> buffer;
  Put64(buffer, 0, order);  // parent pid: not known for a traced process
  Put64(buffer, static_cast<uint64_t>(tid), order);
  PutS2(buffer, path, order);
  Append(Generic(event::kHookUtil, event::kUtilProcess, static_cast<uint64_t>(pid), buffer), order,
         out);
}

std::optional<PosixEventView> ViewPosixEvent(const event::Event& e, ByteOrder order) {
  if (e.hook_id != kHookPosixEvent || !e.generic || e.subhook >= kMaxEventTypes)
    return std::nullopt;
  Cursor c{e.buffer, order};
  PosixEventView v;
  v.event_id = e.subhook;
  v.prog_address = e.generic_word;
  v.pid = static_cast<int32_t>(c.Take(4));
  v.truncation = static_cast<uint16_t>(c.Take(2));
  const size_t data_len = c.Take(2);
  v.thread = c.Take(8);
  const size_t name_len = c.Take(2);
  if (!c.ok || e.buffer.size() - c.at < name_len) return std::nullopt;
  v.name = std::string_view(reinterpret_cast<const char*>(e.buffer.data() + c.at), name_len);
  c.at += name_len;
  if (e.buffer.size() - c.at < data_len || v.truncation > 2) return std::nullopt;
  v.data = e.buffer.subspan(c.at, data_len);
  return v;
}

std::optional<DecodedEvent> DecodePosixEvent(const event::Event& e, ByteOrder order) {
  const auto view = ViewPosixEvent(e, order);
  if (!view) return std::nullopt;
  DecodedEvent d;
  d.record.event_id = view->event_id;
  d.record.prog_address = view->prog_address;
  d.record.kernel_tid = static_cast<int32_t>(e.thread_id);
  d.record.realtime_ns = e.timestamp;
  d.record.pid = view->pid;
  d.record.truncation = view->truncation;
  d.record.thread = view->thread;
  d.name = std::string(view->name);
  d.record.data.assign(view->data.begin(), view->data.end());
  return d;
}

std::optional<std::pair<unsigned, std::string>> DecodeEventType(const event::Event& e) {
  if (e.hook_id != kHookPosixEventType || !e.generic || e.subhook >= kMaxEventTypes ||
      e.buffer.size() > TRACE_EVENT_NAME_MAX) {
    return std::nullopt;
  }
  return std::make_pair(
      unsigned{e.subhook},
      std::string(reinterpret_cast<const char*>(e.buffer.data()), e.buffer.size()));
}

std::optional<trace_attr_t> DecodeStreamAttributes(const event::Event& e, ByteOrder order) {
  if (e.hook_id != kHookPosixStream || !e.generic) return std::nullopt;
  Cursor c{e.buffer, order};
  trace_attr_t a{};
  if (c.Take(4) != kStreamRecordVersion) return std::nullopt;
  a.__stream_policy = static_cast<int>(c.Take(4));
  a.__log_policy = static_cast<int>(c.Take(4));
  a.__inheritance = static_cast<int>(c.Take(4));
  a.__max_data_size = c.Take(8);
  a.__stream_size = c.Take(8);
  a.__log_size = c.Take(8);
  a.__create_time = NsToTimespec(c.Take(8));
  a.__clock_res = NsToTimespec(c.Take(8));
  std::string name = c.TakeS2();
  std::string version = c.TakeS2();
  if (!c.ok) return std::nullopt;
  std::snprintf(a.__name, sizeof a.__name, "%s", name.c_str());
  std::snprintf(a.__version, sizeof a.__version, "%s", version.c_str());
  return a;
}

std::optional<StatusRecord> DecodeStatus(const event::Event& e) {
  if (e.hook_id != kHookPosixStatus || e.generic || e.word_count != 5) return std::nullopt;
  return StatusRecord{e.words[0], e.words[1], e.words[2], e.words[3], e.words[4]};
}

}  // namespace rastrace::posix
