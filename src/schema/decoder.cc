#include "schema/decoder.h"

#include <fmt/format.h>

#include <array>
#include <optional>
#include <unordered_map>

#include "event/format.h"
#include "event/reformat.h"
#include "event/s2.h"
#include "posix/log_format.h"
#include "schema/names.h"
#include "schema/template_plan.h"
#include "schema/tracepoint_plan.h"

namespace rastrace::schema {

namespace {

// Kinds of events keyed by what the log names (POSIX type names, tracepoints, system calls): a
// damaged log cannot make the tables grow without bound; past this, such events share one schema.
constexpr size_t kMaxKeyed = 4096;

// The system call layout of a session's 101 event: six 8-byte arguments, then the name as S2.
constexpr size_t kSyscallArguments = 6;
constexpr size_t kSyscallNameOffset = kSyscallArguments * 8;

// "123" for hook 0x1230 (the template id), "1234" otherwise: lowercase, for names.
std::string HookText(uint16_t hook_id) {
  return event::IsTwelveBitId(hook_id) ? fmt::format("{:03x}", hook_id >> 4)
                                       : fmt::format("{:04x}", hook_id);
}

bool SameFields(const std::vector<Field>& a, const std::vector<Field>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].size != b[i].size) return false;
  }
  return true;
}

std::string_view Unlabeled(std::string_view label) {
  if (!label.empty() && label.front() == '@') label.remove_prefix(1);
  return label;
}

void ApplyDeclaredNames(const EventDeclaration* declared, std::vector<Field>& fields) {
  if (declared == nullptr || declared->fields.empty()) return;
  std::vector<std::string> names;
  for (size_t i = 0; i < fields.size(); ++i) {
    const bool given = i < declared->fields.size() && declared->fields[i] != "-";
    names.push_back(given ? declared->fields[i] : fields[i].name);
  }
  MakeUnique(names);
  for (size_t i = 0; i < fields.size(); ++i) fields[i].name = std::move(names[i]);
}

}  // namespace

// What one hook id's template gives, per kind of event: generic or not, 32- or 64-bit layout.
struct Decoder::HookEntry {
  struct Variant {
    bool derived = false;
    std::optional<DerivedPlans> plans;
    uint32_t schema = 0;  // when not by subhook
    std::vector<std::pair<uint16_t, uint32_t>> case_schemas;
    std::optional<uint32_t> other_schema;
  };
  Variant variants[4];
  std::optional<uint32_t> raw[2];  // raw schema, by generic
};

struct Decoder::KeyedSyscall {
  uint32_t schema = 0;
  std::vector<Field> arguments;  // empty for exits
  std::string name;              // the call's, as the event gave it
};

struct Decoder::Keyed {
  struct Tracepoint {
    uint32_t schema = 0;
    const tsf::TracepointFormat* format = nullptr;  // null: raw
    TracepointPlan plan;
  };
  std::unordered_map<std::string, uint32_t> posix;
  std::unordered_map<uint32_t, Tracepoint> tracepoints;  // major << 16 | minor
  using Syscall = KeyedSyscall;
  std::unordered_map<std::string, Syscall> syscalls;  // "enter:read", "exit:read"
  // An entry's number (its data word) -> the entry it named last time: most entries are found by
  // a comparison of their name, without building a key and hashing it.
  std::vector<const Syscall*> entries_by_nr;
  std::array<const Syscall*, 256> exits_by_name{};
};

Decoder::Decoder(DecoderSources sources)
    : sources_(sources), hooks_(65536), keyed_(std::make_unique<Keyed>()) {}

Decoder::~Decoder() = default;

Decoder::HookEntry& Decoder::Entry(uint16_t hook_id) {
  auto& entry = hooks_[hook_id];
  if (!entry) entry = std::make_unique<HookEntry>();
  return *entry;
}

const Schema& Decoder::Intern(Schema schema) {
  // The same description reached twice (a template for generic and for ordinary events, 32- and
  // 64-bit logs) is one schema when it gives the same fields.
  if (const Schema* existing = catalog_.Find(schema.name);
      existing != nullptr && existing->family == schema.family &&
      SameFields(existing->fields, schema.fields)) {
    return *existing;
  }
  return catalog_.Add(std::move(schema));
}

