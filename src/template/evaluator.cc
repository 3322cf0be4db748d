// Runs compiled templates on events. Everything an event can make go wrong (reads past its end,
// division by zero, endless loops, runaway subroutines) ends that event with the $ERROR line.
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "template/compiled.h"
#include "template/template.h"
#include "template/text_writer.h"
#include "template/value_format.h"

namespace rastrace::tmpl {
namespace {

constexpr int kMaxSubroutineDepth = 10;  // seed 002 section VII
// Work and output allowed per event: far above any real template, low enough that a loop count
// read from a corrupt event ends quickly.
constexpr uint64_t kMaxSteps = 100'000;
constexpr size_t kMaxOutput = 64 * 1024;
constexpr size_t kMaxExprStack = 130;
// The DATA_POINTER and BASE_POINTER stay far below this, so pointer arithmetic cannot wrap.
constexpr uint64_t kMaxPointer = uint64_t{1} << 40;

int64_t SignExtend(uint64_t v, unsigned bytes) {
  if (bytes >= 8) return static_cast<int64_t>(v);
  unsigned shift = 64 - bytes * 8;
  return static_cast<int64_t>(v << shift) >> shift;
}

uint64_t MaskBytes(uint64_t v, unsigned bytes) {
  return bytes >= 8 ? v : v & ((uint64_t{1} << (bytes * 8)) - 1);
}

int64_t SaturatingFromDouble(double d) {
  if (!(d == d)) return 0;  // NaN
  if (d >= 9.2e18) return std::numeric_limits<int64_t>::max();
  if (d <= -9.2e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

const event::Event& EmptyEvent() {
  static const event::Event kEmpty;
  return kEmpty;
}

}  // namespace

struct Evaluator::Impl {
  Impl(const TemplateSet& templates, ReportHost& report_host) : set(templates), host(report_host) {}

  const TemplateSet& set;
  ReportHost& host;

  // State of the event being run.
  const EventContext* ctx = nullptr;
  const event::Event* ev = nullptr;
  std::span<const uint8_t> bytes;
  ByteOrder order = ByteOrder::kLittle;
  ByteOrder read_order = ByteOrder::kLittle;  // of the bytes the last Take returned
  size_t head_size = 8;                       // the hookword: 4 bytes (32-bit) or 8 (64-bit)
  std::vector<uint8_t> view;                  // a little-endian event with its hookword swapped
  unsigned word = 8;
  uint64_t dp_bits = 0;  // the DATA_POINTER, in bits
  uint64_t base = 0;     // the BASE_POINTER, in bytes
  std::array<uint64_t, 256> slots{};
  size_t slots_used = 0;
  TextWriter w;
  const CompiledTemplate* frame = nullptr;
  int call_depth = 0;
  int seq_depth = 0;
  int error_depth = 0;
  uint64_t steps = 0;
  bool halt = false;
  bool failed = false;
  bool pending_error = false;
  bool in_backquote = false;
  EvalStatus status = EvalStatus::kOk;
  std::string subject_text;
  std::string arg_text;

  // State across events.
  std::map<std::vector<int64_t>, uint64_t> timers;
  std::set<std::string, std::less<>> warned;

  void Run(const Template& t, const EventContext& c, EvalOutput& out);

 private:
  void Fail() {
    halt = true;
    failed = true;
  }
  void Exec(const Seq& seq);
  void ExecNode(const Node& n);
  void Call(uint16_t id16);
  void RunBody(const CompiledTemplate& compiled);

  uint64_t& Slot(uint16_t macro) { return slots[frame->slot_of_macro[macro]]; }

  // Reads: false (and the event failed) when out of range.
  bool Take(uint64_t n, const uint8_t*& p);
  bool TakeBits(uint64_t nbits, uint64_t& v);
  bool Move(const FormatCode& c);
  uint64_t CodeValue(const FormatCode& c);
  uint64_t ValueOf(const Value& v);
  uint64_t SpecialValue(Special s);
  std::string_view SpecialText(Special s);
  int64_t EvalExpr(const Expr& e);
  int64_t RunBuiltin(const Builtin& b, bool printing);

  void PrintCode(const FormatCode& c);
  void PrintValue(const Value& v);
  void PrintWithCode(uint64_t value, const FormatCode& c);
  void PrintBits(uint64_t value, unsigned nbits);
  void PrintText(const uint8_t* p, size_t n, size_t width, bool pad);
  void PrepareView();
  double LoadFloat(const uint8_t* p, unsigned size) const {
    if (size == 4) {
      uint32_t bits = Load32(p, read_order);
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    uint64_t bits = Load64(p, read_order);
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  void CodeBlank() {
    if (!in_backquote) w.Blank();
  }
  void ExecSwitch(const Node& n);
  void ExecBitflags(const Node& n);
  bool SubjectText(const Value& v, std::string& text);
  void TraceIdText(std::string& out);
};

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
    if (++steps > kMaxSteps || w.size() > kMaxOutput) {
      Fail();
      break;
    }
    ExecNode(n);
    if (halt) break;
  }
  // $ERROR lets the descriptor it stands in finish, then ends the template.
  if (pending_error && seq_depth <= error_depth) halt = true;
  --seq_depth;
}

void Evaluator::Impl::ExecNode(const Node& n) {
  switch (n.kind) {
    case NodeKind::kText:
      w.Text(n.text);
      return;
    case NodeKind::kString:
      w.Blank();
      w.Text(n.text);
      return;
    case NodeKind::kBackquote: {
      w.Blank();
      bool saved = in_backquote;
      in_backquote = true;
      Exec(n.children);
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
      PrintCode(n.value.code);
      return;
    case NodeKind::kMacro:
      PrintValue(n.value);
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
      uint64_t count = ValueOf(n.value);
      for (uint64_t i = 0; i < count && !halt; ++i) {
        if (++steps > kMaxSteps) return Fail();
        Exec(n.children);
      }
      return;
    }
    case NodeKind::kBitflags:
      ExecBitflags(n);
      return;
    case NodeKind::kAssign: {
      uint64_t v = static_cast<uint64_t>(EvalExpr(*n.expr));
      if (halt) return;
      if (n.value.source == Value::Source::kMacro) {
        Slot(n.value.macro) = v;
      } else if (n.value.special == Special::kDataPointer) {
        dp_bits = std::min(v, kMaxPointer) * 8;
      } else if (n.value.special == Special::kBasePointer) {
        base = std::min(v, kMaxPointer);
      }
      return;
    }
    case NodeKind::kBuiltin:
      RunBuiltin(*n.builtin, true);
      return;
    case NodeKind::kGroup:
      Exec(n.children);
      return;
  }
}

bool Evaluator::Impl::Take(uint64_t n, const uint8_t*& p) {
  dp_bits = (dp_bits + 7) & ~uint64_t{7};
  uint64_t offset = base + dp_bits / 8;
  if (offset > bytes.size() || n > bytes.size() - offset) {
    Fail();
    return false;
  }
  p = bytes.data() + offset;
  dp_bits += n * 8;
  read_order = offset + n <= head_size ? ByteOrder::kBig : order;
  return true;
}

bool Evaluator::Impl::TakeBits(uint64_t nbits, uint64_t& v) {
  uint64_t start = base * 8 + dp_bits;
  uint64_t total = uint64_t{bytes.size()} * 8;
  if (start > total || nbits > total - start) {
    Fail();
    return false;
  }
  v = 0;
  for (uint64_t i = 0; i < nbits; ++i) {
    uint64_t bit = start + i;
    v = (v << 1) | ((bytes[bit / 8] >> (7 - bit % 8)) & 1);
  }
  dp_bits += nbits;
  return true;
}

// The pointer codes. False when the pointer would go before the start of the event.
bool Evaluator::Impl::Move(const FormatCode& c) {
  switch (c.kind) {
    case CodeKind::kGoto:
      dp_bits = uint64_t{c.m} * 8 + c.n;
      return true;
    case CodeKind::kOmit:
      dp_bits += uint64_t{c.m} * 8 + c.n;
      return true;
    case CodeKind::kReverse:
      if (c.m == 0) {
        dp_bits &= ~uint64_t{7};  // R0 byte-aligns
        return true;
      }
      if (dp_bits < uint64_t{c.m} * 8) {
        Fail();
        return false;
      }
      dp_bits -= uint64_t{c.m} * 8;
      return true;
    case CodeKind::kWord:
      dp_bits = uint64_t{c.m} * word * 8;
      return true;
    default:
      return true;
  }
}

uint64_t Evaluator::Impl::CodeValue(const FormatCode& c) {
  const uint8_t* p = nullptr;
  switch (c.kind) {
    case CodeKind::kGoto:
    case CodeKind::kOmit:
    case CodeKind::kReverse:
    case CodeKind::kWord:
      Move(c);
      return 0;
    case CodeKind::kAscii:
      Take(c.m, p);
      return 0;
    case CodeKind::kString: {
      unsigned n = c.Bytes(word);
      if (!Take(n, p)) return 0;
      uint64_t length = LoadUnsigned(p, n, read_order);
      Take(length, p);
      return length;
    }
    case CodeKind::kBinary: {
      uint64_t v = 0;
      TakeBits(uint64_t{c.m} * 8 + c.n, v);
      return v;
    }
    case CodeKind::kHex: {
      unsigned n = c.word_sized ? word : std::max(c.m, 1u);
      if (!Take(n, p)) return 0;
      if (n <= 8) return LoadUnsigned(p, n, read_order);
      return Load64(read_order == ByteOrder::kBig ? p + n - 8 : p, read_order);  // the low 64 bits
    }
    case CodeKind::kSigned:
    case CodeKind::kErrno: {
      unsigned n = c.Bytes(word);
      if (!Take(n, p)) return 0;
      return static_cast<uint64_t>(SignExtend(LoadUnsigned(p, n, read_order), n));
    }
    case CodeKind::kUnsigned:
    case CodeKind::kOctal:
    case CodeKind::kTime:
    case CodeKind::kPid: {
      unsigned n = c.Bytes(word);
      if (!Take(n, p)) return 0;
      return LoadUnsigned(p, n, read_order);
    }
    case CodeKind::kFloat:
      if (!Take(c.m, p)) return 0;
      return static_cast<uint64_t>(SaturatingFromDouble(LoadFloat(p, c.m)));
    case CodeKind::kBufferBytes:
      return ev->generic ? ev->data_length : 0;
    case CodeKind::kHookType:
      return ev->layout == event::Layout::k32 ? ev->type32 : ev->flags;
  }
  return 0;
}

uint64_t Evaluator::Impl::SpecialValue(Special s) {
  bool is32 = ev->layout == event::Layout::k32;
  auto data_word = [&](unsigned k) -> uint64_t {
    uint64_t v;
    if (ev->generic) {
      v = k == 1 ? ev->generic_word : 0;
    } else {
      v = k <= ev->word_count && k <= event::kMaxDataWords ? ev->words[k - 1] : 0;
    }
    return is32 ? v & 0xFFFFFFFF : v;
  };
  switch (s) {
    case Special::kHookEnv:
      return static_cast<uint64_t>(ev->layout);
    case Special::kTraceEnv:
      return static_cast<uint64_t>(ctx->trace_layout);
    case Special::kRelLineNo:
      return ctx->rel_line_no;
    case Special::kD1:
      return data_word(1);
    case Special::kD2:
      return data_word(2);
    case Special::kD3:
      return data_word(3);
    case Special::kD4:
      return data_word(4);
    case Special::kD5:
      return data_word(5);
    case Special::kL1:
    case Special::kL2:
    case Special::kL3:
    case Special::kL4:
    case Special::kL5: {
      unsigned k = static_cast<unsigned>(s) - static_cast<unsigned>(Special::kL1) + 1;
      if (!is32) return data_word(k);
      // A 32-bit hook passes a 64-bit value in two data words, high word first.
      return (data_word(2 * k - 1) << 32) | (2 * k <= 5 ? data_word(2 * k) : 0);
    }
    case Special::kHookData: {
      size_t at = is32 ? 2 : 6;
      return bytes.size() >= at + 2 ? Load16(bytes.data() + at, ByteOrder::kBig) : ev->subhook;
    }
    case Special::kHookLength:
      return ev->data_length;
    case Special::kWordSize:
      return word;
    case Special::kGeneric:
      return ev->generic ? 1 : 0;
    case Special::kTotalCpus:
      return ctx->total_cpus;
    case Special::kTracedCpus:
      return ctx->traced_cpus;
    case Special::kReportedCpus:
      return ctx->reported_cpus;
    case Special::kLargeDataTypes:
      return ctx->trace_layout == event::Layout::k64 ? 1 : 0;
    case Special::kPid:
      return ctx->pid;
    case Special::kTid:
      return ctx->tid;
    case Special::kCpuId:
      return ctx->cpuid;
    case Special::kPri:
      return ctx->priority;
    case Special::kLogIdx:
      return ev->offset + base + dp_bits / 8;
    case Special::kLogIdx0:
      return ev->offset;
    case Special::kTraceId:
      return event::IsTwelveBitId(ev->hook_id) ? ev->hook_id >> 4 : ev->hook_id;
    case Special::kDataPointer:
      return dp_bits / 8;
    case Special::kBasePointer:
      return base;
    case Special::kIpAddr:
      return ctx->ip_address;
    case Special::kBuff:
      return ctx->buffer_scheme;
    case Special::kSvc:
    case Special::kExecPath:
    case Special::kLogFile:
      return 0;
  }
  return 0;
}

std::string_view Evaluator::Impl::SpecialText(Special s) {
  switch (s) {
    case Special::kSvc:
      return ctx->svc;
    case Special::kLogFile:
      return ctx->logfile;
    case Special::kExecPath:
      return ctx->exec_path.empty() ? host.ExecPathOf(ctx->pid) : ctx->exec_path;
    default:
      return {};
  }
}

uint64_t Evaluator::Impl::ValueOf(const Value& v) {
  uint64_t value = 0;
  switch (v.source) {
    case Value::Source::kConstant:
      return static_cast<uint64_t>(v.constant);
    case Value::Source::kCode:
      return CodeValue(v.code);
    case Value::Source::kMacro:
      value = Slot(v.macro);
      break;
    case Value::Source::kSpecial:
      value = SpecialValue(v.special);
      break;
  }
  if (v.format.kind == MacroFormat::Kind::kBits) {
    unsigned width = v.format.high_bit - v.format.low_bit + 1;
    value >>= v.format.low_bit;
    if (width < 64) value &= (uint64_t{1} << width) - 1;
  }
  return value;
}

int64_t Evaluator::Impl::EvalExpr(const Expr& e) {
  std::array<uint64_t, kMaxExprStack> stack;
  size_t top = 0;
  if (e.max_stack > stack.size()) {
    Fail();
    return 0;
  }
  for (const ExprStep& s : e.steps) {
    switch (s.op) {
      case ExprStep::Op::kPush:
        stack[top++] = ValueOf(e.values[s.index]);
        break;
      case ExprStep::Op::kCall:
        stack[top++] = static_cast<uint64_t>(RunBuiltin(*e.builtins[s.index], false));
        break;
      case ExprStep::Op::kNeg:
        stack[top - 1] = 0 - stack[top - 1];
        break;
      default: {
        uint64_t b = stack[--top];
        uint64_t& a = stack[top - 1];
        if (s.op == ExprStep::Op::kAdd) {
          a += b;
        } else if (s.op == ExprStep::Op::kSub) {
          a -= b;
        } else if (s.op == ExprStep::Op::kMul) {
          a *= b;
        } else {
          int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
          if (sb == 0) {
            Fail();
            return 0;
          }
          a = (sb == -1) ? 0 - a : static_cast<uint64_t>(sa / sb);
        }
      }
    }
    if (halt) return 0;
  }
  return top > 0 ? static_cast<int64_t>(stack[top - 1]) : 0;
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

void Evaluator::Impl::PrintText(const uint8_t* p, size_t n, size_t width, bool pad) {
  std::string& out = w.Raw();
  size_t printed = 0;
  for (; printed < n && (!pad || printed < width); ++printed) {
    uint8_t c = p[printed];
    if (c == 0) break;
    out.push_back(c >= 0x20 && c <= 0x7E ? static_cast<char>(c) : '.');
  }
  if (pad && printed < width) out.append(width - printed, ' ');
}

void Evaluator::Impl::PrintBits(uint64_t value, unsigned nbits) {
  std::string& out = w.Raw();
  for (unsigned i = nbits; i > 0; --i) out.push_back(((value >> (i - 1)) & 1) ? '1' : '0');
}

void Evaluator::Impl::PrintCode(const FormatCode& c) {
  const uint8_t* p = nullptr;
  switch (c.kind) {
    case CodeKind::kGoto:
    case CodeKind::kOmit:
    case CodeKind::kReverse:
    case CodeKind::kWord:
      Move(c);
      return;
    case CodeKind::kAscii:
      if (!Take(c.m, p)) return;
      PrintText(p, c.m, c.n, c.has_n);
      return;
    case CodeKind::kString: {
      unsigned n = c.Bytes(word);
      if (!Take(n, p)) return;
      uint64_t length = LoadUnsigned(p, n, read_order);
      if (!Take(length, p)) return;
      PrintText(p, length, 0, false);
      return;
    }
    case CodeKind::kBinary: {
      uint64_t v = 0;
      unsigned nbits = c.m * 8 + c.n;
      if (!TakeBits(nbits, v)) return;
      PrintBits(v, nbits);
      CodeBlank();
      return;
    }
    case CodeKind::kHex: {
      unsigned n = c.word_sized ? word : std::max(c.m, 1u);
      if (!Take(n, p)) return;
      std::string& out = w.Raw();
      for (unsigned i = 0; i < n; ++i) {
        // Most significant byte first: the value in the log's byte order.
        uint8_t byte = read_order == ByteOrder::kBig ? p[i] : p[n - 1 - i];
        constexpr char kDigits[] = "0123456789ABCDEF";
        out.push_back(kDigits[byte >> 4]);
        out.push_back(kDigits[byte & 0xF]);
      }
      if (c.m != 0 || c.word_sized) CodeBlank();
      return;
    }
    default:
      break;
  }
  if (c.kind == CodeKind::kFloat) {
    if (!Take(c.m, p)) return;
    w.Format("{:.4E}", LoadFloat(p, c.m));
    CodeBlank();
    return;
  }
  uint64_t v = CodeValue(c);
  if (halt) return;
  switch (c.kind) {
    case CodeKind::kSigned:
      w.Format("{}", static_cast<int64_t>(v));
      break;
    case CodeKind::kUnsigned:
    case CodeKind::kBufferBytes:
      w.Format("{}", v);
      break;
    case CodeKind::kOctal:
      w.Format("{:o}", v);
      break;
    case CodeKind::kHookType:
      if (ev->layout == event::Layout::k32) {
        w.Format("{:X}", v);
      } else {
        w.Format("{:04X}", v);
      }
      break;
    case CodeKind::kTime:
      AppendCtime(v, w.Raw());
      break;
    case CodeKind::kErrno: {
      std::string_view name = ErrnoName(static_cast<int64_t>(v));
      if (name.empty()) {
        w.Format("{}", static_cast<int64_t>(v));
      } else {
        w.Text(name);
      }
      break;
    }
    case CodeKind::kPid: {
      std::string_view path = host.ExecPathOf(v);
      if (path.empty()) {
        w.Format("{}", v);
      } else {
        w.Text(path);
      }
      break;
    }
    default:
      break;
  }
  CodeBlank();
}

void Evaluator::Impl::PrintWithCode(uint64_t value, const FormatCode& c) {
  unsigned n = c.word_sized ? word : c.m;
  switch (c.kind) {
    case CodeKind::kSigned:
      w.Format("{}", SignExtend(MaskBytes(value, n), n));
      break;
    case CodeKind::kUnsigned:
      w.Format("{}", MaskBytes(value, n));
      break;
    case CodeKind::kBinary: {
      unsigned nbits = std::min(c.m * 8 + c.n, 64u);
      PrintBits(nbits < 64 ? value & ((uint64_t{1} << nbits) - 1) : value, nbits);
      break;
    }
    default: {  // X
      unsigned bytes_shown = std::clamp(n, 1u, 8u);
      w.Format("{:0{}X}", MaskBytes(value, bytes_shown), bytes_shown * 2);
      if (n == 0 && !c.word_sized) return;  // %X0: no blank, like X0
      break;
    }
  }
  CodeBlank();
}

void Evaluator::Impl::PrintValue(const Value& v) {
  if (v.format.kind == MacroFormat::Kind::kLength) {
    uint64_t length = ValueOf(v);
    const uint8_t* p = nullptr;
    if (!Take(length, p)) return;
    PrintText(p, length, 0, false);
    return;
  }
  if (v.format.kind == MacroFormat::Kind::kCode) {
    PrintWithCode(ValueOf(v), v.format.code);
    return;
  }
  if (v.source == Value::Source::kSpecial && v.format.kind == MacroFormat::Kind::kDefault) {
    switch (StyleOf(v.special)) {
      case SpecialStyle::kDecimal:
        w.Format("{}", SpecialValue(v.special));
        return;
      case SpecialStyle::kText:
        w.Text(SpecialText(v.special));
        return;
      case SpecialStyle::kTraceId:
        TraceIdText(w.Raw());
        return;
      case SpecialStyle::kIp: {
        uint32_t ip = ctx->ip_address;
        w.Format("{}.{}.{}.{}", ip >> 24, (ip >> 16) & 0xFF, (ip >> 8) & 0xFF, ip & 0xFF);
        return;
      }
      case SpecialStyle::kHex:
        break;
    }
  }
  w.Format("{:04X}", ValueOf(v));
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
  const Switch& sw = *n.cases;
  uint64_t number = 0;
  double real = 0;
  switch (sw.compare) {
    case CompareAs::kText:
      if (!SubjectText(n.value, subject_text)) return;
      break;
    case CompareAs::kFloat: {
      // Compare the stored float itself, not its integer value.
      const uint8_t* p = nullptr;
      if (!Take(n.value.code.m, p)) return;
      real = LoadFloat(p, n.value.code.m);
      break;
    }
    case CompareAs::kNumber:
      number = ValueOf(n.value);
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
  uint64_t reg = ValueOf(n.value);
  if (halt) return;
  for (const FlagEntry& e : *n.flags) {
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
