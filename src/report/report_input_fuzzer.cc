// Fuzzes the text inputs of trcrpt and trcupdate that come from users: the first byte picks the
// parser; the rest is an update file (applied to a small template file and extracted back), a
// command line (NUL-separated arguments), or a -d/-k id list.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report/id_list.h"
#include "report/options.h"
#include "report/update_file.h"

namespace {

constexpr std::string_view kTemplateFile =
    "# fuzz\n010 1.0 \"A\"\n015 2.1 \"B\" \\\n W1 XW\n* c\n020 1.0 \"C\"\n";

void FuzzUpdateFile(std::string_view text) {
  using namespace rastrace::report;
  auto ops = ParseUpdateFile(text, "fuzz.trc");
  if (!ops) return;
  for (bool override_versions : {false, true}) {
    auto outcome = ApplyUpdates(kTemplateFile, *ops, override_versions, "fuzz.trc");
    IdSet all;
    for (unsigned id = 0; id < 65536; id += 16) all.Add(static_cast<uint16_t>(id));
    // What was written can be split and extracted again.
    (void)SplitTemplateFile(outcome.text);
    (void)ExtractTemplates(outcome.text, all);
  }
}

void FuzzCommandLine(std::string_view text) {
  std::vector<std::string_view> args;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\0') {
      args.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  (void)rastrace::report::ParseReportOptions(args);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0:
      FuzzUpdateFile(text);
      break;
    case 1:
      FuzzCommandLine(text);
      break;
    default: {
      rastrace::report::IdSet ids;
      (void)rastrace::report::ParseIdList(text, ids);
      (void)rastrace::report::ParseNumberList(text, "fuzz");
    }
  }
  return 0;
}
