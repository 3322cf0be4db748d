// The events a log starts with (TRACE ON, 003 header, 00A time conversion, cpus, buffer mode,
// process) and the utility events the writer adds while draining (thread names, lost events,
// log wrapped, TRACE OFF). All are encoded in the 64-bit layout and native byte order.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "event/timebase.h"
#include "recorder/options.h"

namespace rastrace::recorder {

// What the header says about the process and the machine, gathered when a session starts.
struct SessionInfo {
  uint64_t start_timestamp = 0;  // raw ticks of TRACE ON
  // CLOCK_REALTIME nanoseconds read right after start_timestamp (0: not read): the 00A/0x10B wall
  // clock that places the log in real time.
  uint64_t start_wall_ns = 0;
  uint64_t start_thread = 0;     // tid of the thread that started tracing
  uint64_t wall_seconds = 0;     // seconds since 1970 at the start
  uint32_t channels = 0;
  buffer::Mode mode = buffer::Mode::kAlternate;
  uint64_t buffer_bytes = 0;
  uint64_t log_bytes = 0;
  event::TimeConversion conversion;
  // uname(2) fields, then the command line (arguments joined by spaces).
  std::string sysname, nodename, release, version, machine, command_line;
  uint64_t pid = 0, ppid = 0;
  std::string exec_path;
  uint64_t cpus_total = 0, cpus_traced = 0;
};

// Fills everything but the timestamp, conversion and options from the running process.
SessionInfo GatherSessionInfo();

// TRACE ON for each channel in info.channels, then 003, 00A/25C, 00A/10B (when start_wall_ns is
// set), 00A/101, 00A/102, 00A/100.
void AppendHeaderEvents(const SessionInfo& info, std::vector<uint8_t>& out);

void AppendTraceOff(uint32_t channel, uint64_t thread_id, uint64_t timestamp,
                    std::vector<uint8_t>& out);
// 006: word 1 = events lost, word 2 = the thread that lost them.
void AppendLost(uint64_t lost, uint64_t thread_id, uint64_t timestamp, std::vector<uint8_t>& out);
// 005: word 1 = how many times the log has wrapped (1 for the first new file).
void AppendLogWrapped(uint64_t count, uint64_t thread_id, uint64_t timestamp,
                      std::vector<uint8_t>& out);
// 00A/104 (untimestamped, so it never breaks timestamp order): word tid, buffer S2 name and the
// 8-byte pid of the thread's process (so reports give threads other than the main one their pid).
void AppendThreadName(uint64_t thread_id, std::string_view name, uint64_t pid,
                      std::vector<uint8_t>& out);

}  // namespace rastrace::recorder
