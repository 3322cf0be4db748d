// Runs a decoded instruction on a copy of the registers; the copy replaces the thread's state
// only when every memory access succeeded, so a fault leaves nothing changed.
#include "dyntrace/x86_emulator.h"

#include <optional>

#include "dyntrace/x86_emulator_alu.h"

namespace rastrace::dyntrace {
namespace {

constexpr int kRax = 0;
constexpr int kRdx = 2;
constexpr int kRsp = 4;
constexpr int kRbp = 5;

using x86::SignExtend;
using x86::WidthMask;

// Without REX, byte registers 4..7 are ah ch dh bh (bits 8..15 of rax..rbx).
bool HighByte(uint8_t number, size_t width, bool rex) {
  return width == 1 && !rex && number >= 4 && number < 8;
}

uint64_t GetRegister(const X86State& state, uint8_t number, size_t width, bool rex) {
  if (HighByte(number, width, rex)) return (state.gpr[number - 4u] >> 8) & 0xFF;
  return state.gpr[number] & WidthMask(width);
}

// Writes of 32 bits zero-extend into the 64-bit register; 8 and 16 bits merge.
void SetRegister(X86State& state, uint8_t number, size_t width, bool rex, uint64_t value) {
  if (HighByte(number, width, rex)) {
    uint64_t& full = state.gpr[number - 4u];
    full = (full & ~uint64_t{0xFF00}) | ((value & 0xFF) << 8);
    return;
  }
  uint64_t& full = state.gpr[number];
  if (width >= 4) {
    full = value & WidthMask(width);
  } else {
    full = (full & ~WidthMask(width)) | (value & WidthMask(width));
  }
}

bool Canonical(uint64_t address) {
  auto high = static_cast<int64_t>(address) >> 47;
  return high == 0 || high == -1;
}

struct PendingWrite {
  uint64_t address;
  size_t width;
  uint64_t value;
};

class Execution {
 public:
  Execution(const X86Instruction& instruction, const X86State& state, EmulatedMemory& memory)
      : in_(instruction), before_(state), after_(state), memory_(memory) {
    after_.rip = state.rip + instruction.length;
  }

  bool Run();
  bool Commit(X86State& state) {
    if (write_ && !WriteWord(write_->address, write_->width, write_->value)) return false;
    state = after_;
    return true;
  }

 private:
  uint64_t Address(bool with_segment = true) const {
    const X86Address& memory = in_.memory;
    uint64_t address = static_cast<uint64_t>(static_cast<int64_t>(memory.displacement));
    if (memory.rip_relative) address += before_.rip + in_.length;
    if (memory.base >= 0) address += before_.gpr[static_cast<size_t>(memory.base)];
    if (memory.index >= 0) {
      address += before_.gpr[static_cast<size_t>(memory.index)] * memory.scale;
    }
    if (with_segment && memory.segment == 0x64) address += before_.fs_base;
    if (with_segment && memory.segment == 0x65) address += before_.gs_base;
    return address;
  }

  bool ReadWord(uint64_t address, size_t width, uint64_t& value) {
    uint8_t bytes[8] = {};
    if (!memory_.Read(address, std::span<uint8_t>(bytes, width))) return false;
    value = 0;
    for (size_t i = 0; i < width; ++i) value |= uint64_t{bytes[i]} << (8 * i);
    return true;
  }

  bool WriteWord(uint64_t address, size_t width, uint64_t value) {
    uint8_t bytes[8];
    for (size_t i = 0; i < width; ++i) bytes[i] = static_cast<uint8_t>(value >> (8 * i));
    return memory_.Write(address, std::span<const uint8_t>(bytes, width));
  }

  // The r/m operand (a register, or memory through the address).
  bool ReadRm(size_t width, uint64_t& value) {
    if (!in_.has_memory) {
      value = GetRegister(before_, in_.rm, width, in_.rex);
      return true;
    }
    return ReadWord(Address(), width, value);
  }
  void WriteRm(size_t width, uint64_t value) {
    if (!in_.has_memory) {
      SetRegister(after_, in_.rm, width, in_.rex, value);
    } else {
      write_ = PendingWrite{Address(), width, value & WidthMask(width)};
    }
  }
  uint64_t Reg(size_t width) const { return GetRegister(before_, in_.reg, width, in_.rex); }
  void SetReg(size_t width, uint64_t value) { SetRegister(after_, in_.reg, width, in_.rex, value); }
  // The second operand of a two-operand form whose destination is r/m.
  uint64_t Source() const {
    return in_.has_immediate ? static_cast<uint64_t>(in_.immediate) : Reg(in_.width);
  }
  void Push(uint64_t value) {
    uint64_t slot = before_.gpr[kRsp] - 8;
    write_ = PendingWrite{slot, 8, value};
    after_.gpr[kRsp] = slot;
  }
  bool Jump(uint64_t target) {
    if (!Canonical(target)) return false;  // the CPU faults on the branch itself
    after_.rip = target;
    return true;
  }
  bool BranchTarget(uint64_t& target) {
    if (in_.indirect) return ReadRm(8, target);
    target = after_.rip + static_cast<uint64_t>(in_.immediate);
    return true;
  }

