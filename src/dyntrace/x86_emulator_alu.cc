#include "dyntrace/x86_emulator_alu.h"

#include <bit>

namespace rastrace::dyntrace::x86 {
namespace {

uint64_t SignBit(size_t width) {
  return uint64_t{1} << (8 * width - 1);
}

// PF ZF SF of `result` (already masked), the other status flags given.
uint64_t Flags(uint64_t result, size_t width, bool carry, bool adjust, bool overflow,
               uint64_t rflags) {
  rflags &= ~kStatusFlags;
  if (carry) rflags |= kCf;
  if (std::popcount(static_cast<uint8_t>(result)) % 2 == 0) rflags |= kPf;
  if (adjust) rflags |= kAf;
  if (result == 0) rflags |= kZf;
  if ((result & SignBit(width)) != 0) rflags |= kSf;
  if (overflow) rflags |= kOf;
  return rflags;
}

// a + b + carry_in: the carry out of the top bit is (a&b | (a|b)&~r) there, for adc too.
AluResult Add(uint64_t a, uint64_t b, uint64_t carry_in, size_t width, uint64_t rflags) {
  uint64_t mask = WidthMask(width);
  uint64_t r = (a + b + carry_in) & mask;
  uint64_t top = SignBit(width);
  bool carry = (((a & b) | ((a | b) & ~r)) & top) != 0;
  bool overflow = (((a ^ r) & (b ^ r)) & top) != 0;
  return {r, Flags(r, width, carry, ((a ^ b ^ r) & 0x10) != 0, overflow, rflags)};
}

// a - b - borrow_in: the borrow out of the top bit is (~a&b | ~(a^b)&r) there, for sbb too.
AluResult Sub(uint64_t a, uint64_t b, uint64_t borrow_in, size_t width, uint64_t rflags) {
  uint64_t mask = WidthMask(width);
  uint64_t r = (a - b - borrow_in) & mask;
  uint64_t top = SignBit(width);
  bool borrow = (((~a & b) | (~(a ^ b) & r)) & top) != 0;
  bool overflow = (((a ^ b) & (a ^ r)) & top) != 0;
  return {r, Flags(r, width, borrow, ((a ^ b ^ r) & 0x10) != 0, overflow, rflags)};
}

}  // namespace

uint64_t WidthMask(size_t width) {
  return width >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
}

uint64_t SignExtend(uint64_t value, size_t width) {
  if (width >= 8) return value;
  uint64_t sign = SignBit(width);
  value &= WidthMask(width);
  return (value ^ sign) - sign;
}

uint64_t LogicFlags(uint64_t result, size_t width, uint64_t rflags) {
  return Flags(result & WidthMask(width), width, false, false, false, rflags);
}

AluResult Alu(unsigned operation, uint64_t a, uint64_t b, size_t width, uint64_t rflags) {
  uint64_t mask = WidthMask(width);
  a &= mask;
  b &= mask;
  uint64_t carry = (rflags & kCf) != 0 ? 1 : 0;
  switch (operation & 7) {
    case 0:
      return Add(a, b, 0, width, rflags);
    case 1:
      return {a | b, LogicFlags(a | b, width, rflags)};
    case 2:
      return Add(a, b, carry, width, rflags);
    case 3:
      return Sub(a, b, carry, width, rflags);
    case 4:
      return {a & b, LogicFlags(a & b, width, rflags)};
    case 6:
      return {a ^ b, LogicFlags(a ^ b, width, rflags)};
    default:  // 5 sub, 7 cmp
      return Sub(a, b, 0, width, rflags);
  }
}

AluResult IncDec(bool decrement, uint64_t a, size_t width, uint64_t rflags) {
  a &= WidthMask(width);
  AluResult result = decrement ? Sub(a, 1, 0, width, rflags) : Add(a, 1, 0, width, rflags);
  result.rflags = (result.rflags & ~kCf) | (rflags & kCf);
  return result;
}

AluResult Neg(uint64_t a, size_t width, uint64_t rflags) {
  return Sub(0, a & WidthMask(width), 0, width, rflags);
}

AluResult Shift(unsigned operation, uint64_t a, unsigned count, size_t width, uint64_t rflags) {
  uint64_t mask = WidthMask(width);
  a &= mask;
  if (count == 0) return {a, rflags};
  unsigned bits = static_cast<unsigned>(8 * width);
  uint64_t top = SignBit(width);
  uint64_t r = 0;
  bool carry = false;
  bool overflow = false;
  if (operation == 4) {  // shl
    r = (a << count) & mask;
    carry = ((a >> (bits - count)) & 1) != 0;
    overflow = ((r & top) != 0) != carry;
  } else if (operation == 5) {  // shr: OF is the top bit of the operand for one bit
    r = a >> count;
    carry = ((a >> (count - 1)) & 1) != 0;
    overflow = (((r << 1) ^ r) & top) != 0;
  } else {  // sar
    auto signed_a = static_cast<int64_t>(SignExtend(a, width));
    r = static_cast<uint64_t>(signed_a >> count) & mask;
    carry = ((signed_a >> (count - 1)) & 1) != 0;
  }
  return {r, Flags(r, width, carry, true, overflow, rflags)};
}

bool Condition(unsigned code, uint64_t rflags) {
  bool cf = (rflags & kCf) != 0, zf = (rflags & kZf) != 0, sf = (rflags & kSf) != 0,
       of = (rflags & kOf) != 0, pf = (rflags & kPf) != 0;
  bool result = false;
  switch ((code >> 1) & 7) {
    case 0:
      result = of;
      break;
    case 1:
      result = cf;
      break;
    case 2:
      result = zf;
      break;
    case 3:
      result = cf || zf;
      break;
    case 4:
      result = sf;
      break;
    case 5:
      result = pf;
      break;
    case 6:
      result = sf != of;
      break;
    case 7:
      result = zf || sf != of;
      break;
  }
  return (code & 1) != 0 ? !result : result;
}

}  // namespace rastrace::dyntrace::x86
