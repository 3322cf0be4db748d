// JSON Lines and CSV: one event per row, the same columns in both (docs/exporting.md lists them).
#pragma once

#include <list>
#include <memory>
#include <string>
#include <vector>

#include "export/exporter.h"
#include "export/output_file.h"

namespace rastrace::exporter {

// The CSV header line (with its newline).
std::string_view CsvHeader();
// Appends one event as a JSON object line / a CSV row, each ending in '\n'.
void AppendJsonLine(std::string& out, const ExportRecord& record);
void AppendCsvRow(std::string& out, const ExportRecord& record);

class JsonLinesExporter : public Exporter {
 public:
  explicit JsonLinesExporter(OutputFile file) : file_(std::move(file)) {}
  Result<void> Write(const ExportRecord& record) override;
  Result<void> Finish() override { return file_.Close(); }
  uint64_t bytes_written() const override { return file_.bytes_written(); }

 private:
  OutputFile file_;
  std::string line_;
};

// The CSV file of every event (the columns of docs/exporting.md) and, beside it, one file per
// schema with its named fields: OUT.SCHEMA.csv (OUT without its .csv), columns seq, time_ns and
// the fields. Standard output gets only the first.
class CsvExporter : public Exporter {
 public:
  // `base`: the output path ("-": no per-schema files). `force`: replace existing ones.
  CsvExporter(OutputFile file, std::string base, bool force);
  Result<void> Write(const ExportRecord& record) override;
  Result<void> Finish() override;
  uint64_t bytes_written() const override;

  // The file of schema `schema` for output `base`.
  static std::string TablePath(const std::string& base, std::string_view schema);
  static constexpr size_t kMaxOpenTables = 32;
  static constexpr size_t kTableBufferBytes = 64 * 1024;

 private:
  Result<OutputFile*> TableFor(const schema::Schema& s);

  OutputFile file_;
  std::string base_;
  bool force_;
  std::string line_;
  std::vector<std::unique_ptr<OutputFile>> tables_;  // by schema id
  std::list<uint32_t> recent_;                       // open tables, most recent first
  size_t open_tables_ = 0;
};

}  // namespace rastrace::exporter
