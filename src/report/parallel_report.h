// --jobs N: stage A (reading, filtering) and stage C (layout) stay on the calling thread in event
// order; stage B (templates) runs on N worker threads over batches of events copied out of the
// reader. At most 2N+2 batches are in flight, so memory stays bounded whatever the log size.
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
};

void RunParallel(const StageSet& stages, unsigned jobs);

}  // namespace rastrace::report
