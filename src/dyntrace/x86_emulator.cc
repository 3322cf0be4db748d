#include "dyntrace/x86_emulator.h"

#include <bit>
#include <cstring>

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
};

// Prefixes a form accepts besides REX.
constexpr uint8_t kAllow66 = 1;  // operand size: only harmless on nops
constexpr uint8_t kAllowF3 = 2;  // pause, rep ret
constexpr uint8_t kAllow2E = 4;  // cs: the padding nops "66 2e 0f 1f 84 ..." carry it

struct Form {
  bool escape;     // the opcode follows 0F
  uint8_t opcode;  // with the low 3 bits clear for kOpcodeRegister
  int8_t digit;    // the ModRM reg field a /digit form requires, -1 for none
  Operands operands;
  uint8_t immediate;  // bytes; B8+r with REX.W takes 8
  X86Op op;
  bool store;        // the r/m operand is the destination
  bool needs_rex_w;  // only the 64-bit form is emulated (flags are computed for 64 bits)
  uint8_t prefixes;
};

// Every form emulated; anything else is single-stepped.
constexpr Form kForms[] = {
    {false, 0x90, -1, Operands::kNone, 0, X86Op::kNop, false, false, kAllow66 | kAllowF3},
    {true, 0x1F, 0, Operands::kModRm, 0, X86Op::kNop, false, false, kAllow66 | kAllow2E},
    {false, 0x50, -1, Operands::kOpcodeRegister, 0, X86Op::kPush, false, false, 0},
    {false, 0x58, -1, Operands::kOpcodeRegister, 0, X86Op::kPop, false, false, 0},
    {false, 0x89, -1, Operands::kModRm, 0, X86Op::kMov, true, false, 0},
    {false, 0x8B, -1, Operands::kModRm, 0, X86Op::kMov, false, false, 0},
    {false, 0xC7, 0, Operands::kModRm, 4, X86Op::kMov, true, false, 0},
    {false, 0xB8, -1, Operands::kOpcodeRegister, 4, X86Op::kMov, false, false, 0},
    {false, 0x8D, -1, Operands::kModRmMemory, 0, X86Op::kLea, false, false, 0},
    {false, 0x83, 0, Operands::kModRmRegister, 1, X86Op::kAddImm, true, true, 0},
    {false, 0x83, 5, Operands::kModRmRegister, 1, X86Op::kSubImm, true, true, 0},
    {false, 0x81, 0, Operands::kModRmRegister, 4, X86Op::kAddImm, true, true, 0},
    {false, 0x81, 5, Operands::kModRmRegister, 4, X86Op::kSubImm, true, true, 0},
    {false, 0xC3, -1, Operands::kNone, 0, X86Op::kRet, false, false, kAllowF3},
    {false, 0xC2, -1, Operands::kNone, 2, X86Op::kRet, false, false, 0},
    {false, 0xC9, -1, Operands::kNone, 0, X86Op::kLeave, false, false, 0},
};

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
    if (n < 8) {
      uint64_t sign = uint64_t{1} << (8 * n - 1);
      value = (value ^ sign) - sign;
    }
    return static_cast<int64_t>(value);
  }
  size_t at() const { return at_; }

 private:
  std::span<const uint8_t> code_;
  size_t at_ = 0;
};

// ModRM (and SIB, displacement) into `out`; false when the bytes run out or the form is absolute
// [disp32] addressing (no base), which compilers do not emit for x86-64 user code.
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
    if (base == kRbp && mod == 0) return false;
    memory.base = static_cast<int8_t>(base | ((rex & 1) << 3));
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

const Form* FindForm(bool escape, uint8_t opcode, int reg_field) {
  for (const Form& form : kForms) {
    if (form.escape != escape) continue;
    uint8_t mask = form.operands == Operands::kOpcodeRegister ? 0xF8 : 0xFF;
    if ((opcode & mask) != form.opcode) continue;
    if (form.digit >= 0 && form.digit != reg_field) continue;
    return &form;
  }
  return nullptr;
}

bool NeedsModRm(bool escape, uint8_t opcode) {
  for (const Form& form : kForms) {
    uint8_t mask = form.operands == Operands::kOpcodeRegister ? 0xF8 : 0xFF;
    if (form.escape == escape && (opcode & mask) == form.opcode) {
      return form.operands == Operands::kModRm || form.operands == Operands::kModRmRegister ||
             form.operands == Operands::kModRmMemory;
    }
  }
  return false;
}

