/* Four threads calling one traced function; the totals show no hit lost a call.
 * Usage: dt_threads [calls per thread] [pause between calls, microseconds] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int calls = 100;
static int pause_us = 0;
static long totals[4];

__attribute__((noinline)) long worker_step(long thread, long i) { return thread * 1000 + i; }

static void* worker(void* arg) {
  long thread = (long)arg;
  for (long i = 0; i < calls; ++i) {
    totals[thread] += worker_step(thread, i);
    if (pause_us > 0) usleep(pause_us);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) calls = atoi(argv[1]);
  if (argc > 2) pause_us = atoi(argv[2]);
  pthread_t threads[4];
  for (long t = 0; t < 4; ++t) pthread_create(&threads[t], NULL, worker, (void*)t);
  for (int t = 0; t < 4; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < 4; ++t) printf("thread %d total %ld\n", t, totals[t]);
  return 0;
}
