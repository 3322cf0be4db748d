#include "report/log_builder.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "event/encode.h"
#include "event/format.h"
#include "event/s2.h"

namespace rastrace::report {

LogBuilder::LogBuilder(event::Layout layout, ByteOrder order) : layout_(layout), order_(order) {
  event::EncodeMagic(layout, order, bytes_);
}

void LogBuilder::Add(const event::EventFields& fields) {
  auto r = event::Encode(fields, layout_, order_, bytes_);
  if (!r) std::fprintf(stderr, "LogBuilder: %s\n", r.error().message.c_str());
}

LogBuilder& LogBuilder::Hook(uint16_t id16, uint16_t subhook, std::initializer_list<uint64_t> words,
                             uint64_t tid, int64_t timestamp) {
  event::EventFields fields;
  fields.hook_id = id16;
  fields.subhook = subhook;
  fields.word_count = static_cast<uint8_t>(words.size());
  size_t i = 0;
  for (uint64_t w : words) fields.words[i++] = w;
  fields.thread_id = tid;
  fields.timestamped = timestamp >= 0;
  fields.timestamp = timestamp >= 0 ? static_cast<uint64_t>(timestamp) : 0;
  Add(fields);
  return *this;
}

LogBuilder& LogBuilder::Hook32BitData(uint16_t id16, uint16_t subhook,
                                      std::initializer_list<uint64_t> words, uint64_t tid,
                                      int64_t timestamp) {
  event::EventFields fields;
  fields.hook_id = id16;
  fields.subhook = subhook;
  fields.data32 = true;
  fields.word_count = static_cast<uint8_t>(words.size());
  size_t i = 0;
  for (uint64_t w : words) fields.words[i++] = w;
  fields.thread_id = tid;
  fields.timestamped = timestamp >= 0;
  fields.timestamp = timestamp >= 0 ? static_cast<uint64_t>(timestamp) : 0;
  Add(fields);
  return *this;
}

LogBuilder& LogBuilder::Generic(uint16_t id16, uint16_t subhook, uint64_t word,
                                std::span<const uint8_t> buffer, uint64_t tid, int64_t timestamp) {
  event::EventFields fields;
  fields.hook_id = id16;
  fields.subhook = subhook;
  fields.generic = true;
  fields.generic_word = word;
  fields.buffer = buffer;
  fields.thread_id = tid;
  fields.timestamped = timestamp >= 0;
  fields.timestamp = timestamp >= 0 ? static_cast<uint64_t>(timestamp) : 0;
  Add(fields);
  return *this;
}

std::vector<uint8_t> LogBuilder::S2(std::string_view text) const {
  std::vector<uint8_t> out;
  event::AppendS2(text, order_, out);
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
    auto s2 = S2(s);
    buffer.insert(buffer.end(), s2.begin(), s2.end());
  }
  return Generic(event::kHookHeader, 0, start_seconds, buffer, 0, timestamp);
}

LogBuilder& LogBuilder::TimeConversion(uint64_t m, uint64_t d, uint64_t flag, int64_t timestamp) {
  std::vector<uint8_t> buffer;
  for (uint64_t v : {m, d, flag}) {
    auto w = Word64(v);
    buffer.insert(buffer.end(), w.begin(), w.end());
  }
  return Generic(event::kHookUtil, event::kUtilTimeConversion, 0, buffer, 0, timestamp);
}

LogBuilder& LogBuilder::Process(uint64_t pid, uint64_t ppid, uint64_t tid, std::string_view path,
                                int64_t timestamp) {
  std::vector<uint8_t> buffer = Word64(ppid);
  auto t = Word64(tid);
  buffer.insert(buffer.end(), t.begin(), t.end());
  auto s = S2(path);
  buffer.insert(buffer.end(), s.begin(), s.end());
  return Generic(event::kHookUtil, event::kUtilProcess, pid, buffer, tid, timestamp);
}

LogBuilder& LogBuilder::Exec(uint64_t pid, std::string_view path, uint64_t tid, int64_t timestamp) {
  return Generic(event::kHookUtil, event::kUtilExec, pid, S2(path), tid, timestamp);
}

LogBuilder& LogBuilder::ThreadName(uint64_t tid, std::string_view name, int64_t timestamp) {
  return Generic(event::kHookUtil, event::kUtilThreadName, tid, S2(name), tid, timestamp);
}

LogBuilder& LogBuilder::Cpu(uint64_t tid, uint32_t cpu, int64_t timestamp) {
  return Hook(event::kHookUtil, event::kUtilCpu, {cpu}, tid, timestamp);
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

}  // namespace rastrace::report
