// Builds small trace logs in memory for tests, golden cases and benchmarks of every part: the
// events rastrace itself writes (header, process table, time conversion, tracepoints, sources)
// plus any hook, in either layout and byte order. Encoding errors throw: a log a test cannot build
// is a broken test, not a case to handle.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"

namespace rastrace::event::testing {

class LogBuilder {
 public:
  // Little-endian unless told: the same bytes on every host, as golden files need.
  explicit LogBuilder(Layout layout = Layout::k64, ByteOrder order = ByteOrder::kLittle);

  // Any event, as the encoder takes it.
  LogBuilder& Fields(const EventFields& fields);
  // A hook with 0..5 data words from thread `tid`; `timestamp` < 0 means no timestamp.
  LogBuilder& Hook(uint16_t hook_id, uint16_t subhook, std::initializer_list<uint64_t> words,
                   uint64_t tid, int64_t timestamp);
  // The same from a 32-bit application on a 64-bit kernel: 4-byte data words (the B flag).
  LogBuilder& Hook32BitData(uint16_t hook_id, uint16_t subhook,
                            std::initializer_list<uint64_t> words, uint64_t tid, int64_t timestamp);
  // A generic (trcgen) hook: data word `word`, then `buffer`.
  LogBuilder& Generic(uint16_t hook_id, uint16_t subhook, uint64_t word,
                      std::span<const uint8_t> buffer, uint64_t tid, int64_t timestamp);
  LogBuilder& Generic(uint16_t hook_id, uint16_t subhook, uint64_t word, std::string_view buffer,
                      uint64_t tid, int64_t timestamp);

  // 003: start time and the six S2 strings.
  LogBuilder& Header(uint64_t start_seconds, std::string_view sysname, std::string_view node,
                     std::string_view release, std::string_view version, std::string_view machine,
                     std::string_view command, int64_t timestamp);
  // 00A/25C from thread 0.
  LogBuilder& TimeConversion(uint64_t multiplier, uint64_t divisor, uint64_t flag = 2,
                             int64_t timestamp = -1);
  // The process table, 00A/0x100 (pid, ppid, tid, path), 0x103 (pid, path) and 0x104 (tid, name).
  // Without a timestamp: as a session writes the table, from thread 0 with no timestamp. With one:
  // from the thread itself (`timestamp` < 0: still none).
  LogBuilder& Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path);
  LogBuilder& Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path,
                      int64_t timestamp);
  LogBuilder& Exec(uint64_t pid, std::string_view path);
  LogBuilder& Exec(uint64_t pid, std::string_view path, uint64_t tid, int64_t timestamp);
  LogBuilder& ThreadName(uint64_t tid, std::string_view name);
  LogBuilder& ThreadName(uint64_t tid, std::string_view name, int64_t timestamp);
  // 00A/0x108, in the thread's own stream: `tid` runs on `cpu` from here on.
  LogBuilder& Cpu(uint64_t tid, uint32_t cpu, int64_t timestamp);
  // 00A/0x109, as trace on --log writes it: kind 0 inside, 1 entry, 2 return (RETEP).
  LogBuilder& TracepointDef(uint16_t major, uint16_t minor, uint16_t kind, std::string_view name);
  // A 00C dynamic tracepoint hit: subhook minor, data word major | flags << 16 | pid << 32.
  LogBuilder& TracepointHit(uint16_t major, uint16_t minor, uint32_t pid, uint64_t tid,
                            int64_t timestamp, std::string_view data = {});
  // 00A/0x105, as rastrace merge writes it.
  LogBuilder& Source(uint64_t number, std::string_view name, int64_t timestamp);
  // Raw bytes (a truncated event, for error tests).
  LogBuilder& Raw(std::span<const uint8_t> bytes);

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  ByteOrder order() const { return order_; }
  // Writes the log; fails with the path and the reason.
  Result<void> WriteTo(const std::string& path) const;

  // An S2 string and an 8-byte number in this log's byte order, for hand-made buffers.
  std::vector<uint8_t> S2(std::string_view text) const;
  std::vector<uint8_t> Word64(uint64_t value) const;

 private:
  std::vector<uint8_t> ProcessBuffer(uint64_t ppid, uint64_t tid, std::string_view path) const;
  Layout layout_;
  ByteOrder order_;
  std::vector<uint8_t> bytes_;
};

}  // namespace rastrace::event::testing