uint64_t Address(const X86Instruction& instruction, const X86State& state) {
  const X86Address& memory = instruction.memory;
  uint64_t address = static_cast<uint64_t>(static_cast<int64_t>(memory.displacement));
  if (memory.rip_relative) address += state.rip + instruction.length;
  if (memory.base >= 0) address += state.gpr[static_cast<size_t>(memory.base)];
  if (memory.index >= 0) address += state.gpr[static_cast<size_t>(memory.index)] * memory.scale;
  return address;
}

bool ReadWord(EmulatedMemory& memory, uint64_t address, size_t width, uint64_t& value) {
  uint8_t bytes[8] = {};
  if (!memory.Read(address, std::span<uint8_t>(bytes, width))) return false;
  value = 0;
  for (size_t i = 0; i < width; ++i) value |= uint64_t{bytes[i]} << (8 * i);
  return true;
}

bool WriteWord(EmulatedMemory& memory, uint64_t address, size_t width, uint64_t value) {
  uint8_t bytes[8];
  for (size_t i = 0; i < width; ++i) bytes[i] = static_cast<uint8_t>(value >> (8 * i));
  return memory.Write(address, std::span<const uint8_t>(bytes, width));
}

uint64_t Truncate(uint64_t value, size_t width) {
  return width == 8 ? value : value & 0xFFFFFFFFu;
}

constexpr uint64_t kCf = 1u << 0, kPf = 1u << 2, kAf = 1u << 4, kZf = 1u << 6, kSf = 1u << 7,
                   kOf = 1u << 11;

uint64_t ResultFlags(uint64_t a, uint64_t b, uint64_t result, bool carry, bool overflow,
                     uint64_t rflags) {
  rflags &= ~(kCf | kPf | kAf | kZf | kSf | kOf);
  if (carry) rflags |= kCf;
  if (std::popcount(static_cast<uint8_t>(result)) % 2 == 0) rflags |= kPf;
  if (((a ^ b ^ result) & 0x10) != 0) rflags |= kAf;
  if (result == 0) rflags |= kZf;
  if ((result >> 63) != 0) rflags |= kSf;
  if (overflow) rflags |= kOf;
  return rflags;
}

}  // namespace

uint64_t AddFlags(uint64_t a, uint64_t b, uint64_t rflags) {
  uint64_t result = a + b;
  return ResultFlags(a, b, result, result < a, (((a ^ result) & (b ^ result)) >> 63) != 0, rflags);
}

uint64_t SubFlags(uint64_t a, uint64_t b, uint64_t rflags) {
  uint64_t result = a - b;
  return ResultFlags(a, b, result, a < b, (((a ^ b) & (a ^ result)) >> 63) != 0, rflags);
}

std::optional<X86Instruction> DecodeX86(std::span<const uint8_t> code) {
  Cursor cursor(code);
  uint8_t prefixes = 0;
  while (cursor.Has(1)) {
    uint8_t byte = cursor.Peek();
    if (byte == 0x66) {
      prefixes |= kAllow66;
    } else if (byte == 0xF3) {
      prefixes |= kAllowF3;
    } else if (byte == 0x2E) {
      prefixes |= kAllow2E;
    } else if (byte == 0xF0 || byte == 0xF2 || byte == 0x26 || byte == 0x36 || byte == 0x3E ||
               byte == 0x64 || byte == 0x65 || byte == 0x67) {
      return std::nullopt;  // lock, repne, segments, address size: not emulated
    } else {
      break;
    }
    cursor.Byte();
  }
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
  // endbr64/endbr32 (F3 0F 1E FA/FB): a nop to the CPU once the branch has landed.
  if (escape && opcode == 0x1E && prefixes == kAllowF3 && rex == 0 && cursor.Has(1) &&
      (cursor.Peek() == 0xFA || cursor.Peek() == 0xFB)) {
    cursor.Byte();
    out.op = X86Op::kNop;
    out.length = static_cast<uint8_t>(cursor.at());
    return out;
  }
  int reg_field = -1;
  if (NeedsModRm(escape, opcode)) {
    if (!DecodeModRm(cursor, rex, out)) return std::nullopt;
    reg_field = out.reg & 7;
  }
  const Form* form = FindForm(escape, opcode, reg_field);
  if (form == nullptr) return std::nullopt;
  if ((prefixes & ~form->prefixes) != 0) return std::nullopt;
  bool rex_w = (rex & 8) != 0;
  if (form->needs_rex_w && !rex_w) return std::nullopt;
  // 90 with REX.B is xchg r8, rax.
  if (form->op == X86Op::kNop && !escape && (rex & 1) != 0) return std::nullopt;
  if (form->operands == Operands::kModRmRegister && out.has_memory) return std::nullopt;
  if (form->operands == Operands::kModRmMemory && !out.has_memory) return std::nullopt;
  if (form->operands == Operands::kOpcodeRegister) {
    out.reg = static_cast<uint8_t>((opcode & 7) | ((rex & 1) << 3));
  }
  out.op = form->op;
  out.store = form->store;
  out.width = (form->op == X86Op::kPush || form->op == X86Op::kPop || rex_w) ? 8 : 4;
  size_t immediate = form->immediate;
  if (form->op == X86Op::kMov && form->operands == Operands::kOpcodeRegister && rex_w) {
    immediate = 8;
  }
  if (immediate != 0) {
    if (!cursor.Has(immediate)) return std::nullopt;
    out.has_immediate = true;
    out.immediate = cursor.Signed(immediate);
    if (form->op == X86Op::kRet) out.immediate &= 0xFFFF;  // unsigned imm16
  }
  out.length = static_cast<uint8_t>(cursor.at());
  return out;
}

