/* The example programs' command line: --help prints the usage and exits 0; any other option is a
 * usage error (exit 2), never run as the program nor taken for a file name. */
#ifndef RASTRACE_EXAMPLE_USAGE_H
#define RASTRACE_EXAMPLE_USAGE_H

#include <stdio.h>
#include <string.h>

static int example_usage_exit(const char* program, const char* usage, const char* arg) {
  if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
    printf("usage: %s%s\n", program, usage);
    return 0;
  }
  fprintf(stderr, "%s: unknown option %s\nusage: %s%s\n", program, arg, program, usage);
  return 2;
}

#endif
