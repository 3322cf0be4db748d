#include "posix/trace_table.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <new>

#include "posix/process.h"

namespace rastrace::posix {
namespace {

std::mutex g_table_mutex;
std::map<trace_id_t, std::shared_ptr<Trace>>& Table() {
  // Destroyed at exit, which shuts down the streams left open (their logs get their last events).
  static std::map<trace_id_t, std::shared_ptr<Trace>> table;
  return table;
}
trace_id_t g_next_id = 1;

// A forked child owns none of its parent's streams and logs: it must not flush, shut down or
// join the flusher threads (which do not exist in it) when it exits. Their objects are kept,
// never destroyed.
std::map<trace_id_t, std::shared_ptr<Trace>>* g_orphans = nullptr;  // reachable, never freed

void ForgetTracesInChild() {
  new (&g_table_mutex) std::mutex();
  auto orphans = std::make_unique<std::map<trace_id_t, std::shared_ptr<Trace>>>();
  orphans->swap(Table());
  if (g_orphans != nullptr) orphans->merge(*g_orphans);
  g_orphans = orphans.release();
}

__attribute__((constructor)) void RegisterForkHandler() {
  pthread_atfork(nullptr, nullptr, ForgetTracesInChild);
}

// Scans the whole log for what posix_trace_open reports before any event is read.
int ScanLog(LogTrace& trace) {
  bool have_attr = false;
  event::Event e;
  for (;;) {
    event::ReadStatus status = trace.reader->Next(e);
    if (status != event::ReadStatus::kEvent) break;
    ByteOrder order = trace.reader->byte_order();
    if (auto attr = DecodeStreamAttributes(e, order)) {
      if (!have_attr) trace.attr = *attr;
      have_attr = true;
    } else if (auto type = DecodeEventType(e)) {
      trace.names[type->first] = type->second;
      trace.named[type->first] = true;
    } else if (auto status_record = DecodeStatus(e)) {
      trace.status = *status_record;
    } else if (auto posix_event = DecodePosixEvent(e, order)) {
      // A type whose name event was lost (LOOP log) is still named by its events.
      unsigned id = posix_event->record.event_id;
      if (!trace.named[id]) {
        trace.names[id] = posix_event->name;
        trace.named[id] = true;
      }
    }
  }
  if (!have_attr) return EINVAL;  // a trace log, but not of a POSIX trace stream
  // The system types have the standard's names, also in logs written before rastrace used them
  // (upper case).
  for (unsigned id = 0; id < kSystemEventCount; ++id) {
    if (trace.named[id]) trace.names[id] = SystemEventName(id);
  }
  return trace.Rewind();
}

int Register(std::shared_ptr<LogTrace> trace, trace_id_t* trid) {
  auto reader = trace->path.empty() ? event::LogReader::FromBytes(trace->bytes, "<memory>")
                                    : event::LogReader::Open(trace->path);
  if (!reader.ok()) return EINVAL;
  trace->reader = std::make_unique<event::LogReader>(std::move(reader.value()));
  if (int rc = ScanLog(*trace); rc != 0) return rc;
  *trid = AddTrace(std::move(trace));
  return 0;
}

}  // namespace

ActiveTrace::~ActiveTrace() {
  log.reset();
  munmap(stream, map_bytes);
}

int LogTrace::Rewind() {
  auto fresh =
      path.empty() ? event::LogReader::FromBytes(bytes, "<memory>") : event::LogReader::Open(path);
  if (!fresh.ok()) return EINVAL;
  reader = std::make_unique<event::LogReader>(std::move(fresh.value()));
  return 0;
}

trace_id_t AddTrace(std::shared_ptr<Trace> trace) {
  trace->owner_pid = g_pid;
  std::lock_guard lock(g_table_mutex);
  trace_id_t id = g_next_id++;
  Table().emplace(id, std::move(trace));
  return id;
}

std::shared_ptr<Trace> FindTrace(trace_id_t trid) {
  std::lock_guard lock(g_table_mutex);
  auto it = Table().find(trid);
  if (it == Table().end() || it->second->owner_pid != g_pid) return nullptr;
  return it->second;
}

std::shared_ptr<Trace> RemoveTrace(trace_id_t trid) {
  std::lock_guard lock(g_table_mutex);
  auto it = Table().find(trid);
  if (it == Table().end() || it->second->owner_pid != g_pid) return nullptr;
  std::shared_ptr<Trace> trace = std::move(it->second);
  Table().erase(it);
  return trace;
}

int OpenLogTrace(int fd, trace_id_t* trid) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_WRONLY) return EBADF;
  auto trace = std::make_shared<LogTrace>();
  // Reopening through /proc gives a reader of its own offset, and rewinding is reopening.
  trace->path = "/proc/self/fd/" + std::to_string(fd);
  return Register(std::move(trace), trid);
}

int OpenLogTraceFromBytes(std::vector<uint8_t> bytes, trace_id_t* trid) {
  auto trace = std::make_shared<LogTrace>();
  trace->bytes = std::move(bytes);
  return Register(std::move(trace), trid);
}

}  // namespace rastrace::posix
