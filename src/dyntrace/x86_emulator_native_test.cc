// The emulator against the CPU it runs on: each instruction form is executed natively in a small
// generated trampoline (registers and RFLAGS loaded from a block, the instruction, everything
// stored back) and emulated from the same state; registers, memory and the architecturally
// defined status flags must be identical.
#include <asm/prctl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "dyntrace/test_support.h"
#include "dyntrace/x86_emulator.h"
#include "dyntrace/x86_emulator_alu.h"

namespace rastrace::dyntrace {
namespace {

using x86::kAf;
using x86::kOf;
using x86::kStatusFlags;

constexpr size_t kPage = 4096;
constexpr size_t kGuestSize = 256;
constexpr int kRax = 0, kRcx = 1, kRdx = 2, kRbx = 3, kRsp = 4, kRsi = 6, kR9 = 9, kR12 = 12;

// Executes one instruction natively. Page 0: code; page 1: the register block (16 gprs, rflags,
// the host rsp); page 2: the guest memory (256 bytes) and, at its end, a scratch stack.
class NativeCpu {
 public:
  NativeCpu() {
    void* pages = mmap(nullptr, 3 * kPage, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages != MAP_FAILED) base_ = static_cast<uint8_t*>(pages);
  }
  ~NativeCpu() {
    if (base_ != nullptr) munmap(base_, 3 * kPage);
  }
  bool ok() const { return base_ != nullptr; }
  uint64_t* block() const { return reinterpret_cast<uint64_t*>(base_ + kPage); }
  uint8_t* guest() const { return base_ + 2 * kPage; }
  uint64_t guest_address() const { return reinterpret_cast<uint64_t>(guest()); }
  uint64_t instruction_address() const { return reinterpret_cast<uint64_t>(base_) + at_; }

  // Lays out the trampoline around `instruction`.
  void Load(const std::vector<uint8_t>& instruction) {
    code_.clear();
    uint64_t block_address = reinterpret_cast<uint64_t>(block());
    for (uint8_t byte : {0x53, 0x55}) Emit({byte});                    // push rbx, rbp
    for (uint8_t byte : {0x54, 0x55, 0x56, 0x57}) Emit({0x41, byte});  // push r12..r15
    Emit({0x48, 0xB8});
    Imm(block_address, 8);  // mov $block,%rax
    Emit({0x48, 0x89, 0xA0});
    Imm(136, 4);  // mov %rsp,136(%rax)
    Emit({0xFF, 0xB0});
    Imm(128, 4);   // push 128(%rax)
    Emit({0x9D});  // popfq
    for (int reg = 1; reg < 16; ++reg) {
      Emit({static_cast<uint8_t>(0x48 | (reg >= 8 ? 4 : 0)), 0x8B,
            static_cast<uint8_t>(0x80 | ((reg & 7) << 3))});
      Imm(8 * static_cast<uint64_t>(reg), 4);  // mov 8*reg(%rax),%reg (rsp included)
    }
    Emit({0x48, 0x8B, 0x80});
    Imm(0, 4);  // mov 0(%rax),%rax
    at_ = code_.size();
    Emit(instruction);
    Emit({0x48, 0xA3});
    Imm(block_address, 8);  // mov %rax,block
    Emit({0x48, 0x89, 0xE0, 0x48, 0xA3});
    Imm(block_address + 32, 8);  // mov %rsp,%rax; mov %rax,block+32
    Emit({0x48, 0xBC});
    Imm(guest_address() + kPage - 64, 8);  // scratch stack
    Emit({0x9C, 0x58, 0x48, 0xA3});
    Imm(block_address + 128, 8);  // pushfq; pop %rax; mov %rax,block+128
    Emit({0x48, 0xB8});
    Imm(block_address, 8);
    for (int reg = 1; reg < 16; ++reg) {
      if (reg == kRsp) continue;
      Emit({static_cast<uint8_t>(0x48 | (reg >= 8 ? 4 : 0)), 0x89,
            static_cast<uint8_t>(0x80 | ((reg & 7) << 3))});
      Imm(8 * static_cast<uint64_t>(reg), 4);
    }
    Emit({0x48, 0x8B, 0xA0});
    Imm(136, 4);  // mov 136(%rax),%rsp
    for (uint8_t byte : {0x5F, 0x5E, 0x5D, 0x5C}) Emit({0x41, byte});
    Emit({0x5D, 0x5B, 0xC3});
    std::memcpy(base_, code_.data(), code_.size());
  }

