// Arbitrary text as a template file: loading must never crash, hang or allocate without bound,
// and whatever loads must run on an ordinary event without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "template/template.h"

namespace {

class NullHost : public rastrace::tmpl::ReportHost {
 public:
  std::string_view ExecPathOf(uint64_t) override { return {}; }
  void InstallProcess(uint64_t, std::string_view) override {}
  void Warn(std::string_view) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rastrace;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  tmpl::TemplateSet set;
  std::vector<tmpl::Diagnostic> diagnostics;
  set.AddText(text, "fuzz.fmt", diagnostics);
  for (const auto& d : diagnostics) (void)d.ToString();

  // One 64-bit event with five data words (big-endian hookword 0x0000002801000005).
  static const uint8_t kBytes[] = {0x00, 0x00, 0x00, 0x28, 0x01, 0x00, 0x00, 0x05,  //
                                   1,    2,    3,    4,    5,    6,    7,    8,    9,  10, 11, 12,
                                   13,   14,   15,   16,   17,   18,   19,   20,   21, 22, 23, 24,
                                   25,   26,   27,   28,   29,   30,   31,   32,   33, 34, 35, 36,
                                   37,   38,   39,   40,   0,    0,    0,    0,    0,  0,  0,  1};
  event::Event ev;
  ev.hook_id = 0x0100;
  ev.subhook = 5;
  ev.word_count = 5;
  ev.data_length = 40;
  ev.layout = event::Layout::k64;
  ev.bytes = kBytes;
  tmpl::EventContext ctx;
  ctx.event = &ev;
  ctx.byte_order = ByteOrder::kBig;
  NullHost host;
  tmpl::Evaluator evaluator(set, host);
  tmpl::EvalOutput out;
  for (const tmpl::Template* t : set.All()) evaluator.Run(*t, ctx, out);
  return 0;
}
