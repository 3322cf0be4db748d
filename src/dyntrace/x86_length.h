// x86-64 instruction lengths, to find the `ret` instructions of a procedure (RETEP on the ptrace
// engine puts its breakpoints there, where the emulated ret makes a return cost one stop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace rastrace::dyntrace {

// The length of the instruction at the start of `code` (legacy prefixes, REX, VEX and EVEX,
// one-, two- and three-byte opcode maps, ModRM, SIB, displacement, immediate); nullopt for an
// invalid or unknown opcode or when `code` ends inside it.
std::optional<size_t> X86InstructionLength(std::span<const uint8_t> code);

// The offsets of the `ret` instructions of a procedure whose code is `code`, decoded linearly from
// its first byte. nullopt unless the sweep is trustworthy and every way out is a ret it found:
// every byte decodes, the last instruction ends exactly at the end, every direct jump lands on an
// instruction boundary inside the procedure (a jump out is a tail call), and there is no indirect
// jump. The caller then falls back to breakpoints at the return addresses.
std::optional<std::vector<size_t>> FindReturns(std::span<const uint8_t> code);

}  // namespace rastrace::dyntrace