Decoder::Decoded Decoder::DecodeRaw(const event::Event& e) {
  HookEntry& entry = Entry(e.hook_id);
  auto& id = entry.raw[e.generic ? 1 : 0];
  if (!id) {
    Schema s;
    s.name = "hook_" + HookText(e.hook_id);
    s.title = s.name;
    s.family = Family::kRaw;
    s.described_by = "no template";
    if (e.generic) {
      s.fields = {{"data_word", FieldType::kHex, 8}, {"buffer", FieldType::kBytes, 0}};
    } else {
      for (unsigned k = 1; k <= event::kMaxDataWords; ++k) {
        s.fields.push_back({fmt::format("d{}", k), FieldType::kHex, 8});
      }
    }
    id = Intern(std::move(s)).id;
  }
  const Schema& schema = catalog_.at(*id);
  if (!want_values_) return {&schema, {}};
  values_.assign(schema.fields.size(), Value{});
  if (e.generic) {
    values_[0] = Value{true, e.generic_word, 0, {}};
    values_[1].present = true;
    values_[1].text =
        std::string_view(reinterpret_cast<const char*>(e.buffer.data()), e.buffer.size());
  } else {
    for (unsigned k = 0; k < e.word_count && k < event::kMaxDataWords; ++k) {
      values_[k] = Value{true, e.words[k], 0, {}};
    }
  }
  return {&schema, values_};
}

Decoder::Decoded Decoder::DecodeTemplate(const event::Event& e, ByteOrder order) {
  const tmpl::Template* t =
      sources_.templates != nullptr ? sources_.templates->Find(e.hook_id) : nullptr;
  if (t == nullptr || !t->compiled) return DecodeRaw(e);
  HookEntry& entry = Entry(e.hook_id);
  const bool is32 = e.layout == event::Layout::k32;
  HookEntry::Variant& v = entry.variants[(e.generic ? 2 : 0) | (is32 ? 1 : 0)];
  const auto make = [&](const TemplatePlan& plan, std::optional<uint16_t> subhook) {
    std::string base = Identifier(Unlabeled(t->label));
    if (base.empty()) base = "hook_" + HookText(e.hook_id);
    const EventDeclaration* declared = sources_.declarations != nullptr
                                           ? sources_.declarations->FindEvent(e.hook_id, subhook)
                                           : nullptr;
    if (declared != nullptr && subhook && !declared->subhook) declared = nullptr;
    Schema s;
    s.family = Family::kTemplate;
    s.title = std::string(Unlabeled(t->label));
    if (subhook) s.title += fmt::format(" {:04X}", *subhook);
    s.name = declared != nullptr ? declared->name
                                 : (subhook ? fmt::format("{}_{:04x}", base, *subhook) : base);
    s.described_by = fmt::format("{}:{}", t->file, t->line);
    s.fields = plan.fields;
    ApplyDeclaredNames(declared, s.fields);
    return Intern(std::move(s)).id;
  };
  if (!v.derived) {
    v.derived = true;
    v.plans = DeriveTemplatePlans(*t, e.generic, e.layout);
    if (v.plans->by_subhook) {
      for (const auto& c : v.plans->by_subhook->cases) {
        v.case_schemas.emplace_back(c.subhook, make(c.plan, c.subhook));
      }
      if (v.plans->by_subhook->other) v.other_schema = make(*v.plans->by_subhook->other, {});
    } else {
      v.schema = make(v.plans->plan, {});
    }
  }
  const TemplatePlan* plan = &v.plans->plan;
  uint32_t id = v.schema;
  if (v.plans->by_subhook) {
    const SubhookPlans& by = *v.plans->by_subhook;
    plan = nullptr;
    for (size_t i = 0; i < by.cases.size(); ++i) {
      if (by.cases[i].subhook == e.subhook) {
        plan = &by.cases[i].plan;
        id = v.case_schemas[i].second;
        break;
      }
    }
    if (plan == nullptr) {
      if (!v.other_schema) return DecodeRaw(e);
      plan = &*by.other;
      id = *v.other_schema;
    }
  }
  if (!want_values_) return {&catalog_.at(id), {}};
  RunTemplatePlan(*plan, e, order, values_, scratch_);
  return {&catalog_.at(id), values_};
}

bool Decoder::DecodePosix(const event::Event& e, ByteOrder order, Decoded& out) {
  const auto view = posix::ViewPosixEvent(e, order);
  if (!view) return false;
  auto it = keyed_->posix.find(std::string(view->name));
  if (it == keyed_->posix.end()) {
    const bool full = keyed_->posix.size() >= kMaxKeyed;
    Schema s;
    s.family = Family::kPosix;
    s.title = full ? "POSIX event" : std::string(view->name);
    s.name = full ? std::string() : Identifier(view->name);
    if (s.name.empty()) s.name = "posix_event";
    s.described_by = "POSIX event type name";
    s.fields = {{"pid", FieldType::kSigned, 4},
                {"thread", FieldType::kHex, 8},
                {"prog_address", FieldType::kHex, 8},
                {"truncation", FieldType::kUnsigned, 2},
                {"data", FieldType::kBytes, 0}};
    const uint32_t id = Intern(std::move(s)).id;
    it = keyed_->posix.emplace(full ? std::string() : std::string(view->name), id).first;
  }
  const Schema& schema = catalog_.at(it->second);
  if (!want_values_) {
    out = {&schema, {}};
    return true;
  }
  values_.assign(5, Value{});
  values_[0] = Value{true, static_cast<uint64_t>(int64_t{view->pid}), 0, {}};
  values_[1] = Value{true, view->thread, 0, {}};
  values_[2] = Value{true, view->prog_address, 0, {}};
  values_[3] = Value{true, view->truncation, 0, {}};
  values_[4].present = true;
  values_[4].text =
      std::string_view(reinterpret_cast<const char*>(view->data.data()), view->data.size());
  out = {&schema, values_};
  return true;
}

