/* The program of issue 18: process_item(name, qty) is called N times with names that change
 * (rewritten into one heap buffer before each call) on a global counter that changes at every
 * call. The exactness tests compare the two engines' records of it; the benchmark runs it with
 * N = 500,000 (a million hits with RETEP). `beyond_eof` points into the second page of a
 * two-page mapping of a one-byte file: a readable mapping whose page can never be brought in
 * (seed 001's status 1, "page not present"); `runs_into` points at the last 5 bytes of the first
 * page, "edge!" without a NUL, so a string read from it runs into that page.
 * Usage: dt_items [N [DELAY_MS]] (DELAY_MS: a pause before the calls; -1: until stdin ends, so a
 * test decides when the calls begin instead of guessing a pause). With DT_ITEMS_TIMING
 * set it also prints the calls' mean time on stderr (the loop alone: bench/dyntrace_compare.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

int g_counter;
const char* beyond_eof;
const char* runs_into;

__attribute__((noinline)) int process_item(const char* name, int qty) {
  int length = 0;
  while (name[length] != '\0') ++length;
  g_counter += qty;
  return length * 3 + qty;
}

static const char* const kKinds[] = {
    "apple", "pear", "a-name-longer-than-forty-characters-is-cut-at-forty", "", "plum"};

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 200;
  FILE* file = tmpfile();
  if (file != NULL && fputc('x', file) != EOF && fflush(file) == 0) {
    char* map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fileno(file), 0);
    if (map != MAP_FAILED) {
      memcpy(map + 4091, "edge!", 5);
      runs_into = map + 4091;
      beyond_eof = map + 4096;
    }
  }
  if (argc > 2 && atol(argv[2]) < 0) {
    while (getchar() != EOF) {
    }
  } else if (argc > 2) {
    long delay_ms = atol(argv[2]);
    struct timespec pause = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
  }
  char* name = malloc(96);
  long total = 0;
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long i = 0; i < n; ++i) {
    snprintf(name, 96, "%s-%ld", kKinds[i % 5], i);
    total += process_item(name, (int)(i % 13) + 1);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf("items %ld total %ld counter %d\n", n, total, g_counter);
  if (getenv("DT_ITEMS_TIMING") != NULL) {
    double ns = (end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec);
    fprintf(stderr, "ns_per_call %.1f\n", n > 0 ? ns / n : 0.0);
  }
  free(name);
  return 0;
}
