// TemplateSet: splitting a template file into templates (comments, continuation lines), parsing
// each on its own so that one bad template never takes the rest of the file down.
#include <fmt/format.h>

#include <array>

#include "common/input_file.h"
#include "template/compiled.h"
#include "template/lexer.h"
#include "template/parser.h"
#include "template/source_text.h"
#include "template/template.h"

namespace rastrace::tmpl {

std::string Diagnostic::ToString() const {
  return fmt::format("{}:{}:{}: {}: {}", file, line, column, warning ? "warning" : "error",
                     message);
}

struct TemplateSet::Impl {
  // Find is on the report's per-event path: two loads, no hashing. Pages of 256 ids are allocated
  // when a template in them is added, so an empty or small set costs little.
  using Page = std::array<std::unique_ptr<Template>, 256>;
  std::array<std::unique_ptr<Page>, 256> pages;
  size_t count = 0;

  Template* Get(uint16_t id16) const {
    const auto& page = pages[id16 >> 8];
    return page ? (*page)[id16 & 0xFF].get() : nullptr;
  }
  void Put(Template t) {
    auto& page = pages[t.id16 >> 8];
    if (!page) page = std::make_unique<Page>();
    auto& slot = (*page)[t.id16 & 0xFF];
    if (!slot) ++count;
    slot = std::make_unique<Template>(std::move(t));
  }
  bool Erase(uint16_t id16) {
    auto& page = pages[id16 >> 8];
    if (!page || !(*page)[id16 & 0xFF]) return false;
    (*page)[id16 & 0xFF].reset();
    --count;
    return true;
  }
};

TemplateSet::TemplateSet() : impl_(std::make_unique<Impl>()) {}
TemplateSet::~TemplateSet() = default;
TemplateSet::TemplateSet(TemplateSet&&) noexcept = default;
TemplateSet& TemplateSet::operator=(TemplateSet&&) noexcept = default;

size_t TemplateSet::AddText(std::string_view text, std::string_view file_name,
                            std::vector<Diagnostic>& diagnostics, int first_line) {
  size_t added = 0;
  SourceText current;
  bool continuing = false;
  auto finish = [&] {
    Template t;
    Diagnostic d;
    if (ParseTemplate(current, file_name, t, d)) {
      impl_->Put(std::move(t));
      ++added;
    } else {
      diagnostics.push_back(std::move(d));
    }
    current = SourceText();
  };
  int line_no = first_line - 1;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line =
        text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    ++line_no;
    while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
    if (!continuing) {
      if (line.empty() || line[0] == '#' || line[0] == '*') continue;
    }
    // A '\' at the end of a line continues the template on the next line.
    continuing = !line.empty() && line.back() == '\\';
    if (continuing) line.remove_suffix(1);
    current.Append(line, line_no, 1);
    if (!continuing) finish();
  }
  if (continuing) finish();
  return added;
}

Result<size_t> TemplateSet::AddFile(const std::string& path, std::vector<Diagnostic>& diagnostics) {
  auto text = ReadInputFile(path, kMaxTextInputBytes, "template files");
  if (!text) return MakeError("cannot read template file {}", text.error().message);
  return AddText(*text, path, diagnostics);
}

const Template* TemplateSet::Find(uint16_t id16) const {
  return impl_->Get(id16);
}

std::vector<const Template*> TemplateSet::All() const {
  std::vector<const Template*> all;
  all.reserve(impl_->count);
  for (const auto& page : impl_->pages) {
    if (!page) continue;
    for (const auto& t : *page) {
      if (t) all.push_back(t.get());
    }
  }
  return all;
}

bool TemplateSet::Remove(uint16_t id16) {
  return impl_->Erase(id16);
}

size_t TemplateSet::size() const {
  return impl_->count;
}

}  // namespace rastrace::tmpl
