/* A traced loop for the benchmark: calls probe_target N times and prints the mean time per
 * iteration in ns (the loop alone, without start-up). Usage: dt_loop N */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noinline)) long probe_target(long i) { return i * 3 + 1; }

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long i = 0; i < n; ++i) sink += probe_target(i);
  clock_gettime(CLOCK_MONOTONIC, &end);
  double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
  printf("ns_per_iteration %.1f\n", n > 0 ? ns / n : 0.0);
  return 0;
}
