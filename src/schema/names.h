// Names of schemas and fields: identifiers every consumer can use as they are (a CTF field, a SQL
// column, a CSV file name, a JSON key): lowercase letters, digits and '_', not starting with a
// digit. Made from the describing text: "child pid=" -> child_pid, "FileName = " -> filename,
// "(OS) DosOpen    Pre-Invocation" -> os_dosopen_pre_invocation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rastrace::schema {

// The identifier for `text`: every run of characters other than ASCII letters and digits becomes
// one '_', letters are lowered, leading and trailing '_' are dropped, and a leading digit gets a
// '_' before it. Empty when `text` holds no letter or digit.
std::string Identifier(std::string_view text);

// The name a label before a value gives it: the label's text with a trailing '=', ':' or '-'
// (and blanks) removed, as an identifier. "tid=" -> tid, "Return Code = " -> return_code.
std::string FieldNameFromLabel(std::string_view label);

// Makes the names of `names` unique in order: a name seen before gets `_2`, `_3`... A name that is
// empty becomes `field<N>` (N: its 1-based position).
void MakeUnique(std::vector<std::string>& names);

}  // namespace rastrace::schema
