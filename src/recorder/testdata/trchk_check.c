/* Every hook macro of <rastrace/trchk.h> once: compiled as strict C and C++ with every warning an
 * error, and compiled to an object whose undefined symbols tell which path the hooks take (the
 * inline fast path, or with RASTRACE_OUT_OF_LINE_HOOKS the library for every hook). */
#include <rastrace/trchk.h>

void every_hook(uint64_t d) {
  TRCHKL0(0x01000000);
  TRCHKL1(0x01010000, d);
  TRCHKL2(0x01020000, d, d);
  TRCHKL3(0x01030000, d, d, d);
  TRCHKL4(0x01040000, d, d, d, d);
  TRCHKL5(0x01050000, d, d, d, d, d);
  TRCHKL0T(0x01100000);
  TRCHKL1T(0x01110000, d);
  TRCHKL2T(0x01120000, d, d);
  TRCHKL3T(0x01130000, d, d, d);
  TRCHKL4T(0x01140000, d, d, d, d);
  TRCHKL5T(0x01150000, d, d, d, d, d);
  TRCGEN(1, 0x01200000, d, 3, "abc");
  TRCGENT(1, 0x01210000, d, 3, "abc");
}
