#include "dyntrace/x86_registers.h"

#include <cctype>
#include <string>

namespace rastrace::dyntrace {
namespace {

struct NamedRegister {
  std::string_view name;
  Reg reg;
  uint8_t size;
};

constexpr NamedRegister kNames[] = {
    {"RAX", Reg::kRax, 8},       {"RBX", Reg::kRbx, 8},      {"RCX", Reg::kRcx, 8},
    {"RDX", Reg::kRdx, 8},       {"RSI", Reg::kRsi, 8},      {"RDI", Reg::kRdi, 8},
    {"RBP", Reg::kRbp, 8},       {"RSP", Reg::kRsp, 8},      {"R8", Reg::kR8, 8},
    {"R9", Reg::kR9, 8},         {"R10", Reg::kR10, 8},      {"R11", Reg::kR11, 8},
    {"R12", Reg::kR12, 8},       {"R13", Reg::kR13, 8},      {"R14", Reg::kR14, 8},
    {"R15", Reg::kR15, 8},       {"RIP", Reg::kRip, 8},      {"RFLAGS", Reg::kEflags, 8},
    {"EAX", Reg::kRax, 4},       {"EBX", Reg::kRbx, 4},      {"ECX", Reg::kRcx, 4},
    {"EDX", Reg::kRdx, 4},       {"ESI", Reg::kRsi, 4},      {"EDI", Reg::kRdi, 4},
    {"EBP", Reg::kRbp, 4},       {"ESP", Reg::kRsp, 4},      {"EIP", Reg::kRip, 4},
    {"EFLAGS", Reg::kEflags, 4}, {"AX", Reg::kRax, 2},       {"BX", Reg::kRbx, 2},
    {"CX", Reg::kRcx, 2},        {"DX", Reg::kRdx, 2},       {"SI", Reg::kRsi, 2},
    {"DI", Reg::kRdi, 2},        {"BP", Reg::kRbp, 2},       {"SP", Reg::kRsp, 2},
    {"IP", Reg::kRip, 2},        {"FLAGS", Reg::kEflags, 2}, {"CS", Reg::kCs, 2},
    {"SS", Reg::kSs, 2},         {"DS", Reg::kDs, 2},        {"ES", Reg::kEs, 2},
    {"FS", Reg::kFs, 2},         {"GS", Reg::kGs, 2},
};

}  // namespace

std::optional<RegisterSlot> LookupRegister(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const NamedRegister& entry : kNames) {
    if (entry.name == upper) return RegisterSlot{entry.reg, entry.size};
  }
  return std::nullopt;
}

size_t StoreRegister(const RegisterFile& regs, RegisterSlot slot, std::span<uint8_t> out) {
  uint64_t value = regs.Get(slot.reg);
  for (size_t i = 0; i < slot.size; ++i) out[i] = static_cast<uint8_t>(value >> (8 * i));
  return slot.size;
}

}  // namespace rastrace::dyntrace
