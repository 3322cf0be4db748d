#include "export/exporter.h"

#include <cctype>
#include <filesystem>
#include <string>

#include "export/chrome_exporter.h"
#include "export/ctf_exporter.h"
#include "export/table_exporters.h"

namespace rastrace::exporter {

Result<Format> ParseFormat(std::string_view given) {
  std::string name(given);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "ctf") return Format::kCtf;
  if (name == "chrome" || name == "json") return Format::kChrome;
  if (name == "jsonl") return Format::kJsonl;
  if (name == "csv") return Format::kCsv;
  return MakeError("unknown export format '{}' (expected ctf, chrome, jsonl or csv)", given);
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kCtf:
      return "ctf";
    case Format::kChrome:
      return "chrome";
    case Format::kJsonl:
      return "jsonl";
    case Format::kCsv:
      return "csv";
  }
  return "?";
}

Result<std::unique_ptr<Exporter>> CreateExporter(Format format, const std::string& output,
                                                 const ExporterSettings& settings) {
  if (format == Format::kCtf) {
    if (output == "-") return MakeError("CTF output is a directory: give one with -o");
    auto ctf = CtfExporter::Create(output, settings.stream, settings.catalog);
    if (!ctf.ok()) return ctf.error();
    return std::unique_ptr<Exporter>(std::move(ctf).value());
  }
  auto file = OutputFile::Create(output);
  if (!file.ok()) return file.error();
  switch (format) {
    case Format::kChrome:
      return std::unique_ptr<Exporter>(std::make_unique<ChromeExporter>(
          std::move(file).value(), PairTable::Default(settings.declarations), settings.stream,
          settings.declarations));
    case Format::kJsonl:
      return std::unique_ptr<Exporter>(
          std::make_unique<JsonLinesExporter>(std::move(file).value()));
    case Format::kCsv: {
      // The per-schema files go beside a file; a device or a pipe (/dev/null, a FIFO, a
      // terminal) gets the one table, as standard output does, and nothing is created beside it.
      std::error_code ec;
      const bool regular = output != "-" && std::filesystem::is_regular_file(output, ec);
      return std::unique_ptr<Exporter>(std::make_unique<CsvExporter>(
          std::move(file).value(), regular ? output : std::string("-"), settings.force));
    }
    case Format::kCtf:
      break;
  }
  return MakeError("unknown export format");
}

}  // namespace rastrace::exporter
