// The table of emulated forms and the decoder that matches an instruction's bytes against it.
#include <cstddef>

#include "dyntrace/x86_emulator.h"
#include "dyntrace/x86_emulator_alu.h"

namespace rastrace::dyntrace {
namespace {

constexpr int kRsp = 4;
constexpr int kRbp = 5;

enum class Operands : uint8_t {
  kNone,
  kOpcodeRegister,  // register in the opcode's low 3 bits (+ REX.B)
  kModRm,           // register or memory
  kModRmRegister,   // mod must be 11
  kModRmMemory,     // mod must not be 11
  kAccumulator,     // al/ax/eax/rax implied
};

enum class Imm : uint8_t { kNone, k8, k16, kZ, kV, kRel8, kRel32 };

// Where sub_op comes from.
enum class Sub : uint8_t { kNone, kOpcodeBits, kOpcodeLow4, kDigit, kFixed1 };

// Form flags. The prefix bits double as the set of prefixes a form accepts besides REX.
constexpr uint16_t kAllow66 = 1 << 0;     // operand size: the 16-bit form (padding on nops)
constexpr uint16_t kAllowF3 = 1 << 1;     // pause, rep ret
constexpr uint16_t kAllow2E = 1 << 2;     // cs: padding nops "66 2e 0f 1f 84 ..."; jcc hint
constexpr uint16_t kAllowF2 = 1 << 3;     // bnd on branches (an MPX hint, ignored by the CPU)
constexpr uint16_t kAllow3E = 1 << 4;     // notrack on indirect branches; jcc hint
constexpr uint16_t kStore = 1 << 5;       // the r/m operand is the destination (or the only one)
constexpr uint16_t kByte = 1 << 6;        // 8-bit operands
constexpr uint16_t kDefault64 = 1 << 7;   // 64-bit without REX.W (push, pop, branches)
constexpr uint16_t kNeedsRexW = 1 << 8;   // only the REX.W form (movsxd)
constexpr uint16_t kIndirect = 1 << 9;    // call/jmp through r/m
constexpr uint16_t kNoSegment = 1 << 10;  // fs:/gs: refused (lea computes no segment base)
constexpr uint16_t kPrefixBits = kAllow66 | kAllowF3 | kAllow2E | kAllowF2 | kAllow3E;
constexpr uint16_t kBranch = kDefault64 | kAllowF2;

struct Form {
  bool escape;     // the opcode follows 0F
  uint8_t opcode;  // the bits `mask` selects
  uint8_t mask;    // 0xF8 for +r forms, 0xF0 for condition ranges, 0xC7 for the ALU block
  int8_t digit;    // the ModRM reg field a /digit form requires, -1 for none
  Operands operands;
  Imm immediate;
  X86Op op;
  Sub sub;
  uint8_t source_width;  // movzx/movsx
  uint16_t flags;
};

using enum Operands;
using enum X86Op;

// Every form emulated; anything else is single-stepped. The first match wins.
constexpr Form kForms[] = {
    {false, 0x90, 0xFF, -1, kNone, Imm::kNone, kNop, Sub::kNone, 0, kAllow66 | kAllowF3},
    {true, 0x1F, 0xFF, 0, kModRm, Imm::kNone, kNop, Sub::kNone, 0, kAllow66 | kAllow2E},
    {false, 0x50, 0xF8, -1, kOpcodeRegister, Imm::kNone, kPush, Sub::kNone, 0, kDefault64},
    {false, 0x6A, 0xFF, -1, kNone, Imm::k8, kPush, Sub::kNone, 0, kDefault64},
    {false, 0x68, 0xFF, -1, kNone, Imm::kZ, kPush, Sub::kNone, 0, kDefault64},
    {false, 0x58, 0xF8, -1, kOpcodeRegister, Imm::kNone, kPop, Sub::kNone, 0, kDefault64},
    // mov
    {false, 0x88, 0xFF, -1, kModRm, Imm::kNone, kMov, Sub::kNone, 0, kStore | kByte},
    {false, 0x89, 0xFF, -1, kModRm, Imm::kNone, kMov, Sub::kNone, 0, kStore | kAllow66},
    {false, 0x8A, 0xFF, -1, kModRm, Imm::kNone, kMov, Sub::kNone, 0, kByte},
    {false, 0x8B, 0xFF, -1, kModRm, Imm::kNone, kMov, Sub::kNone, 0, kAllow66},
    {false, 0xC6, 0xFF, 0, kModRm, Imm::k8, kMov, Sub::kNone, 0, kStore | kByte},
    {false, 0xC7, 0xFF, 0, kModRm, Imm::kZ, kMov, Sub::kNone, 0, kStore | kAllow66},
    {false, 0xB0, 0xF8, -1, kOpcodeRegister, Imm::k8, kMov, Sub::kNone, 0, kByte},
    {false, 0xB8, 0xF8, -1, kOpcodeRegister, Imm::kV, kMov, Sub::kNone, 0, kAllow66},
    {false, 0x8D, 0xFF, -1, kModRmMemory, Imm::kNone, kLea, Sub::kNone, 0, kNoSegment},
    {true, 0xB6, 0xFF, -1, kModRm, Imm::kNone, kMovzx, Sub::kNone, 1, kAllow66},
    {true, 0xB7, 0xFF, -1, kModRm, Imm::kNone, kMovzx, Sub::kNone, 2, 0},
    {true, 0xBE, 0xFF, -1, kModRm, Imm::kNone, kMovsx, Sub::kNone, 1, kAllow66},
    {true, 0xBF, 0xFF, -1, kModRm, Imm::kNone, kMovsx, Sub::kNone, 2, 0},
    {false, 0x63, 0xFF, -1, kModRm, Imm::kNone, kMovsx, Sub::kNone, 4, kNeedsRexW},
    // add or adc sbb and sub xor cmp: 00-05, 08-0D, ... 38-3D
    {false, 0x00, 0xC7, -1, kModRm, Imm::kNone, kAlu, Sub::kOpcodeBits, 0, kStore | kByte},
    {false, 0x01, 0xC7, -1, kModRm, Imm::kNone, kAlu, Sub::kOpcodeBits, 0, kStore | kAllow66},
    {false, 0x02, 0xC7, -1, kModRm, Imm::kNone, kAlu, Sub::kOpcodeBits, 0, kByte},
    {false, 0x03, 0xC7, -1, kModRm, Imm::kNone, kAlu, Sub::kOpcodeBits, 0, kAllow66},
    {false, 0x04, 0xC7, -1, kAccumulator, Imm::k8, kAlu, Sub::kOpcodeBits, 0, kStore | kByte},
    {false, 0x05, 0xC7, -1, kAccumulator, Imm::kZ, kAlu, Sub::kOpcodeBits, 0, kStore | kAllow66},
    {false, 0x80, 0xFF, -1, kModRm, Imm::k8, kAlu, Sub::kDigit, 0, kStore | kByte},
    {false, 0x81, 0xFF, -1, kModRm, Imm::kZ, kAlu, Sub::kDigit, 0, kStore | kAllow66},
    {false, 0x83, 0xFF, -1, kModRm, Imm::k8, kAlu, Sub::kDigit, 0, kStore | kAllow66},
    // test, not, neg, inc, dec
    {false, 0x84, 0xFF, -1, kModRm, Imm::kNone, kTest, Sub::kNone, 0, kStore | kByte},
    {false, 0x85, 0xFF, -1, kModRm, Imm::kNone, kTest, Sub::kNone, 0, kStore | kAllow66},
    {false, 0xA8, 0xFF, -1, kAccumulator, Imm::k8, kTest, Sub::kNone, 0, kStore | kByte},
    {false, 0xA9, 0xFF, -1, kAccumulator, Imm::kZ, kTest, Sub::kNone, 0, kStore | kAllow66},
    {false, 0xF6, 0xFF, 0, kModRm, Imm::k8, kTest, Sub::kNone, 0, kStore | kByte},
    {false, 0xF7, 0xFF, 0, kModRm, Imm::kZ, kTest, Sub::kNone, 0, kStore | kAllow66},
    {false, 0xF6, 0xFF, 2, kModRm, Imm::kNone, kNot, Sub::kNone, 0, kStore | kByte},
    {false, 0xF7, 0xFF, 2, kModRm, Imm::kNone, kNot, Sub::kNone, 0, kStore | kAllow66},
    {false, 0xF6, 0xFF, 3, kModRm, Imm::kNone, kNeg, Sub::kNone, 0, kStore | kByte},
    {false, 0xF7, 0xFF, 3, kModRm, Imm::kNone, kNeg, Sub::kNone, 0, kStore | kAllow66},
    {false, 0xFE, 0xFF, 0, kModRm, Imm::kNone, kInc, Sub::kNone, 0, kStore | kByte},
    {false, 0xFE, 0xFF, 1, kModRm, Imm::kNone, kDec, Sub::kNone, 0, kStore | kByte},
    {false, 0xFF, 0xFF, 0, kModRm, Imm::kNone, kInc, Sub::kNone, 0, kStore | kAllow66},
    {false, 0xFF, 0xFF, 1, kModRm, Imm::kNone, kDec, Sub::kNone, 0, kStore | kAllow66},
    // shl shr sar by imm8 or by 1
    {false, 0xC0, 0xFF, 4, kModRm, Imm::k8, kShift, Sub::kDigit, 0, kStore | kByte},
    {false, 0xC0, 0xFF, 5, kModRm, Imm::k8, kShift, Sub::kDigit, 0, kStore | kByte},
    {false, 0xC0, 0xFF, 7, kModRm, Imm::k8, kShift, Sub::kDigit, 0, kStore | kByte},
    {false, 0xC1, 0xFF, 4, kModRm, Imm::k8, kShift, Sub::kDigit, 0, kStore | kAllow66},
    {false, 0xC1, 0xFF, 5, kModRm, Imm::k8, kShift, Sub::kDigit, 0, kStore | kAllow66},
    {false, 0xC1, 0xFF, 7, kModRm, Imm::k8, kShift, Sub::kDigit, 0, kStore | kAllow66},
    {false, 0xD0, 0xFF, 4, kModRm, Imm::kNone, kShift, Sub::kDigit, 0, kStore | kByte},
    {false, 0xD0, 0xFF, 5, kModRm, Imm::kNone, kShift, Sub::kDigit, 0, kStore | kByte},
    {false, 0xD0, 0xFF, 7, kModRm, Imm::kNone, kShift, Sub::kDigit, 0, kStore | kByte},
    {false, 0xD1, 0xFF, 4, kModRm, Imm::kNone, kShift, Sub::kDigit, 0, kStore | kAllow66},
    {false, 0xD1, 0xFF, 5, kModRm, Imm::kNone, kShift, Sub::kDigit, 0, kStore | kAllow66},
    {false, 0xD1, 0xFF, 7, kModRm, Imm::kNone, kShift, Sub::kDigit, 0, kStore | kAllow66},
    // xchg between registers (with memory it is locked: left to the CPU)
    {false, 0x86, 0xFF, -1, kModRmRegister, Imm::kNone, kXchg, Sub::kNone, 0, kByte},
    {false, 0x87, 0xFF, -1, kModRmRegister, Imm::kNone, kXchg, Sub::kNone, 0, kAllow66},
    {false, 0x90, 0xF8, -1, kOpcodeRegister, Imm::kNone, kXchg, Sub::kNone, 0, kAllow66},
    {false, 0x98, 0xFF, -1, kNone, Imm::kNone, kExtend, Sub::kNone, 0, kAllow66},
    {false, 0x99, 0xFF, -1, kNone, Imm::kNone, kExtend, Sub::kFixed1, 0, kAllow66},
    {true, 0x90, 0xF0, -1, kModRm, Imm::kNone, kSetcc, Sub::kOpcodeLow4, 0, kStore | kByte},
    {true, 0x40, 0xF0, -1, kModRm, Imm::kNone, kCmovcc, Sub::kOpcodeLow4, 0, kAllow66},
    // branches
    {false, 0xE8, 0xFF, -1, kNone, Imm::kRel32, kCall, Sub::kNone, 0, kBranch},
    {false, 0xE9, 0xFF, -1, kNone, Imm::kRel32, kJmp, Sub::kNone, 0, kBranch},
    {false, 0xEB, 0xFF, -1, kNone, Imm::kRel8, kJmp, Sub::kNone, 0, kBranch},
    {false, 0xFF, 0xFF, 2, kModRm, Imm::kNone, kCall, Sub::kNone, 0,
     kBranch | kIndirect | kAllow3E},
    {false, 0xFF, 0xFF, 4, kModRm, Imm::kNone, kJmp, Sub::kNone, 0, kBranch | kIndirect | kAllow3E},
    {false, 0x70, 0xF0, -1, kNone, Imm::kRel8, kJcc, Sub::kOpcodeLow4, 0,
     kBranch | kAllow2E | kAllow3E},
    {true, 0x80, 0xF0, -1, kNone, Imm::kRel32, kJcc, Sub::kOpcodeLow4, 0,
     kBranch | kAllow2E | kAllow3E},
    {false, 0xC3, 0xFF, -1, kNone, Imm::kNone, kRet, Sub::kNone, 0, kBranch | kAllowF3},
    {false, 0xC2, 0xFF, -1, kNone, Imm::k16, kRet, Sub::kNone, 0, kBranch},
    {false, 0xC9, 0xFF, -1, kNone, Imm::kNone, kLeave, Sub::kNone, 0, kDefault64},
};

bool HasModRm(Operands operands) {
  return operands == kModRm || operands == kModRmRegister || operands == kModRmMemory;
}

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> code) : code_(code) {}
  bool Has(size_t n) const { return at_ + n <= code_.size() && at_ + n <= 15; }
  uint8_t Peek() const { return code_[at_]; }
  uint8_t Byte() { return code_[at_++]; }
  int64_t Signed(size_t n) {
    uint64_t value = 0;
    for (size_t i = 0; i < n; ++i) value |= uint64_t{code_[at_ + i]} << (8 * i);
    at_ += n;
    return static_cast<int64_t>(x86::SignExtend(value, n));
  }
  size_t at() const { return at_; }