bool EmulateX86(const X86Instruction& instruction, X86State& state, EmulatedMemory& memory) {
  auto& gpr = state.gpr;
  uint64_t next = state.rip + instruction.length;
  size_t width = instruction.width;
  switch (instruction.op) {
    case X86Op::kNop:
      break;
    case X86Op::kPush: {
      // push %rsp stores the value before the decrement.
      uint64_t slot = gpr[kRsp] - 8;
      if (!WriteWord(memory, slot, 8, gpr[instruction.reg])) return false;
      gpr[kRsp] = slot;
      break;
    }
    case X86Op::kPop: {
      uint64_t value = 0;
      if (!ReadWord(memory, gpr[kRsp], 8, value)) return false;
      gpr[kRsp] += 8;
      gpr[instruction.reg] = value;  // pop %rsp leaves the value read
      break;
    }
    case X86Op::kMov: {
      uint64_t value = 0;
      if (instruction.has_immediate) {
        value = static_cast<uint64_t>(instruction.immediate);
      } else if (instruction.store) {
        value = gpr[instruction.reg];
      } else if (instruction.has_memory) {
        if (!ReadWord(memory, Address(instruction, state), width, value)) return false;
      } else {
        value = gpr[instruction.rm];
      }
      value = Truncate(value, width);
      if (!instruction.store) {
        gpr[instruction.reg] = value;
      } else if (instruction.has_memory) {
        if (!WriteWord(memory, Address(instruction, state), width, value)) return false;
      } else {
        gpr[instruction.rm] = value;
      }
      break;
    }
    case X86Op::kLea:
      gpr[instruction.reg] = Truncate(Address(instruction, state), width);
      break;
    case X86Op::kAddImm: {
      uint64_t a = gpr[instruction.rm];
      uint64_t b = static_cast<uint64_t>(instruction.immediate);
      state.rflags = AddFlags(a, b, state.rflags);
      gpr[instruction.rm] = a + b;
      break;
    }
    case X86Op::kSubImm: {
      uint64_t a = gpr[instruction.rm];
      uint64_t b = static_cast<uint64_t>(instruction.immediate);
      state.rflags = SubFlags(a, b, state.rflags);
      gpr[instruction.rm] = a - b;
      break;
    }
    case X86Op::kRet: {
      uint64_t target = 0;
      if (!ReadWord(memory, gpr[kRsp], 8, target)) return false;
      gpr[kRsp] += 8 + static_cast<uint64_t>(instruction.immediate);
      next = target;
      break;
    }
    case X86Op::kLeave: {
      uint64_t saved = 0;
      if (!ReadWord(memory, gpr[kRbp], 8, saved)) return false;
      gpr[kRsp] = gpr[kRbp] + 8;
      gpr[kRbp] = saved;
      break;
    }
  }
  state.rip = next;
  return true;
}

}  // namespace rastrace::dyntrace
