// `rastrace export --format ctf|chrome|jsonl|csv LOG... -o OUT`: logs (merged in time order when
// several) into formats other tools read (docs/exporting.md). `--partition DIR` writes the SQL
// tables instead, as Hive-style partitions for a fleet (docs/sql.md).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "export/export_run.h"
#include "export/exporter.h"
#include "export/merged_stream.h"
#include "export/progress.h"
#include "export/template_text.h"
#ifdef RASTRACE_EXPORT_PARTITIONS
#include "query/partition_writer.h"
#include "query/trace_database.h"
#endif

namespace rastrace::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::vector<std::string> logs;
  std::string output;
  std::string templates;
  bool no_text = false;
  bool force = false;
  std::vector<std::string> names;
  std::string partition;
  std::string machine;
  std::string part_name;
};

// An existing output (a file, or a CTF directory that is not empty) is replaced only with
// --force: an export must not clobber what a user kept there.
bool RefusesToReplace(const std::string& output, bool force) {
  if (force || output == "-") return false;
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(output, ec);
  if (ec || !std::filesystem::exists(status)) return false;
  if (std::filesystem::is_directory(status) && std::filesystem::is_empty(output, ec)) return false;
  return true;
}

void Warn(std::string_view message) {
  fmt::print(stderr, "rastrace export: {}\n", message);
}

// The template set for the text column: -t, else the default file when there is one.
Result<std::unique_ptr<exporter::TemplateText>> LoadTemplates(const ExportOptions& options,
                                                              exporter::Format format) {
  if (options.no_text || format == exporter::Format::kCtf) return {nullptr};
  std::string path = options.templates;
  if (path.empty()) {
    if (!exporter::TemplatesAvailable()) return {nullptr};
    path = exporter::DefaultTemplatePath();
    if (path.empty()) return {nullptr};
  }
  std::vector<std::string> diagnostics;
  auto loaded = exporter::TemplateText::Load(path, diagnostics);
  for (const auto& d : diagnostics) Warn(d);
  return loaded;
}

// The name of a log's partition files: its file name without the extension.
std::string PartName(const ExportOptions& options) {
  if (!options.part_name.empty()) return options.part_name;
  const std::string& first = options.logs.front();
  if (first == "-") return "stdin";
  return std::filesystem::path(first).stem().string();
}

int RunPartitionExport(const ExportOptions& options) {
#ifdef RASTRACE_EXPORT_PARTITIONS
  query::PartitionOptions partition{.dir = options.partition,
                                    .machine = options.machine,
                                    .part_name = PartName(options),
                                    .force = options.force};
  if (options.format == "csv") {
    partition.format = query::OutputMode::kCsv;
  } else if (options.format == "jsonl") {
    partition.format = query::OutputMode::kJson;
  } else {
    Warn(fmt::format("--partition writes csv or jsonl, not '{}'", options.format));
    return 2;
  }
  if (!options.output.empty()) {
    Warn("--partition writes into its directory: leave -o out");
    return 2;
  }
  const query::LoadInputs inputs =
      query::CommandInputs(options.logs, options.names, options.templates, options.no_text);
  std::vector<std::string> diagnostics;
  auto db = query::TraceDatabase::Open(inputs, diagnostics);
  for (const auto& d : diagnostics) Warn(d);
  if (!db) {
    Warn(db.error().message);
    return 1;
  }
  auto written = query::WritePartitions(**db, partition);
  for (const auto& w : (*db)->warnings()) Warn(fmt::format("warning: {}", w.message));
  if (!written) {
    Warn(written.error().message);
    return 1;
  }
  return (*db)->warnings().empty() ? 0 : 1;
#else
  (void)options;
  Warn("--partition needs the query part (SQLite), which this build left out");
  return 2;
#endif
}

int RunExport(const ExportOptions& options) {
  if (options.names.size() > options.logs.size()) {
    Warn(fmt::format("{} names (-n) for {} logs: give at most one name per log",
                     options.names.size(), options.logs.size()));
    return 2;
  }
  if (!options.partition.empty()) return RunPartitionExport(options);
  if (options.output.empty()) {
    Warn("give the output with -o (or a directory with --partition)");
    return 2;
  }
  auto format = exporter::ParseFormat(options.format);
  if (!format) {
    Warn(format.error().message);
    return 2;
  }
  if (RefusesToReplace(options.output, options.force)) {
    Warn(fmt::format("{}: exists; use --force to replace it", options.output));
    return 1;
  }
  auto templates = LoadTemplates(options, *format);
  if (!templates) {
    Warn(templates.error().message);
    return 1;
  }
  auto stream = exporter::MergedStream::Open(options.logs);
  if (!stream) {
    Warn(stream.error().message);
    return 1;
  }
  for (size_t i = 0; i < options.names.size(); ++i) {
    stream->SetInputName(i, options.names[i]);
  }
  auto out = exporter::CreateExporter(*format, options.output, {.stream = &stream.value()});
  if (!out) {
    Warn(out.error().message);
    return 1;
  }
  auto progress = exporter::Progress::ForStderr(
      fmt::format("export {}", exporter::FormatName(*format)), stream->total_bytes());
  auto summary = exporter::RunExport(*stream, **out, templates->get(), &progress);
  if (!summary) {
    Warn(summary.error().message);
    return 1;
  }
  if (*templates) {
    for (const auto& warning : (*templates)->TakeWarnings())
      Warn(fmt::format("warning: {}", warning));
  }
  for (const auto& warning : stream->warnings()) Warn(fmt::format("warning: {}", warning.message));
  return stream->warnings().empty() ? 0 : 1;
}

const CommandRegistration kExport{Command{
    "export", "Export trace logs as CTF, Chrome JSON trace events, JSON Lines or CSV",
    [](CLI::App& sub) -> std::function<int()> {
      auto options = std::make_shared<ExportOptions>();
      sub.add_option("-f,--format", options->format, "ctf, chrome, jsonl or csv")->required();
      sub.add_option("logs", options->logs,
                     "Trace log files; several are merged in time order (- for standard input)")
          ->required();
      sub.add_option("-o,--output", options->output,
                     "Output file (- for standard output); for ctf a directory");
      sub.add_option("-t,--templates", options->templates,
                     "Template file for the text column (default: the installed trcfmt)");
      sub.add_flag("--no-text", options->no_text, "Leave the template text column out");
      sub.add_flag("--force", options->force, "Replace an existing output file or CTF directory");
      sub.add_option("-n,--name", options->names,
                     "Name of each log's source, in the order of the logs (default: its path)");
      sub.add_option("--partition", options->partition,
                     "Write the SQL tables (docs/sql.md) as csv or jsonl files under DIR/TABLE/"
                     "machine=NAME/hour=YYYY-MM-DDTHH/ for Spark, Trino or DuckDB");
      sub.add_option("--machine", options->machine,
                     "--partition: the machine's name (default: the trace header's node name)");
      sub.add_option("--part-name", options->part_name,
                     "--partition: the files' name (default: the first log's, without extension)");
      return [options] { return RunExport(*options); };
    }}};

}  // namespace
}  // namespace rastrace::cli
