// Reads a tracefs instance's per-cpu binary buffers (per_cpu/cpuN/trace_pipe_raw) and hands the
// events, merged by timestamp, to the kernel collector as TraceLines (raw_events.h). The text
// trace_pipe stays the fallback when this cannot be set up.
#pragma once

#include <poll.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "session/cpu_order.h"
#include "session/raw_events.h"
#include "session/syscall_table.h"

namespace rastrace::session {

class RawPipeReader {
 public:
  // `tracefs` is the mount (header_page, the event formats, saved_tgids), `instance` the
  // instance's directory, `tracepoints` the events it has enabled ("sched/sched_switch"),
  // `syscalls` (kept by the caller) names the system calls. Fails, with the reason, when the
  // formats or pipes are not usable.
  static Result<std::unique_ptr<RawPipeReader>> Open(const std::string& tracefs,
                                                     const std::string& instance,
                                                     std::span<const std::string> tracepoints,
                                                     SyscallTable& syscalls);
  ~RawPipeReader();
  RawPipeReader(const RawPipeReader&) = delete;
  RawPipeReader& operator=(const RawPipeReader&) = delete;

  // The trace clock's current time, and how far before it an event may still be committed after
  // its cpu was read (reserved, not yet committed: interrupts, a stalled vCPU). Without a clock
  // a cpu read to its end counts as complete for ever, as in one round of trace_pipe.
  void SetClock(std::function<uint64_t()> now, uint64_t slack);

  // Reads what every cpu's buffer holds now (at most pages_per_round() pages per cpu) and passes
  // to `consume`, in timestamp order, every event no cpu can precede any more (cpu_order.h; the
  // others wait for a later round); false when nothing was read. Malformed pages are skipped and
  // counted. The full pages of a cpu are moved in bulk (splice into a pipe, then one read of the
  // pipe), the page being written is read on its own: a few system calls per cpu and round, not
  // one per page.
  bool ReadAvailable(const std::function<void(const KernelEvent&)>& consume);
  // Passes on the events still held back (after the last read: the buffers are empty).
  void Flush(const std::function<void(const KernelEvent&)>& consume);
  // Waits up to `timeout_ms` for data on any cpu (with tracefs buffer_percent set, for a cpu's
  // buffer to be that full).
  void Wait(int timeout_ms);
  uint64_t bad_pages() const { return bad_pages_; }
  // System calls made to read the buffers so far (splice, reads of the pipe and of pages).
  uint64_t read_calls() const { return read_calls_; }

  // Pages one round reads from each cpu: up to 256, within kRoundBytes for all cpus together
  // (at least 4, so that a machine with many cpus still makes progress).
  size_t pages_per_round() const { return pages_per_round_; }
  static constexpr size_t kRoundBytes = size_t{8} << 20;

 private:
  RawPipeReader(std::string tracefs, PageLayout layout, SyscallTable& syscalls);
  RawEventDecoder::Task LookupTask(uint32_t tid);
  // Reads up to `max_bytes` (whole pages) of cpu `i` into `dest`; `drained` when the cpu had no
  // more. Returns the bytes read.
  size_t ReadCpu(size_t i, uint8_t* dest, size_t max_bytes, bool& drained);

  std::string tracefs_;
  PageLayout layout_;
  RawEventDecoder decoder_;
  std::vector<pollfd> pipes_;  // one per cpu, fd -1 for a cpu without a buffer
  std::vector<uint32_t> cpus_;
  std::vector<uint8_t> pages_;  // the pages of one round
  CpuOrder order_;
  std::function<uint64_t()> now_;
  uint64_t slack_ = 0;
  std::vector<RawRecord> scratch_;
  uint64_t bad_pages_ = 0;
  uint64_t read_calls_ = 0;
  size_t pages_per_round_ = 4;
  // The pipe full pages are spliced into ({-1, -1} when splice cannot be used: pages are read one
  // at a time), and how many bytes it holds.
  int splice_pipe_[2] = {-1, -1};
  size_t splice_pipe_bytes_ = 0;
};

// /proc/<tid>/status (Tgid, Name), else the tracefs saved_tgids / saved_cmdlines of a thread that
// has exited already.
RawEventDecoder::Task LookUpTask(uint32_t tid, const std::string& tracefs);

}  // namespace rastrace::session
