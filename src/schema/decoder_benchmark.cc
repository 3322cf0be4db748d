// Decoding cost per event with the default template file: a DISPATCH (5 labelled words), a
// generic event with a string (the example's 014) and a 00A process event (a subhook case with an
// S2 string). Figures go to docs/performance.md.
#include <benchmark/benchmark.h>

#include <vector>

#include "event/format.h"
#include "event/log_builder.h"
#include "event/reader.h"
#include "schema/decoder.h"

namespace rastrace::schema {
namespace {

void BM_Decode(benchmark::State& state) {
  tmpl::TemplateSet templates;
  std::vector<tmpl::Diagnostic> diagnostics;
  if (!templates.AddFile(std::string(RASTRACE_SOURCE_DIR) + "/templates/trcfmt", diagnostics)) {
    state.SkipWithError("templates/trcfmt not found");
    return;
  }
  event::testing::LogBuilder log;
  for (int i = 0; i < 1000; ++i) {
    log.Hook(event::kHookDispatch, 0, {100, 120, 99, 'R', 1}, 100, i);
    log.Generic(0x0140, 0, 42, std::string_view("hello from rastrace"), 100, i);
    log.Process(100, 1, 100, "/usr/bin/example");
  }
  Decoder decoder({.templates = &templates});
  auto reader = event::LogReader::FromBytes(log.bytes(), "bench", {.reformat = false});
  event::Event e;
  size_t decoded = 0;
  for (auto _ : state) {
    state.PauseTiming();
    reader = event::LogReader::FromBytes(log.bytes(), "bench", {.reformat = false});
    state.ResumeTiming();
    while (reader->Next(e) == event::ReadStatus::kEvent) {
      const auto d = decoder.Decode(e, reader->byte_order(), reader->layout());
      benchmark::DoNotOptimize(d.values.data());
      ++decoded;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(decoded));
}
BENCHMARK(BM_Decode);

}  // namespace
}  // namespace rastrace::schema

BENCHMARK_MAIN();
