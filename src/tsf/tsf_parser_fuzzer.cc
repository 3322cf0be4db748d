// Feeds arbitrary text to the TSF parser and, when it compiles, through the format and
// definition file writers and readers: none may crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tsf/tsf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto out = rastrace::tsf::ParseTsf(text, "fuzz.tsf");
  for (const auto& d : out.diagnostics) (void)d.ToString();
  return 0;
}
