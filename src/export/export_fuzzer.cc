// Any bytes read as a log (alone, and merged with themselves) through every streaming exporter,
// and merged with themselves into a log (every id of the second copy is renumbered): never a
// crash.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "event/writer.h"
#include "export/export_run.h"
#include "export/exporter.h"
#include "export/merge_writer.h"
#include "export/merged_stream.h"

namespace {

using rastrace::exporter::CreateExporter;
using rastrace::exporter::Format;
using rastrace::exporter::MergedStream;

std::optional<MergedStream> Open(std::span<const uint8_t> bytes, size_t copies) {
  std::vector<rastrace::event::LogReader> readers;
  for (size_t i = 0; i < copies; ++i) {
    auto reader = rastrace::event::LogReader::FromBytes(bytes, "fuzz", {.reformat = false});
    if (!reader.ok()) return std::nullopt;
    readers.push_back(std::move(reader).value());
  }
  return MergedStream::FromReaders(std::move(readers));
}

void ExportTo(Format format, std::span<const uint8_t> bytes, size_t copies) {
  auto stream = Open(bytes, copies);
  if (!stream) return;
  auto exporter = CreateExporter(format, "/dev/null", {.stream = &*stream});
  if (!exporter.ok()) __builtin_trap();
  auto summary = RunExport(*stream, **exporter, nullptr);
  if (!summary.ok()) __builtin_trap();
}

void MergeWithItself(std::span<const uint8_t> bytes) {
  auto stream = Open(bytes, 2);
  if (!stream) return;
  auto writer = rastrace::event::LogWriter::Create(
      "/dev/null", {.byte_order = stream->reader(0).byte_order(), .overwrite = true});
  if (!writer.ok()) __builtin_trap();
  // A refused event is an error value; only a crash is a finding.
  (void)rastrace::exporter::WriteMergedLog(*stream, *writer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  for (Format format : {Format::kJsonl, Format::kCsv, Format::kChrome}) {
    ExportTo(format, bytes, 1);
  }
  ExportTo(Format::kChrome, bytes, 2);
  MergeWithItself(bytes);
  return 0;
}
