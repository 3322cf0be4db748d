#include "schema/template_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "schema/names.h"
#include "template/compiled.h"

namespace rastrace::schema {

using tmpl::CodeKind;
using tmpl::FormatCode;
using tmpl::Node;
using tmpl::NodeKind;
using tmpl::Seq;

struct PlanStep {
  enum class Op : uint8_t {
    kMove,  // G, O, R, W: moves the DATA_POINTER
    kRead,  // a code that reads data: the value of `field` (-1: read and dropped)
    kLoop,  // LOOP count {X1} or {A1}: `count` bytes as `field` (bytes, or a string for A1)
  };
  enum class Count : uint8_t { kConstant, kField, kBufferBytes };
  Op op = Op::kMove;
  FormatCode code;
  int16_t field = -1;
  Count count = Count::kConstant;
  uint64_t count_value = 0;  // kConstant: the count; kField: the field holding it
};

TemplatePlan::TemplatePlan() = default;
TemplatePlan::~TemplatePlan() = default;
TemplatePlan::TemplatePlan(TemplatePlan&&) noexcept = default;
TemplatePlan& TemplatePlan::operator=(TemplatePlan&&) noexcept = default;

namespace {

bool IsMove(CodeKind kind) {
  return kind == CodeKind::kGoto || kind == CodeKind::kOmit || kind == CodeKind::kReverse ||
         kind == CodeKind::kWord;
}

// HB and HT print facts of the event; they neither read at nor move the DATA_POINTER.
bool IsFact(CodeKind kind) {
  return kind == CodeKind::kBufferBytes || kind == CodeKind::kHookType;
}

bool ValueReads(const tmpl::Value& v) {
  return v.source == tmpl::Value::Source::kCode && !IsFact(v.code.kind);
}

// A node's values, texts and children are in the tables of its template (`ct`).
bool ExprReads(const tmpl::CompiledTemplate& ct, const tmpl::Expr& e) {
  for (const tmpl::ExprStep& step : e.steps) {
    if (step.op == tmpl::ExprStep::Op::kPush && ValueReads(ct.values[step.index])) return true;
  }
  for (const auto& b : e.builtins) {
    for (const auto& arg : b->args) {
      if (ExprReads(ct, arg.expr)) return true;
    }
  }
  return false;
}

bool SeqReads(const tmpl::CompiledTemplate& ct, const Seq& seq);

bool NodeReads(const tmpl::CompiledTemplate& ct, const Node& n) {
  switch (n.kind) {
    case NodeKind::kCode:
      return !IsFact(ct.ValueOf(n).code.kind);
    case NodeKind::kCall:
    case NodeKind::kLoop:
      return true;
    case NodeKind::kAssign:
      return ExprReads(ct, ct.ExprOf(n)) || ct.ValueOf(n).source == tmpl::Value::Source::kSpecial;
    case NodeKind::kSwitch:
      if (ValueReads(ct.ValueOf(n))) return true;
      for (const auto& c : ct.SwitchOf(n).cases) {
        if (SeqReads(ct, c.body)) return true;
      }
      return false;
    case NodeKind::kBitflags:
      if (ValueReads(ct.ValueOf(n))) return true;
      for (const auto& f : ct.FlagsOf(n)) {
        if (SeqReads(ct, f.set) || SeqReads(ct, f.clear)) return true;
      }
      return false;
    case NodeKind::kBuiltin:
      for (const auto& arg : ct.BuiltinOf(n).args) {
        if (ExprReads(ct, arg.expr) || SeqReads(ct, arg.text)) return true;
      }
      return false;
    case NodeKind::kGroup:
    case NodeKind::kBackquote:
      return SeqReads(ct, ct.ChildrenOf(n));
    default:
      return false;
  }
}

bool SeqReads(const tmpl::CompiledTemplate& ct, const Seq& seq) {
  return std::any_of(seq.begin(), seq.end(), [&](const Node& n) { return NodeReads(ct, n); });
}

// Walks a template's nodes, keeping the DATA_POINTER where it is known without an event, and
// turns every code that reads into a field.
class Deriver {
 public:
  Deriver(const tmpl::CompiledTemplate& compiled, bool generic, event::Layout layout)
      : compiled_(compiled),
        generic_(generic),
        is64_(layout == event::Layout::k64),
        word_(event::WordSize(layout)),
        macro_field_(compiled.macro_names.size(), -1) {
    const unsigned head = is64_ ? 8 : 4;
    pos_bits_ = uint64_t{generic ? head : head - 2} * 8;
  }

