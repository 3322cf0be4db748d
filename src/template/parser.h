// Parses one template (its continuation lines already joined) into a Template with its compiled
// form. The first error ends the template and is returned as a diagnostic with its line:col.
#pragma once

#include <string_view>

#include "template/source_text.h"
#include "template/template.h"

namespace rastrace::tmpl {

// True and `out` filled when the template parses; false with the error in `diagnostic`.
bool ParseTemplate(const SourceText& source, std::string_view file, Template& out,
                   Diagnostic& diagnostic);

}  // namespace rastrace::tmpl