  void Run(X86State& state) {
    for (size_t i = 0; i < 16; ++i) block()[i] = state.gpr[i];
    block()[16] = state.rflags;
    reinterpret_cast<void (*)()>(base_)();
    for (size_t i = 0; i < 16; ++i) state.gpr[i] = block()[i];
    state.rflags = block()[16];
  }

 private:
  void Emit(std::initializer_list<uint8_t> bytes) { code_.insert(code_.end(), bytes); }
  void Emit(const std::vector<uint8_t>& bytes) {
    code_.insert(code_.end(), bytes.begin(), bytes.end());
  }
  void Imm(uint64_t value, size_t size) {
    for (size_t i = 0; i < size; ++i) code_.push_back(static_cast<uint8_t>(value >> (8 * i)));
  }

  uint8_t* base_ = nullptr;
  std::vector<uint8_t> code_;
  size_t at_ = 0;
};

// The guest memory (and the thread's TLS block for fs: operands) as the emulator sees it.
class HostMemory : public EmulatedMemory {
 public:
  HostMemory(uint64_t guest, uint64_t tls) : guest_(guest), tls_(tls) {}
  bool Read(uint64_t address, std::span<uint8_t> out) override {
    if (!Inside(address, out.size(), true)) return false;
    std::memcpy(out.data(), reinterpret_cast<const void*>(address), out.size());
    return true;
  }
  bool Write(uint64_t address, std::span<const uint8_t> in) override {
    if (!Inside(address, in.size(), false)) return false;
    std::memcpy(reinterpret_cast<void*>(address), in.data(), in.size());
    return true;
  }

