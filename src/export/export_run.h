// The export pipeline: merged events -> process tables -> template text -> an exporter.
#pragma once

#include <cstdint>

#include "common/result.h"
#include "export/exporter.h"
#include "export/merged_stream.h"
#include "export/progress.h"
#include "export/template_text.h"

namespace rastrace::exporter {

struct ExportSummary {
  uint64_t events = 0;
};

// Feeds every event of `stream` to `exporter` and finishes it. `templates` may be null (no text
// column). Warnings of truncated inputs stay in stream.warnings() for the caller to print.
Result<ExportSummary> RunExport(MergedStream& stream, Exporter& exporter, TemplateText* templates,
                                Progress* progress = nullptr);

}  // namespace rastrace::exporter
