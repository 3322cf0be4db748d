// Builds small trace logs in memory for tests, golden cases and benchmarks: the events rastrace
// itself writes (header, process table, time conversion) plus any hook, in either layout and
// byte order.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/byte_order.h"
#include "common/result.h"
#include "event/event.h"

namespace rastrace::report {

class LogBuilder {
 public:
  explicit LogBuilder(event::Layout layout = event::Layout::k64,
                      ByteOrder order = ByteOrder::kLittle);

  // A hook with 0..5 data words; `timestamp` < 0 means no timestamp.
  LogBuilder& Hook(uint16_t id16, uint16_t subhook, std::initializer_list<uint64_t> words,
                   uint64_t tid, int64_t timestamp);
  // The same from a 32-bit application on a 64-bit kernel: 4-byte data words (the B flag).
  LogBuilder& Hook32BitData(uint16_t id16, uint16_t subhook, std::initializer_list<uint64_t> words,
                            uint64_t tid, int64_t timestamp);
  // A generic (trcgen) hook.
  LogBuilder& Generic(uint16_t id16, uint16_t subhook, uint64_t word,
                      std::span<const uint8_t> buffer, uint64_t tid, int64_t timestamp);
  // 003: start time and the six S2 strings.
  LogBuilder& Header(uint64_t start_seconds, std::string_view sysname, std::string_view node,
                     std::string_view release, std::string_view version, std::string_view machine,
                     std::string_view command, int64_t timestamp);
  // 00A/25C.
  LogBuilder& TimeConversion(uint64_t m, uint64_t d, uint64_t flag, int64_t timestamp);
  // 00A/0x100, 0x103, 0x104.
  LogBuilder& Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path,
                      int64_t timestamp);
  LogBuilder& Exec(uint64_t pid, std::string_view path, uint64_t tid, int64_t timestamp);
  LogBuilder& ThreadName(uint64_t tid, std::string_view name, int64_t timestamp);
  // 00A/0x108, in the thread's own stream: `tid` runs on `cpu` from here on.
  LogBuilder& Cpu(uint64_t tid, uint32_t cpu, int64_t timestamp);

  // Appends raw bytes (a truncated event, for error tests).
  LogBuilder& Raw(std::span<const uint8_t> bytes);

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  ByteOrder order() const { return order_; }
  // Writes the log; fails with the path and the reason.
  Result<void> WriteTo(const std::string& path) const;

  // An S2 string in this log's byte order.
  std::vector<uint8_t> S2(std::string_view text) const;
  std::vector<uint8_t> Word64(uint64_t value) const;

 private:
  void Add(const event::EventFields& fields);
  event::Layout layout_;
  ByteOrder order_;
  std::vector<uint8_t> bytes_;
};

}  // namespace rastrace::report