 private:
  bool Inside(uint64_t address, size_t size, bool read) const {
    if (address >= guest_ && address + size <= guest_ + kGuestSize) return true;
    return read && address >= tls_ && address + size <= tls_ + 0x40;
  }
  uint64_t guest_;
  uint64_t tls_;
};

// This thread's (the test's) fs base, asked once: a system call per check was a fifth of the time.
uint64_t FsBase() {
  static const uint64_t base = [] {
    uint64_t value = 0;
    syscall(SYS_arch_prctl, ARCH_GET_FS, &value);
    return value;
  }();
  return base;
}

// The emulator gives architecturally undefined flags (AF after logic operations and shifts, OF
// after shifts by more than 1) the values AMD CPUs produce; elsewhere they are not compared.
uint64_t Undefined(uint64_t flags) {
  static const bool amd = testing::AmdCpu();
  return amd ? 0 : flags;
}

const std::vector<uint64_t> kValues = {0,
                                       1,
                                       2,
                                       0x0F,
                                       0x10,
                                       0x7F,
                                       0x80,
                                       0xFF,
                                       0x7FFF,
                                       0x8000,
                                       0xFFFF,
                                       0x7FFFFFFF,
                                       0x80000000,
                                       0xFFFFFFFF,
                                       0x7FFFFFFFFFFFFFFF,
                                       0x8000000000000000,
                                       0xFFFFFFFFFFFFFFFF,
                                       0x123456789ABCDEF0,
                                       0xFEDCBA9876543288};

// The values CheckValues pairs. Under ASan (a Debug build checking every access) a check costs
// ~50 times more: that build pairs the values at each width's sign and carry boundaries (a
// sixth of the pairs: the five cases take 7 s there, 48 s with every pair), the release build
// all of kValues.
#if defined(__SANITIZE_ADDRESS__)
#define RASTRACE_NATIVE_TEST_FEWER_PAIRS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RASTRACE_NATIVE_TEST_FEWER_PAIRS 1
#endif
#endif
#ifdef RASTRACE_NATIVE_TEST_FEWER_PAIRS
const std::vector<uint64_t> kPairValues = {
    0, 0x7F, 0x80, 0x8000, 0x7FFFFFFF, 0x80000000, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF};
#else
const std::vector<uint64_t>& kPairValues = kValues;
#endif

class NativeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cpu_.ok()) GTEST_SKIP() << "cannot map an executable page: " << std::strerror(errno);
  }

  // A state whose registers hold distinct values; rbx and rsp point into the guest memory.
  X86State Initial() const {
    X86State state;
    for (size_t i = 0; i < 16; ++i) state.gpr[i] = 0x1111111111111111u * (i + 1) ^ 0x0123u;
    state.gpr[kRbx] = cpu_.guest_address() + 128;
    state.gpr[kRsp] = cpu_.guest_address() + 192;
    state.rflags = 0x202;
    state.fs_base = FsBase();
    return state;
  }

  // Runs `bytes` natively and emulated from `state` (guest memory filled with a pattern and
  // `memory_value` at rbx+8); expects identical registers, memory and flags in `flag_mask`.
  void Check(const std::vector<uint8_t>& bytes, const X86State& state, uint64_t memory_value,
             uint64_t flag_mask = kStatusFlags) {
    auto decoded = DecodeX86(bytes);
    ASSERT_TRUE(decoded) << ::testing::PrintToString(bytes);
    ASSERT_EQ(decoded->length, bytes.size()) << ::testing::PrintToString(bytes);
    std::vector<uint8_t> initial(kGuestSize);
    for (size_t i = 0; i < kGuestSize; ++i) initial[i] = static_cast<uint8_t>(0xA5 ^ (i * 7));
    std::memcpy(initial.data() + 136, &memory_value, 8);

    std::memcpy(cpu_.guest(), initial.data(), kGuestSize);
    X86State native = state;
    cpu_.Run(native);
    std::vector<uint8_t> native_memory(cpu_.guest(), cpu_.guest() + kGuestSize);

    std::memcpy(cpu_.guest(), initial.data(), kGuestSize);
    X86State emulated = state;
    emulated.rip = cpu_.instruction_address();
    HostMemory memory(cpu_.guest_address(), state.fs_base);
    ASSERT_TRUE(EmulateX86(*decoded, emulated, memory)) << ::testing::PrintToString(bytes);
    std::vector<uint8_t> emulated_memory(cpu_.guest(), cpu_.guest() + kGuestSize);

    // Formatted only for a failure (gtest evaluates a message only then): formatting it for
    // each of the ~300,000 checks was nine tenths of this file's time (8 of 9 s, release build).
    auto what = [&] {
      return fmt::format("{} from flags {:#x} values {:#x} {:#x} {:#x} mem {:#x}",
                         ::testing::PrintToString(bytes), state.rflags, state.gpr[0], state.gpr[1],
                         state.gpr[kR9], memory_value);
    };
    for (size_t i = 0; i < 16; ++i) {
      ASSERT_EQ(emulated.gpr[i], native.gpr[i]) << "register " << i << " after " << what();
    }
    ASSERT_EQ(emulated.rflags & flag_mask, native.rflags & flag_mask) << fmt::format(
        "flags {:#x} (CPU) {:#x} (emulated) after {}", native.rflags, emulated.rflags, what());
    ASSERT_EQ(emulated.rflags & ~kStatusFlags, state.rflags & ~kStatusFlags) << what();
    ASSERT_EQ(emulated_memory, native_memory) << what();
    ASSERT_EQ(emulated.rip, cpu_.instruction_address() + bytes.size()) << what();
  }

  // Every pair of kPairValues in rax/rcx/r9/r12 and memory, with CF clear and set.
  void CheckValues(const std::vector<uint8_t>& bytes, uint64_t flag_mask = kStatusFlags) {
    cpu_.Load(bytes);
    for (uint64_t a : kPairValues) {
      for (uint64_t b : kPairValues) {
        for (uint64_t flags : {uint64_t{0x202}, uint64_t{0x202 | 0x8D5}}) {
          X86State state = Initial();
          state.gpr[kRax] = a;
          state.gpr[kRcx] = b;
          state.gpr[kR9] = b;
          state.gpr[kR12] = a;
          state.gpr[kRdx] = b ^ 0x5555;
          state.rflags = flags;
          Check(bytes, state, b, flag_mask);
          if (HasFatalFailure()) return;
        }
      }
    }
  }

  NativeCpu cpu_;
};

// REX and a ModRM with register operands; `width` picks 66 / REX.W; `opcode` the byte form when
// width is 1 (the caller passes the byte opcode).
std::vector<uint8_t> RegReg(size_t width, std::vector<uint8_t> opcode, int reg, int rm) {
  std::vector<uint8_t> out;
  out.reserve(16);  // also keeps gcc 12's -Wstringop-overflow false positive away
  if (width == 2) out.push_back(0x66);
  uint8_t rex = static_cast<uint8_t>((width == 8 ? 8 : 0) | (reg >= 8 ? 4 : 0) | (rm >= 8 ? 1 : 0));
  if (rex != 0) out.push_back(0x40 | rex);
  out.insert(out.end(), opcode.begin(), opcode.end());
  out.push_back(static_cast<uint8_t>(0xC0 | ((reg & 7) << 3) | (rm & 7)));
  return out;
}

