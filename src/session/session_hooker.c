/* A program linked with librastrace for the session tests: it records COUNT hooks HOOK (a 12-bit
 * AIX id in hex) with data words pid and i, from THREADS threads, prints its pid and then, by
 * MODE: exits (default); "abort"s; "kill"s itself with SIGKILL right after its last hook; "stop"s
 * itself with SIGSTOP right after its last hook (the test then kills it); "fork"s a
 * child that records the same hooks with its own pid (and prints it); or "linger"s until tracing
 * is turned off (at most 20 s). Mode "idle" prints its pid first, then records one hook every
 * millisecond (data word 2 = 1 when channel 0 was on just before) until tracing has been on and is
 * off again (at most 20 s), then prints how many of its hooks found channel 0 on (and "on PID" on
 * stderr after its first hook that found it on). Mode "forkidle"
 * forks first and both run "idle": the parent prints its pid and the child's at once, the child
 * "child ON" when it ends, the parent its count after the child has ended.
 * Started without RASTRACE_LOG, it joins the running session on its own. */
#include <pthread.h>
#include <rastrace/trchk.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long g_hook;
static long g_count;

static void* Hook(void* unused) {
  (void)unused;
  for (long i = 0; i < g_count; ++i) TRCHKL2T((uint32_t)(g_hook << 20), (uint64_t)getpid(), i);
  return NULL;
}

/* Started before any session: it must join one that starts later on its own. Returns how many of
 * its hooks found channel 0 on. */
static long IdleHooks(void) {
  struct timespec pause = {0, 1000000};
  long on_hooks = 0;
  int seen_on = 0;
  for (int waited = 0; waited < 20000; ++waited) {
    const int on = RASTRACE_CHANNEL_ON(0) != 0;
    if (on) ++on_hooks;
    if (seen_on && !on) break;
    TRCHKL2T((uint32_t)(g_hook << 20), (uint64_t)getpid(), (uint64_t)on);
    /* "on PID" on stderr once its first hook with channel 0 on is recorded: the test waits for
     * it instead of sleeping. */
    if (on && !seen_on) fprintf(stderr, "on %d\n", (int)getpid());
    seen_on |= on;
    nanosleep(&pause, NULL);
  }
  return on_hooks;
}

static int Idle(void) {
  printf("%d\n", (int)getpid());
  fflush(stdout);
  printf("%ld\n", IdleHooks());
  return 0;
}

/* A pre-forking server: the worker is forked before any session exists and must join it too. The
 * fork waits until the attach thread started at load has settled: gcc 12's ASan allocator is not
 * fork-safe, and a fork while that thread allocates could leave the child's allocator locked. */
static int ForkIdle(void) {
  const struct timespec settle = {0, 200000000};
  nanosleep(&settle, NULL);
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    const long on_hooks = IdleHooks();
    printf("child %ld\n", on_hooks);
    fflush(stdout);
    return 0;
  }
  printf("%d %d\n", (int)getpid(), (int)child);
  fflush(stdout);
  const long on_hooks = IdleHooks();
  waitpid(child, NULL, 0);
  printf("%ld\n", on_hooks);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: session_hooker HOOK COUNT [THREADS [abort|fork|linger]]\n");
    return 2;
  }
  g_hook = strtoul(argv[1], NULL, 16);
  g_count = strtol(argv[2], NULL, 10);
  int threads = argc > 3 ? atoi(argv[3]) : 1;
  if (threads < 1 || threads > 64) threads = 1;
  const char* mode = argc > 4 ? argv[4] : "";
  if (strcmp(mode, "idle") == 0) return Idle();
  if (strcmp(mode, "forkidle") == 0) return ForkIdle();
  pthread_t ids[64];
  for (int t = 1; t < threads; ++t) pthread_create(&ids[t], NULL, Hook, NULL);
  Hook(NULL);
  for (int t = 1; t < threads; ++t) pthread_join(ids[t], NULL);
  printf("%d\n", (int)getpid());
  fflush(stdout);
  if (strcmp(mode, "abort") == 0) abort();
  if (strcmp(mode, "kill") == 0) raise(SIGKILL);
  if (strcmp(mode, "stop") == 0) raise(SIGSTOP);
  if (strcmp(mode, "fork") == 0) {
    pid_t child = fork();
    if (child == 0) {
      Hook(NULL);
      printf("%d\n", (int)getpid());
      /* Before exit: LeakSanitizer's check at exit runs before stdio is flushed, and in the child
       * of a threaded process it may report (false) leaks and abort. */
      fflush(stdout);
      return 0;
    }
    waitpid(child, NULL, 0);
  }
  if (strcmp(mode, "linger") == 0) {
    struct timespec pause = {0, 1000000};
    for (int waited = 0; waited < 20000 && RASTRACE_CHANNEL_ON(0); ++waited) {
      nanosleep(&pause, NULL);
    }
  }
  return 0;
}
