// Decodes and emulates the x86-64 integer instructions that usually sit where a ptrace breakpoint
// goes: function prologues and epilogues, the instruction after a call, the first instruction of
// a source line (-O0 stack loads and stores, ALU operations, compares and branches). Emulating the
// displaced instruction in the tracer lets the int3 stay in place: a hit costs one stop instead
// of a single step with every other thread stopped. Anything the decoder does not know is refused
// (nullopt) and single-stepped by the engine.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace rastrace::dyntrace {

enum class X86Op : uint8_t {
  kNop,     // nop, nop r/m (0F 1F), pause, endbr64/endbr32
  kPush,    // push r64 / imm
  kPop,     // pop r64
  kMov,     // mov r <- r/m/imm, or r/m <- r/imm (a memory destination when `store`)
  kLea,     // lea r, m
  kAlu,     // add or adc sbb and sub xor cmp (`sub_op` 0..7 as the /digit)
  kTest,    // test r/m, r/imm
  kInc,     // inc r/m (CF kept)
  kDec,     // dec r/m (CF kept)
  kNeg,     // neg r/m
  kNot,     // not r/m (no flags)
  kShift,   // shl (4) shr (5) sar (7) r/m by an immediate count (`sub_op`)
  kMovzx,   // movzx r, r/m8/16
  kMovsx,   // movsx r, r/m8/16 and movsxd r64, r/m32
  kXchg,    // xchg between registers
  kExtend,  // cbw/cwde/cdqe (sub_op 0) and cwd/cdq/cqo (sub_op 1)
  kSetcc,   // setcc r/m8 (`sub_op` is the condition)
  kCmovcc,  // cmovcc r, r/m
  kCall,    // call rel32, or call r/m64 when `indirect`
  kJmp,     // jmp rel8/rel32, or jmp r/m64 when `indirect`
  kJcc,     // jcc rel8/rel32
  kRet,     // ret [imm16]
  kLeave,   // leave
};

// [segment base + base + index * scale + disp], or [next rip + disp] when rip_relative.
struct X86Address {
  bool rip_relative = false;
  int8_t base = -1;  // register number (x86 encoding: 0 rax, 1 rcx, ... 4 rsp, 5 rbp, ...), -1 none
  int8_t index = -1;  // -1 none
  uint8_t scale = 1;
  int32_t displacement = 0;
  uint8_t segment = 0;  // 0 none, or the prefix 0x64 (fs) / 0x65 (gs)
};

struct X86Instruction {
  X86Op op = X86Op::kNop;
  uint8_t length = 0;  // bytes
  uint8_t width = 8;   // operand bytes: 1, 2, 4 or 8 (a 4-byte register result is zero-extended)
  uint8_t source_width = 0;  // kMovzx/kMovsx: bytes read from the r/m operand
  uint8_t sub_op = 0;        // kAlu/kShift operation, condition of kJcc/kSetcc/kCmovcc
  uint8_t reg = 0;           // the register operand (destination unless `store`)
  bool rex = false;          // a REX prefix: byte registers 4..7 are spl..dil, not ah..bh
  bool store = false;        // the r/m operand is the destination (or the only operand)
  bool has_memory = false;   // the r/m operand is memory (else `rm` is a register)
  bool indirect = false;     // kCall/kJmp through r/m
  uint8_t rm = 0;            // register r/m operand when !has_memory
  bool has_immediate = false;
  // Sign-extended imm8/16/32 (imm64 for mov r64, imm64); ret's imm16; a branch displacement; a
  // shift count.
  int64_t immediate = 0;
  X86Address memory;
};

// Decodes one instruction at the start of `code`; nullopt when it is not one of the forms above
// (or `code` ends inside it).
std::optional<X86Instruction> DecodeX86(std::span<const uint8_t> code);

// The registers the emulation reads and writes; register numbers as in X86Address.
struct X86State {
  std::array<uint64_t, 16> gpr{};
  uint64_t rip = 0;
  uint64_t rflags = 0;
  uint64_t fs_base = 0;
  uint64_t gs_base = 0;
};

// The traced process's memory as the emulation needs it. Both fail (false) without side effects
// when the real instruction would fault.
class EmulatedMemory {
 public:
  virtual ~EmulatedMemory() = default;
  virtual bool Read(uint64_t address, std::span<uint8_t> out) = 0;
  virtual bool Write(uint64_t address, std::span<const uint8_t> bytes) = 0;
};

// Runs `instruction`, which sits at state.rip, on `state` and `memory`. False when a memory
// access fails or a branch target is not canonical: then nothing has changed and the instruction
// must run for real (its fault is the program's). Each emulated instruction writes memory at most
// once, after every read, so a failed write leaves nothing behind either.
bool EmulateX86(const X86Instruction& instruction, X86State& state, EmulatedMemory& memory);

// Flags of `a + b` / `a - b` (64-bit) merged into `rflags` (CF PF AF ZF SF OF).
uint64_t AddFlags(uint64_t a, uint64_t b, uint64_t rflags);
uint64_t SubFlags(uint64_t a, uint64_t b, uint64_t rflags);

}  // namespace rastrace::dyntrace
