// Text forms of values that need more than fmt: errno names, ctime-style dates, %.4E floats.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rastrace::tmpl {

// The #define name of an errno value on this system ("ENOENT"); empty when it has none.
std::string_view ErrnoName(int64_t value);
// The value of an errno name, or -1.
int ErrnoFromName(std::string_view name);

// `seconds` (only the low 32 bits are used, as seed 002 says of Tm) as ctime() prints it in GMT,
// without the newline: "Thu Jan  1 00:00:00 1970". Appends to `out`.
void AppendCtime(uint64_t seconds, std::string& out);

}  // namespace rastrace::tmpl
