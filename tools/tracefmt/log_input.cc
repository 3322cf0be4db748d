#include "log_input.h"

#include <ctime>

#include "common/byte_order.h"
#include "event/format.h"
#include "event/reader.h"
#include "event/timebase.h"

namespace rastrace::tracefmt {

bool IsRastraceLog(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return false;
  for (ByteOrder order : {ByteOrder::kLittle, ByteOrder::kBig}) {
    const uint32_t word = Load32(bytes.data(), order);
    if (word == event::kMagic64 || word == event::kMagic32) return true;
  }
  return false;
}

LogRecords ReadLogRecords(const std::string& path,
                          const std::function<void(const stda::Record&)>& each) {
  LogRecords out;
  auto reader = event::LogReader::Open(path);
  if (!reader) {
    out.problems.push_back({0, reader.error().message});
    return out;
  }
  event::TimeBase time_base;
  // A recorder log's ticks count from an arbitrary origin: its 003 header gives the wall-clock
  // second tracing started, taken as the time of the first timestamped event. Without one (a
  // `trace on --log` log) the ticks are CLOCK_REALTIME nanoseconds.
  bool have_start = false;
  uint64_t start_s = 0;
  bool have_origin = false;
  uint64_t origin_ticks = 0;  // converted when used: 00A/25C comes after the first events
  event::Event e;
  event::ReadStatus status;
  while ((status = reader->Next(e)) == event::ReadStatus::kEvent) {
    ++out.events;
    time_base.Observe(e, reader->byte_order());
    if (e.timestamped && !have_origin) {
      have_origin = true;
      origin_ticks = e.timestamp;
    }
    if (e.hook_id == event::kHookHeader && e.generic && !have_start) {
      have_start = true;
      start_s = e.generic_word;
    }
    if (e.hook_id == event::kHookLost && !e.generic && e.word_count >= 1) out.lost += e.words[0];
    if (e.hook_id != event::kHookDynamicTracepoint || !e.generic) continue;
    ++out.records;
    if (!each) continue;
    stda::Record r;
    r.major = static_cast<uint16_t>(e.generic_word & 0xFFFF);
    r.flags = static_cast<uint8_t>(e.generic_word >> 16);
    r.pid = static_cast<uint16_t>(e.generic_word >> 32);  // what an STDA trailer keeps of it
    r.minor = e.subhook;
    if (e.timestamped) {
      const uint64_t ns = time_base.ToNanoseconds(e.timestamp);
      const uint64_t origin_ns = time_base.ToNanoseconds(origin_ticks);
      r.time = stda::LocalTimestamp(have_start ? start_s * 1000000000u + (ns - origin_ns) : ns);
    }
    r.data.assign(e.buffer.begin(), e.buffer.end());
    each(r);
  }
  if (status == event::ReadStatus::kError) {
    out.problems.push_back({reader->offset(), reader->error().message});
  }
  return out;
}

}  // namespace rastrace::tracefmt
