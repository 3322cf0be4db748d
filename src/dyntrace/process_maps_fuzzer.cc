// Fuzzes the /proc/PID/maps parser: any text gives mappings or an error naming the line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "dyntrace/process_maps.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto maps = rastrace::dyntrace::ParseMaps(text);
  if (maps) {
    for (const auto& mapping : *maps) {
      (void)rastrace::dyntrace::ModuleMatches(mapping.path, "libc.so");
      (void)rastrace::dyntrace::FindMapping(*maps, mapping.start);
    }
    (void)rastrace::dyntrace::FileOffsetToAddress(*maps, "/usr/bin/prog", 0x1000);
  }
  return 0;
}
