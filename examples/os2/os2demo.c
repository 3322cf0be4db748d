/* Records the static tracepoints of os2demo.tsf (through the header trcust --header generates
   at build time) into the system trace buffer, then saves the buffer as a TRACEFMT file for
   tracefmt. Usage: os2-example [SAVEFILE] */
#include <stdint.h>
#include <stdio.h>

#include "../example_usage.h"
#include "os2demo_trace.h"

struct record {
  uint16_t type;
  uint16_t length; /* bytes of the record, this header included */
  char body[12];
};

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] == '-') {
    return example_usage_exit("os2-example", " [SAVEFILE]", argv[1]);
  }
  const char* save = argc > 1 ? argv[1] : "os2demo.stda";
  if (rastrace_os2_configure(1, 4096) != 0) return 1;

  const char* path = "/etc/os2/config.sys";
  trace_os2_example_0001(path, 0x42);
  uint16_t result = 3;
  trace_os2_example_0002(&result);

  struct record rec = {7, 10, "payload"};
  trace_os2_example_0003(&rec);

  uint32_t value = 0xCAFE;
  const uint32_t* holder = &value;
  uint16_t tail = 0xBEEF;
  trace_os2_example_0004(&holder, &tail);
  holder = NULL; /* the tracepoint stores the bad pointer and nothing after it */
  trace_os2_example_0004(&holder, &tail);
  /* Unmapped (below mmap_min_addr): read without faulting, stored as status 2 with the pointer. */
  holder = (const uint32_t*)(uintptr_t)0x1000;
  trace_os2_example_0004(&holder, &tail);
  /* The pointer to follow is itself unreadable. */
  trace_os2_example_0004((const void*)(uintptr_t)0x2000, &tail);

  if (rastrace_os2_save_stda(save) != 0) {
    fprintf(stderr, "os2-example: cannot write %s\n", save);
    return 1;
  }
  printf("os2-example: wrote %s\n", save);
  return 0;
}
