/* A program traced through the installed librastrace: records hook 042 to the log in argv[1]. */
#include <rastrace/trchk.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  char args[512];
  snprintf(args, sizeof args, "-o %s", argv[1]);
  if (trcstart(args) < 0) {
    fprintf(stderr, "consumer: cannot start tracing to %s\n", argv[1]);
    return 1;
  }
  TRCHKL2T(0x04200000, 1, 2);
  trcstop(0);
  return 0;
}
