// TemplateText when rastrace is built without the template part: exports have no text column.
#include "export/template_text.h"

namespace rastrace::exporter {

bool TemplatesAvailable() {
  return false;
}

std::string DefaultTemplatePath() {
  return {};
}

Result<std::unique_ptr<TemplateText>> TemplateText::Load(const std::string& path,
                                                         std::vector<std::string>&) {
  return MakeError(
      "{}: templates cannot be used: this rastrace was built without the template part", path);
}

}  // namespace rastrace::exporter
