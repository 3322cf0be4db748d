/* The shared object dt_dlopen loads: not linked to any test program. */
int dl_calls;

__attribute__((noinline)) int dl_probe(int x) {
  dl_calls++;
  return x * 2 + 1;
}