 private:
  std::span<const uint8_t> code_;
  size_t at_ = 0;
};

// ModRM (and SIB, displacement) into `out`; false when the bytes run out.
bool DecodeModRm(Cursor& cursor, uint8_t rex, X86Instruction& out) {
  if (!cursor.Has(1)) return false;
  uint8_t modrm = cursor.Byte();
  uint8_t mod = modrm >> 6;
  out.reg = static_cast<uint8_t>(((modrm >> 3) & 7) | ((rex & 4) << 1));
  uint8_t rm = modrm & 7;
  if (mod == 3) {
    out.has_memory = false;
    out.rm = static_cast<uint8_t>(rm | ((rex & 1) << 3));
    return true;
  }
  out.has_memory = true;
  X86Address& memory = out.memory;
  size_t displacement = mod == 1 ? 1 : mod == 2 ? 4 : 0;
  if (rm == 4) {
    if (!cursor.Has(1)) return false;
    uint8_t sib = cursor.Byte();
    uint8_t index = static_cast<uint8_t>(((sib >> 3) & 7) | ((rex & 2) << 2));
    uint8_t base = sib & 7;
    memory.scale = static_cast<uint8_t>(1u << (sib >> 6));
    if (index != kRsp) memory.index = static_cast<int8_t>(index);
    if (base == kRbp && mod == 0) {
      displacement = 4;  // [index*scale + disp32], or absolute [disp32] (fs:0x28)
    } else {
      memory.base = static_cast<int8_t>(base | ((rex & 1) << 3));
    }
  } else if (rm == kRbp && mod == 0) {
    memory.rip_relative = true;
    displacement = 4;
  } else {
    memory.base = static_cast<int8_t>(rm | ((rex & 1) << 3));
  }
  if (!cursor.Has(displacement)) return false;
  memory.displacement = static_cast<int32_t>(displacement != 0 ? cursor.Signed(displacement) : 0);
  return true;
}

