/* A program that records COUNT TRCHKL5T hooks as fast as it can (data words: pid, i, i, i, i),
 * then prints its pid and the seconds it took. Started without RASTRACE_LOG it joins a running
 * `trace -a` session on its own: bench/session_hook_load.sh runs several at once and checks that
 * none of their hooks was lost. */
#include <rastrace/trchk.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double Now(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  const long count = argc > 1 ? atol(argv[1]) : 1000000;
  const unsigned long hook = argc > 2 ? strtoul(argv[2], NULL, 16) : 0x020;
  if (count <= 0 || hook == 0 || hook > 0xFFF) {
    fprintf(stderr, "usage: %s [COUNT [HOOK]]   (HOOK: a 12-bit AIX id in hex, default 020)\n",
            argv[0]);
    return 2;
  }
  const uint64_t pid = (uint64_t)getpid();
  const double start = Now();
  for (long i = 0; i < count; ++i) {
    TRCHKL5T((uint32_t)(hook << 20), pid, (uint64_t)i, (uint64_t)i, (uint64_t)i, (uint64_t)i);
  }
  printf("%llu %.6f\n", (unsigned long long)pid, Now() - start);
  return 0;
}
