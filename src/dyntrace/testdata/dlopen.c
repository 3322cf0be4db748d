/* Loads a shared object with dlopen after start-up and calls its dl_probe N times, so tracepoints
 * in a module that is not mapped at attach can be tested; with ROUNDS, closes it (dlclose unmaps
 * it) and loads it again that many times. Usage: dt_dlopen LIBRARY N [ROUNDS] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  long rounds = argc > 3 ? atol(argv[3]) : 1;
  for (long round = 0; round < rounds; ++round) {
    void* library = dlopen(argv[1], RTLD_NOW);
    if (library == NULL) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return 1;
    }
    int (*probe)(int) = (int (*)(int))dlsym(library, "dl_probe");
    if (probe == NULL) return 1;
    long n = atol(argv[2]);
    long sum = 0;
    for (long i = 0; i < n; ++i) sum += probe((int)i);
    printf("sum %ld\n", sum);
    fflush(stdout);
    dlclose(library);
  }
  return 0;
}
