// Test helpers: synthetic logs built event by event, and a small JSON reader to check exports.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::exporter::testing {

class LogBuilder {
 public:
  explicit LogBuilder(ByteOrder order = NativeByteOrder(),
                      event::Layout layout = event::Layout::k64);

  LogBuilder& TimeConversion(uint64_t multiplier, uint64_t divisor);
  // 00A/0x100: pid, ppid, tid, path.
  LogBuilder& Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path);
  LogBuilder& Exec(uint64_t pid, std::string_view path);
  LogBuilder& ThreadName(uint64_t tid, std::string_view name);
  // 00A/0x108: thread `tid`'s following events run on `cpu`.
  LogBuilder& Cpu(uint64_t tid, uint32_t cpu, uint64_t ticks);
  // 00A/0x109, as trace on --log writes it: kind 0 inside, 1 entry, 2 return (RETEP).
  LogBuilder& TracepointDef(uint16_t major, uint16_t minor, uint16_t kind, std::string_view name);
  // A 00C dynamic tracepoint hit: subhook minor, data word major | flags << 16 | pid << 32.
  LogBuilder& TracepointHit(uint16_t major, uint16_t minor, uint32_t pid, uint64_t tid,
                            uint64_t ticks, std::string_view data = {});
  // 00A/0x105, as rastrace merge writes it.
  LogBuilder& Source(uint64_t number, std::string_view name, uint64_t ticks);
  // A timestamped hook with data words (ticks 0 and timestamped false: no timestamp).
  LogBuilder& Hook(uint16_t hook_id, uint16_t subhook, uint64_t tid, uint64_t ticks,
                   std::initializer_list<uint64_t> words = {}, bool timestamped = true);
  LogBuilder& Generic(uint16_t hook_id, uint16_t subhook, uint64_t tid, uint64_t ticks,
                      uint64_t data_word, std::string_view buffer, bool timestamped = true);
  LogBuilder& Fields(const event::EventFields& fields);

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  void WriteTo(const std::string& path) const;
  ByteOrder order() const { return order_; }

 private:
  std::vector<uint8_t> S2(std::string_view text) const;
  ByteOrder order_;
  event::Layout layout_;
  std::vector<uint8_t> bytes_;
};

// A parsed JSON value (tests only: no performance or error-position concerns).
struct Json {
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;  // in file order
  std::variant<std::nullptr_t, bool, double, std::string, Array, Object> value;
  std::string number_text;  // numbers as written, for exact 64-bit comparisons

  bool is_null() const { return std::holds_alternative<std::nullptr_t>(value); }
  const std::string& str() const { return std::get<std::string>(value); }
  const Array& array() const { return std::get<Array>(value); }
  const Object& object() const { return std::get<Object>(value); }
  bool boolean() const { return std::get<bool>(value); }
  double number() const { return std::get<double>(value); }
  uint64_t u64() const { return std::stoull(number_text); }
  bool has(std::string_view key) const;
  const Json& operator[](std::string_view key) const;  // throws when missing
};

// Parses one JSON text; throws std::runtime_error with the offset on invalid JSON.
Json ParseJson(std::string_view text);

std::string ReadFile(const std::string& path);

// A fresh directory under the build tree, removed with everything in it by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace rastrace::exporter::testing