  // False once the walk must stop (what follows cannot be described).
  bool Walk(const Seq& seq, size_t from = 0) {
    for (size_t i = from; i < seq.size(); ++i) {
      if (!WalkNode(seq[i])) return false;
    }
    return true;
  }
  bool WalkNode(const Node& n);

  // A read without a field (the subject of a subhook switch).
  void SkipRead(const FormatCode& code) { Read(code, std::string(), true); }

  TemplatePlan Finish() {
    MakeUnique(names_);
    for (size_t i = 0; i < names_.size(); ++i) plan_.fields[i].name = std::move(names_[i]);
    return std::move(plan_);
  }

 private:
  std::string DefaultName(uint64_t byte, uint64_t size, bool to_end) const {
    const uint64_t head = is64_ ? 8 : 4;
    if (generic_) {
      if (byte == head && size == word_) return "data_word";
      const uint64_t buffer = head + word_;
      if (byte >= buffer) return to_end ? "buffer" : fmt::format("buffer_{}", byte - buffer);
      return {};
    }
    if (byte >= head && (byte - head) % word_ == 0 && size == word_) {
      const uint64_t k = (byte - head) / word_ + 1;
      if (k <= 5) return fmt::format("d{}", k);
    }
    return {};
  }

  int16_t AddField(std::string name, FieldType type, uint8_t size) {
    plan_.fields.push_back(Field{{}, type, size});
    names_.push_back(std::move(name));
    return static_cast<int16_t>(plan_.fields.size() - 1);
  }

  // The name a field gets: the one given (a macro's), else the pending label, else by position.
  // The name a field at the DATA_POINTER gets (by position when it is known there).
  std::string NameFor(std::string given, uint64_t size, bool to_end) {
    if (given.empty()) given = FieldNameFromLabel(label_);
    label_.clear();
    if (given.empty() && pos_bits_) given = DefaultName(*pos_bits_ / 8, size, to_end);
    return given;
  }

  void AlignUp() {
    if (pos_bits_) *pos_bits_ = (*pos_bits_ + 7) & ~uint64_t{7};
  }
  void Advance(uint64_t bits) {
    if (pos_bits_) *pos_bits_ += bits;
  }

