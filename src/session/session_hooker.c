/* A program linked with librastrace for the session tests: it records COUNT hooks HOOK (a 12-bit
 * AIX id in hex) with data words pid and i, from THREADS threads, then exits. Started without
 * RASTRACE_LOG, it joins the running session on its own. */
#include <pthread.h>
#include <rastrace/trchk.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long g_hook;
static long g_count;

static void* Hook(void* unused) {
  (void)unused;
  for (long i = 0; i < g_count; ++i) TRCHKL2T((uint32_t)(g_hook << 20), (uint64_t)getpid(), i);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: session_hooker HOOK COUNT [THREADS]\n");
    return 2;
  }
  g_hook = strtoul(argv[1], NULL, 16);
  g_count = strtol(argv[2], NULL, 10);
  int threads = argc > 3 ? atoi(argv[3]) : 1;
  if (threads < 1 || threads > 64) threads = 1;
  pthread_t ids[64];
  for (int t = 1; t < threads; ++t) pthread_create(&ids[t], NULL, Hook, NULL);
  Hook(NULL);
  for (int t = 1; t < threads; ++t) pthread_join(ids[t], NULL);
  printf("%d\n", (int)getpid());
  return 0;
}
