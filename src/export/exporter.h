// The exporters: one event at a time in, a file (or a CTF directory) out, never the whole log in
// memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"
#include "export/merged_stream.h"
#include "export/process_table.h"
#include "schema/declarations.h"
#include "schema/schema.h"

namespace rastrace::exporter {

enum class Format : uint8_t { kCtf, kChrome, kJsonl, kCsv };

// "ctf", "chrome", "jsonl", "csv" (also "json" for chrome).
Result<Format> ParseFormat(std::string_view name);
std::string_view FormatName(Format format);

// One event with everything the pipeline learned about it.
struct ExportRecord {
  const SourceEvent* item = nullptr;
  std::string_view origin_name;
  uint64_t sequence = 0;        // position in the output, from 0
  std::optional<uint64_t> pid;  // from the origin's process table
  std::string_view exec_path;   // of that pid; empty when unknown
  std::string_view thread_name;
  // The CPU the event's thread is on, from the origin's last 00A/108 event of that thread.
  std::optional<uint32_t> cpu;
  const ProcessTable* processes = nullptr;  // the origin's table (names of other threads)
  // From the template set; `has_text` is false when no template set was given, so exporters can
  // tell "no text" from "empty text".
  bool has_text = false;
  std::string_view label;  // the template's label without its '@'
  std::string_view text;
  // The event's schema and field values (src/schema): never null while exporting.
  const schema::Schema* schema = nullptr;
  std::span<const schema::Value> values;
};

class Exporter {
 public:
  virtual ~Exporter() = default;
  virtual Result<void> Write(const ExportRecord& record) = 0;
  // Completes the output (closing brackets, CTF metadata) and closes files.
  virtual Result<void> Finish() = 0;
  // Bytes written so far (for figures and progress).
  virtual uint64_t bytes_written() const = 0;
};

struct ExporterSettings {
  // Origins can be added while the stream is read (merged logs announce theirs); exporters that
  // need names of all of them at the end read them here.
  const MergedStream* stream = nullptr;
  // The schemas seen so far (CTF writes their event classes at the end).
  const schema::Catalog* catalog = nullptr;
  // Slices and counters declared in the template file and on the command line (Chrome).
  const schema::Declarations* declarations = nullptr;
  // CSV: replace the per-schema files of an earlier export (`--force`).
  bool force = false;
};

// `output`: a file ("-" is standard output) for chrome, jsonl and csv (CSV also writes one file per
// schema beside it, OUTPUT.SCHEMA.csv, unless it is standard output); a directory for ctf (created
// when missing; it must not hold a previous trace's files).
Result<std::unique_ptr<Exporter>> CreateExporter(Format format, const std::string& output,
                                                 const ExporterSettings& settings);

}  // namespace rastrace::exporter
