#include "report/report.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "common/output_file.h"
#include "report/columns.h"
#include "report/emitter.h"
#include "report/event_source.h"
#include "report/formatter.h"
#include "report/output_sink.h"
#include "report/parallel_report.h"
#include "report/preparer.h"
#include "report/progress.h"

namespace rastrace::report {

namespace {

std::string_view PrintedLabel(const tmpl::Template* t) {
  if (t == nullptr) return {};
  std::string_view label = t->label;
  if (!label.empty() && label.front() == '@') label.remove_prefix(1);
  return label;
}

// -O hist=on: how many events of each id passed the filters.
void RunHistogram(Preparer& preparer, EventSource& source, const tmpl::TemplateSet& templates,
                  Progress& progress, OutputSink& sink) {
  std::vector<uint64_t> counts(65536, 0);
  uint64_t total = 0;
  PreparedEvent prepared;
  while (preparer.Next(prepared)) {
    ++counts[prepared.event->hook_id];
    ++total;
    progress.Tick(source.bytes_read());
  }
  std::string& out = sink.text();
  out += "ID         COUNT  LABEL\n";
  for (size_t id = 0; id < counts.size(); ++id) {
    if (counts[id] == 0) continue;
    std::string id_text;
    AppendHookId(static_cast<uint16_t>(id), id_text);
    fmt::format_to(std::back_inserter(out), "{:<5}{:>10}  {}", id_text, counts[id],
                   PrintedLabel(templates.Find(static_cast<uint16_t>(id))));
    while (out.back() == ' ') out.pop_back();
    out.push_back('\n');
  }
  fmt::format_to(std::back_inserter(out), "TOTAL{:>10}\n", total);
}

}  // namespace

int RunReport(const ReportOptions& options, const tmpl::TemplateSet& templates, std::FILE* out,
              std::FILE* err, const tsf::FormatPath* tracepoints) {
  auto opened = EventSource::Open(options.logs, options.verbose ? err : nullptr, !options.raw);
  if (!opened) {
    std::fprintf(err, "trcrpt: %s\n", opened.error().message.c_str());
    return 1;
  }
  EventSource& source = **opened;
  Preparer preparer(options, source);
  OutputSink sink(out);
  Progress progress(err, source.total_bytes());

  if (options.hist) {
    RunHistogram(preparer, source, templates, progress, sink);
  } else {
    TemplateIndex index(templates);
    WarningOnce warnings;
    Emitter emitter(options, sink.text());
    if (options.jobs > 1) {
      RunParallel({preparer, emitter, sink, progress, source, templates, index, warnings,
                   options.raw, tracepoints},
                  options.jobs);
    } else {
      Formatter formatter(templates, index, source.processes(), warnings, options.raw, tracepoints);
      PreparedEvent prepared;
      tmpl::EvalOutput text;
      while (preparer.Next(prepared)) {
        formatter.Format(prepared, text);
        bool go_on = emitter.Emit(prepared, text);
        sink.MaybeFlush();
        progress.Tick(source.bytes_read());
        if (!go_on) break;
      }
    }
  }
  progress.Finish();
  sink.Flush();
  // Said as every command says it: the output and the reason ("trcrpt: standard output: write
  // error: No space left on device"), the reason of the first write that failed.
  const std::string output_name = options.output_file.empty() || options.output_file == "-"
                                      ? "standard output"
                                      : options.output_file;
  const Result<void> finished = FinishOutput(out, output_name);
  int status = 0;
  for (const std::string& warning : source.warnings()) {
    std::fprintf(err, "trcrpt: warning: %s (the report stops at the last whole event)\n",
                 warning.c_str());
    status = 1;
  }
  if (sink.error_number() != 0) {
    std::fprintf(err, "trcrpt: %s: write error: %s\n", output_name.c_str(),
                 std::strerror(sink.error_number()));
    status = 1;
  } else if (!finished || sink.failed()) {
    const std::string message = finished
                                    ? fmt::format("{}: write error: data was lost", output_name)
                                    : finished.error().message;
    std::fprintf(err, "trcrpt: %s\n", message.c_str());
    status = 1;
  }
  return status;
}

}  // namespace rastrace::report