bool Decoder::DecodeTracepoint(const event::Event& e, Decoded& out) {
  const auto major = static_cast<uint16_t>(e.generic_word & 0xFFFF);
  const auto flags = static_cast<uint8_t>(e.generic_word >> 16);
  const uint32_t key = uint32_t{major} << 16 | e.subhook;
  auto it = keyed_->tracepoints.find(key);
  if (it == keyed_->tracepoints.end()) {
    const bool full = keyed_->tracepoints.size() >= kMaxKeyed;
    Keyed::Tracepoint tp;
    const tsf::FormatFile* file =
        sources_.tracepoints != nullptr ? sources_.tracepoints->Find(major) : nullptr;
    tp.format = file != nullptr ? file->Find(e.subhook) : nullptr;
    Schema s;
    s.family = Family::kTracepoint;
    const std::string fallback =
        full ? "tracepoint" : fmt::format("tracepoint_{:04x}_{:04x}", major, e.subhook);
    if (tp.format != nullptr && !full) {
      tp.plan = DeriveTracepointPlan(tp.format->parsed);
      s.title = tp.format->desc;
      s.name = Identifier(tp.format->desc);
      s.described_by = tsf::FormatFileName(major);
      s.fields = tp.plan.fields;
    } else {
      tp.format = nullptr;
      s.title = fallback;
      s.described_by = "no format file";
      s.fields = {{"flags", FieldType::kHex, 1}, {"data", FieldType::kBytes, 0}};
    }
    if (s.name.empty()) s.name = fallback;
    tp.schema = Intern(std::move(s)).id;
    it = keyed_->tracepoints.emplace(full ? 0xFFFFFFFFu : key, std::move(tp)).first;
  }
  const Keyed::Tracepoint& tp = it->second;
  const Schema& schema = catalog_.at(tp.schema);
  if (!want_values_) {
    out = {&schema, {}};
    return true;
  }
  if (tp.format != nullptr) {
    const tsf::FmtRecord record{major, e.subhook, (flags & 0x01) == 0, e.buffer};
    RunTracepointPlan(tp.plan, tp.format->parsed, record, values_);
  } else {
    values_.assign(2, Value{});
    values_[0] = Value{true, flags, 0, {}};
    values_[1].present = true;
    values_[1].text =
        std::string_view(reinterpret_cast<const char*>(e.buffer.data()), e.buffer.size());
  }
  out = {&schema, values_};
  return true;
}

bool Decoder::DecodeSyscall(const event::Event& e, ByteOrder order, Decoded& out) {
  const bool entry = e.hook_id == event::kHookSystemCall;
  const auto name = event::ReadS2(e.buffer, entry ? kSyscallNameOffset : 0, order);
  if (!name || name->empty()) return false;
  constexpr size_t kEntriesByNr = 4096;  // a system has a few hundred calls
  const uint64_t nr = e.generic_word;
  const Keyed::Syscall* known = nullptr;
  if (entry && nr < keyed_->entries_by_nr.size() && keyed_->entries_by_nr[nr] != nullptr &&
      keyed_->entries_by_nr[nr]->name == *name) {
    known = keyed_->entries_by_nr[nr];
  }
  // An exit names its call only: a small cache by the name's length and first and last letters.
  const size_t slot = (name->size() * 31 + static_cast<uint8_t>(name->front()) * 7 +
                       static_cast<uint8_t>(name->back())) %
                      keyed_->exits_by_name.size();
  if (!entry && keyed_->exits_by_name[slot] != nullptr &&
      keyed_->exits_by_name[slot]->name == *name) {
    known = keyed_->exits_by_name[slot];
  }
  if (known == nullptr) known = FindSyscall(entry, *name);
  if (known == nullptr) return false;
  if (!entry) keyed_->exits_by_name[slot] = known;
  if (entry && nr < kEntriesByNr) {
    if (keyed_->entries_by_nr.size() <= nr) keyed_->entries_by_nr.resize(nr + 1);
    keyed_->entries_by_nr[nr] = known;
  }
  const Keyed::Syscall& call = *known;
  const Schema& schema = catalog_.at(call.schema);
  if (!want_values_) {
    out = {&schema, {}};
    return true;
  }
  values_.assign(schema.fields.size(), Value{});
  values_[0] = Value{true, e.generic_word, 0, {}};
  for (size_t i = 0; i < call.arguments.size(); ++i) {
    const Field& f = call.arguments[i];
    uint64_t v = Load64(e.buffer.data() + i * 8, order);
    if (f.size < 8) {
      const unsigned shift = 64 - f.size * 8u;
      v = f.type == FieldType::kSigned
              ? static_cast<uint64_t>(static_cast<int64_t>(v << shift) >> shift)
              : (v << shift) >> shift;
    }
    values_[i + 1] = Value{true, v, 0, {}};
  }
  out = {&schema, values_};
  return true;
}

