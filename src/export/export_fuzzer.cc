// Any bytes read as a log (alone, and merged with themselves) through every streaming exporter:
// never a crash, and the JSON Lines stay one line per event.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "export/export_run.h"
#include "export/exporter.h"
#include "export/merged_stream.h"

namespace {

using rastrace::exporter::CreateExporter;
using rastrace::exporter::Format;
using rastrace::exporter::MergedStream;

void ExportTo(Format format, std::span<const uint8_t> bytes, size_t copies) {
  std::vector<rastrace::event::LogReader> readers;
  for (size_t i = 0; i < copies; ++i) {
    auto reader = rastrace::event::LogReader::FromBytes(bytes, "fuzz", {.reformat = false});
    if (!reader.ok()) return;
    readers.push_back(std::move(reader).value());
  }
  auto stream = MergedStream::FromReaders(std::move(readers));
  auto exporter = CreateExporter(format, "/dev/null", {.stream = &stream});
  if (!exporter.ok()) __builtin_trap();
  auto summary = RunExport(stream, **exporter, nullptr);
  if (!summary.ok()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  for (Format format : {Format::kJsonl, Format::kCsv, Format::kChrome}) {
    ExportTo(format, bytes, 1);
  }
  ExportTo(Format::kChrome, bytes, 2);
  return 0;
}
