// Stage C of a report: lays out each event's text after its prefix and time columns, prints the
// column header before the first event that is neither 003 nor 00A and again every `pagesize`
// lines. Runs in event order (the delta column depends on the previous printed event).
#pragma once

#include <cstdint>
#include <string>

#include "report/options.h"
#include "report/prepared_event.h"
#include "template/template.h"

namespace rastrace::report {

class Emitter {
 public:
  // Appends to `out`; the caller flushes it.
  Emitter(const ReportOptions& options, std::string& out);
  // Returns false when the report must end here ($STOP).
  bool Emit(const PreparedEvent& event, const tmpl::EvalOutput& text);
  uint64_t events_printed() const { return events_printed_; }

 private:
  void PrintColumnHeader();
  // Appends `line` (no newline) after `indent` blanks, without trailing blanks, then a newline.
  void AppendLine(size_t indent, std::string_view line);

  LayoutOptions layout_;
  bool no_header_;
  bool raw_;
  std::string& out_;
  std::string column_header_;
  size_t prefix_width_;
  bool column_header_done_ = false;
  uint64_t lines_in_page_ = 0;
  int64_t previous_printed_ns_ = 0;
  uint64_t events_printed_ = 0;
};

}  // namespace rastrace::report
