/* The hook as users run it (bench/hook_e2e.sh): a program built against include/ and the shared
 * library, started by `rastrace record`, timing its own loops with clock_gettime.
 *
 *   hook_e2e rdtsc N          ns per iteration of a bare rdtsc loop (the floor)
 *   hook_e2e stores N MIB     ns per iteration of rdtsc plus the 64 bytes of a TRCHKL5T event
 *                             stored into a populated MIB MiB ring of /dev/shm, wrapping, with
 *                             the hook's prefetch: the event's memory traffic without the library
 *   hook_e2e hook N           ns per TRCHKL5T over N calls (one warm-up call off the clock)
 *   hook_e2e latency N        median, p99 and p99.9 ns of single TRCHKL5T calls, each between two
 *                             fenced TSC reads, minus the same pair around nothing
 *   hook_e2e threads T N      events/s of T threads doing N TRCHKL5T each, started together
 * Prints the figures on one line. */
#include <fcntl.h>
#include <pthread.h>
#include <rastrace/trchk.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double thread_cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static volatile uint64_t sink;
static uint64_t published;

static double bare_rdtsc(long n) {
  uint64_t acc = 0;
  const double t0 = now_ns();
  for (long i = 0; i < n; i++) acc += __rdtsc();
  const double t1 = now_ns();
  sink = acc;
  return (t1 - t0) / (double)n;
}

/* The stores of an event as the hook makes them (hookword, five words, thread id, timestamp,
 * then the head published), into a ring file as `rastrace record` gives the hooks. */
static double stores(long n, size_t mib) {
  const size_t bytes = mib << 20;
  char path[64];
  snprintf(path, sizeof path, "/dev/shm/hook_e2e-stores-%d", (int)getpid());
  const int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 || posix_fallocate(fd, 0, (off_t)bytes) != 0) exit(1);
  uint64_t* ring = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  unlink(path);
  close(fd);
  if (ring == MAP_FAILED) exit(1);
  for (size_t i = 0; i < bytes / 8; i += 512) ring[i] = 0; /* every page faulted in */
  const uint64_t mask = bytes / 8 - 1;
  uint64_t head = 0;
  const double t0 = now_ns();
  for (long i = 0; i < n; i++) {
    uint64_t* e = ring + (head & mask);
    __builtin_prefetch((const char*)e + 1024, 1);
    e[0] = 0x8000002801200000ull;
    e[1] = (uint64_t)i;
    e[2] = 2;
    e[3] = 3;
    e[4] = 4;
    e[5] = 5;
    e[6] = 77;
    e[7] = __rdtsc();
    head += 8;
    __atomic_store_n(&published, head, __ATOMIC_RELEASE);
  }
  const double t1 = now_ns();
  munmap(ring, bytes);
  return (t1 - t0) / (double)n;
}

/* Wall-clock ns per event (what the script reports); with HOOK_E2E_CPU set in the environment, the
 * thread's CPU time per event too (to tell a hook's own cost from time the thread was not run). */
static double hooks(long n, double* cpu) {
  TRCHKL5T(0x01200000, -1, 2, 3, 4, 5); /* registers the thread, off the clock */
  const double c0 = thread_cpu_ns();
  const double t0 = now_ns();
  for (long i = 0; i < n; i++) TRCHKL5T(0x01200000, i, 2, 3, 4, 5);
  const double t1 = now_ns();
  *cpu = (thread_cpu_ns() - c0) / (double)n;
  return (t1 - t0) / (double)n;
}

static inline uint64_t fenced_ticks(void) {
  _mm_lfence();
  const uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
}

static int compare(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static double at(const uint64_t* sorted, long n, double p) {
  long i = (long)(p * (double)n);
  if (i >= n) i = n - 1;
  return (double)sorted[i];
}

static void latency(long n) {
  uint64_t* hook = malloc(sizeof(uint64_t) * (size_t)n);
  uint64_t* empty = malloc(sizeof(uint64_t) * (size_t)n);
  if (!hook || !empty) exit(1);
  memset(hook, 0, sizeof(uint64_t) * (size_t)n); /* touched before the clock starts */
  memset(empty, 0, sizeof(uint64_t) * (size_t)n);
  TRCHKL5T(0x01200000, -1, 2, 3, 4, 5);
  const double ns0 = now_ns();
  const uint64_t tick0 = __rdtsc();
  for (long i = 0; i < n; i++) {
    const uint64_t t0 = fenced_ticks();
    TRCHKL5T(0x01200000, i, 2, 3, 4, 5);
    const uint64_t t1 = fenced_ticks();
    const uint64_t t2 = fenced_ticks();
    hook[i] = t1 - t0;
    empty[i] = t2 - t1;
  }
  const double ns_per_tick = (now_ns() - ns0) / (double)(__rdtsc() - tick0);
  qsort(hook, (size_t)n, sizeof(uint64_t), compare);
  qsort(empty, (size_t)n, sizeof(uint64_t), compare);
  const double pair = at(empty, n, 0.5);
#define NS(p) ((at(hook, n, p) > pair ? at(hook, n, p) - pair : 0.0) * ns_per_tick)
  printf("%.1f %.1f %.1f %.1f\n", NS(0.5), NS(0.99), NS(0.999), pair * ns_per_tick);
  free(hook);
  free(empty);
}

static pthread_barrier_t start_line;
static long per_thread;

static void* hook_thread(void* unused) {
  (void)unused;
  TRCHKL5T(0x01200000, -1, 2, 3, 4, 5); /* registers the thread, off the clock */
  pthread_barrier_wait(&start_line);
  for (long i = 0; i < per_thread; i++) TRCHKL5T(0x01200000, i, 2, 3, 4, 5);
  return NULL;
}

static void threads(int count, long n) {
  pthread_t tid[64];
  per_thread = n;
  pthread_barrier_init(&start_line, NULL, (unsigned)count + 1);
  for (int i = 0; i < count; i++) pthread_create(&tid[i], NULL, hook_thread, NULL);
  pthread_barrier_wait(&start_line);
  const double t0 = now_ns();
  for (int i = 0; i < count; i++) pthread_join(tid[i], NULL);
  const double t1 = now_ns();
  printf("%.0f\n", (double)count * (double)n / ((t1 - t0) / 1e9));
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "rdtsc") == 0) {
    printf("%.2f\n", bare_rdtsc(atol(argv[2])));
  } else if (argc == 4 && strcmp(argv[1], "stores") == 0) {
    printf("%.2f\n", stores(atol(argv[2]), (size_t)atol(argv[3])));
  } else if (argc == 3 && strcmp(argv[1], "hook") == 0) {
    double cpu = 0;
    const double wall = hooks(atol(argv[2]), &cpu);
    if (getenv("HOOK_E2E_CPU")) {
      printf("%.2f/%.2f\n", wall, cpu);
    } else {
      printf("%.2f\n", wall);
    }
  } else if (argc == 3 && strcmp(argv[1], "latency") == 0) {
    latency(atol(argv[2]));
  } else if (argc == 4 && strcmp(argv[1], "threads") == 0) {
    const int count = atoi(argv[2]);
    if (count < 1 || count > 64) return 2;
    threads(count, atol(argv[3]));
  } else {
    fprintf(stderr, "usage: %s rdtsc|hook|latency N | stores N MIB | threads T N\n", argv[0]);
    return 2;
  }
  return 0;
}
