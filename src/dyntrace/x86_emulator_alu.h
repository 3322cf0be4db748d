// The arithmetic of the emulated x86-64 integer instructions: results and RFLAGS (CF PF AF ZF SF
// OF) for every operand width, and the condition codes of jcc/setcc/cmovcc. Kept apart from the
// decoder so the flag rules can be checked against the CPU on their own.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rastrace::dyntrace::x86 {

constexpr uint64_t kCf = 1u << 0, kPf = 1u << 2, kAf = 1u << 4, kZf = 1u << 6, kSf = 1u << 7,
                   kOf = 1u << 11;
constexpr uint64_t kStatusFlags = kCf | kPf | kAf | kZf | kSf | kOf;

uint64_t WidthMask(size_t width);
// `value`'s low `width` bytes as a signed number, sign-extended to 64 bits.
uint64_t SignExtend(uint64_t value, size_t width);

struct AluResult {
  uint64_t value = 0;  // masked to the width
  uint64_t rflags = 0;
};

// add or adc sbb and sub xor cmp (the x86 /digit numbering) of `a` and `b`, `width` bytes.
AluResult Alu(unsigned operation, uint64_t a, uint64_t b, size_t width, uint64_t rflags);
// inc / dec: add or sub 1 keeping CF.
AluResult IncDec(bool decrement, uint64_t a, size_t width, uint64_t rflags);
// neg: 0 - a, CF set unless a is 0.
AluResult Neg(uint64_t a, size_t width, uint64_t rflags);
// shl (4), shr (5), sar (7) by `count` (already masked, below the width in bits). A count of 0
// changes no flag. For counts above 1 OF is architecturally undefined, and AF for every count;
// they are given the values AMD Zen produces (OF by the 1-bit rule applied to the result, AF set).
AluResult Shift(unsigned operation, uint64_t a, unsigned count, size_t width, uint64_t rflags);
// The flags of an and/or/xor/test result: CF OF cleared, AF cleared (undefined; what AMD and
// Intel CPUs do), PF ZF SF from the result.
uint64_t LogicFlags(uint64_t result, size_t width, uint64_t rflags);

// Condition `code` (0 O, 1 NO, 2 B, 3 AE, 4 E, 5 NE, 6 BE, 7 A, 8 S, 9 NS, 10 P, 11 NP, 12 L,
// 13 GE, 14 LE, 15 G) on `rflags`.
bool Condition(unsigned code, uint64_t rflags);

}  // namespace rastrace::dyntrace::x86
