#include "template/source_text.h"

#include <algorithm>

namespace rastrace::tmpl {

void SourceText::Append(std::string_view part, int line, int column) {
  pieces_.push_back(Piece{text_.size(), line, column});
  text_.append(part);
}

SourcePos SourceText::PosAt(size_t offset) const {
  if (pieces_.empty()) return {};
  // The last piece that starts at or before `offset`.
  auto it = std::upper_bound(pieces_.begin(), pieces_.end(), offset,
                             [](size_t off, const Piece& p) { return off < p.offset; });
  if (it != pieces_.begin()) --it;
  return SourcePos{it->line, it->column + static_cast<int>(offset - it->offset)};
}

}  // namespace rastrace::tmpl
