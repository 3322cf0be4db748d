#include "report/update_file.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <list>
#include <map>
#include <unordered_map>

namespace rastrace::report {

namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

bool Continues(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
    line.remove_suffix(1);
  }
  return !line.empty() && line.back() == '\\';
}

bool IsHex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

// A template starts in column 0 with 3 or 4 hex digits and a blank.
bool StartsTemplate(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && IsHex(line[n])) ++n;
  return (n == 3 || n == 4) && (n == line.size() || line[n] == ' ' || line[n] == '\t');
}

bool ParseInt(std::string_view text, int& value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

}  // namespace

Result<TemplateHead> ParseTemplateHead(std::string_view line, std::string_view where,
                                       size_t column) {
  TemplateHead head;
  size_t n = 0;
  while (n < line.size() && IsHex(line[n])) ++n;
  if (n != 3 && n != 4) {
    return MakeError("{}:{}: expected a trace id of 3 or 4 hex digits at the start of the template",
                     where, column);
  }
  head.id_text = std::string(line.substr(0, n));
  unsigned value = 0;
  std::from_chars(line.data(), line.data() + n, value, 16);
  head.id16 = static_cast<uint16_t>(n == 3 ? value << 4 : value);
  size_t at = line.find_first_not_of(" \t", n);
  if (at == std::string_view::npos) {
    return MakeError("{}:{}: expected a version V.R after trace id {}", where, column + line.size(),
                     head.id_text);
  }
  size_t end = line.find_first_of(" \t\\", at);
  std::string_view version = line.substr(at, end == std::string_view::npos ? end : end - at);
  size_t dot = version.find('.');
  if (dot == std::string_view::npos || !ParseInt(version.substr(0, dot), head.major) ||
      !ParseInt(version.substr(dot + 1), head.minor)) {
    return MakeError("{}:{}: expected a version V.R after trace id {}, got '{}'", where,
                     column + at, head.id_text, version);
  }
  return head;
}

std::vector<TemplateFileChunk> SplitTemplateFile(std::string_view text) {
  std::vector<TemplateFileChunk> chunks;
  auto lines = Lines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    TemplateFileChunk chunk;
    if (StartsTemplate(lines[i])) {
      auto head = ParseTemplateHead(lines[i], "");
      if (head) {
        chunk.is_template = true;
        chunk.head = *head;
      }
      chunk.text.append(lines[i]).push_back('\n');
      while (Continues(lines[i]) && i + 1 < lines.size()) {
        chunk.text.append(lines[++i]).push_back('\n');
      }
    } else {
      chunk.text.append(lines[i]).push_back('\n');
    }
    // Runs of non-template lines stay one chunk.
    if (!chunk.is_template && !chunks.empty() && !chunks.back().is_template) {
      chunks.back().text += chunk.text;
    } else {
      chunks.push_back(std::move(chunk));
    }
  }
  return chunks;
}

Result<std::vector<UpdateOp>> ParseUpdateFile(std::string_view text, std::string_view name) {
  auto lines = Lines(text);
  auto first = lines.empty() ? std::string_view{} : lines[0];
  while (!first.empty() && (first.back() == ' ' || first.back() == '\t' || first.back() == '\r')) {
    first.remove_suffix(1);
  }
  if (first != "* /etc/trcfmt") {
    return MakeError("{}:1:1: expected '* /etc/trcfmt' as the first line of an update file", name);
  }
  std::vector<UpdateOp> ops;
  for (size_t i = 1; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    int line_no = static_cast<int>(i + 1);
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string_view::npos) continue;
    char op = line[start];
    if (op == '*' || op == '#') continue;
    std::string where = fmt::format("{}:{}", name, line_no);
    if (op != '+' && op != '-') {
      return MakeError("{}:{}: expected '+template', '-id' or a comment ('*' or '#')", where,
                       start + 1);
    }
    size_t body = line.find_first_not_of(" \t", start + 1);
    if (body == std::string_view::npos) {
      return MakeError("{}:{}: expected a {} after '{}'", where, start + 2,
                       op == '+' ? "template" : "trace id", op);
    }
    UpdateOp update;
    update.line = line_no;
    auto head = ParseTemplateHead(line.substr(body), where, body + 1);
    if (op == '-') {
      // The id is the first word; anything after it (a version, a label) is ignored.
      std::string_view id = line.substr(body);
      id = id.substr(0, id.find_first_of(" \t\r"));
      size_t n = 0;
      while (n < id.size() && IsHex(id[n])) ++n;
      if ((n != 3 && n != 4) || n != id.size()) {
        return MakeError("{}:{}: expected a trace id of 3 or 4 hex digits after '-', got '{}'",
                         where, body + 1, id);
      }
      unsigned value = 0;
      std::from_chars(id.data(), id.data() + n, value, 16);
      update.kind = UpdateOp::Kind::kDelete;
      update.head.id_text = std::string(id);
      update.head.id16 = static_cast<uint16_t>(n == 3 ? value << 4 : value);
      ops.push_back(std::move(update));
      continue;
    }
    if (!head) return head.error();
    update.head = *head;
    update.text.append(line.substr(body)).push_back('\n');
    while (Continues(lines[i]) && i + 1 < lines.size()) {
      update.text.append(lines[++i]).push_back('\n');
    }
    ops.push_back(std::move(update));
  }
  return ops;
}