  // A code that reads: adds its field (unless `drop`) and its step. Returns the field.
  int16_t Read(const FormatCode& c, std::string given, bool drop = false) {
    PlanStep step;
    step.op = PlanStep::Op::kRead;
    step.code = c;
    FieldType type = FieldType::kUnsigned;
    uint8_t size = 8;
    uint64_t bytes = 0;  // read by the code (0: not known before the event)
    bool bits = false;
    switch (c.kind) {
      case CodeKind::kHex: {
        const unsigned n = c.word_sized ? word_ : std::max(c.m, 1u);
        bytes = n;
        if (n > 8) {
          type = FieldType::kBytes;
          size = 0;
        } else {
          type = FieldType::kHex;
          size = static_cast<uint8_t>(c.word_sized ? 8 : n);
        }
        break;
      }
      case CodeKind::kSigned:
      case CodeKind::kErrno:
        type = FieldType::kSigned;
        bytes = c.Bytes(word_);
        size = static_cast<uint8_t>(c.word_sized ? 8 : std::min<uint64_t>(bytes, 8));
        break;
      case CodeKind::kUnsigned:
      case CodeKind::kOctal:
      case CodeKind::kTime:
      case CodeKind::kPid:
        bytes = c.Bytes(word_);
        size = static_cast<uint8_t>(c.word_sized ? 8 : std::min<uint64_t>(bytes, 8));
        break;
      case CodeKind::kFloat:
        type = FieldType::kFloat;
        bytes = c.m;
        break;
      case CodeKind::kAscii:
        type = FieldType::kString;
        size = 0;
        bytes = c.m;
        break;
      case CodeKind::kString:
        type = FieldType::kString;
        size = 0;
        break;
      case CodeKind::kBinary: {
        bits = true;
        const uint64_t nbits = uint64_t{c.m} * 8 + c.n;
        size = static_cast<uint8_t>(std::clamp<uint64_t>((nbits + 7) / 8, 1, 8));
        break;
      }
      default:
        break;
    }
    if (!bits) AlignUp();
    if (!drop) {
      std::string name = NameFor(std::move(given), c.word_sized ? word_ : bytes, false);
      step.field = AddField(std::move(name), type, size);
    }
    if (bits) {
      Advance(uint64_t{c.m} * 8 + c.n);
    } else if (c.kind == CodeKind::kString) {
      pos_bits_.reset();  // its length is in the event
    } else {
      Advance(bytes * 8);
    }
    plan_.steps.push_back(step);
    return step.field;
  }

  void Move(const FormatCode& c) {
    PlanStep step;
    step.op = PlanStep::Op::kMove;
    step.code = c;
    plan_.steps.push_back(step);
    // G and W set the pointer whatever it was; O and R move it from where it is, when known.
    const bool absolute = c.kind == CodeKind::kGoto || c.kind == CodeKind::kWord;
    uint64_t bits = pos_bits_.value_or(0);
    if (pos_bits_ || absolute) {
      if (tmpl::MoveDataPointer(c, word_, bits)) {
        pos_bits_ = bits;
      } else {
        pos_bits_.reset();
      }
    }
  }

  // The one 1-byte code a LOOP body holds ({X1} or {A1}), or nullptr.
  const FormatCode* ByteLoopCode(const Seq& body) const {
    const FormatCode* found = nullptr;
    for (const Node& n : body) {
      if (n.kind == NodeKind::kSeparator) continue;
      if (n.kind != NodeKind::kCode || found != nullptr) return nullptr;
      found = &compiled_.ValueOf(n).code;
    }
    if (found == nullptr || found->word_sized || found->m != 1) return nullptr;
    if (found->kind != CodeKind::kHex && found->kind != CodeKind::kAscii) return nullptr;
    return found;
  }

  bool Loop(const Node& n) {
    const FormatCode* code = ByteLoopCode(compiled_.ChildrenOf(n));
    if (code == nullptr) return false;
    PlanStep step;
    step.op = PlanStep::Op::kLoop;
    step.code = *code;
    const tmpl::Value& count = compiled_.ValueOf(n);
    bool to_end = false;
    if (count.source == tmpl::Value::Source::kConstant) {
      step.count = PlanStep::Count::kConstant;
      step.count_value = static_cast<uint64_t>(std::max<int64_t>(count.constant, 0));
    } else if (count.source == tmpl::Value::Source::kCode &&
               count.code.kind == CodeKind::kBufferBytes) {
      step.count = PlanStep::Count::kBufferBytes;
      to_end = true;
    } else if (count.source == tmpl::Value::Source::kMacro &&
               count.format.kind == tmpl::MacroFormat::Kind::kDefault &&
               count.macro < macro_field_.size() && macro_field_[count.macro] >= 0) {
      step.count = PlanStep::Count::kField;
      step.count_value = static_cast<uint64_t>(macro_field_[count.macro]);
    } else {
      return false;
    }
    AlignUp();
    std::string name = NameFor({}, 0, to_end);
    const bool text = code->kind == CodeKind::kAscii;
    step.field = AddField(std::move(name), text ? FieldType::kString : FieldType::kBytes, 0);
    plan_.steps.push_back(step);
    if (step.count == PlanStep::Count::kConstant) {
      Advance(step.count_value * 8);
    } else {
      pos_bits_.reset();
    }
    return true;
  }

