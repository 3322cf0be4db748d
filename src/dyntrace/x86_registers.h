// The x86-64 registers a tracepoint can record, and the TSF names for them (docs/spec os2.md:
// EAX..EDI, EIP, EFLAGS are the low 32 bits; AX..DI the low 16; RAX..R15, RIP all 64).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace rastrace::dyntrace {

enum class Reg : uint8_t {
  kRax,
  kRbx,
  kRcx,
  kRdx,
  kRsi,
  kRdi,
  kRbp,
  kRsp,
  kR8,
  kR9,
  kR10,
  kR11,
  kR12,
  kR13,
  kR14,
  kR15,
  kRip,
  kEflags,
  kCs,
  kSs,
  kDs,
  kEs,
  kFs,
  kGs,
  kCount,
};

// A snapshot of a thread's registers at a tracepoint hit, whichever engine took it.
struct RegisterFile {
  std::array<uint64_t, static_cast<size_t>(Reg::kCount)> values{};
  uint64_t Get(Reg reg) const { return values[static_cast<size_t>(reg)]; }
  void Set(Reg reg, uint64_t value) { values[static_cast<size_t>(reg)] = value; }
};

// A TSF register name resolved to the 64-bit register and the bytes recorded from its low end.
struct RegisterSlot {
  Reg reg = Reg::kRax;
  uint8_t size = 8;
};

// Case-insensitive. nullopt for names that are not x86-64 registers.
std::optional<RegisterSlot> LookupRegister(std::string_view name);

// Stores the low `slot.size` bytes of the register, little-endian, at the start of `out` (which
// must have room) and returns that size.
size_t StoreRegister(const RegisterFile& regs, RegisterSlot slot, std::span<uint8_t> out);

}  // namespace rastrace::dyntrace