// As RegReg with the r/m operand 8(%rbx).
std::vector<uint8_t> RegMem(size_t width, std::vector<uint8_t> opcode, int reg) {
  std::vector<uint8_t> out;
  out.reserve(16);  // also keeps gcc 12's -Wstringop-overflow false positive away
  if (width == 2) out.push_back(0x66);
  uint8_t rex = static_cast<uint8_t>((width == 8 ? 8 : 0) | (reg >= 8 ? 4 : 0));
  if (rex != 0) out.push_back(0x40 | rex);
  out.insert(out.end(), opcode.begin(), opcode.end());
  out.push_back(static_cast<uint8_t>(0x40 | ((reg & 7) << 3) | kRbx));
  out.push_back(0x08);
  return out;
}

void Append(std::vector<uint8_t>& out, uint64_t value, size_t size) {
  for (size_t i = 0; i < size; ++i) out.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

TEST_F(NativeTest, AluOperationsInEveryFormAndWidth) {
  for (uint8_t operation = 0; operation < 8; ++operation) {
    for (size_t width : {1, 2, 4, 8}) {
      uint8_t base = static_cast<uint8_t>((operation << 3) | (width == 1 ? 0 : 1));
      SCOPED_TRACE(fmt::format("operation {} width {}", operation, width));
      CheckValues(RegReg(width, {base}, kRcx, kRax));                            // op %cx,%ax
      CheckValues(RegReg(width, {static_cast<uint8_t>(base + 2)}, kRax, kRcx));  // op %cx,%ax
      CheckValues(RegMem(width, {base}, kRcx));                                  // op %cx,8(%rbx)
      CheckValues(RegMem(width, {static_cast<uint8_t>(base + 2)}, kRax));        // op 8(%rbx),%ax
      if (width != 1) {
        CheckValues(RegReg(width, {base}, kR9, kR12));  // extended registers
        std::vector<uint8_t> imm8 = RegReg(width, {0x83}, operation, kRax);
        imm8.push_back(0x80);  // -128
        CheckValues(imm8);
        std::vector<uint8_t> mem_imm8 = RegMem(width, {0x83}, operation);
        mem_imm8.push_back(0x7F);
        CheckValues(mem_imm8);
        std::vector<uint8_t> imm = RegReg(width, {0x81}, operation, kR12);
        Append(imm, 0x80000001, width == 2 ? 2 : 4);
        CheckValues(imm);
        std::vector<uint8_t> accumulator;
        if (width == 2) accumulator.push_back(0x66);
        if (width == 8) accumulator.push_back(0x48);
        accumulator.push_back(static_cast<uint8_t>((operation << 3) | 5));
        Append(accumulator, 0xFFFF8000, width == 2 ? 2 : 4);
        CheckValues(accumulator);
      } else {
        CheckValues({0x80, static_cast<uint8_t>(0xC0 | (operation << 3) | 4), 0x81});  // ah
        CheckValues({static_cast<uint8_t>((operation << 3) | 4), 0x7F});  // op $0x7f,%al
        CheckValues({0x40, static_cast<uint8_t>(base), 0xCE});            // op %cl,%sil (REX)
        CheckValues({static_cast<uint8_t>(base), 0xE5});                  // op %ah,%ch
      }
      if (HasFatalFailure()) return;
    }
  }
}

TEST_F(NativeTest, TestIncDecNegNot) {
  // and/test leave AF undefined: compared without it.
  const uint64_t kLogic = kStatusFlags & ~Undefined(kAf);
  for (size_t width : {1, 2, 4, 8}) {
    SCOPED_TRACE(fmt::format("width {}", width));
    uint8_t wide = width == 1 ? 0 : 1;
    CheckValues(RegReg(width, {static_cast<uint8_t>(0x84 | wide)}, kRcx, kRax), kLogic);
    CheckValues(RegMem(width, {static_cast<uint8_t>(0x84 | wide)}, kR9), kLogic);
    std::vector<uint8_t> test_imm = RegReg(width, {static_cast<uint8_t>(0xF6 | wide)}, 0, kRax);
    Append(test_imm, 0x80008080, width == 1 ? 1 : width == 2 ? 2 : 4);
    CheckValues(test_imm, kLogic);
    for (int digit : {2, 3}) {  // not, neg
      CheckValues(RegReg(width, {static_cast<uint8_t>(0xF6 | wide)}, digit, kRax));
      CheckValues(RegMem(width, {static_cast<uint8_t>(0xF6 | wide)}, digit));
    }
    for (int digit : {0, 1}) {  // inc, dec
      CheckValues(RegReg(width, {static_cast<uint8_t>(0xFE | wide)}, digit, kR12));
      CheckValues(RegMem(width, {static_cast<uint8_t>(0xFE | wide)}, digit));
    }
  }
  CheckValues({0xA8, 0x81}, kLogic);                          // test $0x81,%al
  CheckValues({0x48, 0xA9, 0x00, 0x00, 0x00, 0x80}, kLogic);  // test $-0x80000000,%rax
  CheckValues({0xF6, 0xC4, 0x80}, kLogic);                    // test $0x80,%ah
}

TEST_F(NativeTest, ShiftsByImmediateAndByOne) {
  for (size_t width : {1, 2, 4, 8}) {
    uint8_t wide = width == 1 ? 0 : 1;
    for (int digit : {4, 5, 7}) {
      for (unsigned count : {0u, 1u, 2u, 3u, static_cast<unsigned>(8 * width - 1), 33u, 65u}) {
        unsigned masked = count & (width == 8 ? 63 : 31);
        if (masked >= 8 * width) continue;
        SCOPED_TRACE(fmt::format("width {} /{} count {}", width, digit, count));
        // AF is undefined after a shift, OF too for counts above 1.
        uint64_t mask = kStatusFlags & ~Undefined(kAf | (masked > 1 ? kOf : 0));
        std::vector<uint8_t> reg = RegReg(width, {static_cast<uint8_t>(0xC0 | wide)}, digit, kR12);
        reg.push_back(static_cast<uint8_t>(count));
        CheckValues(reg, mask);
        std::vector<uint8_t> mem = RegMem(width, {static_cast<uint8_t>(0xC0 | wide)}, digit);
        mem.push_back(static_cast<uint8_t>(count));
        CheckValues(mem, mask);
        if (HasFatalFailure()) return;
      }
      CheckValues(RegReg(width, {static_cast<uint8_t>(0xD0 | wide)}, digit, kRax),
                  kStatusFlags & ~Undefined(kAf));
    }
  }
}

TEST_F(NativeTest, MovesExtensionsAndExchanges) {
  for (std::vector<uint8_t> bytes : std::vector<std::vector<uint8_t>>{
           {0x0F, 0xB6, 0xC4},                             // movzbl %ah,%eax
           {0x40, 0x0F, 0xB6, 0xC6},                       // movzbl %sil,%eax
           {0x48, 0x0F, 0xB6, 0x43, 0x08},                 // movzbq 8(%rbx),%rax
           {0x66, 0x0F, 0xB6, 0xC1},                       // movzbw %cl,%ax
           {0x0F, 0xB7, 0xC1},                             // movzwl %cx,%eax
           {0x4C, 0x0F, 0xB7, 0x4B, 0x08},                 // movzwq 8(%rbx),%r9
           {0x0F, 0xBE, 0xC1},                             // movsbl %cl,%eax
           {0x48, 0x0F, 0xBE, 0xEC},                       // movsbq %spl,%rbp (REX: not %ah)
           {0x66, 0x0F, 0xBE, 0x43, 0x08},                 // movsbw 8(%rbx),%ax
           {0x48, 0x0F, 0xBF, 0xC1},                       // movswq %cx,%rax
           {0x0F, 0xBF, 0x43, 0x08},                       // movswl 8(%rbx),%eax
           {0x48, 0x63, 0xC1},                             // movslq %ecx,%rax
           {0x4D, 0x63, 0xE1},                             // movslq %r9d,%r12
           {0x48, 0x63, 0x43, 0x08},                       // movslq 8(%rbx),%rax
           {0x87, 0xC8},                                   // xchg %ecx,%eax
           {0x48, 0x87, 0xC8},                             // xchg %rcx,%rax
           {0x66, 0x87, 0xC8},                             // xchg %cx,%ax
           {0x86, 0xE0},                                   // xchg %ah,%al
           {0x87, 0xC0},                                   // xchg %eax,%eax: zero-extends
           {0x91},                                         // xchg %eax,%ecx
           {0x48, 0x91},                                   // xchg %rax,%rcx
           {0x41, 0x90},                                   // xchg %eax,%r8d
           {0x98},                                         // cwtl
           {0x48, 0x98},                                   // cltq
           {0x66, 0x98},                                   // cbtw
           {0x99},                                         // cltd
           {0x48, 0x99},                                   // cqto
           {0x66, 0x99},                                   // cwtd
           {0x88, 0xC4},                                   // mov %al,%ah
           {0x40, 0x88, 0xC6},                             // mov %al,%sil
           {0x8A, 0x63, 0x08},                             // mov 8(%rbx),%ah
           {0x88, 0x4B, 0x09},                             // mov %cl,9(%rbx)
           {0xC6, 0x43, 0x08, 0x9C},                       // movb $0x9c,8(%rbx)
           {0xB4, 0x42},                                   // mov $0x42,%ah
           {0x66, 0x89, 0xC8},                             // mov %cx,%ax
           {0x66, 0xC7, 0x43, 0x08, 0x34, 0x12},           // movw $0x1234,8(%rbx)
           {0x66, 0xB8, 0xCD, 0xAB},                       // mov $0xabcd,%ax
           {0x48, 0x8B, 0x04, 0x8B},                       // mov (%rbx,%rcx,4),%rax
           {0x6A, 0x80},                                   // push $-128
           {0x68, 0x78, 0x56, 0x34, 0x12},                 // push $0x12345678
           {0x64, 0x48, 0x8B, 0x04, 0x25, 0x28, 0, 0, 0},  // mov %fs:0x28,%rax
           {0x64, 0x48, 0x2B, 0x14, 0x25, 0x28, 0, 0, 0},  // sub %fs:0x28,%rdx
           {0x48, 0x8D, 0x44, 0x8B, 0xF0},                 // lea -0x10(%rbx,%rcx,4),%rax
       }) {
    cpu_.Load(bytes);
    for (uint64_t a : kValues) {
      X86State state = Initial();
      state.gpr[kRax] = a;
      state.gpr[kRcx] = a == 0 ? 0 : kValues[(a & 7) + 3];
      if (bytes == std::vector<uint8_t>{0x48, 0x8B, 0x04, 0x8B}) state.gpr[kRcx] = a & 3;
      if (bytes[0] == 0x48 && bytes[1] == 0x8D) state.gpr[kRcx] = a & 0xFF;
      state.gpr[kR9] = ~a;
      state.gpr[kRsi] = a * 3;
      Check(bytes, state, a ^ 0x8080808080808080u);
      if (HasFatalFailure()) return;
    }
  }
}

// setcc and cmovcc for every condition on every combination of CF PF ZF SF OF.
TEST_F(NativeTest, ConditionsOfSetccAndCmovcc) {
  for (uint8_t condition = 0; condition < 16; ++condition) {
    for (std::vector<uint8_t> bytes : std::vector<std::vector<uint8_t>>{
             {0x0F, static_cast<uint8_t>(0x90 | condition), 0xC0},              // setcc %al
             {0x0F, static_cast<uint8_t>(0x90 | condition), 0xC4},              // setcc %ah
             {0x40, 0x0F, static_cast<uint8_t>(0x90 | condition), 0xC6},        // setcc %sil
             {0x0F, static_cast<uint8_t>(0x90 | condition), 0x43, 0x08},        // setcc 8(%rbx)
             {0x0F, static_cast<uint8_t>(0x40 | condition), 0xC1},              // cmovcc %ecx,%eax
             {0x48, 0x0F, static_cast<uint8_t>(0x40 | condition), 0xC1},        // 64-bit
             {0x66, 0x0F, static_cast<uint8_t>(0x40 | condition), 0xC1},        // 16-bit
             {0x4C, 0x0F, static_cast<uint8_t>(0x40 | condition), 0x63, 0x08},  // 8(%rbx),%r12
         }) {
      cpu_.Load(bytes);
      for (uint64_t bits = 0; bits < 32; ++bits) {
        X86State state = Initial();
        state.gpr[kRax] = 0xFFFFFFFF00000001u;
        state.gpr[kRcx] = 0x1234567887654321u;
        state.rflags = 0x202 | ((bits & 1) ? 0x1 : 0) | ((bits & 2) ? 0x4 : 0) |
                       ((bits & 4) ? 0x40 : 0) | ((bits & 8) ? 0x80 : 0) |
                       ((bits & 16) ? 0x800 : 0);
        Check(bytes, state, 0x0102030405060708u);
        if (HasFatalFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace rastrace::dyntrace
