#include "recorder/header_events.h"

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>

#include "event/encode.h"
#include "event/format.h"
#include "event/s2.h"

namespace rastrace::recorder {
namespace {

constexpr ByteOrder kOrder = NativeByteOrder();

void AppendEvent(const event::EventFields& fields, std::vector<uint8_t>& out) {
  // Every event built here is well formed (at most 5 words, buffers below 64 KiB).
  (void)event::Encode(fields, event::Layout::k64, kOrder, out);
}

event::EventFields Words(uint16_t hook, uint16_t subhook, std::initializer_list<uint64_t> words,
                         uint64_t thread_id, uint64_t timestamp, bool timestamped = true) {
  event::EventFields fields;
  fields.hook_id = hook;
  fields.subhook = subhook;
  fields.timestamped = timestamped;
  fields.word_count = static_cast<uint8_t>(words.size());
  std::copy(words.begin(), words.end(), fields.words.begin());
  fields.thread_id = thread_id;
  fields.timestamp = timestamped ? timestamp : 0;
  return fields;
}

event::EventFields Generic(uint16_t hook, uint16_t subhook, uint64_t word,
                           std::span<const uint8_t> buffer, uint64_t thread_id, uint64_t timestamp,
                           bool timestamped = true) {
  event::EventFields fields;
  fields.hook_id = hook;
  fields.subhook = subhook;
  fields.generic = true;
  fields.generic_word = word;
  fields.buffer = buffer;
  fields.timestamped = timestamped;
  fields.thread_id = thread_id;
  fields.timestamp = timestamped ? timestamp : 0;
  return fields;
}

std::string ReadCommandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  std::replace(raw.begin(), raw.end(), '\0', ' ');
  return raw;
}

std::string ReadExecPath() {
  char path[4096];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<size_t>(n)) : std::string();
}

}  // namespace

SessionInfo GatherSessionInfo() {
  SessionInfo info;
  utsname names{};
  if (uname(&names) == 0) {
    info.sysname = names.sysname;
    info.nodename = names.nodename;
    info.release = names.release;
    info.version = names.version;
    info.machine = names.machine;
  }
  info.command_line = ReadCommandLine();
  info.wall_seconds = static_cast<uint64_t>(std::time(nullptr));
  info.pid = static_cast<uint64_t>(getpid());
  info.ppid = static_cast<uint64_t>(getppid());
  info.start_thread = static_cast<uint64_t>(gettid());
  info.exec_path = ReadExecPath();
  const long configured = sysconf(_SC_NPROCESSORS_CONF);
  info.cpus_total = configured > 0 ? static_cast<uint64_t>(configured) : 0;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  info.cpus_traced = sched_getaffinity(0, sizeof allowed, &allowed) == 0
                         ? static_cast<uint64_t>(CPU_COUNT(&allowed))
                         : info.cpus_total;
  return info;
}

void AppendHeaderEvents(const SessionInfo& info, std::vector<uint8_t>& out) {
  const uint64_t tid = info.start_thread;
  const uint64_t ts = info.start_timestamp;
  for (uint32_t ch = 0; ch < 8; ++ch) {
    if (info.channels & (1u << ch)) {
      AppendEvent(Words(event::kHookTraceOn, 0, {ch}, tid, ts), out);
    }
  }
  std::vector<uint8_t> strings;
  for (const std::string* s : {&info.sysname, &info.nodename, &info.release, &info.version,
                               &info.machine, &info.command_line}) {
    event::AppendS2(*s, kOrder, strings);
  }
  // A command line over 64 KiB would not fit in the 16-bit length: keep the part that does.
  if (strings.size() > 0xFFFF) strings.resize(0xFFFF);
  AppendEvent(Generic(event::kHookHeader, 0, info.wall_seconds, strings, tid, ts), out);

  const std::vector<uint8_t> conversion = event::EncodeTimeConversion(info.conversion, kOrder);
  AppendEvent(Generic(event::kHookUtil, event::kUtilTimeConversion, 0, conversion, tid, ts), out);
  if (info.start_wall_ns != 0) {
    AppendEvent(Words(event::kHookUtil, event::kUtilWallClock, {info.start_wall_ns}, tid, ts), out);
  }
  AppendEvent(
      Words(event::kHookUtil, event::kUtilCpus, {info.cpus_total, info.cpus_traced}, tid, ts), out);
  AppendEvent(Words(event::kHookUtil, event::kUtilBufferMode,
                    {static_cast<uint64_t>(info.mode), info.buffer_bytes, info.log_bytes}, tid, ts),
              out);
  std::vector<uint8_t> process(16);
  Store<uint64_t>(process.data(), info.ppid, kOrder);
  Store<uint64_t>(process.data() + 8, info.pid, kOrder);  // the main thread's tid is the pid
  event::AppendS2(info.exec_path, kOrder, process);
  AppendEvent(Generic(event::kHookUtil, event::kUtilProcess, info.pid, process, tid, ts), out);
}

void AppendTraceOff(uint32_t channel, uint64_t thread_id, uint64_t timestamp,
                    std::vector<uint8_t>& out) {
  AppendEvent(Words(event::kHookTraceOff, 0, {channel}, thread_id, timestamp), out);
}

void AppendLost(uint64_t lost, uint64_t thread_id, uint64_t timestamp, std::vector<uint8_t>& out) {
  AppendEvent(Words(event::kHookLost, 0, {lost, thread_id}, thread_id, timestamp), out);
}

void AppendLogWrapped(uint64_t count, uint64_t thread_id, uint64_t timestamp,
                      std::vector<uint8_t>& out) {
  AppendEvent(Words(event::kHookLogWrapped, 0, {count}, thread_id, timestamp), out);
}

void AppendThreadName(uint64_t thread_id, std::string_view name, uint64_t pid,
                      std::vector<uint8_t>& out) {
  std::vector<uint8_t> buffer;
  event::AppendS2(name, kOrder, buffer);
  buffer.resize(buffer.size() + 8);
  Store<uint64_t>(buffer.data() + buffer.size() - 8, pid, kOrder);
  AppendEvent(Generic(event::kHookUtil, event::kUtilThreadName, thread_id, buffer, thread_id, 0,
                      /*timestamped=*/false),
              out);
}

}  // namespace rastrace::recorder
