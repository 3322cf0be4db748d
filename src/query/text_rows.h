// The filler of _event_text (kept apart from fillers.h: it needs the stream and templates).
#pragma once

#include <memory>

#include "common/result.h"
#include "export/merged_stream.h"
#include "export/template_text.h"
#include "query/loaded_event.h"
#include "query/record_table.h"

namespace rastrace::query {

// `text`: one column, the text; row n for event n + 1.
std::unique_ptr<Filler> MakeTextFiller(RecordTable& text, exporter::TemplateText& templates,
                                       const exporter::MergedStream& stream);

}  // namespace rastrace::query
