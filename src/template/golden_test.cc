// Runs every tests/golden/template/*.case: templates, events and the exact text expected. The
// format of a case file is described in tests/golden/template/README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "template/template.h"
#include "template/test_event.h"

namespace rastrace::tmpl {
namespace {

namespace fs = std::filesystem;

struct EventBlock {
  std::map<std::string, std::string> keys;
  std::string expect;
  bool has_expect = false;
  std::string status = "ok";
};

struct GoldenCase {
  std::string templates;
  std::vector<EventBlock> events;
  std::vector<std::string> diagnostics;
  std::vector<std::string> host_log;
  bool check_host_log = false;
};

fs::path GoldenDir() {
  return fs::path(RASTRACE_SOURCE_DIR) / "tests/golden/template";
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(GoldenDir(), ec)) {
    if (entry.path().extension() == ".case") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.pop_back();
  size_t start = s.find_first_not_of(' ');
  return start == std::string::npos ? "" : s.substr(start);
}

GoldenCase Load(const std::string& name) {
  std::ifstream in(GoldenDir() / (name + ".case"));
  GoldenCase c;
  std::string section;
  std::string line;
  std::vector<std::string> expect_lines;
  auto close_expect = [&] {
    if (section == "expect" && !c.events.empty()) {
      std::string joined;
      for (size_t i = 0; i < expect_lines.size(); ++i) {
        if (i != 0) joined.push_back('\n');
        joined += expect_lines[i];
      }
      c.events.back().expect = joined;
      c.events.back().has_expect = true;
    }
    expect_lines.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("== ")) {
      close_expect();
      section = Trim(line.substr(3));
      if (section == "event") c.events.emplace_back();
      if (section == "host") c.check_host_log = true;
      continue;
    }
    if (section == "templates") {
      c.templates += line + "\n";
    } else if (section == "event") {
      if (line.empty() || line[0] == '#') continue;
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      c.events.back().keys[Trim(line.substr(0, colon))] = Trim(line.substr(colon + 1));
    } else if (section == "expect") {
      expect_lines.push_back(line);
    } else if (section == "status" && !Trim(line).empty()) {
      c.events.back().status = Trim(line);
    } else if (section == "diagnostics" && !Trim(line).empty()) {
      c.diagnostics.push_back(line);
    } else if (section == "host" && !Trim(line).empty()) {
      c.host_log.push_back(line);
    }
  }
  close_expect();
  return c;
}

uint64_t Hex(const std::string& s) {
  return s.empty() ? 0 : std::stoull(s, nullptr, 16);
}

std::vector<uint64_t> HexList(const std::string& s) {
  std::vector<uint64_t> out;
  std::istringstream in(s);
  std::string item;
  while (in >> item) out.push_back(Hex(item));
  return out;
}

// Text with \0, \xNN and \\ escapes.
std::vector<uint8_t> TextBytes(const std::string& s) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      char e = s[++i];
      if (e == '0') {
        out.push_back(0);
      } else if (e == 'x' && i + 2 < s.size()) {
        out.push_back(static_cast<uint8_t>(std::stoul(s.substr(i + 1, 2), nullptr, 16)));
        i += 2;
      } else {
        out.push_back(static_cast<uint8_t>(e));
      }
    } else {
      out.push_back(static_cast<uint8_t>(s[i]));
    }
  }
  return out;
}

uint16_t HookId(const std::string& s) {
  uint64_t v = Hex(s);
  return static_cast<uint16_t>(s.size() == 3 ? v << 4 : v);
}

std::string Get(const EventBlock& b, const std::string& key, const std::string& fallback = "") {
  auto it = b.keys.find(key);
  return it == b.keys.end() ? fallback : it->second;
}

struct Combo {
  event::Layout layout;
  ByteOrder order;
};

std::vector<Combo> Combos(const GoldenCase& c) {
  // The first event decides which layouts and byte orders the whole case runs in.
  const EventBlock& first = c.events.front();
  std::string layout = Get(first, "layout", "both");
  std::string order = Get(first, "order", "both");
  std::vector<Combo> combos;
  for (auto l : {event::Layout::k32, event::Layout::k64}) {
    if (layout != "both" && layout != std::to_string(static_cast<int>(l))) continue;
    for (auto o : {ByteOrder::kBig, ByteOrder::kLittle}) {
      if (order != "both" && order != (o == ByteOrder::kBig ? "big" : "little")) continue;
      combos.push_back({l, o});
    }
  }
  return combos;
}

