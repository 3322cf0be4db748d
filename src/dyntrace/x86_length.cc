#include "dyntrace/x86_length.h"

#include <algorithm>
#include <array>

namespace rastrace::dyntrace {
namespace {

// Per-opcode properties, one character each for readability of the tables:
//   '.' no ModRM, no immediate     'm' ModRM                 'b' imm8          'w' imm16
//   'z' imm16/32 (operand size)    'v' imm16/32/64 (B8+r)    'M' ModRM + imm8  'Z' ModRM + immz
//   'd' rel32 / imm32 fixed        'e' enter (imm16 + imm8)  'a' moffs (8, 4 with 67)
//   'f' F6/F7 (imm only for /0 and /1)  'p' prefix  'x' escape/VEX/EVEX  '!' invalid in 64-bit
// Row n is opcodes n*16 .. n*16+15.
constexpr std::array<const char*, 16> kOneByte = {
    "mmmmbz!!mmmmbz!x",  // 00: add, or; 0F escape
    "mmmmbz!!mmmmbz!!",  // 10: adc, sbb
    "mmmmbzp!mmmmbzp!",  // 20: and, sub; es/cs
    "mmmmbzp!mmmmbzp!",  // 30: xor, cmp; ss/ds
    "pppppppppppppppp",  // 40: REX
    "................",  // 50: push/pop
    "!!xmppppzZbM....",  // 60: movsxd, fs gs 66 67, push imm, imul, ins/outs
    "bbbbbbbbbbbbbbbb",  // 70: jcc rel8
    "MZ!Mmmmmmmmmmmmm",  // 80: group 1, test, xchg, mov, lea, pop r/m
    "..........!.....",  // 90: nop/xchg, cbw.., fwait, pushf, sahf
    "aaaa....bz......",  // A0: mov moffs, movs, cmps, test, stos, lods, scas
    "bbbbbbbbvvvvvvvv",  // B0: mov imm
    "MMw.xxMZe.w..b!.",  // C0: shifts, ret, VEX, mov imm, enter, leave, retf, int3, int, iret
    "mmmm!!!.mmmmmmmm",  // D0: shifts, xlat, x87
    "bbbbbbbbdd!b....",  // E0: loop, jrcxz, in/out, call, jmp
    "p.pp..ff......mm",  // F0: lock, int1, repne/rep, hlt, cmc, test/not.., clc.., inc/dec
};

// 0F xx: 'j' is jcc rel32.
constexpr std::array<const char*, 16> kTwoByte = {
    "mmmm!.....!.!m.!",  // 00: syscall, clts, sysret, invd, wbinvd, ud2, prefetch, femms
    "mmmmmmmmmmmmmmmm",  // 10: sse moves, hint nops (1E endbr, 1F nop)
    "mmmm!!!!mmmmmmmm",  // 20: mov cr/dr, sse
    "......!.x!x!!!!!",  // 30: wrmsr, rdtsc.., 38 and 3A three-byte maps
    "mmmmmmmmmmmmmmmm",  // 40: cmovcc
    "mmmmmmmmmmmmmmmm",  // 50: sse
    "mmmmmmmmmmmmmmmm",  // 60: mmx/sse
    "MMMMmmm.mm!!mmmm",  // 70: pshuf, shifts imm, pcmpeq, emms, vmread/vmwrite
    "jjjjjjjjjjjjjjjj",  // 80: jcc rel32
    "mmmmmmmmmmmmmmmm",  // 90: setcc
    "...mMm!!...mMmmm",  // A0: push/pop fs gs, cpuid, bt, shld, bts, shrd, fxsave.., imul
    "mmmmmmmmmmMmmmmm",  // B0: cmpxchg, lss, btr, lfs, lgs, movzx, popcnt, ud1, bt imm, bsf..
    "mmMmMMMm........",  // C0: xadd, cmpps, movnti, pinsrw, pextrw, shufps, cmpxchg8b; bswap
    "mmmmmmmmmmmmmmmm",  // D0: sse
    "mmmmmmmmmmmmmmmm",  // E0: sse
    "mmmmmmmmmmmmmmm!",  // F0: sse, ud0 (FF) left out
};

struct Reader {
  std::span<const uint8_t> code;
  size_t at = 0;
  bool Has(size_t n) const { return at + n <= code.size() && at + n <= 15; }
};

// ModRM, SIB and displacement; false when the bytes run out.
bool SkipModRm(Reader& reader, uint8_t& reg_field) {
  if (!reader.Has(1)) return false;
  uint8_t modrm = reader.code[reader.at++];
  uint8_t mod = modrm >> 6;
  uint8_t rm = modrm & 7;
  reg_field = (modrm >> 3) & 7;
  if (mod == 3) return true;
  size_t displacement = mod == 1 ? 1 : mod == 2 ? 4 : 0;
  if (rm == 4) {
    if (!reader.Has(1)) return false;
    uint8_t sib = reader.code[reader.at++];
    if ((sib & 7) == 5 && mod == 0) displacement = 4;
  } else if (rm == 5 && mod == 0) {
    displacement = 4;  // rip-relative
  }
  if (!reader.Has(displacement)) return false;
  reader.at += displacement;
  return true;
}

bool Skip(Reader& reader, size_t n) {
  if (!reader.Has(n)) return false;
  reader.at += n;
  return true;
}

// The opcode byte and the rest of a VEX/EVEX instruction: ModRM always except vzeroupper/all
// (map 1, 77), imm8 in map 3 and for the map-1 opcodes that take one.
bool SkipVexBody(Reader& reader, uint8_t map, bool evex) {
  if (!reader.Has(1)) return false;
  uint8_t opcode = reader.code[reader.at++];
  if (map == 1 && opcode == 0x77 && !evex) return true;
  uint8_t reg_field = 0;
  if (!SkipModRm(reader, reg_field)) return false;
  bool imm8 = map == 3 || (map == 1 && ((opcode >= 0x70 && opcode <= 0x73) || opcode == 0xC2 ||
                                        (opcode >= 0xC4 && opcode <= 0xC6)));
  return !imm8 || Skip(reader, 1);
}

}  // namespace

std::optional<size_t> X86InstructionLength(std::span<const uint8_t> code) {
  Reader reader{code};
  bool operand16 = false;
  bool address32 = false;
  bool rex_w = false;
  for (;;) {
    if (!reader.Has(1)) return std::nullopt;
    uint8_t byte = code[reader.at];
    char kind = kOneByte[byte >> 4][byte & 15];
    if (kind != 'p') break;
    if (byte == 0x66) operand16 = true;
    if (byte == 0x67) address32 = true;
    ++reader.at;
    if ((byte & 0xF0) == 0x40) {
      rex_w = (byte & 8) != 0;
      // REX must come last: the opcode follows.
      if (!reader.Has(1)) return std::nullopt;
      uint8_t next = code[reader.at];
      if (kOneByte[next >> 4][next & 15] == 'p') return std::nullopt;
      break;
    }
  }
  uint8_t opcode = code[reader.at++];
  size_t immz = rex_w ? 4 : operand16 ? 2 : 4;
  uint8_t reg_field = 0;
  if (opcode == 0x0F) {
    if (!reader.Has(1)) return std::nullopt;
    uint8_t second = code[reader.at++];
    if (second == 0x38 || second == 0x3A) {
      if (!reader.Has(1)) return std::nullopt;
      ++reader.at;
      if (!SkipModRm(reader, reg_field)) return std::nullopt;
      if (second == 0x3A && !Skip(reader, 1)) return std::nullopt;
      return reader.at;
    }
    char kind = kTwoByte[second >> 4][second & 15];
    switch (kind) {
      case '.':
        return reader.at;
      case 'm':
        if (!SkipModRm(reader, reg_field)) return std::nullopt;
        return reader.at;
      case 'M':
        if (!SkipModRm(reader, reg_field) || !Skip(reader, 1)) return std::nullopt;
        return reader.at;
      case 'j':
        if (!Skip(reader, 4)) return std::nullopt;
        return reader.at;
      default:
        return std::nullopt;
    }
  }
  if (opcode == 0xC5 || opcode == 0xC4 || opcode == 0x62) {
    size_t payload = opcode == 0xC5 ? 1 : opcode == 0xC4 ? 2 : 3;
    if (!reader.Has(payload)) return std::nullopt;
    uint8_t map = opcode == 0xC5 ? 1 : static_cast<uint8_t>(code[reader.at] & 0x1F);
    if (opcode == 0x62) map = code[reader.at] & 0x07;
    reader.at += payload;
    if (map == 0 || map > 7 || map == 4) return std::nullopt;
    if (!SkipVexBody(reader, map, opcode == 0x62)) return std::nullopt;
    return reader.at;
  }
  char kind = kOneByte[opcode >> 4][opcode & 15];
  bool ok = true;
  switch (kind) {
    case '.':
      break;
    case 'm':
      ok = SkipModRm(reader, reg_field);
      break;
    case 'b':
      ok = Skip(reader, 1);
      break;
    case 'w':
      ok = Skip(reader, 2);
      break;
    case 'z':
      ok = Skip(reader, immz);
      break;
    case 'v':
      ok = Skip(reader, rex_w ? 8 : operand16 ? 2 : 4);
      break;
    case 'M':
      ok = SkipModRm(reader, reg_field) && Skip(reader, 1);
      break;
    case 'Z':
      ok = SkipModRm(reader, reg_field) && Skip(reader, immz);
      break;
    case 'd':
      ok = Skip(reader, 4);
      break;
    case 'e':
      ok = Skip(reader, 3);
      break;
    case 'a':
      ok = Skip(reader, address32 ? 4 : 8);
      break;
    case 'f':
      ok = SkipModRm(reader, reg_field);
      if (ok && reg_field <= 1) ok = Skip(reader, opcode == 0xF6 ? 1 : immz);
      break;
    default:
      return std::nullopt;
  }
  if (!ok) return std::nullopt;
  return reader.at;
}

std::optional<std::vector<size_t>> FindReturns(std::span<const uint8_t> code) {
  std::vector<size_t> starts;
  std::vector<size_t> returns;
  std::vector<int64_t> targets;
  size_t at = 0;
  while (at < code.size()) {
    auto length = X86InstructionLength(code.subspan(at));
    if (!length) return std::nullopt;
    starts.push_back(at);
    std::span<const uint8_t> insn = code.subspan(at, *length);
    // Skip legacy prefixes and REX to the opcode.
    size_t op = 0;
    while (op < insn.size() &&
           (insn[op] == 0x66 || insn[op] == 0x67 || insn[op] == 0xF2 || insn[op] == 0xF3 ||
            insn[op] == 0xF0 || insn[op] == 0x2E || insn[op] == 0x3E || insn[op] == 0x26 ||
            insn[op] == 0x36 || insn[op] == 0x64 || insn[op] == 0x65 ||
            (insn[op] & 0xF0) == 0x40)) {
      ++op;
    }
    uint8_t opcode = insn[op];
    int64_t end = static_cast<int64_t>(at + *length);
    auto rel = [&](size_t bytes) {
      int64_t value = 0;
      for (size_t i = 0; i < bytes; ++i) value |= int64_t{insn[insn.size() - bytes + i]} << (8 * i);
      if (bytes == 1) value = static_cast<int8_t>(value);
      if (bytes == 4) value = static_cast<int32_t>(value);
      return value;
    };
    if (opcode == 0xC3 || opcode == 0xC2) {
      returns.push_back(at);
    } else if (opcode == 0xCA || opcode == 0xCB || opcode == 0xCF) {
      return std::nullopt;  // far return, iret
    } else if (opcode == 0xEB || (opcode >= 0x70 && opcode <= 0x7F) ||
               (opcode >= 0xE0 && opcode <= 0xE3)) {
      targets.push_back(end + rel(1));
    } else if (opcode == 0xE9) {
      targets.push_back(end + rel(4));
    } else if (opcode == 0x0F && op + 1 < insn.size() && (insn[op + 1] & 0xF0) == 0x80) {
      targets.push_back(end + rel(4));
    } else if (opcode == 0xFF && op + 1 < insn.size()) {
      uint8_t reg_field = (insn[op + 1] >> 3) & 7;
      if (reg_field == 4 || reg_field == 5) return std::nullopt;  // indirect jmp
    }
    at += *length;
  }
  if (at != code.size()) return std::nullopt;
  for (int64_t target : targets) {
    if (target < 0 ||
        !std::binary_search(starts.begin(), starts.end(), static_cast<size_t>(target))) {
      return std::nullopt;
    }
  }
  return returns;
}

}  // namespace rastrace::dyntrace
