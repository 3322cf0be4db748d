// JSON Lines and CSV: one event per row, the same columns in both (docs/exporting.md lists them).
#pragma once

#include <string>

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

class CsvExporter : public Exporter {
 public:
  explicit CsvExporter(OutputFile file);
  Result<void> Write(const ExportRecord& record) override;
  Result<void> Finish() override { return file_.Close(); }
  uint64_t bytes_written() const override { return file_.bytes_written(); }

 private:
  OutputFile file_;
  std::string line_;
};

}  // namespace rastrace::exporter
