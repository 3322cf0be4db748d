#include "report/emitter.h"

#include "event/format.h"
#include "report/columns.h"

namespace rastrace::report {

Emitter::Emitter(const ReportOptions& options, std::string& out)
    : layout_(options.layout),
      no_header_(options.no_header),
      raw_(options.raw),
      out_(out),
      column_header_(ColumnHeader(options.layout)),
      prefix_width_(PrefixWidth(options.layout)) {}

void Emitter::PrintColumnHeader() {
  out_ += column_header_;
  out_.push_back('\n');
  lines_in_page_ = 1;
}

void Emitter::AppendLine(size_t indent, std::string_view line) {
  size_t last = line.find_last_not_of(' ');
  if (last == std::string_view::npos) {
    // Nothing but blanks: drop the blanks of the prefix written before it too. The buffer is
    // only flushed between events, so it ends at a line start or inside this line.
    size_t keep = out_.find_last_not_of(' ');
    out_.resize(keep == std::string::npos ? 0 : keep + 1);
  } else {
    out_.append(indent, ' ');
    out_.append(line.substr(0, last + 1));
  }
  out_.push_back('\n');
  ++lines_in_page_;
}

bool Emitter::Emit(const PreparedEvent& event, const tmpl::EvalOutput& text) {
  bool go_on = text.status != tmpl::EvalStatus::kStop;
  if (text.status == tmpl::EvalStatus::kSkip) return go_on;
  uint16_t id = event.event->hook_id;
  bool header_event = id == event::kHookHeader;
  if (header_event && no_header_) return go_on;
  if (!no_header_) {
    if (!column_header_done_ && !header_event && id != event::kHookUtil) {
      column_header_done_ = true;
      PrintColumnHeader();
    } else if (column_header_done_ && layout_.pagesize != 0 && lines_in_page_ >= layout_.pagesize) {
      PrintColumnHeader();
    }
  }
  if (text.level == tmpl::Level::kNoPrint) return go_on;
  // The header is the top of the report, not an event line: no prefix, whatever its L=.
  // (-r shows every event the same way.)
  const tmpl::Level level = header_event && !raw_ ? tmpl::Level::kZero : text.level;

  std::string_view body = text.text;
  if (level == tmpl::Level::kZero && body.empty()) return go_on;
  ++events_printed_;
  size_t indent = 0;
  if (level != tmpl::Level::kZero) {
    indent = prefix_width_ + (static_cast<size_t>(level) - 1) * 8;
    PrefixFields fields;
    fields.hook_id = id;
    fields.process_name = layout_.full_exec_path ? event.exec_path : event.process_name;
    fields.cpu = event.cpu;
    fields.pid = event.pid;
    fields.tid = event.tid;
    fields.svc = event.svc;
    fields.elapsed_ns = event.elapsed_ns;
    fields.delta_ns = event.elapsed_ns - previous_printed_ns_;
    fields.timestamped = event.timestamped;
    size_t line_start = out_.size();
    AppendPrefix(layout_, fields, out_);
    if (layout_.two_line) {
      AppendLine(0, {});
    } else {
      // The first line of text goes after the prefix, at the event's level.
      size_t first_end = body.find('\n');
      size_t written = out_.size() - line_start;
      if (written < indent) out_.append(indent - written, ' ');
      AppendLine(0, body.substr(0, first_end));
      body = first_end == std::string_view::npos ? std::string_view{} : body.substr(first_end + 1);
      if (first_end == std::string_view::npos) {
        previous_printed_ns_ = event.elapsed_ns;
        return go_on;
      }
    }
  }
  previous_printed_ns_ = event.elapsed_ns;
  while (true) {
    size_t end = body.find('\n');
    AppendLine(indent, body.substr(0, end));
    if (end == std::string_view::npos) break;
    body = body.substr(end + 1);
  }
  return go_on;
}

}  // namespace rastrace::report
