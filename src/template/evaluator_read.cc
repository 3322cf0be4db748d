// Reading the event at the DATA_POINTER, special macro values, expressions.
#include <algorithm>

#include "template/evaluator_impl.h"

namespace rastrace::tmpl {

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
  if (MoveDataPointer(c, word, dp_bits)) return true;
  Fail();
  return false;
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
        stack[top++] = ValueOf(frame->values[s.index]);
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
        } else if (s.op == ExprStep::Op::kAnd) {
          a &= b;
        } else if (s.op == ExprStep::Op::kOr) {
          a |= b;
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

}  // namespace rastrace::tmpl
