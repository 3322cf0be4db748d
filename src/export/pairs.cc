#include "export/pairs.h"

#include "event/format.h"

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

uint64_t KeyOf(const PairRule& rule, const HookMatch& match, const event::Event& e) {
  switch (rule.key) {
    case PairKey::kNone:
      return 0;
    case PairKey::kWord1:
      return e.generic ? e.generic_word : (e.word_count > 0 ? e.words[0] : 0);
    case PairKey::kSubhook:
      return e.subhook & static_cast<uint16_t>(~match.subhook_mask);
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

PairTable::PairTable(std::vector<PairRule> rules) {
  for (auto& rule : rules) Add(std::move(rule));
}

void PairTable::Add(PairRule rule) {
  hooks_with_rules_[rule.begin.hook_id] = true;
  hooks_with_rules_[rule.end.hook_id] = true;
  rules_.push_back(std::move(rule));
}

std::optional<PairTable::Role> PairTable::Find(const event::Event& e) const {
  if (!hooks_with_rules_[e.hook_id]) return std::nullopt;
  for (size_t i = 0; i < rules_.size(); ++i) {
    const PairRule& rule = rules_[i];
    if (rule.begin.Matches(e)) return Role{i, true, KeyOf(rule, rule.begin, e)};
    if (rule.end.Matches(e)) return Role{i, false, KeyOf(rule, rule.end, e)};
  }
  return std::nullopt;
}

}  // namespace rastrace::exporter
