// The export pipeline: merged events -> process tables -> template text -> an exporter.
#pragma once

#include <cstdint>

#include "common/result.h"
#include "export/exporter.h"
#include "export/merged_stream.h"
#include "export/progress.h"
#include "export/template_text.h"
#include "schema/decoder.h"

namespace rastrace::exporter {

struct ExportSummary {
  uint64_t events = 0;
};

// Feeds every event of `stream` to `exporter` with its schema and field values from `decoder`, and
// finishes it. `templates` may be null (no text column). Warnings of truncated inputs stay in
// stream.warnings() for the caller to print.
Result<ExportSummary> RunExport(MergedStream& stream, Exporter& exporter, TemplateText* templates,
                                schema::Decoder& decoder, Progress* progress = nullptr);

// The same with raw schemas only (nothing describes the events: hook_ID, d1..d5), for tests and
// fuzzers that do not need names.
Result<ExportSummary> RunExport(MergedStream& stream, Exporter& exporter, TemplateText* templates,
                                Progress* progress = nullptr);

}  // namespace rastrace::exporter
