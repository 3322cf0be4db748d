// Runs compiled templates on events. Everything an event can make go wrong (reads past its end,
// division by zero, endless loops, runaway subroutines) ends that event with the $ERROR line.
#include <algorithm>

#include "template/evaluator_impl.h"

namespace rastrace::tmpl {
namespace {

const event::Event& EmptyEvent() {
  static const event::Event kEmpty;
  return kEmpty;
}

}  // namespace

void Evaluator::Impl::Run(const Template& t, const EventContext& c, EvalOutput& out) {
  ctx = &c;
  ev = c.event != nullptr ? c.event : &EmptyEvent();
  bytes = ev->bytes;
  order = c.byte_order;
  word = event::WordSize(ev->layout);
  bool is32 = ev->layout == event::Layout::k32;
  head_size = is32 ? 4 : 8;
  PrepareView();
  dp_bits = (ev->generic ? (is32 ? 4 : 8) : (is32 ? 2 : 6)) * 8;
  base = 0;
  call_depth = 0;
  seq_depth = 0;
  steps = 0;
  step_limit = kBaseSteps + kStepsPerByte * bytes.size();
  output_limit = kBaseOutput + kOutputPerByte * bytes.size();
  halt = failed = pending_error = in_backquote = false;
  status = EvalStatus::kOk;
  out.level = t.level;
  w.Reset(&out.text, t.level);
  if (t.compiled) RunBody(*t.compiled);
  w.Finish();
  if (pending_error) failed = true;
  if (failed) {
    status = EvalStatus::kError;
    if (!out.text.empty()) out.text.push_back('\n');
    out.text.append("***ERROR: TRACEID ");
    TraceIdText(out.text);
    fmt::format_to(std::back_inserter(out.text), " LOGFILE {} OFFSET {:06X}***", c.logfile,
                   ev->offset);
  } else if (status == EvalStatus::kSkip) {
    out.text.clear();
  }
  out.status = status;
  std::fill(slots.begin(), slots.begin() + slots_used, 0);
  slots_used = 0;
}

// The seed's offsets (DDDD at 2, the subhook at 6, G1.5 into the hook type) describe the hookword
// as AIX stores it, big-endian. A little-endian log stores the hookword the other way round, so
// templates see it swapped back: the hookword reads big-endian, everything after it in the log's
// order, and every AIX template finds its fields where the seed says they are.
void Evaluator::Impl::PrepareView() {
  if (order == ByteOrder::kBig || bytes.size() < head_size) return;
  view.assign(bytes.begin(), bytes.end());
  std::reverse(view.begin(), view.begin() + static_cast<std::ptrdiff_t>(head_size));
  bytes = view;
}

void Evaluator::Impl::TraceIdText(std::string& out) {
  if (event::IsTwelveBitId(ev->hook_id)) {
    fmt::format_to(std::back_inserter(out), "{:03X}", ev->hook_id >> 4);
  } else {
    fmt::format_to(std::back_inserter(out), "{:04X}", ev->hook_id);
  }
}

void Evaluator::Impl::RunBody(const CompiledTemplate& compiled) {
  const CompiledTemplate* saved = frame;
  frame = &compiled;
  slots_used = std::max(slots_used, compiled.slot_of_macro.size());
  Exec(compiled.body);
  frame = saved;
}

void Evaluator::Impl::Call(uint16_t id16) {
  if (call_depth >= kMaxSubroutineDepth) return Fail();
  const Template* sub = set.Find(id16);
  if (sub == nullptr || !sub->compiled) return Fail();
  ++call_depth;
  RunBody(*sub->compiled);
  --call_depth;
}

void Evaluator::Impl::Exec(const Seq& seq) {
  ++seq_depth;
  for (const Node& n : seq) {
    if (++steps > step_limit || w.size() > output_limit) {
      Fail();
      break;
    }
    if (n.blank_before) w.Blank();
    ExecNode(n);
    if (halt) break;
  }
  // $ERROR lets the descriptor it stands in finish, then ends the template.
  if (pending_error && seq_depth <= error_depth) halt = true;
  --seq_depth;
}

// A template's own text obeys the event's output cap too: a megabyte literal would otherwise be
// printed whole for every event.
void Evaluator::Impl::Literal(std::string_view text) {
  const size_t room = output_limit > w.size() ? output_limit - w.size() : 0;
  if (text.size() <= room) return w.Text(text);
  w.Text(text.substr(0, room));
  Fail();
}

void Evaluator::Impl::ExecNode(const Node& n) {
  switch (n.kind) {
    case NodeKind::kText:
      Literal(frame->TextOf(n));
      return;
    case NodeKind::kString:
      w.Blank();
      Literal(frame->TextOf(n));
      return;
    case NodeKind::kBackquote: {
      w.Blank();
      bool saved = in_backquote;
      in_backquote = true;
      Exec(frame->ChildrenOf(n));
      in_backquote = saved;
      return;
    }
    case NodeKind::kSeparator:
      w.Blank();
      return;
    case NodeKind::kTab:
      w.Tab();
      return;
    case NodeKind::kNewline:
      w.Newline();
      return;
    case NodeKind::kCode:
      PrintCode(frame->ValueOf(n).code);
      return;
    case NodeKind::kMacro:
      PrintValue(frame->ValueOf(n));
      return;
    case NodeKind::kCall:
      Call(n.call_id16);
      return;
    case NodeKind::kAction:
      switch (n.action) {
        case Action::kError:
          if (!pending_error) {
            pending_error = true;
            error_depth = seq_depth;
          }
          return;
        case Action::kStop:
          status = EvalStatus::kStop;
          halt = true;
          return;
        case Action::kSkip:
          status = EvalStatus::kSkip;
          halt = true;
          return;
        default:
          halt = true;
          return;
      }
    case NodeKind::kSwitch:
      ExecSwitch(n);
      return;
    case NodeKind::kLoop: {
      uint64_t count = ValueOf(frame->ValueOf(n));
      const Seq& body = frame->ChildrenOf(n);
      for (uint64_t i = 0; i < count && !halt; ++i) {
        if (++steps > step_limit) return Fail();
        Exec(body);
      }
      return;
    }
    case NodeKind::kBitflags:
      ExecBitflags(n);
      return;
    case NodeKind::kAssign: {
      uint64_t v = static_cast<uint64_t>(EvalExpr(frame->ExprOf(n)));
      if (halt) return;
      const Value& target = frame->ValueOf(n);
      if (target.source == Value::Source::kMacro) {
        Slot(target.macro) = v;
      } else if (target.special == Special::kDataPointer) {
        dp_bits = std::min(v, kMaxPointer) * 8;
      } else if (target.special == Special::kBasePointer) {
        base = std::min(v, kMaxPointer);
      }
      return;
    }
    case NodeKind::kBuiltin:
      RunBuiltin(frame->BuiltinOf(n), true);
      return;
    case NodeKind::kGroup:
      Exec(frame->ChildrenOf(n));
      return;
  }
}

int64_t Evaluator::Impl::RunBuiltin(const Builtin& b, bool printing) {
  if (b.kind == BuiltinKind::kUnsupported) {
    if (warned.find(b.name) == warned.end()) {
      warned.insert(b.name);
      host.Warn(fmt::format("template built-in '{}' is not supported; it is ignored", b.name));
    }
    return 0;
  }
  if (b.kind == BuiltinKind::kPidInstall) {
    uint64_t pid = static_cast<uint64_t>(EvalExpr(b.args[0].expr));
    if (halt) return 0;
    const BuiltinArg& path = b.args[1];
    TextWriter saved = w;
    w.Reset(&arg_text, Level::kAppl);
    bool saved_bq = in_backquote;
    in_backquote = true;
    if (path.is_text) {
      Exec(path.text);
    } else {
      int64_t v = EvalExpr(path.expr);
      if (!halt) w.Format("{}", v);
    }
    in_backquote = saved_bq;
    w = saved;
    if (!halt) host.InstallProcess(pid, arg_text);
    return 0;
  }
  std::vector<int64_t> key;
  key.reserve(b.args.size());
  for (const BuiltinArg& a : b.args) {
    key.push_back(a.is_text ? 0 : EvalExpr(a.expr));
    if (halt) return 0;
  }
  if (b.kind == BuiltinKind::kStartTimer) {
    timers[std::move(key)] = ctx->time_ns;
    return 0;
  }
  auto it = timers.find(key);
  if (it == timers.end()) return 0;
  uint64_t elapsed = ctx->time_ns >= it->second ? ctx->time_ns - it->second : 0;
  timers.erase(it);
  if (printing) {
    w.Blank();
    w.Format("{}.{:06} msec", elapsed / 1'000'000, elapsed % 1'000'000);
    w.Blank();
  }
  return static_cast<int64_t>(elapsed);
}

bool Evaluator::Impl::SubjectText(const Value& v, std::string& text) {
  text.clear();
  const uint8_t* p = nullptr;
  uint64_t length = 0;
  if (v.source == Value::Source::kCode && v.code.kind == CodeKind::kAscii) {
    length = v.code.m;
  } else if (v.source == Value::Source::kCode) {  // S
    unsigned n = v.code.Bytes(word);
    if (!Take(n, p)) return false;
    length = LoadUnsigned(p, n, read_order);
  } else {  // $reg%S
    length = ValueOf(v);
  }
  if (!Take(length, p)) return false;
  for (uint64_t i = 0; i < length && p[i] != 0; ++i) {
    text.push_back(p[i] >= 0x20 && p[i] <= 0x7E ? static_cast<char>(p[i]) : '.');
  }
  return true;
}

void Evaluator::Impl::ExecSwitch(const Node& n) {
  const Switch& sw = frame->SwitchOf(n);
  const Value& subject = frame->ValueOf(n);
  uint64_t number = 0;
  double real = 0;
  switch (sw.compare) {
    case CompareAs::kText:
      if (!SubjectText(subject, subject_text)) return;
      break;
    case CompareAs::kFloat: {
      // Compare the stored float itself, not its integer value.
      const uint8_t* p = nullptr;
      if (!Take(subject.code.m, p)) return;
      real = LoadFloat(p, subject.code.m);
      break;
    }
    case CompareAs::kNumber:
      number = ValueOf(subject) & sw.mask;
      if (halt) return;
      break;
  }
  for (const Case& c : sw.cases) {
    bool match = false;
    switch (c.label.kind) {
      case CaseLabel::Kind::kAny:
        match = true;
        break;
      case CaseLabel::Kind::kNumber:
        match = static_cast<uint64_t>(c.label.number) == number;
        break;
      case CaseLabel::Kind::kText:
        match = c.label.text == subject_text;
        break;
      case CaseLabel::Kind::kFloat:
        match = c.label.real == real;
        break;
    }
    if (match) {
      Exec(c.body);
      return;
    }
  }
}

void Evaluator::Impl::ExecBitflags(const Node& n) {
  uint64_t reg = ValueOf(frame->ValueOf(n));
  if (halt) return;
  for (const FlagEntry& e : frame->FlagsOf(n)) {
    bool set = e.masked ? (reg & e.mask) == e.value : e.value != 0 && (reg & e.value) == e.value;
    const Seq& body = set ? e.set : e.clear;
    if (body.empty()) continue;
    w.Blank();
    Exec(body);
    if (halt) return;
  }
}

Evaluator::Evaluator(const TemplateSet& templates, ReportHost& host)
    : impl_(std::make_unique<Impl>(templates, host)) {}
Evaluator::~Evaluator() = default;

void Evaluator::Run(const Template& tmpl, const EventContext& ctx, EvalOutput& out) {
  impl_->Run(tmpl, ctx, out);
}

}  // namespace rastrace::tmpl
