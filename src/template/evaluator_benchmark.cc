// Events per second through Evaluator::Run for a typical template: a label, X4, two data words
// and one SWITCH (docs/performance.md, section trcrpt; target >= 5 M events/s in one thread).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "common/byte_order.h"
#include "template/template.h"

namespace {

using namespace rastrace;

class NullHost : public tmpl::ReportHost {
 public:
  std::string_view ExecPathOf(uint64_t) override { return {}; }
  void InstallProcess(uint64_t, std::string_view) override {}
  void Warn(std::string_view) override {}
};

constexpr std::string_view kTemplates =
    "101 1.0 \"read\" X2, 1 \"fd\", 2 \"file\", 3 \"socket\", \\* \"other\" X4 $D1 $D2\n";

// A 64-bit event: hookword 0000 0010 1010 0002 (two data words), words, thread id.
std::vector<uint8_t> EventBytes(ByteOrder order) {
  std::vector<uint8_t> bytes(32);
  Store<uint64_t>(bytes.data(), 0x0000001010100002, order);
  Store<uint64_t>(bytes.data() + 8, 0x00000003DEADBEEF, order);
  Store<uint64_t>(bytes.data() + 16, 0x1000, order);
  Store<uint64_t>(bytes.data() + 24, 77, order);
  return bytes;
}

void BM_TypicalTemplate(benchmark::State& state) {
  ByteOrder order = state.range(0) != 0 ? ByteOrder::kBig : ByteOrder::kLittle;
  tmpl::TemplateSet set;
  std::vector<tmpl::Diagnostic> diagnostics;
  set.AddText(kTemplates, "bench.fmt", diagnostics);
  const tmpl::Template* t = set.Find(0x1010);
  if (t == nullptr || !diagnostics.empty()) {
    state.SkipWithError("template did not load");
    return;
  }
  std::vector<uint8_t> bytes = EventBytes(order);
  event::Event ev;
  ev.hook_id = 0x1010;
  ev.subhook = 2;
  ev.word_count = 2;
  ev.words[0] = 0x00000003DEADBEEF;
  ev.words[1] = 0x1000;
  ev.data_length = 16;
  ev.layout = event::Layout::k64;
  ev.bytes = bytes;
  tmpl::EventContext ctx;
  ctx.event = &ev;
  ctx.byte_order = order;
  NullHost host;
  tmpl::Evaluator evaluator(set, host);
  tmpl::EvalOutput out;
  for (auto _ : state) {
    evaluator.Run(*t, ctx, out);
    benchmark::DoNotOptimize(out.text.data());
  }
  std::string_view want = order == ByteOrder::kBig ? "read file 00000003 3DEADBEEF 1000"
                                                   : "read file DEADBEEF 3DEADBEEF 1000";
  if (out.text != want) state.SkipWithError(out.text.c_str());
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(order == ByteOrder::kBig ? "big-endian log" : "little-endian log");
}
BENCHMARK(BM_TypicalTemplate)->Arg(1)->Arg(0);

// Loading a template file: templates parsed per second.
void BM_ParseTemplates(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 256; ++i) {
    text += fmt::format(
        "{:03X} 1.0 \"event {}\" X2, 1 \"one\", 2 {{\"two\" X4}}, \\* \"other\" $D1 $D2 "
        "{{{{ $a = X4 * 2 + $D1 }}}} BITFLAGS $a, 1 \"A\", 2 \"B\" \\n D4 U4 A8.16\n",
        0x100 + i, i);
  }
  for (auto _ : state) {
    tmpl::TemplateSet set;
    std::vector<tmpl::Diagnostic> diagnostics;
    benchmark::DoNotOptimize(set.AddText(text, "bench.fmt", diagnostics));
  }
  state.SetItemsProcessed(state.iterations() * 256);
}
BENCHMARK(BM_ParseTemplates);

}  // namespace

BENCHMARK_MAIN();
