// The text a trcfmt template gives each event (src/template's Evaluator), for the text column of
// the JSON Lines and CSV exports and the names of Chrome events.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "export/merged_stream.h"
#include "export/process_table.h"
#include "template/template.h"
#include "tsf/format_path.h"

namespace rastrace::exporter {

// The default template file: $RASTRACE_TRCFMT when set, else the installed one, else the source
// tree's templates/trcfmt; empty when none exists.
std::string DefaultTemplatePath();

class TemplateText {
 public:
  // Runs the templates of `templates`; OS/2 tracepoint hits (00C) whose major has a format file in
  // `tracepoints` (may be null) get its DESC and FMT lines instead, as trcrpt prints them. Both
  // must outlive it.
  static std::unique_ptr<TemplateText> Create(const tmpl::TemplateSet& templates,
                                              const tsf::FormatPath* tracepoints = nullptr);
  // Loads a template file of its own (rastrace sql's text column). Templates that fail to parse
  // are skipped; their diagnostics ("file:line:col: error: ...") are added to `diagnostics`.
  static Result<std::unique_ptr<TemplateText>> Load(const std::string& path,
                                                    std::vector<std::string>& diagnostics);
  virtual ~TemplateText() = default;

  struct Output {
    std::string_view label;  // without a leading '@'; empty when the id has no template
    std::string_view text;   // lines separated by '\n'; empty for $SKIP
  };
  // Runs the template of `item`'s event (or 007, the one for undefined ids). `first_ns` is the
  // log's first timestamp (timers count from it); `line` is the event's number in the output.
  // Valid until the next call.
  virtual Output Run(const SourceEvent& item, std::string_view logfile, ProcessTable& processes,
                     uint64_t first_ns, uint64_t line) = 0;
  // Warnings the templates raised (unsupported built-ins), once each.
  virtual std::vector<std::string> TakeWarnings() = 0;
};

}  // namespace rastrace::exporter
