/* The seed 004 sample TSF, adapted to a real C program: DosOpen takes a file name, creates a
 * handle, and DosOpenC returns a code and fills a variable-length structure. Tests attach to its
 * symbols, one of its lines and its return point. Usage: dt_sample [iterations] [delay_ms]
 * [stop_file]: with a stop file it ends early, after the iteration that finds the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int lib_checksum(const char* text);

struct open_request {
  unsigned int flags;
  unsigned short mode;
  unsigned short size;
  char tag[8];
};

char FileName[128] = "CONFIG.SYS";
unsigned short handle;
unsigned short retcode;
/* Variable-length record: byte 2-3 hold its length (seed 004's LEN=(var_struct+2,DIRECT)). */
unsigned char var_struct[32] = {0xAB, 0xCD, 6, 0, 0x11, 0x22};
struct open_request* current_request;
void* bad_pointer = (void*)0x10;

__attribute__((noinline)) int CheckParm(unsigned short h) {
  return h != 0;
}

__attribute__((noinline)) int DosOpen(const char* name, struct open_request* request) {
  handle = (unsigned short)(strlen(name) + request->mode);
  CheckParm(handle); /* LINE:after_createhandle */
  return handle;
}

__attribute__((noinline)) int DosOpenC(int iteration) {
  retcode = (unsigned short)(0x100 + iteration);
  var_struct[4] = (unsigned char)iteration;
  return retcode;
}

int main(int argc, char** argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 3;
  int delay_ms = argc > 2 ? atoi(argv[2]) : 0;
  const char* stop_file = argc > 3 ? argv[3] : NULL;
  static struct open_request request = {0x40, 2, sizeof(struct open_request), "REQTAG1"};
  current_request = &request;
  for (int i = 0; i < iterations; ++i) {
    int h = DosOpen(FileName, &request);
    int rc = DosOpenC(i);
    printf("iteration %d handle %d rc 0x%x sum %d\n", i, h, rc, lib_checksum(FileName));
    fflush(stdout);
    if (stop_file != NULL && access(stop_file, F_OK) == 0) break;
    if (delay_ms > 0) {
      struct timespec pause = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
      nanosleep(&pause, NULL);
    }
  }
  return 0;
}
