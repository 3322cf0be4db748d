// Template text, a NUL, then log bytes: every event of the log decoded with the schemas the
// templates give (their plans are derived from whatever parsed). Never a crash, never a read
// outside an event (ASan).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "event/reader.h"
#include "schema/decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  if (nul == nullptr) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), static_cast<size_t>(nul - data));
  const std::span<const uint8_t> log(nul + 1, size - static_cast<size_t>(nul - data) - 1);
  rastrace::tmpl::TemplateSet templates;
  std::vector<rastrace::tmpl::Diagnostic> diagnostics;
  templates.AddText(text, "fuzz", diagnostics);
  rastrace::schema::Decoder decoder({.templates = &templates});
  auto reader = rastrace::event::LogReader::FromBytes(log, "fuzz", {.reformat = false});
  if (!reader.ok()) return 0;
  rastrace::event::Event e;
  for (int i = 0; i < 10000 && reader->Next(e) == rastrace::event::ReadStatus::kEvent; ++i) {
    const auto decoded = decoder.Decode(e, reader->byte_order(), reader->layout());
    if (decoded.schema == nullptr || decoded.values.size() != decoded.schema->fields.size()) {
      __builtin_trap();
    }
  }
  return 0;
}
