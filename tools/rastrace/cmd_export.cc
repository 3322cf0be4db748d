// `rastrace export --format ctf|chrome|jsonl|csv LOG... -o OUT`: logs (merged in time order when
// several) into formats other tools read (docs/exporting.md).
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
#include "schema/declarations.h"
#include "schema/decoder.h"
#include "schema/descriptions.h"

namespace rastrace::cli {
namespace {

struct ExportOptions {
  std::string format;
  std::vector<std::string> logs;
  std::string output;
  std::vector<std::string> templates;
  std::string tracefs;
  bool no_text = false;
  bool force = false;
  std::vector<std::string> names;
  std::vector<std::string> events, slices, counters;  // declarations (docs/exporting.md)
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

// What describes the events: the -t template files and format file directories (else the default
// template file), the declarations in them and on the command line, the tracefs formats of system
// calls. Problems are printed; `errors` counts those that make the export exit 1.
Result<std::unique_ptr<schema::Descriptions>> LoadDescriptions(const ExportOptions& options,
                                                               size_t& errors) {
  schema::DescriptionPaths paths;
  paths.given = options.templates;
  paths.default_template_file = exporter::DefaultTemplatePath();
  paths.default_format_dirs = {"."};
  paths.tracefs_events =
      options.tracefs.empty() ? schema::SyscallFormats::DefaultEventsDir() : options.tracefs;
  schema::DescriptionProblems problems;
  auto loaded = schema::LoadDescriptions(paths, problems);
  if (!loaded) return loaded.error();
  for (const auto& message : problems.messages) Warn(message);
  errors = problems.errors;
  const std::pair<const std::vector<std::string>*, std::string_view> given[] = {
      {&options.events, "event"}, {&options.slices, "slice"}, {&options.counters, "counter"}};
  for (const auto& [texts, kind] : given) {
    for (const std::string& text : *texts) {
      const std::string where = fmt::format("--{} '{}'", kind, text);
      // Columns count in the option's value.
      auto parsed = schema::ParseDeclaration(fmt::format("{} {}", kind, text), where,
                                             (*loaded)->declarations);
      if (!parsed) return parsed.error();
    }
  }
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
  // Every -t, in order, as the other exports take them.
  query::LoadInputs inputs =
      query::CommandInputs(options.logs, options.names, options.templates, options.no_text);
  if (!options.tracefs.empty()) inputs.tracefs_events = options.tracefs;
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
  size_t description_errors = 0;
  auto descriptions = LoadDescriptions(options, description_errors);
  if (!descriptions) {
    Warn(descriptions.error().message);
    return 1;
  }
  // The text column (JSON Lines, CSV, Chrome args) runs the templates; CTF has none.
  std::unique_ptr<exporter::TemplateText> templates;
  if (!options.no_text && *format != exporter::Format::kCtf &&
      !(*descriptions)->template_files.empty()) {
    templates =
        exporter::TemplateText::Create((*descriptions)->templates, &(*descriptions)->tracepoints);
  }
  schema::Decoder decoder((*descriptions)->sources());
  auto stream = exporter::MergedStream::Open(options.logs);
  if (!stream) {
    Warn(stream.error().message);
    return 1;
  }
  for (size_t i = 0; i < options.names.size(); ++i) {
    stream->SetInputName(i, options.names[i]);
  }
  auto out = exporter::CreateExporter(*format, options.output,
                                      {.stream = &stream.value(),
                                       .catalog = &decoder.catalog(),
                                       .declarations = &(*descriptions)->declarations,
                                       .force = options.force});
  if (!out) {
    Warn(out.error().message);
    return 1;
  }
  auto progress = exporter::Progress::ForStderr(
      fmt::format("export {}", exporter::FormatName(*format)), stream->total_bytes());
  auto summary = exporter::RunExport(*stream, **out, templates.get(), decoder, &progress);
  if (!summary) {
    Warn(summary.error().message);
    return 1;
  }
  if (templates) {
    for (const auto& warning : templates->TakeWarnings()) Warn(fmt::format("warning: {}", warning));
  }
  for (const auto& warning : stream->warnings()) Warn(fmt::format("warning: {}", warning.message));
  // As trcrpt: everything that could be exported was, and a template file with errors, a log that
  // could not be read to its end or a corrupt event still make the exit status 1.
  if (description_errors > 0) {
    Warn(fmt::format("{} error{} in the template or format files (above)", description_errors,
                     description_errors == 1 ? "" : "s"));
  }
  return stream->warnings().empty() && description_errors == 0 ? 0 : 1;
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
                     "Template file (names, fields and the text column; default: the installed "
                     "trcfmt) or directory of TRCxxxx.TFF format files; repeatable, or a "
                     "':'-separated list")
          ->allow_extra_args(false);
      sub.add_option("--tracefs", options->tracefs,
                     "tracefs events directory for system call argument names (default: "
                     "$RASTRACE_TRACEFS_EVENTS, else this machine's)");
      sub.add_option("--event", options->events,
                     "Declaration 'ID[/SUBHOOK] NAME [FIELD...]': a schema's name (repeatable)")
          ->allow_extra_args(false);
      sub.add_option("--slice", options->slices,
                     "Declaration 'NAME begin=MATCH end=MATCH [scope=] [key=] [title=]': a "
                     "Chrome slice (repeatable)")
          ->allow_extra_args(false);
      sub.add_option("--counter", options->counters,
                     "Declaration 'NAME on=MATCH value=FIELD': a Chrome counter (repeatable)")
          ->allow_extra_args(false);
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
