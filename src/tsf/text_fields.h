// Lines of space-separated fields with C-style quoted strings: the grammar of the TFF file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rastrace::tsf {

// `"..."` with `"`, `\` and bytes outside 0x20-0x7E escaped (\" \\ \xHH).
std::string Quote(std::string_view text);
// Splits a line into fields; quoted fields are unescaped. Errors name the column.
Result<std::vector<std::string>> SplitFields(std::string_view line);

}  // namespace rastrace::tsf
