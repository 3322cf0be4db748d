/* Hooks in a shared library that a program loads with dlopen: the inline fast path in position-
 * independent code, reaching librastrace's thread-local producer line from another object. */
#include <rastrace/trchk.h>

void plugin_hooks(long n) {
  for (long i = 0; i < n; i++) TRCHKL2T(0x05500000, i, 7);
}
