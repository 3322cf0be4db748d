// A whole trcrpt report: reads the logs, filters, formats each event with its template and lays
// the report out. Serial, or with --jobs N a pipeline whose output is byte for byte the serial one.
#pragma once

#include <cstdio>

#include "report/options.h"
#include "template/template.h"
#include "tsf/format_path.h"

namespace rastrace::report {

// Writes the report (or, with -O hist=on, the histogram) of options.logs to `out`. Messages go to
// `err`; progress too when `err` is a terminal. Returns the exit status: 0, or 1 when a log
// could not be read, ended inside an event, or the output could not be written.
// OS/2 tracepoint hits (00C) whose major has a format file in `tracepoints` are formatted with it
// (its DESC, then each FMT line), as tracefmt does; others with their templates.
int RunReport(const ReportOptions& options, const tmpl::TemplateSet& templates, std::FILE* out,
              std::FILE* err, const tsf::FormatPath* tracepoints = nullptr);

}  // namespace rastrace::report
