// Feeds arbitrary text to the TSF parser. None may crash, hang or allocate without bound; and a
// file that compiles must survive its own definition and format files: the definition file
// re-parses to the same text, the format file re-parses, and the static header generates.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "tsf/definition_file.h"
#include "tsf/format_file.h"
#include "tsf/static_header.h"
#include "tsf/tsf.h"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s\n%s\n", what, detail.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rastrace::tsf;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto out = ParseTsf(text, "fuzz.tsf");
  for (const auto& d : out.diagnostics) (void)d.ToString();
  if (!out.module) return 0;

  const std::string tdf = WriteDefinitionText(*out.module);
  auto back = ParseDefinitionText(tdf, "fuzz.tdf");
  if (!back) Fail("definition file does not re-parse", back.error().message + "\n" + tdf);
  back->file = out.module->file;
  if (WriteDefinitionText(*back) != tdf) Fail("definition file is not a fixed point", tdf);

  const std::string tff = WriteFormatText(MakeFormatFile(*out.module));
  auto formats = ParseFormatText(tff, "fuzz.tff");
  if (!formats) Fail("format file does not re-parse", formats.error().message + "\n" + tff);

  (void)GenerateStaticHeader(*out.module);
  return 0;
}
