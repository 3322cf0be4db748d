#include "export/pairs.h"

#include "event/format.h"

#include <functional>
#include <string_view>

namespace rastrace::exporter {

namespace {

// AIX system call hooks (template ids 101 and 104): SVC entry and return from system call. As
// system-wide sessions write them (templates/trcfmt), 101's buffer holds six 8-byte arguments and
// then the system call's name as S2.
constexpr size_t kSyscallNameOffset = 6 * 8;

// POSIX trace events (src/posix/log_format.h): hook 0FF1, subhook = the event type id, where
// <trace.h> numbers START 0, STOP 1, OVERFLOW 2 and RESUME 3.
constexpr uint16_t kHookPosixEvent = 0x0FF1;
constexpr uint16_t kPosixStart = 0;
constexpr uint16_t kPosixStop = 1;
constexpr uint16_t kPosixOverflow = 2;
constexpr uint16_t kPosixResume = 3;

uint64_t KeyOf(const PairRule& rule, const HookMatch& match, const event::Event& e,
              const schema::Schema* s, std::span<const schema::Value> values) {
  switch (rule.key) {
    case PairKey::kNone:
      return 0;
    case PairKey::kWord1:
      return e.generic ? e.generic_word : (e.word_count > 0 ? e.words[0] : 0);
    case PairKey::kSubhook:
      return e.subhook & static_cast<uint16_t>(~match.subhook_mask);
    case PairKey::kField:
      if (s == nullptr) return 0;
      for (size_t i = 0; i < s->fields.size() && i < values.size(); ++i) {
        if (s->fields[i].name != rule.key_field || !values[i].present) continue;
        const auto type = s->fields[i].type;
        if (type == schema::FieldType::kString || type == schema::FieldType::kBytes) {
          return std::hash<std::string_view>{}(values[i].text);
        }
        return values[i].integer;
      }
      return 0;
  }
  return 0;
}

}  // namespace

std::vector<PairRule> DefaultPairRules() {
  return {
      {"tracing",
       {event::kHookTraceOn},
       {event::kHookTraceOff},
       PairScope::kGlobal,
       PairKey::kWord1},
      {"system call",
       {event::kHookSystemCall},
       {event::kHookSyscallReturn},
       PairScope::kThread,
       PairKey::kNone,
       kSyscallNameOffset},
      {"posix trace running",
       {kHookPosixEvent, kPosixStart, 0xFFFF},
       {kHookPosixEvent, kPosixStop, 0xFFFF},
       PairScope::kGlobal,
       PairKey::kNone},
      {"posix trace overflow",
       {kHookPosixEvent, kPosixOverflow, 0xFFFF},
       {kHookPosixEvent, kPosixResume, 0xFFFF},
       PairScope::kGlobal,
       PairKey::kNone},
  };
}

PairRule RuleFromDeclaration(const schema::SliceDeclaration& d) {
  const auto side = [](const schema::EventMatch& m) {
    HookMatch h;
    if (m.hook_id) {
      h.hook_id = *m.hook_id;
      h.subhook = m.subhook.value_or(0);
      h.subhook_mask = m.subhook ? 0xFFFF : 0;
    } else {
      h.schema = m.schema;
    }
    return h;
  };
  PairRule rule;
  rule.name = d.name;
  rule.begin = side(d.begin);
  rule.end = side(d.end);
  rule.scope = d.global ? PairScope::kGlobal : PairScope::kThread;
  rule.key = d.key.empty() ? PairKey::kNone : PairKey::kField;
  rule.key_field = d.key;
  rule.title_field = d.title;
  return rule;
}

PairTable PairTable::Default(const schema::Declarations* declarations) {
  PairTable table;
  if (declarations != nullptr) {
    for (const auto& d : declarations->slices) table.Add(RuleFromDeclaration(d));
  }
  for (auto& rule : DefaultPairRules()) table.Add(std::move(rule));
  return table;
}

PairTable::PairTable(std::vector<PairRule> rules) {
  for (auto& rule : rules) Add(std::move(rule));
}

void PairTable::Add(PairRule rule) {
  for (const HookMatch* side : {&rule.begin, &rule.end}) {
    if (side->schema.empty()) {
      hooks_with_rules_[side->hook_id] = true;
    } else {
      schema_rules_ = true;
    }
  }
  schema_has_rule_.clear();
  rules_.push_back(std::move(rule));
}

bool PairTable::MayMatchSchema(const schema::Schema& s) const {
  if (schema_has_rule_.size() <= s.id) schema_has_rule_.resize(s.id + 1, -1);
  int8_t& known = schema_has_rule_[s.id];
  if (known < 0) {
    known = 0;
    for (const PairRule& rule : rules_) {
      if (rule.begin.schema == s.name || rule.end.schema == s.name) known = 1;
    }
  }
  return known == 1;
}

std::optional<PairTable::Role> PairTable::Find(const event::Event& e, const schema::Schema* s,
                                               std::span<const schema::Value> values) const {
  if (!hooks_with_rules_[e.hook_id] && !(schema_rules_ && s != nullptr && MayMatchSchema(*s))) {
    return std::nullopt;
  }
  for (size_t i = 0; i < rules_.size(); ++i) {
    const PairRule& rule = rules_[i];
    if (rule.begin.Matches(e, s)) return Role{i, true, KeyOf(rule, rule.begin, e, s, values)};
    if (rule.end.Matches(e, s)) return Role{i, false, KeyOf(rule, rule.end, e, s, values)};
  }
  return std::nullopt;
}

}  // namespace rastrace::exporter