  // {{ $x = CODE }}: the code's value is field x. Other assignments read nothing or cannot be
  // followed without the event.
  bool Assign(const Node& n) {
    const tmpl::Value& target = compiled_.ValueOf(n);
    if (target.source != tmpl::Value::Source::kMacro) return false;  // $DATAPOINTER moves
    const tmpl::Expr& e = compiled_.ExprOf(n);
    if (!ExprReads(compiled_, e)) return true;
    if (e.steps.size() != 1 || e.steps[0].op != tmpl::ExprStep::Op::kPush ||
        compiled_.values[e.steps[0].index].source != tmpl::Value::Source::kCode) {
      return false;
    }
    const FormatCode& code = compiled_.values[e.steps[0].index].code;
    if (IsMove(code.kind)) {
      Move(code);
      return true;
    }
    const std::string& macro = compiled_.macro_names[target.macro];
    label_.clear();  // the macro names the value; a label before it describes the printout
    const int16_t field = Read(code, Identifier(macro));
    if (target.macro < macro_field_.size()) macro_field_[target.macro] = field;
    return true;
  }

  // A SWITCH or BITFLAGS subject that is a code is a field; cases that read stop the walk.
  bool Subject(const Node& n, bool cases_read) {
    const tmpl::Value& subject = compiled_.ValueOf(n);
    if (subject.source == tmpl::Value::Source::kCode && !IsFact(subject.code.kind)) {
      if (IsMove(subject.code.kind)) {
        Move(subject.code);
      } else {
        Read(subject.code, {});
      }
    } else {
      label_.clear();
    }
    return !cases_read;
  }