std::string StatusName(EvalStatus s) {
  switch (s) {
    case EvalStatus::kOk:
      return "ok";
    case EvalStatus::kError:
      return "error";
    case EvalStatus::kSkip:
      return "skip";
    case EvalStatus::kStop:
      return "stop";
  }
  return "?";
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, Matches) {
  GoldenCase c = Load(GetParam());
  TemplateSet set;
  std::vector<Diagnostic> diagnostics;
  set.AddText(c.templates, "t.fmt", diagnostics);
  std::vector<std::string> got_diagnostics;
  for (const Diagnostic& d : diagnostics) got_diagnostics.push_back(d.ToString());
  EXPECT_EQ(got_diagnostics, c.diagnostics);
  if (c.events.empty()) return;

  for (const Combo& combo : Combos(c)) {
    SCOPED_TRACE(fmt::format("layout {} order {}", static_cast<int>(combo.layout),
                             combo.order == ByteOrder::kBig ? "big" : "little"));
    testing::RecordingHost host;
    Evaluator evaluator(set, host);
    EvalOutput out;
    for (size_t i = 0; i < c.events.size(); ++i) {
      const EventBlock& b = c.events[i];
      SCOPED_TRACE(fmt::format("event {}", i + 1));
      event::EventFields f;
      f.hook_id = HookId(Get(b, "hook", "010"));
      f.subhook = static_cast<uint16_t>(Hex(Get(b, "subhook", "0")));
      f.generic = Get(b, "generic", "0") == "1";
      std::vector<uint64_t> words = HexList(Get(b, "words"));
      f.word_count = static_cast<uint8_t>(words.size());
      std::copy(words.begin(), words.end(), f.words.begin());
      f.generic_word = Hex(Get(b, "data", "0"));
      std::vector<uint8_t> buffer;
      if (b.keys.count("text")) buffer = TextBytes(Get(b, "text"));
      for (uint64_t v : HexList(Get(b, "buffer"))) buffer.push_back(static_cast<uint8_t>(v));
      f.buffer = buffer;
      if (b.keys.count("timestamp")) {
        f.timestamped = true;
        f.timestamp = Hex(Get(b, "timestamp"));
      }
      f.thread_id = Hex(Get(b, "thread", "0"));
      auto owned =
          testing::OwnedEvent::Make(f, combo.layout, combo.order, Hex(Get(b, "offset", "0")));
      ASSERT_TRUE(owned.ok()) << owned.error().message;
      std::istringstream procs(Get(b, "procs"));
      std::string proc;
      while (procs >> proc) {
        size_t eq = proc.find('=');
        host.processes.emplace_back(std::stoull(proc.substr(0, eq)), proc.substr(eq + 1));
      }

      EventContext ctx;
      ctx.event = &(*owned)->event();
      ctx.byte_order = combo.order;
      std::string trace_layout = Get(b, "trace_layout");
      ctx.trace_layout = trace_layout.empty()   ? combo.layout
                         : trace_layout == "32" ? event::Layout::k32
                                                : event::Layout::k64;
      std::string logfile = Get(b, "logfile", "trcfile");
      ctx.logfile = logfile;
      ctx.rel_line_no = std::stoull(Get(b, "rel_line", "1"));
      ctx.pid = std::stoull(Get(b, "pid", "0"));
      ctx.tid = std::stoull(Get(b, "tid", "0"));
      ctx.cpuid = std::stoull(Get(b, "cpuid", "0"));
      ctx.priority = std::stoull(Get(b, "pri", "0"));
      std::string exec = Get(b, "exec");
      ctx.exec_path = exec;
      std::string svc = Get(b, "svc");
      ctx.svc = svc;
      ctx.time_ns = std::stoull(Get(b, "time_ns", "0"));
      ctx.total_cpus = static_cast<uint32_t>(std::stoul(Get(b, "total_cpus", "1")));
      ctx.traced_cpus = static_cast<uint32_t>(std::stoul(Get(b, "traced_cpus", "1")));
      ctx.reported_cpus = static_cast<uint32_t>(std::stoul(Get(b, "reported_cpus", "1")));
      ctx.ip_address = static_cast<uint32_t>(Hex(Get(b, "ip", "0")));
      ctx.buffer_scheme = static_cast<uint32_t>(std::stoul(Get(b, "buff", "1")));

      uint16_t run_id = b.keys.count("run") ? HookId(Get(b, "run")) : f.hook_id;
      const Template* t = set.Find(run_id);
      ASSERT_NE(t, nullptr) << "no template for id " << std::hex << run_id;
      evaluator.Run(*t, ctx, out);
      if (b.has_expect) {
        EXPECT_EQ(out.text, b.expect);
      }
      EXPECT_EQ(StatusName(out.status), b.status);
    }
    if (c.check_host_log) {
      EXPECT_EQ(host.log, c.host_log);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenTest, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

TEST(GoldenCorpus, HasCases) {
  EXPECT_GT(CaseNames().size(), 20u);
}

}  // namespace
}  // namespace rastrace::tmpl
