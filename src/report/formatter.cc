#include "report/formatter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "event/format.h"
#include "report/host_address.h"
#include "stda/report.h"

namespace rastrace::report {

TemplateIndex::TemplateIndex(const tmpl::TemplateSet& templates) : by_id_(65536, nullptr) {
  const tmpl::Template* undefined = templates.Find(event::kHookUndefined);
  if (undefined == nullptr) undefined = templates.Find(event::kHookDefault);
  for (const tmpl::Template* t : templates.All()) by_id_[t->id16] = t;
  const tmpl::Template* zero = templates.Find(event::kHookTraceIdZero);
  for (size_t id = 0; id < by_id_.size(); ++id) {
    if (by_id_[id] != nullptr) continue;
    by_id_[id] = (id == 0 && zero != nullptr) ? zero : undefined;
  }
}

void WarningOnce::Warn(std::string_view message) {
  std::lock_guard lock(mutex_);
  if (given_.find(message) != given_.end()) return;
  given_.emplace(message);
  std::fprintf(stderr, "trcrpt: warning: %.*s\n", static_cast<int>(message.size()), message.data());
}

class Formatter::Host : public tmpl::ReportHost {
 public:
  Host(ProcessTable& processes, WarningOnce& warnings)
      : processes_(processes), warnings_(warnings) {}
  std::string_view ExecPathOf(uint64_t pid) override { return processes_.PathAt(pid, sequence_); }
  void InstallProcess(uint64_t pid, std::string_view path) override {
    processes_.SetPath(pid, path, sequence_);
  }
  void Warn(std::string_view message) override { warnings_.Warn(message); }
  void set_sequence(uint64_t sequence) { sequence_ = sequence; }

 private:
  ProcessTable& processes_;
  WarningOnce& warnings_;
  uint64_t sequence_ = 0;
};

Formatter::Formatter(const tmpl::TemplateSet& templates, const TemplateIndex& index,
                     ProcessTable& processes, WarningOnce& warnings, bool raw,
                     const tsf::FormatPath* tracepoints)
    : index_(index),
      raw_(raw),
      tracepoints_(tracepoints),
      ip_address_(raw ? 0 : LocalIpv4Address()),
      host_(std::make_unique<Host>(processes, warnings)),
      evaluator_(raw ? nullptr : std::make_unique<tmpl::Evaluator>(templates, *host_)) {}

Formatter::~Formatter() = default;

void AppendRawHex(const event::Event& event, ByteOrder order, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  const size_t word = event::WordSize(event.layout);
  std::span<const uint8_t> bytes = event.bytes;
  for (size_t at = 0; at < bytes.size(); at += word) {
    size_t size = std::min(word, bytes.size() - at);
    uint64_t value = LoadUnsigned(bytes.data() + at, size, order);
    if (at != 0) out.push_back(' ');
    for (int shift = static_cast<int>(size * 8) - 4; shift >= 0; shift -= 4) {
      out.push_back(kHex[(value >> shift) & 0xF]);
    }
  }
}

// An OS/2 tracepoint hit (00C: subhook = minor, data word = major | flags << 16 | pid << 32, the
// buffer its data) whose major has a format file: its DESC, then one line per FMT string, exactly
// as tracefmt prints them (docs/trcrpt.md, "OS/2 tracepoints").
bool Formatter::FormatTracepoint(const PreparedEvent& prepared, tmpl::EvalOutput& out) {
  const event::Event& e = *prepared.event;
  if (tracepoints_ == nullptr || e.hook_id != event::kHookDynamicTracepoint || !e.generic ||
      e.layout != event::Layout::k64) {
    return false;
  }
  const auto major = static_cast<uint16_t>(e.generic_word & 0xFFFF);
  const auto flags = static_cast<uint8_t>(e.generic_word >> 16);
  const tsf::FormatFile* file = tracepoints_->Find(major);
  const tsf::TracepointFormat* format = file != nullptr ? file->Find(e.subhook) : nullptr;
  if (format == nullptr) return false;
  out.level = tmpl::Level::kAppl;
  stda::AppendTracepointText(*format, {major, e.subhook, (flags & 0x01) == 0, e.buffer}, out.text);
  return true;
}

void Formatter::Format(const PreparedEvent& prepared, tmpl::EvalOutput& out) {
  out.text.clear();
  out.status = tmpl::EvalStatus::kOk;
  const event::Event& event = *prepared.event;
  if (raw_) {
    out.level = tmpl::Level::kAppl;
    AppendRawHex(event, prepared.byte_order, out.text);
    return;
  }
  if (FormatTracepoint(prepared, out)) return;
  const tmpl::Template* tmpl = index_.For(event.hook_id);
  if (tmpl == nullptr) {
    // Neither 007 nor 008 exists: say so rather than print nothing.
    out.level = tmpl::Level::kKern;
    fmt::format_to(std::back_inserter(out.text), "UNDEFINED TRACE ID {:04X} (no template 007)",
                   event.hook_id);
    return;
  }
  tmpl::EventContext ctx;
  ctx.event = &event;
  ctx.byte_order = prepared.byte_order;
  ctx.trace_layout = prepared.trace_layout;
  ctx.logfile = prepared.logfile;
  ctx.rel_line_no = prepared.line_no;
  ctx.pid = prepared.pid;
  ctx.tid = prepared.tid;
  ctx.cpuid = prepared.cpu;
  ctx.priority = prepared.priority;
  ctx.exec_path = prepared.exec_path;
  ctx.svc = prepared.svc;
  ctx.time_ns = prepared.elapsed_ns < 0 ? 0 : static_cast<uint64_t>(prepared.elapsed_ns);
  ctx.total_cpus = prepared.total_cpus;
  ctx.traced_cpus = prepared.traced_cpus;
  ctx.reported_cpus = prepared.reported_cpus;
  ctx.ip_address = ip_address_;
  host_->set_sequence(prepared.sequence);
  evaluator_->Run(*tmpl, ctx, out);
}

}  // namespace rastrace::report