const Decoder::KeyedSyscall* Decoder::FindSyscall(bool entry, std::string_view name) {
  key_.assign(entry ? "enter:" : "exit:");
  key_.append(name);
  auto it = keyed_->syscalls.find(key_);
  if (it == keyed_->syscalls.end()) {
    if (keyed_->syscalls.size() >= kMaxKeyed) return nullptr;
    Keyed::Syscall call;
    Schema s;
    s.family = Family::kSyscall;
    s.title = std::string(name);
    const std::string id = Identifier(name);
    if (id.empty()) return nullptr;
    if (entry) {
      s.name = "syscall_entry_" + id;
      const std::vector<Field>* arguments =
          sources_.syscalls != nullptr ? sources_.syscalls->Arguments(name) : nullptr;
      if (arguments != nullptr && arguments->size() <= kSyscallArguments) {
        call.arguments = *arguments;
        s.described_by = fmt::format("tracefs syscalls/sys_enter_{}", name);
      } else {
        for (size_t i = 1; i <= kSyscallArguments; ++i) {
          call.arguments.push_back({fmt::format("arg{}", i), FieldType::kHex, 8});
        }
        s.described_by = "system call event (no tracefs format)";
      }
      s.fields.push_back({"nr", FieldType::kUnsigned, 8});
      s.fields.insert(s.fields.end(), call.arguments.begin(), call.arguments.end());
      std::vector<std::string> names;
      for (const auto& f : s.fields) names.push_back(f.name);
      MakeUnique(names);
      for (size_t i = 0; i < names.size(); ++i) s.fields[i].name = names[i];
    } else {
      s.name = "syscall_exit_" + id;
      s.described_by = "system call event";
      s.fields = {{"ret", FieldType::kSigned, 8}};
    }
    call.schema = Intern(std::move(s)).id;
    call.name = std::string(name);
    it = keyed_->syscalls.emplace(key_, std::move(call)).first;
  }
  return &it->second;
}

Decoder::Decoded Decoder::Decode(const event::Event& recorded, ByteOrder order,
                                 event::Layout trace_layout) {
  want_values_ = true;
  return Run(recorded, order, trace_layout);
}

const Schema& Decoder::Identify(const event::Event& recorded, ByteOrder order,
                                event::Layout trace_layout) {
  want_values_ = false;
  const Decoded decoded = Run(recorded, order, trace_layout);
  want_values_ = true;
  return *decoded.schema;
}

Decoder::Decoded Decoder::Run(const event::Event& recorded, ByteOrder order,
                              event::Layout trace_layout) {
  const event::Event* e = &recorded;
  // Templates see B events in the 32-bit layout and 00B events of 32-bit logs in the 64-bit one
  // (seed 002 part C), as trcrpt shows them; so do the fields derived from them.
  if (event::NeedsReformat(recorded, trace_layout) &&
      event::Reformat(recorded, trace_layout, order, reformat_scratch_, reformatted_).ok()) {
    e = &reformatted_;
  }
  Decoded out;
  if (e->generic && e->layout == event::Layout::k64) {
    switch (e->hook_id) {
      case posix::kHookPosixEvent:
        if (DecodePosix(*e, order, out)) return out;
        break;
      case event::kHookDynamicTracepoint:
        if (DecodeTracepoint(*e, out)) return out;
        break;
      case event::kHookSystemCall:
        if (e->buffer.size() >= kSyscallNameOffset + 2 && DecodeSyscall(*e, order, out)) {
          return out;
        }
        break;
      case event::kHookSyscallReturn:
        if (DecodeSyscall(*e, order, out)) return out;
        break;
      default:
        break;
    }
  }
  return DecodeTemplate(*e, order);
}

}  // namespace rastrace::schema
