// Decodes and emulates the few simple x86-64 instructions that usually sit where a ptrace
// breakpoint goes (function prologues and epilogues, -O0 stack loads and stores, the instruction
// after a call). Emulating the displaced instruction in the tracer lets the int3 stay in place:
// a hit costs one stop instead of a single step with every other thread stopped. Anything the
// decoder does not know is refused (nullopt) and single-stepped by the engine.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

namespace rastrace::dyntrace {

enum class X86Op : uint8_t {
  kNop,     // nop, nop r/m (0F 1F), pause, endbr64/endbr32
  kPush,    // push r64
  kPop,     // pop r64
  kMov,     // mov r <- r/m/imm, or r/m <- r/imm (a memory destination when `store`)
  kLea,     // lea r, m
  kAddImm,  // add r64, imm (flags)
  kSubImm,  // sub r64, imm (flags)
  kRet,     // ret [imm16]
  kLeave,   // leave
};

// [base + index * scale + disp], or [next rip + disp] when rip_relative.
struct X86Address {
  bool rip_relative = false;
  int8_t base = -1;  // register number (x86 encoding: 0 rax, 1 rcx, ... 4 rsp, 5 rbp, ...), -1 none
  int8_t index = -1;  // -1 none
  uint8_t scale = 1;
  int32_t displacement = 0;
};

struct X86Instruction {
  X86Op op = X86Op::kNop;
  uint8_t length = 0;       // bytes
  uint8_t width = 8;        // operand bytes: 4 or 8 (a 4-byte register result is zero-extended)
  uint8_t reg = 0;          // the register operand (destination unless `store`)
  bool store = false;       // kMov: memory is the destination
  bool has_memory = false;  // the r/m operand is memory (else `rm` is a register)
  uint8_t rm = 0;           // register r/m operand when !has_memory
  bool has_immediate = false;
  int64_t immediate = 0;  // sign-extended imm8/imm32 (imm64 for mov r64, imm64); ret's imm16
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
// access fails: then nothing has changed and the instruction must run for real (its fault is the
// program's).
bool EmulateX86(const X86Instruction& instruction, X86State& state, EmulatedMemory& memory);

// Flags of `a + b` / `a - b` (64-bit) merged into `rflags` (CF PF AF ZF SF OF).
uint64_t AddFlags(uint64_t a, uint64_t b, uint64_t rflags);
uint64_t SubFlags(uint64_t a, uint64_t b, uint64_t rflags);

}  // namespace rastrace::dyntrace