bool Matches(const Form& form, bool escape, uint8_t opcode, uint8_t rex) {
  if (form.escape != escape || (opcode & form.mask) != form.opcode) return false;
  // 90 with REX.B is xchg r8, rax, not a nop.
  return !(form.op == kNop && !escape && (rex & 1) != 0);
}

const Form* FindForm(bool escape, uint8_t opcode, uint8_t rex, int reg_field) {
  for (const Form& form : kForms) {
    if (!Matches(form, escape, opcode, rex)) continue;
    if (form.digit >= 0 && form.digit != reg_field) continue;
    return &form;
  }
  return nullptr;
}

bool NeedsModRm(bool escape, uint8_t opcode, uint8_t rex) {
  for (const Form& form : kForms) {
    if (Matches(form, escape, opcode, rex)) return HasModRm(form.operands);
  }
  return false;
}

size_t ImmediateBytes(Imm immediate, size_t width) {
  switch (immediate) {
    case Imm::kNone:
      return 0;
    case Imm::k8:
    case Imm::kRel8:
      return 1;
    case Imm::k16:
      return 2;
    case Imm::kZ:
      return width == 2 ? 2 : 4;
    case Imm::kV:
      return width;
    case Imm::kRel32:
      return 4;
  }
  return 0;
}

}  // namespace

