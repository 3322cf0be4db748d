/* Records the static tracepoints of os2log.tsf, whose MAJOR (0x1234) does not fit an STDA
   record, into a rastrace log: run it with RASTRACE_LOG=FILE, then format FILE with
   `tracefmt -t TFFDIR FILE` (TFFDIR from `trcust os2log.tsf -o TFFDIR`). */
#include <stdint.h>
#include <stdio.h>

#include "../example_usage.h"
#include "os2log_trace.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    return example_usage_exit(
        "os2-log-example", " (no arguments; run it with RASTRACE_LOG=FILE)", argv[1]);
  }
  uint32_t id = 0x1001;
  uint16_t status = 200;
  const uint16_t* result = &status;
  trace_os2_log_example_0001("GET /index", &id);
  trace_os2_log_example_0002(&result);
  /* An address below mmap_min_addr is never mapped: the tracepoint stores status 2 with the
     pointer that could not be read, and the program goes on. */
  trace_os2_log_example_0002((const void*)(uintptr_t)0x1000);
  puts("os2-log-example: done");
  return 0;
}
