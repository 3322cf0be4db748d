// TemplateText on top of src/template (built when the template part is).
#include "export/template_text.h"

#include <cstdlib>
#include <filesystem>

#include "event/format.h"
#include "event/reformat.h"
#include "stda/report.h"
#include "template/template.h"

namespace rastrace::exporter {

namespace {

class ProcessHost : public tmpl::ReportHost {
 public:
  ProcessTable* table = nullptr;
  std::vector<std::string> warnings;

  std::string_view ExecPathOf(uint64_t pid) override {
    return table != nullptr ? table->ExecPath(pid) : std::string_view();
  }
  void InstallProcess(uint64_t pid, std::string_view path) override {
    if (table != nullptr) table->InstallProcess(pid, path);
  }
  void Warn(std::string_view message) override { warnings.emplace_back(message); }
};

class EvaluatorText : public TemplateText {
 public:
  EvaluatorText(const tmpl::TemplateSet& templates, const tsf::FormatPath* tracepoints)
      : templates_(templates), tracepoints_(tracepoints), evaluator_(templates_, host_) {}

  Output Run(const SourceEvent& item, std::string_view logfile, ProcessTable& processes,
             uint64_t first_ns, uint64_t line) override {
    const event::Event* e = item.event;
    if (const auto* tracepoint = TracepointFormat(*e)) {
      const auto major = static_cast<uint16_t>(e->generic_word & 0xFFFF);
      const bool kernel = ((e->generic_word >> 16) & 0x01) == 0;
      output_.text.clear();
      stda::AppendTracepointText(*tracepoint, {major, e->subhook, kernel, e->buffer}, output_.text);
      return Output{"TRACEPOINT", output_.text};
    }
    const tmpl::Template* found = templates_.Find(e->hook_id);
    const bool own = found != nullptr;
    if (!own) found = templates_.Find(event::kHookUndefined);
    if (found == nullptr) return {};
    // Templates see B events in the 32-bit layout and 00B events of 32-bit logs in the 64-bit one
    // (seed 002 part C), as trcrpt shows them.
    if (event::NeedsReformat(*e, item.trace_layout)) {
      if (event::Reformat(*e, item.trace_layout, item.byte_order, scratch_, reformatted_).ok()) {
        e = &reformatted_;
      }
    }
    host_.table = &processes;
    tmpl::EventContext context;
    context.event = e;
    context.byte_order = item.byte_order;
    context.trace_layout = item.trace_layout;
    context.logfile = logfile;
    context.rel_line_no = line;
    context.tid = e->thread_id;
    context.pid = processes.PidOf(e->thread_id).value_or(0);
    context.exec_path = processes.ExecPath(context.pid);
    context.time_ns = item.time_ns > first_ns ? item.time_ns - first_ns : 0;
    evaluator_.Run(*found, context, output_);
    // 007's label ("UNDEFINED TRACE ID") names no event: an id without a template has no label.
    std::string_view label = own ? std::string_view(found->label) : std::string_view();
    if (!label.empty() && label.front() == '@') label.remove_prefix(1);
    if (output_.status == tmpl::EvalStatus::kSkip) return Output{label, {}};
    std::string_view text = output_.text;
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    return Output{label, text};
  }

  std::vector<std::string> TakeWarnings() override { return std::exchange(host_.warnings, {}); }

 private:
  const tsf::TracepointFormat* TracepointFormat(const event::Event& e) const {
    if (tracepoints_ == nullptr || e.hook_id != event::kHookDynamicTracepoint || !e.generic ||
        e.layout != event::Layout::k64) {
      return nullptr;
    }
    const tsf::FormatFile* file = tracepoints_->Find(static_cast<uint16_t>(e.generic_word & 0xFFFF));
    return file != nullptr ? file->Find(e.subhook) : nullptr;
  }

  const tmpl::TemplateSet& templates_;
  const tsf::FormatPath* tracepoints_;
  ProcessHost host_;
  tmpl::Evaluator evaluator_;
  tmpl::EvalOutput output_;
  std::vector<uint8_t> scratch_;
  event::Event reformatted_;
};

// A template set of its own (TemplateText::Load): the set is made before the text that reads it.
class LoadedText : public TemplateText {
 public:
  explicit LoadedText(tmpl::TemplateSet templates)
      : templates_(std::move(templates)), text_(templates_, nullptr) {}
  Output Run(const SourceEvent& item, std::string_view logfile, ProcessTable& processes,
             uint64_t first_ns, uint64_t line) override {
    return text_.Run(item, logfile, processes, first_ns, line);
  }
  std::vector<std::string> TakeWarnings() override { return text_.TakeWarnings(); }

 private:
  tmpl::TemplateSet templates_;
  EvaluatorText text_;
};

}  // namespace

Result<std::unique_ptr<TemplateText>> TemplateText::Load(const std::string& path,
                                                         std::vector<std::string>& diagnostics) {
  tmpl::TemplateSet templates;
  std::vector<tmpl::Diagnostic> found;
  auto added = templates.AddFile(path, found);
  if (!added.ok()) return added.error();
  for (const auto& d : found) diagnostics.push_back(d.ToString());
  return std::unique_ptr<TemplateText>(std::make_unique<LoadedText>(std::move(templates)));
}

std::string DefaultTemplatePath() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("RASTRACE_TRCFMT"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  }
  candidates.emplace_back(RASTRACE_INSTALLED_TRCFMT);
  candidates.emplace_back(RASTRACE_SOURCE_TRCFMT);
  std::error_code ec;
  for (const auto& path : candidates) {
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return {};
}

std::unique_ptr<TemplateText> TemplateText::Create(const tmpl::TemplateSet& templates,
                                                   const tsf::FormatPath* tracepoints) {
  return std::make_unique<EvaluatorText>(templates, tracepoints);
}

}  // namespace rastrace::exporter
