// Arbitrary bytes as a TRACEFMT save file: the reader must report, never crash or hang.
#include <cstddef>
#include <cstdint>

#include "stda/stda.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto s = rastrace::stda::ReadSaveFile({data, size});
  size_t bytes = 0;
  for (const auto& r : s.contents.records) bytes += r.data.size();
  // Every byte of data returned came from the record area, once.
  if (bytes > size) __builtin_trap();
  return 0;
}