std::optional<X86Instruction> DecodeX86(std::span<const uint8_t> code) {
  Cursor cursor(code);
  uint16_t prefixes = 0;
  uint8_t segment = 0;
  while (cursor.Has(1)) {
    uint8_t byte = cursor.Peek();
    if (byte == 0x66) {
      prefixes |= kAllow66;
    } else if (byte == 0xF3) {
      prefixes |= kAllowF3;
    } else if (byte == 0xF2) {
      prefixes |= kAllowF2;
    } else if (byte == 0x2E) {
      prefixes |= kAllow2E;
    } else if (byte == 0x3E) {
      prefixes |= kAllow3E;
    } else if (byte == 0x64 || byte == 0x65) {
      segment = byte;
    } else if (byte == 0xF0 || byte == 0x26 || byte == 0x36 || byte == 0x67) {
      return std::nullopt;  // lock, es:, ss:, address size: not emulated
    } else {
      break;
    }
    cursor.Byte();
  }
  if ((prefixes & kAllowF3) != 0 && (prefixes & kAllowF2) != 0) return std::nullopt;
  uint8_t rex = 0;
  if (cursor.Has(1) && (cursor.Peek() & 0xF0) == 0x40) rex = cursor.Byte();
  if (!cursor.Has(1)) return std::nullopt;
  uint8_t opcode = cursor.Byte();
  bool escape = false;
  if (opcode == 0x0F) {
    if (!cursor.Has(1)) return std::nullopt;
    escape = true;
    opcode = cursor.Byte();
  }
  X86Instruction out;
  out.rex = rex != 0;
  // endbr64/endbr32 (F3 0F 1E FA/FB): a nop to the CPU once the branch has landed.
  if (escape && opcode == 0x1E && prefixes == kAllowF3 && segment == 0 && rex == 0 &&
      cursor.Has(1) && (cursor.Peek() == 0xFA || cursor.Peek() == 0xFB)) {
    cursor.Byte();
    out.op = kNop;
    out.length = static_cast<uint8_t>(cursor.at());
    return out;
  }
  int reg_field = -1;
  if (NeedsModRm(escape, opcode, rex)) {
    if (!DecodeModRm(cursor, rex, out)) return std::nullopt;
    reg_field = out.reg & 7;
  }
  const Form* form = FindForm(escape, opcode, rex, reg_field);
  if (form == nullptr) return std::nullopt;
  if ((prefixes & ~(form->flags & kPrefixBits)) != 0) return std::nullopt;
  bool rex_w = (rex & 8) != 0;
  if ((form->flags & kNeedsRexW) != 0 && !rex_w) return std::nullopt;
  if (form->operands == kModRmRegister && out.has_memory) return std::nullopt;
  if (form->operands == kModRmMemory && !out.has_memory) return std::nullopt;
  // A segment override only means something for a memory operand.
  if (segment != 0 && (!out.has_memory || out.memory.rip_relative ||
                       (form->flags & kNoSegment) != 0 || form->op == kNop)) {
    return std::nullopt;
  }
  out.memory.segment = segment;
  if (form->operands == kOpcodeRegister) {
    out.reg = static_cast<uint8_t>((opcode & 7) | ((rex & 1) << 3));
  }
  if (form->operands == kAccumulator) {
    out.has_memory = false;
    out.rm = 0;
  }
  out.op = form->op;
  out.store = (form->flags & kStore) != 0;
  out.indirect = (form->flags & kIndirect) != 0;
  out.source_width = form->source_width;
  if ((form->flags & kByte) != 0) {
    out.width = 1;
  } else if ((form->flags & kDefault64) != 0 || rex_w) {
    out.width = 8;
  } else if ((prefixes & kAllow66) != 0 && form->op != kNop) {
    out.width = 2;
  } else {
    out.width = 4;
  }
  switch (form->sub) {
    case Sub::kNone:
      break;
    case Sub::kOpcodeBits:
      out.sub_op = static_cast<uint8_t>((opcode >> 3) & 7);
      break;
    case Sub::kOpcodeLow4:
      out.sub_op = opcode & 0x0F;
      break;
    case Sub::kDigit:
      out.sub_op = static_cast<uint8_t>(reg_field);
      break;
    case Sub::kFixed1:
      out.sub_op = 1;
      break;
  }
  if (form->op == kXchg && form->operands == kOpcodeRegister) {
    if (out.reg == 0) {
      out.op = kNop;  // 90 and 48 90: xchg of rax with itself, which changes nothing
    } else {
      out.has_memory = false;
      out.rm = 0;
    }
  }
  size_t immediate = ImmediateBytes(form->immediate, out.width);
  if (immediate != 0) {
    if (!cursor.Has(immediate)) return std::nullopt;
    out.has_immediate = true;
    out.immediate = cursor.Signed(immediate);
    if (form->op == kRet) out.immediate &= 0xFFFF;  // unsigned imm16
  }
  if (form->op == kShift) {
    // The CPU masks the count; counts that reach the operand's width (8/16-bit forms only) leave
    // CF undefined and are not emulated.
    uint64_t count = out.has_immediate ? static_cast<uint64_t>(out.immediate) & 0xFF : 1;
    count &= out.width == 8 ? 63 : 31;
    if (count >= 8u * out.width) return std::nullopt;
    out.has_immediate = true;
    out.immediate = static_cast<int64_t>(count);
  }
  out.length = static_cast<uint8_t>(cursor.at());
  return out;
}

}  // namespace rastrace::dyntrace
