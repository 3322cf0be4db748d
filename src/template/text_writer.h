// Builds an event's text: blanks between items squeezed to one, tab stops counted from the APPL
// column, no blank at the start or end of a line. Writes into a caller's string so that its
// capacity is reused from event to event.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>

#include "template/template.h"

namespace rastrace::tmpl {

class TextWriter {
 public:
  void Reset(std::string* out, Level level) {
    out_ = out;
    out_->clear();
    line_start_ = 0;
    pending_blank_ = false;
    level_ = level;
  }

  // Asks for one blank before whatever is printed next (none at the start of a line, none after a
  // blank, none at the very end).
  void Blank() { pending_blank_ = true; }

  void Text(std::string_view text) {
    if (text.empty()) return;
    FlushBlank();
    out_->append(text);
  }
  void Char(char c) {
    FlushBlank();
    out_->push_back(c);
  }
  template <class... Args>
  void Format(fmt::format_string<Args...> format, Args&&... args) {
    FlushBlank();
    fmt::format_to(std::back_inserter(*out_), format, std::forward<Args>(args)...);
  }
  // Direct access for appenders that write in place (after the pending blank).
  std::string& Raw() {
    FlushBlank();
    return *out_;
  }

  void Newline() {
    TrimLine();
    out_->push_back('\n');
    line_start_ = out_->size();
    pending_blank_ = false;
  }

  // Seed 002: tab stops every 8 columns from the APPL column; the text starts (level-1)*8 columns
  // right of it. With L=0 the text starts at column 0 and the first stop is at 3.
  void Tab() {
    pending_blank_ = false;
    size_t in_line = out_->size() - line_start_;
    size_t next;
    if (level_ == Level::kZero) {
      next = in_line < 3 ? 3 : 3 + ((in_line - 3) / 8 + 1) * 8;
    } else {
      size_t indent = (static_cast<size_t>(level_) - 1) * 8;
      size_t column = indent + in_line;
      next = (column / 8 + 1) * 8 - indent;
    }
    out_->append(next - in_line, ' ');
  }

  void Finish() { TrimLine(); }
  size_t size() const { return out_->size(); }

 private:
  void FlushBlank() {
    if (!pending_blank_) return;
    pending_blank_ = false;
    if (out_->size() > line_start_ && out_->back() != ' ') out_->push_back(' ');
  }
  void TrimLine() {
    while (out_->size() > line_start_ && out_->back() == ' ') out_->pop_back();
    pending_blank_ = false;
  }

  std::string* out_ = nullptr;
  size_t line_start_ = 0;
  bool pending_blank_ = false;
  Level level_ = Level::kKern;
};

}  // namespace rastrace::tmpl
