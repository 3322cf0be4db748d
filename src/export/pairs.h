// Which events open and close a slice (system call entry/return, TRACE ON/OFF, ...): the one table
// the Chrome exporter (and any later consumer) pairs events by. Rastrace's own pairs are
// DefaultPairRules() (pairs.cc); users declare theirs with #@slice in a template file or --slice on
// the command line (src/schema/declarations.h), which come first.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "event/event.h"
#include "schema/declarations.h"
#include "schema/schema.h"

namespace rastrace::exporter {

// Matches events whose hook id is `hook_id` and whose subhook, masked, equals `subhook`
// (mask 0: any subhook); or, when `schema` is set, the events of that schema.
struct HookMatch {
  uint16_t hook_id = 0;
  uint16_t subhook = 0;
  uint16_t subhook_mask = 0;
  std::string schema;
  bool Matches(const event::Event& e, const schema::Schema* s) const {
    if (!schema.empty()) return s != nullptr && s->name == schema;
    return e.hook_id == hook_id && (e.subhook & subhook_mask) == (subhook & subhook_mask);
  }
};

enum class PairScope : uint8_t {
  kThread,  // begin and end on one thread; slices nest on that thread's track
  kGlobal,  // begin and end anywhere in the source (TRACE ON by trcon, OFF by trcoff)
};

// What must be equal for an end to close a begin.
enum class PairKey : uint8_t {
  kNone,
  kWord1,    // data word 1 (the generic data word of a generic event): TRACE ON/OFF channel
  kSubhook,  // the subhook under the rule's mask bits cleared (e.g. tracepoint minor)
  kField,    // the value of the schema field `key_field` (a number, or a string)
};

struct PairRule {
  std::string name;  // the slice name
  HookMatch begin;
  HookMatch end;
  PairScope scope = PairScope::kThread;
  PairKey key = PairKey::kNone;
  // When set, a generic begin event carries the slice's name as an S2 string at this offset of its
  // buffer (a system call's name), which wins over `name`.
  std::optional<size_t> name_in_buffer;
  std::string key_field;    // kField
  std::string title_field;  // a string field of the begin event that names the slice
};

// The rules rastrace knows: see pairs.cc.
std::vector<PairRule> DefaultPairRules();

// A #@slice declaration as a rule.
PairRule RuleFromDeclaration(const schema::SliceDeclaration& declaration);

class PairTable {
 public:
  PairTable() = default;
  explicit PairTable(std::vector<PairRule> rules);
  // The declared slices (when given), then DefaultPairRules().
  static PairTable Default(const schema::Declarations* declarations = nullptr);

  void Add(PairRule rule);

  struct Role {
    size_t rule = 0;
    bool begins = false;  // false: ends a slice
    uint64_t key = 0;
  };
  // The role of `e` (of schema `s`, with `values`) in a pair, if it has one. The first matching
  // rule wins; an event matching a rule's begin and end (same hook) begins.
  // Whether a rule names hook `hook_id` (Find without a schema finds nothing for other hooks).
  bool HasRulesFor(uint16_t hook_id) const { return hooks_with_rules_[hook_id]; }
  std::optional<Role> Find(const event::Event& e, const schema::Schema* s = nullptr,
                           std::span<const schema::Value> values = {}) const;

  const PairRule& rule(size_t index) const { return rules_[index]; }
  size_t size() const { return rules_.size(); }

 private:
  bool MayMatchSchema(const schema::Schema& s) const;

  std::vector<PairRule> rules_;
  std::vector<bool> hooks_with_rules_ = std::vector<bool>(65536, false);  // fast rejection
  bool schema_rules_ = false;                    // some rule matches by schema name
  mutable std::vector<int8_t> schema_has_rule_;  // by schema id: -1 not looked at yet, 0, 1
};

}  // namespace rastrace::exporter
