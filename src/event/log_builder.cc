#include "event/log_builder.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "event/encode.h"
#include "event/format.h"
#include "event/s2.h"
#include "event/timebase.h"

namespace rastrace::event::testing {

namespace {

EventFields At(uint16_t hook_id, uint16_t subhook, uint64_t tid, int64_t timestamp) {
  EventFields fields;
  fields.hook_id = hook_id;
  fields.subhook = subhook;
  fields.thread_id = tid;
  fields.timestamped = timestamp >= 0;
  fields.timestamp = timestamp >= 0 ? static_cast<uint64_t>(timestamp) : 0;
  return fields;
}

}  // namespace

LogBuilder::LogBuilder(Layout layout, ByteOrder order) : layout_(layout), order_(order) {
  EncodeMagic(layout, order, bytes_);
}

LogBuilder& LogBuilder::Fields(const EventFields& fields) {
  auto encoded = Encode(fields, layout_, order_, bytes_);
  if (!encoded.ok()) throw std::runtime_error("LogBuilder: " + encoded.error().message);
  return *this;
}

LogBuilder& LogBuilder::Hook(uint16_t hook_id, uint16_t subhook,
                             std::initializer_list<uint64_t> words, uint64_t tid,
                             int64_t timestamp) {
  EventFields fields = At(hook_id, subhook, tid, timestamp);
  for (uint64_t w : words) fields.words[fields.word_count++] = w;
  return Fields(fields);
}

LogBuilder& LogBuilder::Hook32BitData(uint16_t hook_id, uint16_t subhook,
                                      std::initializer_list<uint64_t> words, uint64_t tid,
                                      int64_t timestamp) {
  EventFields fields = At(hook_id, subhook, tid, timestamp);
  fields.data32 = true;
  for (uint64_t w : words) fields.words[fields.word_count++] = w;
  return Fields(fields);
}

LogBuilder& LogBuilder::Generic(uint16_t hook_id, uint16_t subhook, uint64_t word,
                                std::span<const uint8_t> buffer, uint64_t tid, int64_t timestamp) {
  EventFields fields = At(hook_id, subhook, tid, timestamp);
  fields.generic = true;
  fields.generic_word = word;
  fields.buffer = buffer;
  return Fields(fields);
}

LogBuilder& LogBuilder::Generic(uint16_t hook_id, uint16_t subhook, uint64_t word,
                                std::string_view buffer, uint64_t tid, int64_t timestamp) {
  return Generic(hook_id, subhook, word,
                 std::span(reinterpret_cast<const uint8_t*>(buffer.data()), buffer.size()), tid,
                 timestamp);
}

std::vector<uint8_t> LogBuilder::S2(std::string_view text) const {
  std::vector<uint8_t> out;
  AppendS2(text, order_, out);
  return out;
}

std::vector<uint8_t> LogBuilder::Word64(uint64_t value) const {
  std::vector<uint8_t> out(8);
  Store<uint64_t>(out.data(), value, order_);
  return out;
}

LogBuilder& LogBuilder::Header(uint64_t start_seconds, std::string_view sysname,
                               std::string_view node, std::string_view release,
                               std::string_view version, std::string_view machine,
                               std::string_view command, int64_t timestamp) {
  std::vector<uint8_t> buffer;
  for (std::string_view s : {sysname, node, release, version, machine, command}) {
    AppendS2(s, order_, buffer);
  }
  return Generic(kHookHeader, 0, start_seconds, buffer, 0, timestamp);
}

LogBuilder& LogBuilder::TimeConversion(uint64_t multiplier, uint64_t divisor, uint64_t flag,
                                       int64_t timestamp) {
  const auto buffer = EncodeTimeConversion({multiplier, divisor, flag}, order_);
  return Generic(kHookUtil, kUtilTimeConversion, 0, buffer, 0, timestamp);
}

std::vector<uint8_t> LogBuilder::ProcessBuffer(uint64_t ppid, uint64_t tid,
                                               std::string_view path) const {
  std::vector<uint8_t> buffer = Word64(ppid);
  const auto t = Word64(tid);
  buffer.insert(buffer.end(), t.begin(), t.end());
  AppendS2(path, order_, buffer);
  return buffer;
}

LogBuilder& LogBuilder::Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path) {
  return Generic(kHookUtil, kUtilProcess, pid, ProcessBuffer(ppid, tid, path), 0, -1);
}

LogBuilder& LogBuilder::Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path,
                                int64_t timestamp) {
  return Generic(kHookUtil, kUtilProcess, pid, ProcessBuffer(ppid, tid, path), tid, timestamp);
}

LogBuilder& LogBuilder::Exec(uint64_t pid, std::string_view path) {
  return Generic(kHookUtil, kUtilExec, pid, S2(path), 0, -1);
}

LogBuilder& LogBuilder::Exec(uint64_t pid, std::string_view path, uint64_t tid, int64_t timestamp) {
  return Generic(kHookUtil, kUtilExec, pid, S2(path), tid, timestamp);
}

LogBuilder& LogBuilder::ThreadName(uint64_t tid, std::string_view name) {
  return Generic(kHookUtil, kUtilThreadName, tid, S2(name), 0, -1);
}

LogBuilder& LogBuilder::ThreadName(uint64_t tid, std::string_view name, int64_t timestamp) {
  return Generic(kHookUtil, kUtilThreadName, tid, S2(name), tid, timestamp);
}

LogBuilder& LogBuilder::Cpu(uint64_t tid, uint32_t cpu, int64_t timestamp) {
  return Hook(kHookUtil, kUtilCpu, {cpu}, tid, timestamp);
}

LogBuilder& LogBuilder::TracepointDef(uint16_t major, uint16_t minor, uint16_t kind,
                                      std::string_view name) {
  const uint64_t word = major | uint64_t{minor} << 16 | uint64_t{kind} << 32;
  return Generic(kHookUtil, kUtilTracepointDef, word, S2(name), 0, -1);
}

LogBuilder& LogBuilder::TracepointHit(uint16_t major, uint16_t minor, uint32_t pid, uint64_t tid,
                                      int64_t timestamp, std::string_view data) {
  return Generic(kHookDynamicTracepoint, minor, major | uint64_t{pid} << 32, data, tid, timestamp);
}

LogBuilder& LogBuilder::Source(uint64_t number, std::string_view name, int64_t timestamp) {
  return Generic(kHookUtil, kUtilSource, number, S2(name), 0, timestamp);
}

LogBuilder& LogBuilder::Raw(std::span<const uint8_t> bytes) {
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return *this;
}

Result<void> LogBuilder::WriteTo(const std::string& path) const {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                       &std::fclose);
  if (!file) return MakeError("{}: {}", path, std::strerror(errno));
  if (std::fwrite(bytes_.data(), 1, bytes_.size(), file.get()) != bytes_.size()) {
    return MakeError("{}: write failed", path);
  }
  return Ok();
}

}  // namespace rastrace::event::testing
