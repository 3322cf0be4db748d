// One template's text with its continuation lines joined, and the way back from an offset in the
// joined text to the line and column of the file, for diagnostics.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rastrace::tmpl {

struct SourcePos {
  int line = 0;
  int column = 0;  // 1-based
};

class SourceText {
 public:
  // Appends part of one physical line; `column` is the 1-based column of its first character.
  void Append(std::string_view part, int line, int column);

  std::string_view text() const { return text_; }
  // Position of the character at `offset` (the end maps just past the last character).
  SourcePos PosAt(size_t offset) const;
  int first_line() const { return pieces_.empty() ? 0 : pieces_.front().line; }

 private:
  struct Piece {
    size_t offset;
    int line;
    int column;
  };
  std::string text_;
  std::vector<Piece> pieces_;
};

}  // namespace rastrace::tmpl
