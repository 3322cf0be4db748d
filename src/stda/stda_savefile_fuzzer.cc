// Arbitrary bytes as a TRACEFMT save file: the reader must report, never crash or hang; and the
// log a save file makes for trcrpt and the exports (trace_input.h) reads back record for record.
#include <cstddef>
#include <cstdint>

#include "event/reader.h"
#include "stda/stda.h"
#include "stda/trace_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto s = rastrace::stda::ReadSaveFile({data, size});
  size_t bytes = 0;
  for (const auto& r : s.contents.records) bytes += r.data.size();
  // Every byte of data returned came from the record area, once.
  if (bytes > size) __builtin_trap();

  auto log = rastrace::stda::SaveFileAsLog({data, size});
  auto reader = rastrace::event::LogReader::FromBytes(log.bytes, "fuzz");
  if (!reader.ok()) __builtin_trap();
  rastrace::event::Event e;
  size_t hits = 0;
  rastrace::event::ReadStatus status;
  while ((status = reader->Next(e)) == rastrace::event::ReadStatus::kEvent) {
    if (e.hook_id == 0x00C0) ++hits;
  }
  if (status != rastrace::event::ReadStatus::kEnd || hits != log.records ||
      hits != s.contents.records.size()) {
    __builtin_trap();
  }
  return 0;
}
