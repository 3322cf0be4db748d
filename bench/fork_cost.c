/* CPU that fork costs a program linked with librastrace that waits for a session, against the
 * same program without it (built twice: fork_cost and fork_cost_plain). Each child _exits at once,
 * as most forked children exec at once. Prints microseconds of CPU per fork, parent and child
 * (getrusage), over COUNT forks (default 2000). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef RASTRACE_LINKED
#include <rastrace/trchk.h>
#endif

static double CpuSeconds(int who) {
  struct rusage usage;
  getrusage(who, &usage);
  return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char** argv) {
  const int count = argc > 1 ? atoi(argv[1]) : 2000;
  if (count <= 0) {
    fprintf(stderr, "usage: %s [COUNT]\n", argv[0]);
    return 2;
  }
#ifdef RASTRACE_LINKED
  TRCHKL0(0x01000000); /* a real use of the library, so it is loaded */
#endif
  const struct timespec settle = {0, 20000000};
  nanosleep(&settle, NULL);
  const double self = CpuSeconds(RUSAGE_SELF), children = CpuSeconds(RUSAGE_CHILDREN);
  for (int i = 0; i < count; ++i) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    if (child < 0) return 1;
    waitpid(child, NULL, 0);
  }
  printf("%s: CPU per fork: parent %.1f us, child %.1f us\n", argv[0],
         (CpuSeconds(RUSAGE_SELF) - self) / count * 1e6,
         (CpuSeconds(RUSAGE_CHILDREN) - children) / count * 1e6);
  return 0;
}
