/* rastrace-example: a small C program that records the hooks the README's first trace shows
 * (templates 010-016 in templates/trcfmt). Run it under `rastrace record -o LOG --
 * rastrace-example` or with RASTRACE_LOG=LOG in its environment. */
#include <pthread.h>
#include <rastrace/trchk.h>
#include <stdio.h>
#include <string.h>

#include "example_usage.h"

static void* second_thread(void* arg) {
  long t = (long)arg;
  TRCHKL3T(0x01500000, t, 7, 8);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) {
    return example_usage_exit(
        "rastrace-example", " (no arguments; run it under `rastrace record -o LOG --`)", argv[1]);
  }
  static const char message[] = "hello from rastrace";
  pthread_t thread;

  TRCHKL0T(0x01000000); /* 010 program start */
  for (long i = 0; i < 5; i++) {
    TRCHKL1T(0x01100000, i); /* 011 loop iteration */
  }
  TRCHKL5T(0x01200000, 1, 2, 3, 4, 5);                      /* 012 five words */
  TRCHKL2(0x01300000, 0xdead, 0xbeef);                      /* 013 no timestamp */
  TRCGENT(0, 0x01400000, 42, strlen(message) + 1, message); /* 014 generic, with the NUL */

  if (pthread_create(&thread, NULL, second_thread, (void*)1L) != 0) {
    fprintf(stderr, "rastrace-example: cannot create a thread\n");
    return 1;
  }
  pthread_join(thread, NULL);

  TRCHKL0T(0x01600000); /* 016 program end */
  return 0;
}
