// Any text as one declaration and as a template file's "#@" lines: an error value or a
// declaration, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "schema/declarations.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  rastrace::schema::Declarations out;
  (void)rastrace::schema::ParseDeclaration(text, "fuzz", out);
  return 0;
}
