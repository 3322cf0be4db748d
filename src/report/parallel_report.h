// --jobs N: stage A (reading, filtering, process table) stays on the calling thread in event
// order; stage B (templates) runs on N worker threads over batches of events copied out of the
// reader; stage C (layout) runs on one more thread, again in event order. A fixed pool of 2N+2
// batches bounds memory whatever the log size.
#pragma once

#include "report/emitter.h"
#include "report/formatter.h"
#include "report/output_sink.h"
#include "report/preparer.h"
#include "report/progress.h"

namespace rastrace::report {

struct StageSet {
  Preparer& preparer;
  Emitter& emitter;
  OutputSink& sink;
  Progress& progress;
  EventSource& source;
  const tmpl::TemplateSet& templates;
  const TemplateIndex& index;
  WarningOnce& warnings;
  bool raw;
  const tsf::FormatPath* tracepoints = nullptr;
};

void RunParallel(const StageSet& stages, unsigned jobs);

}  // namespace rastrace::report