  const X86Instruction& in_;
  const X86State& before_;
  X86State after_;
  EmulatedMemory& memory_;
  std::optional<PendingWrite> write_;
};

bool Execution::Run() {
  size_t width = in_.width;
  uint64_t a = 0;
  uint64_t b = 0;
  switch (in_.op) {
    case X86Op::kNop:
      return true;
    case X86Op::kPush:
      // push %rsp stores the value before the decrement.
      Push(in_.has_immediate ? static_cast<uint64_t>(in_.immediate) : before_.gpr[in_.reg]);
      return true;
    case X86Op::kPop:
      if (!ReadWord(before_.gpr[kRsp], 8, a)) return false;
      after_.gpr[kRsp] += 8;
      after_.gpr[in_.reg] = a;  // pop %rsp leaves the value read
      return true;
    case X86Op::kMov:
      if (in_.store) {
        WriteRm(width, Source());
      } else {
        if (in_.has_immediate) {
          a = static_cast<uint64_t>(in_.immediate);
        } else if (!ReadRm(width, a)) {
          return false;
        }
        SetReg(width, a);
      }
      return true;
    case X86Op::kLea:
      SetReg(width, Address(/*with_segment=*/false));
      return true;
    case X86Op::kAlu: {
      if (in_.store) {
        if (!ReadRm(width, a)) return false;
        b = Source();
      } else {
        a = Reg(width);
        if (!ReadRm(width, b)) return false;
      }
      x86::AluResult result = x86::Alu(in_.sub_op, a, b, width, before_.rflags);
      after_.rflags = result.rflags;
      if (in_.sub_op == 7) return true;  // cmp
      if (in_.store) {
        WriteRm(width, result.value);
      } else {
        SetReg(width, result.value);
      }
      return true;
    }
    case X86Op::kTest:
      if (!ReadRm(width, a)) return false;
      after_.rflags = x86::LogicFlags(a & Source(), width, before_.rflags);
      return true;
    case X86Op::kInc:
    case X86Op::kDec:
    case X86Op::kNeg:
    case X86Op::kShift: {
      if (!ReadRm(width, a)) return false;
      x86::AluResult result;
      if (in_.op == X86Op::kShift) {
        result =
            x86::Shift(in_.sub_op, a, static_cast<unsigned>(in_.immediate), width, before_.rflags);
      } else if (in_.op == X86Op::kNeg) {
        result = x86::Neg(a, width, before_.rflags);
      } else {
        result = x86::IncDec(in_.op == X86Op::kDec, a, width, before_.rflags);
      }
      after_.rflags = result.rflags;
      WriteRm(width, result.value);
      return true;
    }
    case X86Op::kNot:
      if (!ReadRm(width, a)) return false;
      WriteRm(width, ~a);
      return true;
    case X86Op::kMovzx:
    case X86Op::kMovsx:
      if (!ReadRm(in_.source_width, a)) return false;
      SetReg(width, in_.op == X86Op::kMovsx ? SignExtend(a, in_.source_width) : a);
      return true;
    case X86Op::kXchg:
      a = Reg(width);
      b = GetRegister(before_, in_.rm, width, in_.rex);
      SetRegister(after_, in_.rm, width, in_.rex, a);
      SetReg(width, b);
      return true;
    case X86Op::kExtend: {
      uint64_t accumulator = before_.gpr[kRax];
      if (in_.sub_op == 0) {  // cbw cwde cdqe: the accumulator's low half sign-extended
        SetRegister(after_, kRax, width, false, SignExtend(accumulator, width / 2));
      } else {  // cwd cdq cqo: rdx filled with the accumulator's sign
        bool negative = (SignExtend(accumulator, width) >> 63) != 0;
        SetRegister(after_, kRdx, width, false, negative ? ~uint64_t{0} : 0);
      }
      return true;
    }
    case X86Op::kSetcc:
      WriteRm(1, x86::Condition(in_.sub_op, before_.rflags) ? 1 : 0);
      return true;
    case X86Op::kCmovcc:
      // The source is read (and may fault) whatever the condition; a 32-bit destination is
      // zero-extended even when nothing moves.
      if (!ReadRm(width, a)) return false;
      SetReg(width, x86::Condition(in_.sub_op, before_.rflags) ? a : Reg(width));
      return true;
    case X86Op::kCall:
      if (!BranchTarget(a)) return false;
      Push(after_.rip);
      return Jump(a);
    case X86Op::kJmp:
      if (!BranchTarget(a)) return false;
      return Jump(a);
    case X86Op::kJcc:
      if (!x86::Condition(in_.sub_op, before_.rflags)) return true;
      return Jump(after_.rip + static_cast<uint64_t>(in_.immediate));
    case X86Op::kRet:
      if (!ReadWord(before_.gpr[kRsp], 8, a)) return false;
      after_.gpr[kRsp] += 8 + static_cast<uint64_t>(in_.immediate);
      return Jump(a);
    case X86Op::kLeave:
      if (!ReadWord(before_.gpr[kRbp], 8, a)) return false;
      after_.gpr[kRsp] = before_.gpr[kRbp] + 8;
      after_.gpr[kRbp] = a;
      return true;
  }
  return false;
}

}  // namespace

uint64_t AddFlags(uint64_t a, uint64_t b, uint64_t rflags) {
  return x86::Alu(0, a, b, 8, rflags).rflags;
}

uint64_t SubFlags(uint64_t a, uint64_t b, uint64_t rflags) {
  return x86::Alu(5, a, b, 8, rflags).rflags;
}

bool EmulateX86(const X86Instruction& instruction, X86State& state, EmulatedMemory& memory) {
  Execution execution(instruction, state, memory);
  return execution.Run() && execution.Commit(state);
}

}  // namespace rastrace::dyntrace
