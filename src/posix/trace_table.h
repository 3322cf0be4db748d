// The trace_id_t handles of this process: active streams it created and logs it opened. A handle
// is valid only in the process that made it (not in a forked child).
#pragma once

#include <trace.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "event/reader.h"
#include "posix/log_format.h"
#include "posix/log_sink.h"
#include "posix/stream.h"

namespace rastrace::posix {

class Trace {
 public:
  virtual ~Trace() = default;
  virtual bool active() const = 0;
  int32_t owner_pid = 0;
  std::mutex mutex;          // serializes reads (one consumer) and the type-list cursor
  unsigned type_cursor = 0;  // posix_trace_eventtypelist_getnext_id
};

// A stream created by posix_trace_create(_withlog).
class ActiveTrace : public Trace {
 public:
  ActiveTrace(StreamShared* s, size_t map_bytes, std::string shm_name, pid_t target)
      : stream(s),
        map_bytes(map_bytes),
        shm_name(std::move(shm_name)),
        target(target),
        reader(*s) {}
  ~ActiveTrace() override;
  bool active() const override { return true; }

  StreamShared* stream;
  size_t map_bytes;
  std::string shm_name;
  pid_t target;
  StreamReader reader;
  std::unique_ptr<LogSink> log;
  std::mutex control;  // start, stop, filter changes: their system events stay in order
};

// A pre-recorded stream opened by posix_trace_open: the whole log is scanned once for attributes,
// names and status; events are then read from a second, rewindable reader.
class LogTrace : public Trace {
 public:
  bool active() const override { return false; }
  trace_attr_t attr{};
  StatusRecord status;
  std::vector<std::string> names = std::vector<std::string>(kMaxEventTypes);
  std::vector<bool> named = std::vector<bool>(kMaxEventTypes);
  std::string path;            // re-read on rewind (empty: `bytes`)
  std::vector<uint8_t> bytes;  // a log given in memory (fuzzing)
  std::unique_ptr<event::LogReader> reader;
  int Rewind();
};

// Registers `trace` and returns its handle.
trace_id_t AddTrace(std::shared_ptr<Trace> trace);
// The trace of `trid` when valid in this process.
std::shared_ptr<Trace> FindTrace(trace_id_t trid);
std::shared_ptr<Trace> RemoveTrace(trace_id_t trid);

// Opens a log from a file descriptor or from memory (posix_trace_open and its fuzzer).
int OpenLogTrace(int fd, trace_id_t* trid);
int OpenLogTraceFromBytes(std::vector<uint8_t> bytes, trace_id_t* trid);

}  // namespace rastrace::posix
