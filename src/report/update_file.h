// trcupdate: applying an update file to a template file as text, so comments and layout of the
// template file survive. Update file: first line `* /etc/trcfmt`; `+template` adds or replaces
// (refused when the existing version is higher, unless overridden); `-id` deletes; lines starting
// with `*` or `#` are comments.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "report/id_list.h"

namespace rastrace::report {

// The id and version at the start of a template: "15A 1.0 ...".
struct TemplateHead {
  uint16_t id16 = 0;
  std::string id_text;
  int major = 0;
  int minor = 0;
};

// Parses the head of a template line; `where` prefixes errors ("file:line").
// `column` is the column of line[0] in its file, for messages.
Result<TemplateHead> ParseTemplateHead(std::string_view line, std::string_view where,
                                       size_t column = 1);

// A template file cut into templates (a line with an id in column 0 and its `\` continuation
// lines) and everything else (comments, blank lines), each kept as written.
struct TemplateFileChunk {
  bool is_template = false;
  TemplateHead head;
  std::string text;  // whole lines, each ending in '\n'
};
std::vector<TemplateFileChunk> SplitTemplateFile(std::string_view text);

struct UpdateOp {
  enum class Kind { kAdd, kDelete } kind = Kind::kAdd;
  TemplateHead head;
  std::string text;  // kAdd: the template as it goes into the file, lines ending in '\n'
  int line = 0;
};

// Parses an update file. Errors name the file, line and column and what was expected.
Result<std::vector<UpdateOp>> ParseUpdateFile(std::string_view text, std::string_view name);

struct UpdateMessage {
  std::string text;
  bool problem = false;  // a refusal or a missing id, printed even when not verbose
};

struct UpdateOutcome {
  std::string text;                     // the new template file
  std::vector<UpdateMessage> messages;  // one per operation
  bool refused = false;                 // some template was not replaced (version)
};

// Applies `ops` in order. Replaced templates stay where they were; added ones go before the first
// template of a higher id.
UpdateOutcome ApplyUpdates(std::string_view file_text, const std::vector<UpdateOp>& ops,
                           bool override_versions, std::string_view update_name);

// -x: the templates of `ids` as an update file that adds them back.
std::string ExtractTemplates(std::string_view file_text, const IdSet& ids);

}  // namespace rastrace::report