namespace {

// The template file being updated: its chunks in order, with two indexes so that each operation
// costs O(log n) and trcupdate stays linear in the number of additions: every chunk of an id, and
// the "records" of the sequence (templates whose id is larger than every template before them),
// among which the first template of an id larger than X is the first record larger than X.
class ChunkList {
 public:
  using It = std::list<TemplateFileChunk>::iterator;

  explicit ChunkList(std::vector<TemplateFileChunk> chunks) {
    int max = -1;
    for (auto& chunk : chunks) {
      const It it = chunks_.insert(chunks_.end(), std::move(chunk));
      if (!it->is_template) continue;
      by_id_[it->head.id16].push_back(it);
      if (it->head.id16 > max) {
        max = it->head.id16;
        records_.emplace(it->head.id16, it);
      }
    }
  }

  // The last chunk of `id16` (later definitions replace earlier ones), or none.
  TemplateFileChunk* Last(uint16_t id16) {
    auto found = by_id_.find(id16);
    return found == by_id_.end() || found->second.empty() ? nullptr : &*found->second.back();
  }

  // Puts a template whose id has no chunk yet before the first template of a higher id.
  void Insert(TemplateFileChunk chunk) {
    const uint16_t id16 = chunk.head.id16;
    auto after = records_.upper_bound(id16);
    const It it =
        chunks_.insert(after == records_.end() ? chunks_.end() : after->second, std::move(chunk));
    by_id_[id16].push_back(it);
    // Every template before it has a lower id: it is a record.
    records_.emplace(id16, it);
  }

  // Removes every chunk of `id16`; false when there was none.
  bool Erase(uint16_t id16) {
    auto found = by_id_.find(id16);
    if (found == by_id_.end() || found->second.empty()) return false;
    std::vector<It> doomed = std::move(found->second);
    by_id_.erase(found);
    auto record = records_.find(id16);
    if (record == records_.end()) {
      for (const It& it : doomed) chunks_.erase(it);
      return true;
    }
    // The record goes: templates between it and the next record may become records.
    const It first = record->second;
    const int before = record == records_.begin() ? -1 : std::prev(record)->first;
    const It stop = std::next(record) == records_.end() ? chunks_.end() : std::next(record)->second;
    records_.erase(record);
    for (const It& it : doomed) {
      if (it != first) chunks_.erase(it);
    }
    const It from = chunks_.erase(first);
    int max = before;
    for (It it = from; it != stop; ++it) {
      if (it->is_template && it->head.id16 > max) {
        max = it->head.id16;
        records_.emplace(it->head.id16, it);
      }
    }
    return true;
  }

  std::string Text() const {
    std::string text;
    for (const auto& chunk : chunks_) text += chunk.text;
    return text;
  }

 private:
  std::list<TemplateFileChunk> chunks_;
  std::unordered_map<uint16_t, std::vector<It>> by_id_;
  std::map<uint16_t, It> records_;
};

}  // namespace

UpdateOutcome ApplyUpdates(std::string_view file_text, const std::vector<UpdateOp>& ops,
                           bool override_versions, std::string_view update_name) {
  UpdateOutcome outcome;
  ChunkList chunks(SplitTemplateFile(file_text));
  for (const UpdateOp& op : ops) {
    if (op.kind == UpdateOp::Kind::kDelete) {
      // Later definitions replace earlier ones, so every definition of the id goes.
      if (!chunks.Erase(op.head.id16)) {
        outcome.messages.push_back({fmt::format("{}:{}: trace id {} has no template to delete",
                                                update_name, op.line, op.head.id_text),
                                    true});
        continue;
      }
      outcome.messages.push_back({fmt::format("deleted template {}", op.head.id_text)});
      continue;
    }
    TemplateFileChunk added{true, op.head, op.text};
    if (TemplateFileChunk* existing = chunks.Last(op.head.id16)) {
      const TemplateHead& old = existing->head;
      bool older = std::pair(op.head.major, op.head.minor) < std::pair(old.major, old.minor);
      if (older && !override_versions) {
        outcome.refused = true;
        outcome.messages.push_back(
            {fmt::format("{}:{}: template {} version {}.{} not replaced: the template file has "
                         "version {}.{} (use -o to override)",
                         update_name, op.line, op.head.id_text, op.head.major, op.head.minor,
                         old.major, old.minor),
             true});
        continue;
      }
      *existing = std::move(added);
      outcome.messages.push_back({fmt::format("replaced template {} (version {}.{})",
                                              op.head.id_text, op.head.major, op.head.minor)});
      continue;
    }
    chunks.Insert(std::move(added));
    outcome.messages.push_back({fmt::format("added template {} (version {}.{})", op.head.id_text,
                                            op.head.major, op.head.minor)});
  }
  outcome.text = chunks.Text();
  return outcome;
}

std::string ExtractTemplates(std::string_view file_text, const IdSet& ids) {
  std::string out = "* /etc/trcfmt\n";
  for (const auto& chunk : SplitTemplateFile(file_text)) {
    if (chunk.is_template && ids.Contains(chunk.head.id16)) out += "+" + chunk.text;
  }
  return out;
}

}  // namespace rastrace::report