  const tmpl::CompiledTemplate& compiled_;
  bool generic_;
  bool is64_;
  unsigned word_;
  std::optional<uint64_t> pos_bits_;
  std::string label_;
  std::vector<std::string> names_;
  std::vector<int16_t> macro_field_;
  TemplatePlan plan_;
};

bool Deriver::WalkNode(const Node& n) {
  switch (n.kind) {
    case NodeKind::kText:
    case NodeKind::kString:
      label_ = compiled_.TextOf(n);
      return true;
    case NodeKind::kSeparator:
    case NodeKind::kTab:
    case NodeKind::kNewline:
      return true;
    case NodeKind::kCode: {
      const FormatCode& code = compiled_.ValueOf(n).code;
      if (IsFact(code.kind)) return true;
      if (IsMove(code.kind)) {
        Move(code);
      } else {
        Read(code, {});
      }
      return true;
    }
    case NodeKind::kMacro:
      label_.clear();
      return true;
    case NodeKind::kAssign:
      return Assign(n);
    case NodeKind::kLoop:
      return Loop(n);
    case NodeKind::kSwitch: {
      bool cases_read = false;
      for (const auto& c : compiled_.SwitchOf(n).cases) {
        cases_read = cases_read || SeqReads(compiled_, c.body);
      }
      return Subject(n, cases_read);
    }
    case NodeKind::kBitflags: {
      bool cases_read = false;
      for (const auto& f : compiled_.FlagsOf(n)) {
        cases_read = cases_read || SeqReads(compiled_, f.set) || SeqReads(compiled_, f.clear);
      }
      return Subject(n, cases_read);
    }
    case NodeKind::kBuiltin:
      return !NodeReads(compiled_, n);
    case NodeKind::kGroup:
    case NodeKind::kBackquote:
      return Walk(compiled_.ChildrenOf(n));
    case NodeKind::kCall:
    case NodeKind::kAction:
      return false;
  }
  return false;
}

// Where a template's descriptors start: after the label, which is the first node when printed.
size_t FirstDescriptor(const tmpl::Template& t) {
  const Seq& body = t.compiled->body;
  if (!t.label.empty() && t.label.front() != '@' && !body.empty() &&
      body.front().kind == NodeKind::kString && t.compiled->TextOf(body.front()) == t.label) {
    return 1;
  }
  return 0;
}

// A subhook switch: only pointer moves before it, its subject the 2 bytes at offset 6 (where the
// 64-bit hookword keeps the subhook) or $HD, compared as a number. Returns the switch's index.
std::optional<size_t> SubhookSwitch(const tmpl::CompiledTemplate& ct, size_t from,
                                    event::Layout layout) {
  const Seq& body = ct.body;
  std::optional<uint64_t> pos;
  for (size_t i = from; i < body.size(); ++i) {
    const Node& n = body[i];
    if (n.kind == NodeKind::kSeparator) continue;
    if (n.kind == NodeKind::kCode && ct.ValueOf(n).code.kind == CodeKind::kGoto) {
      pos = uint64_t{ct.ValueOf(n).code.m} * 8 + ct.ValueOf(n).code.n;
      continue;
    }
    if (n.kind != NodeKind::kSwitch || ct.SwitchOf(n).compare != tmpl::CompareAs::kNumber ||
        (ct.SwitchOf(n).mask & 0xFFFF) != 0xFFFF) {
      return std::nullopt;
    }
    const tmpl::Value& v = ct.ValueOf(n);
    if (v.source == tmpl::Value::Source::kSpecial && v.special == tmpl::Special::kHookData &&
        v.format.kind == tmpl::MacroFormat::Kind::kDefault) {
      return i;
    }
    if (layout == event::Layout::k64 && v.source == tmpl::Value::Source::kCode && pos == 48 &&
        !v.code.word_sized && v.code.m == 2 &&
        (v.code.kind == CodeKind::kHex || v.code.kind == CodeKind::kUnsigned)) {
      return i;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

TemplatePlan DeriveCase(const tmpl::Template& t, bool generic, event::Layout layout, size_t from,
                        size_t switch_at, const Seq* body) {
  const tmpl::CompiledTemplate& compiled = *t.compiled;
  Deriver d(compiled, generic, layout);
  const Seq& top = compiled.body;
  bool go_on = true;
  for (size_t i = from; i < switch_at && go_on; ++i) go_on = d.WalkNode(top[i]);
  const tmpl::Value& subject = compiled.ValueOf(top[switch_at]);
  if (go_on && subject.source == tmpl::Value::Source::kCode) d.SkipRead(subject.code);
  if (go_on && body != nullptr) go_on = d.Walk(*body);
  if (go_on) d.Walk(top, switch_at + 1);
  return d.Finish();
}

}  // namespace

DerivedPlans DeriveTemplatePlans(const tmpl::Template& t, bool generic, event::Layout layout) {
  DerivedPlans out;
  if (!t.compiled) return out;
  const size_t from = FirstDescriptor(t);
  const Seq& body = t.compiled->body;
  if (const auto at = SubhookSwitch(*t.compiled, from, layout)) {
    SubhookPlans plans;
    for (const tmpl::Case& c : t.compiled->SwitchOf(body[*at]).cases) {
      if (c.label.kind == tmpl::CaseLabel::Kind::kNumber) {
        const auto subhook = static_cast<uint16_t>(c.label.number);
        const bool seen = std::any_of(plans.cases.begin(), plans.cases.end(),
                                      [&](const auto& p) { return p.subhook == subhook; });
        if (!seen) {
          plans.cases.push_back({subhook, DeriveCase(t, generic, layout, from, *at, &c.body)});
        }
      } else if (c.label.kind == tmpl::CaseLabel::Kind::kAny && !plans.other) {
        plans.other = DeriveCase(t, generic, layout, from, *at, &c.body);
      }
    }
    out.by_subhook = std::move(plans);
    return out;
  }
  Deriver d(*t.compiled, generic, layout);
  d.Walk(body, from);
  out.plan = d.Finish();
  return out;
}

namespace {

int64_t SignExtend(uint64_t v, unsigned bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  const unsigned shift = 64 - bytes * 8;
  return static_cast<int64_t>(v << shift) >> shift;
}

// The bytes of an event a field may come from: the hookword and the data, not the thread id and
// timestamp after them (a template that reads past its data prints them; a field would mislabel
// them), nor a generic buffer's padding.
std::span<const uint8_t> DataOf(const event::Event& e) {
  const bool wide = e.layout == event::Layout::k64 || e.reformatted;
  const size_t trailer = (wide ? 8u : 4u) * (e.timestamped ? 2u : 1u);
  size_t end = e.bytes.size() > trailer ? e.bytes.size() - trailer : 0;
  if (e.generic) {
    const size_t head = e.layout == event::Layout::k32 ? 4 : 8;
    end = std::min(end, head + event::WordSize(e.layout) + e.buffer.size());
  }
  return e.bytes.first(end);
}

// The event as templates see it: the hookword big-endian (as AIX stored it), the rest in the log's
// byte order (template/evaluator.cc, PrepareView). Only the hookword is copied.
class EventView {
 public:
  EventView(const event::Event& e, ByteOrder order)
      : bytes_(DataOf(e)), order_(order), head_size_(e.layout == event::Layout::k32 ? 4 : 8) {
    if (bytes_.size() < head_size_) head_size_ = 0;
    std::memcpy(head_, bytes_.data(), head_size_);
    if (order == ByteOrder::kLittle) std::reverse(head_, head_ + head_size_);
  }

  // `n` bytes at the DATA_POINTER (aligned up to a byte first); nullptr when they are not there.
  const uint8_t* Take(uint64_t n, ByteOrder& read_order) {
    dp_bits_ = (dp_bits_ + 7) & ~uint64_t{7};
    const uint64_t at = dp_bits_ / 8;
    if (at > bytes_.size() || n > bytes_.size() - at) return nullptr;
    dp_bits_ += n * 8;
    read_order = at + n <= head_size_ ? ByteOrder::kBig : order_;
    if (at >= head_size_) return bytes_.data() + at;
    if (at + n <= head_size_) return head_ + at;
    straddle_.assign(head_ + at, head_ + head_size_);  // across the hookword's end: rare
    straddle_.insert(straddle_.end(), bytes_.begin() + static_cast<ptrdiff_t>(head_size_),
                     bytes_.begin() + static_cast<ptrdiff_t>(at + n));
    return straddle_.data();
  }

  bool TakeBits(uint64_t nbits, uint64_t& v) {
    const uint64_t total = uint64_t{bytes_.size()} * 8;
    if (dp_bits_ > total || nbits > total - dp_bits_ || nbits > 64) return false;
    v = 0;
    for (uint64_t i = 0; i < nbits; ++i) {
      const uint64_t bit = dp_bits_ + i;
      const uint8_t byte = bit / 8 < head_size_ ? head_[bit / 8] : bytes_[bit / 8];
      v = (v << 1) | ((byte >> (7 - bit % 8)) & 1);
    }
    dp_bits_ += nbits;
    return true;
  }

  bool Move(const FormatCode& c, unsigned word) { return tmpl::MoveDataPointer(c, word, dp_bits_); }

  void set_dp_bits(uint64_t bits) { dp_bits_ = bits; }
  bool in_event(const uint8_t* p) const {
    return p >= bytes_.data() && p < bytes_.data() + bytes_.size();
  }

 private:
  std::span<const uint8_t> bytes_;
  ByteOrder order_;
  size_t head_size_;
  uint8_t head_[8] = {};
  uint64_t dp_bits_ = 0;
  std::vector<uint8_t> straddle_;
};

std::string_view UpToNul(const uint8_t* p, size_t n) {
  const auto* end = static_cast<const uint8_t*>(std::memchr(p, 0, n));
  return {reinterpret_cast<const char*>(p), end != nullptr ? static_cast<size_t>(end - p) : n};
}

}  // namespace

void RunTemplatePlan(const TemplatePlan& plan, const event::Event& e, ByteOrder order,
                     std::vector<Value>& values, std::vector<std::string>& scratch) {
  values.assign(plan.fields.size(), Value{});
  EventView view(e, order);
  const bool is32 = e.layout == event::Layout::k32;
  const unsigned word = event::WordSize(e.layout);
  view.set_dp_bits(uint64_t{e.generic ? (is32 ? 4u : 8u) : (is32 ? 2u : 6u)} * 8);
  // A text that is not a view into the event (it crossed the hookword) is kept in `scratch`.
  const auto keep = [&](int16_t field, EventView& v, std::string_view text) {
    if (v.in_event(reinterpret_cast<const uint8_t*>(text.data())) || text.empty()) return text;
    if (scratch.size() < plan.fields.size()) scratch.resize(plan.fields.size());
    scratch[static_cast<size_t>(field)].assign(text);
    return std::string_view(scratch[static_cast<size_t>(field)]);
  };
  for (const PlanStep& step : plan.steps) {
    if (step.op == PlanStep::Op::kMove) {
      if (!view.Move(step.code, word)) return;
      continue;
    }
    Value value;
    value.present = true;
    ByteOrder read_order = order;
    const FormatCode& c = step.code;
    if (step.op == PlanStep::Op::kLoop) {
      uint64_t count = step.count_value;
      if (step.count == PlanStep::Count::kBufferBytes) {
        count = e.generic ? e.data_length : 0;
      } else if (step.count == PlanStep::Count::kField) {
        const Value& from = values[step.count_value];
        if (!from.present) return;
        count = from.integer;
      }
      const uint8_t* p = view.Take(count, read_order);
      if (p == nullptr) return;
      const std::string_view bytes(reinterpret_cast<const char*>(p), count);
      value.text = keep(step.field, view, c.kind == CodeKind::kAscii ? UpToNul(p, count) : bytes);
      values[static_cast<size_t>(step.field)] = value;
      continue;
    }
    switch (c.kind) {
      case CodeKind::kBinary: {
        if (!view.TakeBits(uint64_t{c.m} * 8 + c.n, value.integer)) return;
        break;
      }
      case CodeKind::kString: {
        const unsigned n = c.Bytes(word);
        const uint8_t* p = view.Take(n, read_order);
        if (p == nullptr) return;
        const uint64_t length = LoadUnsigned(p, n, read_order);
        const uint8_t* text = view.Take(length, read_order);
        if (text == nullptr) return;
        value.text =
            keep(step.field, view, std::string_view(reinterpret_cast<const char*>(text), length));
        break;
      }
      case CodeKind::kAscii: {
        const uint8_t* p = view.Take(c.m, read_order);
        if (p == nullptr) return;
        value.text = keep(step.field, view, UpToNul(p, c.m));
        break;
      }
      case CodeKind::kFloat: {
        const uint8_t* p = view.Take(c.m, read_order);
        if (p == nullptr) return;
        if (c.m == 4) {
          const uint32_t bits = Load32(p, read_order);
          float f;
          std::memcpy(&f, &bits, sizeof f);
          value.real = f;
        } else if (c.m == 8) {
          const uint64_t bits = Load64(p, read_order);
          std::memcpy(&value.real, &bits, sizeof value.real);
        } else {
          value.present = false;
        }
        break;
      }
      default: {
        const unsigned n =
            c.kind == CodeKind::kHex ? (c.word_sized ? word : std::max(c.m, 1u)) : c.Bytes(word);
        const uint8_t* p = view.Take(n, read_order);
        if (p == nullptr) return;
        if (n > 8) {
          value.text =
              keep(step.field, view, std::string_view(reinterpret_cast<const char*>(p), n));
          break;
        }
        value.integer = LoadUnsigned(p, n, read_order);
        if (c.kind == CodeKind::kSigned || c.kind == CodeKind::kErrno) {
          value.integer = static_cast<uint64_t>(SignExtend(value.integer, n));
        }
        break;
      }
    }
    if (step.field >= 0) values[static_cast<size_t>(step.field)] = value;
  }
}

}  // namespace rastrace::schema
