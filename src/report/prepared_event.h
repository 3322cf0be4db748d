// One event as the formatting stages see it: the decoded event plus what the report derived from
// the events before it. Holds no memory of its own, so a parallel report can point it into a
// batch.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/byte_order.h"
#include "event/event.h"

namespace rastrace::report {

struct PreparedEvent {
  const event::Event* event = nullptr;
  std::string_view logfile;
  ByteOrder byte_order = ByteOrder::kLittle;
  event::Layout trace_layout = event::Layout::k64;
  uint64_t sequence = 0;  // among all events read (orders process-table changes)
  uint64_t line_no = 0;   // among the events of the report ($RELLINENO)
  int64_t elapsed_ns = 0;
  bool timestamped = false;
  uint64_t pid = 0;
  uint64_t tid = 0;
  uint32_t cpu = 0;       // of the thread, from 00A/108 ($CPUID, the CPU column)
  uint32_t priority = 0;  // of the thread, from the kernel's 106 DISPATCH ($PRI)
  std::string_view exec_path;
  std::string_view process_name;  // the PROCESS NAME column
  std::string_view svc;           // the system call the thread is in ($SVC, SYSTEM CALL column)
  uint32_t total_cpus = 1;
  uint32_t traced_cpus = 1;
  uint32_t reported_cpus = 1;
};

}  // namespace rastrace::report
