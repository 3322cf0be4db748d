/* Loads the plugin named by argv[1] with dlopen (the program itself does not link librastrace)
 * and calls its hooks argv[2] times. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  void* plugin = dlopen(argv[1], RTLD_NOW);
  if (plugin == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  void (*hooks)(long) = (void (*)(long))dlsym(plugin, "plugin_hooks");
  if (hooks == NULL) return 1;
  hooks(atol(argv[2]));
  return 0;
}
