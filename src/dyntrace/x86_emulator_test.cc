#include "dyntrace/x86_emulator.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace rastrace::dyntrace {
namespace {

constexpr int kRax = 0, kRcx = 1, kRdx = 2, kRbx = 3, kRsp = 4, kRbp = 5, kRsi = 6, kRdi = 7,
              kR8 = 8, kR12 = 12, kR13 = 13, kR15 = 15;

std::optional<X86Instruction> Decode(std::vector<uint8_t> bytes) {
  return DecodeX86(bytes);
}

// 256 bytes of memory at 0x7000; everything else faults.
class FakeMemory : public EmulatedMemory {
 public:
  static constexpr uint64_t kBase = 0x7000;
  FakeMemory() {
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i);
    Store64(0x7080, kReturnAddress);  // the top of the stack: a (canonical) return address
  }
  static constexpr uint64_t kReturnAddress = 0x401234;
  bool Read(uint64_t address, std::span<uint8_t> out) override {
    if (address < kBase || address + out.size() > kBase + bytes.size()) return false;
    std::memcpy(out.data(), bytes.data() + (address - kBase), out.size());
    return true;
  }
  bool Write(uint64_t address, std::span<const uint8_t> in) override {
    if (read_only) return false;
    if (address < kBase || address + in.size() > kBase + bytes.size()) return false;
    std::memcpy(bytes.data() + (address - kBase), in.data(), in.size());
    return true;
  }
  uint64_t Load64(uint64_t address) const {
    uint64_t value;
    std::memcpy(&value, bytes.data() + (address - kBase), 8);
    return value;
  }
  void Store64(uint64_t address, uint64_t value) {
    std::memcpy(bytes.data() + (address - kBase), &value, 8);
  }
  std::array<uint8_t, 256> bytes{};
  bool read_only = false;  // writes fault, as on a read-only mapping
};

X86State State() {
  X86State state;
  for (size_t i = 0; i < state.gpr.size(); ++i) state.gpr[i] = 0x1000 * (i + 1);
  state.gpr[kRsp] = 0x7080;
  state.gpr[kRbp] = 0x70A0;
  state.rip = 0x401000;
  state.rflags = 0x202;
  return state;
}

// Decodes `bytes`, checks the length, runs it on State() and FakeMemory.
struct Emulated {
  explicit Emulated(std::vector<uint8_t> bytes) {
    auto decoded = DecodeX86(bytes);
    EXPECT_TRUE(decoded.has_value());
    if (!decoded) return;
    instruction = *decoded;
    EXPECT_EQ(instruction.length, bytes.size());
    ok = EmulateX86(instruction, state, memory);
  }
  X86Instruction instruction;
  X86State state = State();
  FakeMemory memory;
  bool ok = false;
};

TEST(X86DecoderTest, NopForms) {
  for (std::vector<uint8_t> nop : std::vector<std::vector<uint8_t>>{
           {0x90},
           {0x66, 0x90},
           {0xF3, 0x90},                                      // pause
           {0xF3, 0x0F, 0x1E, 0xFA},                          // endbr64
           {0xF3, 0x0F, 0x1E, 0xFB},                          // endbr32
           {0x0F, 0x1F, 0x00},                                // nopl (%rax)
           {0x0F, 0x1F, 0x40, 0x00},                          // nopl 0(%rax)
           {0x0F, 0x1F, 0x44, 0x00, 0x00},                    // nopl 0(%rax,%rax,1)
           {0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00},              // nopw 0(%rax,%rax,1)
           {0x0F, 0x1F, 0x80, 0, 0, 0, 0},                    // nopl 0L(%rax)
           {0x0F, 0x1F, 0x84, 0x00, 0, 0, 0, 0},              // nopl 0L(%rax,%rax,1)
           {0x66, 0x2E, 0x0F, 0x1F, 0x84, 0x00, 0, 0, 0, 0},  // cs nopw 0L(%rax,%rax,1)
           {0x66, 0x66, 0x2E, 0x0F, 0x1F, 0x84, 0x00, 0, 0, 0, 0},
       }) {
    Emulated run(nop);
    EXPECT_EQ(run.instruction.op, X86Op::kNop);
    ASSERT_TRUE(run.ok);
    X86State expected = State();
    expected.rip += nop.size();
    EXPECT_EQ(run.state.gpr, expected.gpr);
    EXPECT_EQ(run.state.rip, expected.rip);
    EXPECT_EQ(run.state.rflags, expected.rflags);
  }
}

TEST(X86DecoderTest, PushAndPopEveryRegister) {
  for (int reg = 0; reg < 16; ++reg) {
    std::vector<uint8_t> push = {static_cast<uint8_t>(0x50 + (reg & 7))};
    if (reg >= 8) push.insert(push.begin(), 0x41);
    Emulated run(push);
    ASSERT_TRUE(run.ok) << reg;
    EXPECT_EQ(run.instruction.op, X86Op::kPush);
    EXPECT_EQ(run.state.gpr[kRsp], 0x7078u);
    // push %rsp pushes the value before the decrement.
    EXPECT_EQ(run.memory.Load64(0x7078), reg == kRsp ? 0x7080u : State().gpr[reg]) << reg;
    EXPECT_EQ(run.state.rip, State().rip + push.size());

    std::vector<uint8_t> pop = {static_cast<uint8_t>(0x58 + (reg & 7))};
    if (reg >= 8) pop.insert(pop.begin(), 0x41);
    Emulated popped(pop);
    ASSERT_TRUE(popped.ok) << reg;
    uint64_t top = popped.memory.Load64(0x7080);
    EXPECT_EQ(popped.state.gpr[reg], top) << reg;
    if (reg != kRsp) {
      EXPECT_EQ(popped.state.gpr[kRsp], 0x7088u);
    }
  }
  Emulated rex_w({0x48, 0x55});  // REX.W changes nothing for push
  EXPECT_EQ(rex_w.instruction.reg, kRbp);
}

TEST(X86DecoderTest, MovRegisterToRegister) {
  Emulated rsp_to_rbp({0x48, 0x89, 0xE5});  // mov %rsp,%rbp
  ASSERT_TRUE(rsp_to_rbp.ok);
  EXPECT_EQ(rsp_to_rbp.state.gpr[kRbp], 0x7080u);
  Emulated load_form({0x48, 0x8B, 0xEC});  // mov %rsp,%rbp (8B encoding)
  EXPECT_EQ(load_form.state.gpr[kRbp], 0x7080u);
  Emulated extended({0x4D, 0x89, 0xC7});  // mov %r8,%r15
  EXPECT_EQ(extended.state.gpr[kR15], State().gpr[kR8]);
  Emulated narrow({0x89, 0xD0});  // mov %edx,%eax: zero-extends
  EXPECT_EQ(narrow.instruction.width, 4);
  EXPECT_EQ(narrow.state.gpr[kRax], State().gpr[kRdx] & 0xFFFFFFFF);
  EXPECT_EQ(narrow.state.rflags, State().rflags);
}

TEST(X86DecoderTest, MovImmediates) {
  Emulated imm32({0xB8, 0x78, 0x56, 0x34, 0x12});  // mov $0x12345678,%eax
  EXPECT_EQ(imm32.state.gpr[kRax], 0x12345678u);
  Emulated negative32({0xBB, 0xFF, 0xFF, 0xFF, 0xFF});  // mov $-1,%ebx: zero-extended
  EXPECT_EQ(negative32.state.gpr[kRbx], 0xFFFFFFFFu);
  Emulated imm64({0x49, 0xBC, 1, 2, 3, 4, 5, 6, 7, 8});  // movabs $...,%r12
  EXPECT_EQ(imm64.state.gpr[kR12], 0x0807060504030201u);
  Emulated to_register({0x48, 0xC7, 0xC1, 0xFE, 0xFF, 0xFF, 0xFF});  // mov $-2,%rcx
  EXPECT_EQ(to_register.state.gpr[kRcx], static_cast<uint64_t>(-2));
  Emulated to_memory({0xC7, 0x45, 0xFC, 0, 0, 0, 0});  // movl $0,-4(%rbp)
  ASSERT_TRUE(to_memory.ok);
  EXPECT_EQ(to_memory.memory.bytes[0x9C], 0);
  EXPECT_EQ(to_memory.memory.bytes[0x9F], 0);
  EXPECT_EQ(to_memory.memory.bytes[0xA0], 0xA0);                          // 4 bytes only
  Emulated quad({0x48, 0xC7, 0x44, 0x24, 0x08, 0xFF, 0xFF, 0xFF, 0xFF});  // movq $-1,8(%rsp)
  EXPECT_EQ(quad.memory.Load64(0x7088), ~uint64_t{0});
}

TEST(X86DecoderTest, MovLoadsAndStoresThroughMemory) {
  Emulated store({0x48, 0x89, 0x7D, 0xF8});  // mov %rdi,-8(%rbp)  (dt_loop's probe_target+4)
  ASSERT_TRUE(store.ok);
  EXPECT_EQ(store.memory.Load64(0x7098), State().gpr[kRdi]);
  Emulated store32({0x89, 0x7D, 0xEC});         // mov %edi,-0x14(%rbp)
  EXPECT_EQ(store32.memory.bytes[0x8C], 0x00);  // low byte of 0x8000
  EXPECT_EQ(store32.memory.bytes[0x8D], 0x80);
  EXPECT_EQ(store32.memory.bytes[0x90], 0x90);  // untouched
  Emulated load({0x48, 0x8B, 0x55, 0xF8});      // mov -8(%rbp),%rdx
  EXPECT_EQ(load.state.gpr[kRdx], load.memory.Load64(0x7098));
  Emulated load32({0x8B, 0x45, 0xFC});  // mov -4(%rbp),%eax
  EXPECT_EQ(load32.state.gpr[kRax], 0x9F9E9D9Cu);
  Emulated rsp_base({0x48, 0x8B, 0x44, 0x24, 0x10});  // mov 0x10(%rsp),%rax
  EXPECT_EQ(rsp_base.state.gpr[kRax], rsp_base.memory.Load64(0x7090));
  Emulated r13_base({0x49, 0x8B, 0x45, 0x00});  // mov 0(%r13),%rax: r13 needs a disp8
  EXPECT_EQ(r13_base.instruction.memory.base, kR13);
  Emulated indexed({0x48, 0x8B, 0x04, 0xCC});  // mov (%rsp,%rcx,8),%rax
  EXPECT_EQ(indexed.instruction.memory.index, kRcx);
  EXPECT_EQ(indexed.instruction.memory.scale, 8);
  EXPECT_FALSE(indexed.ok);  // 0x7080 + 0x2000*8 is outside the memory: nothing changes
  EXPECT_EQ(indexed.state.gpr, State().gpr);
  EXPECT_EQ(indexed.state.rip, State().rip);
  Emulated register_base({0x48, 0x89, 0x03});  // mov %rax,(%rbx): 0x4000 is not mapped
  EXPECT_EQ(register_base.instruction.memory.base, kRbx);
  EXPECT_FALSE(register_base.ok);
  Emulated mapped_base({0x48, 0x89, 0x06});  // mov %rax,(%rsi): 0x7000 is
  ASSERT_TRUE(mapped_base.ok);
  EXPECT_EQ(mapped_base.memory.Load64(0x7000), State().gpr[kRax]);
}

TEST(X86DecoderTest, RipRelative) {
  // mov 0x2e5b(%rip),%rdx: dt_loop's instruction after the call (the RETEP site).
  auto decoded = Decode({0x48, 0x8B, 0x15, 0x5B, 0x2E, 0x00, 0x00});
  ASSERT_TRUE(decoded);
  EXPECT_TRUE(decoded->memory.rip_relative);
  EXPECT_EQ(decoded->memory.displacement, 0x2E5B);
  X86State state = State();
  state.rip = 0x7000 - 0x2E5B - 7 + 0x40;
  FakeMemory memory;
  ASSERT_TRUE(EmulateX86(*decoded, state, memory));
  EXPECT_EQ(state.gpr[kRdx], memory.Load64(0x7040));
  Emulated lea({0x48, 0x8D, 0x05, 0x10, 0x00, 0x00, 0x00});  // lea 0x10(%rip),%rax
  EXPECT_EQ(lea.state.gpr[kRax], State().rip + 7 + 0x10);
}

TEST(X86DecoderTest, Lea) {
  Emulated rbp({0x48, 0x8D, 0x45, 0xF0});  // lea -0x10(%rbp),%rax
  EXPECT_EQ(rbp.state.gpr[kRax], 0x70A0u - 0x10);
  Emulated rsp({0x48, 0x8D, 0x7C, 0x24, 0x08});  // lea 8(%rsp),%rdi
  EXPECT_EQ(rsp.state.gpr[kRdi], 0x7088u);
  Emulated far({0x48, 0x8D, 0xB5, 0x00, 0xFF, 0xFF, 0xFF});  // lea -0x100(%rbp),%rsi
  EXPECT_EQ(far.state.gpr[kRsi], 0x70A0u - 0x100);
  EXPECT_TRUE(far.ok);                  // lea never touches memory
  Emulated narrow({0x8D, 0x45, 0xF0});  // lea -0x10(%rbp),%eax
  EXPECT_EQ(narrow.state.gpr[kRax], (0x70A0u - 0x10) & 0xFFFFFFFF);
  EXPECT_FALSE(Decode({0x48, 0x8D, 0xC0}));  // lea with a register operand is invalid
}

TEST(X86DecoderTest, StackAdjustmentsSetFlags) {
  Emulated sub8({0x48, 0x83, 0xEC, 0x10});  // sub $0x10,%rsp
  EXPECT_EQ(sub8.state.gpr[kRsp], 0x7070u);
  EXPECT_EQ(sub8.state.rflags, SubFlags(0x7080, 0x10, State().rflags));
  Emulated sub32({0x48, 0x81, 0xEC, 0x00, 0x01, 0x00, 0x00});  // sub $0x100,%rsp
  EXPECT_EQ(sub32.state.gpr[kRsp], 0x7080u - 0x100);
  Emulated add8({0x48, 0x83, 0xC4, 0x08});  // add $8,%rsp
  EXPECT_EQ(add8.state.gpr[kRsp], 0x7088u);
  Emulated add_negative({0x48, 0x83, 0xC4, 0xF8});  // add $-8,%rsp
  EXPECT_EQ(add_negative.state.gpr[kRsp], 0x7078u);
  Emulated add32({0x48, 0x81, 0xC4, 0x00, 0x02, 0x00, 0x00});
  EXPECT_EQ(add32.state.gpr[kRsp], 0x7280u);
}

TEST(X86DecoderTest, FlagsOfAddAndSub) {
  constexpr uint64_t kCf = 1, kPf = 4, kAf = 0x10, kZf = 0x40, kSf = 0x80, kOf = 0x800;
  EXPECT_EQ(SubFlags(5, 5, 0x202), 0x202 | kZf | kPf);
  EXPECT_EQ(SubFlags(0, 1, 0x202), 0x202 | kCf | kSf | kPf | kAf);  // 0xFF..FF
  EXPECT_EQ(AddFlags(~uint64_t{0}, 1, 0x202), 0x202 | kCf | kZf | kPf | kAf);
  EXPECT_EQ(AddFlags(0x7FFFFFFFFFFFFFFF, 1, 0), kOf | kSf | kPf | kAf);
  EXPECT_EQ(SubFlags(0x8000000000000000, 1, 0), kOf | kAf | kPf);  // 0x7F..FF
  EXPECT_EQ(AddFlags(1, 2, kCf | kZf | kSf | kOf), 0u | kPf);      // 3: even parity, old flags gone
}

TEST(X86DecoderTest, RetAndLeave) {
  Emulated ret({0xC3});
  ASSERT_TRUE(ret.ok);
  EXPECT_EQ(ret.state.rip, ret.memory.Load64(0x7080));
  EXPECT_EQ(ret.state.gpr[kRsp], 0x7088u);
  Emulated rep_ret({0xF3, 0xC3});
  EXPECT_EQ(rep_ret.state.gpr[kRsp], 0x7088u);
  Emulated ret_imm({0xC2, 0x10, 0x00});
  EXPECT_EQ(ret_imm.state.gpr[kRsp], 0x7098u);
  EXPECT_EQ(ret_imm.state.rip, ret_imm.memory.Load64(0x7080));
  Emulated leave({0xC9});
  EXPECT_EQ(leave.state.gpr[kRsp], 0x70A8u);
  EXPECT_EQ(leave.state.gpr[kRbp], leave.memory.Load64(0x70A0));
  EXPECT_EQ(leave.state.rip, State().rip + 1);

  // A return through an unreadable stack faults for real: not emulated, nothing changed.
  auto decoded = Decode({0xC3});
  X86State state = State();
  state.gpr[kRsp] = 0x10;
  FakeMemory memory;
  EXPECT_FALSE(EmulateX86(*decoded, state, memory));
  EXPECT_EQ(state.rip, State().rip);
  EXPECT_EQ(state.gpr[kRsp], 0x10u);
  state = State();
  state.gpr[kRsp] = 0x7000;  // push below the memory
  EXPECT_FALSE(EmulateX86(*Decode({0x55}), state, memory));
  EXPECT_EQ(state.gpr[kRsp], 0x7000u);
}

TEST(X86DecoderTest, RefusesWhatItDoesNotEmulate) {
  for (std::vector<uint8_t> refused : std::vector<std::vector<uint8_t>>{
           {},
           {0x48},                    // REX alone
           {0x66, 0x50},              // push %ax
           {0xF0, 0x48, 0x89, 0x06},  // lock
           {0xF0, 0x83, 0x03, 0x01},  // lock addl $1,(%rbx)
           {0x67, 0x48, 0x8B, 0x00},  // address size
           {0x26, 0x48, 0x8B, 0x00},  // es:
           {0x64, 0x48, 0x89, 0xC0},  // fs: on a register operand
           {0x64, 0x48, 0x8D, 0x00},  // lea with a segment
           {0x48, 0x8B, 0x45},        // displacement cut off
           {0x48, 0xB8, 1, 2, 3},     // imm64 cut off
           {0xE8, 0, 0, 0},           // rel32 cut off
           {0x0F, 0x05},              // syscall
           {0xCC},                    // int3
           {0x0F, 0x1E, 0xFA},        // endbr64 without F3
           {0xF3, 0x48, 0x89, 0xE5},  // rep mov
           {0xF2, 0x48, 0x89, 0xE5},  // repne mov
           {0x48, 0xF3, 0x90},        // REX before a prefix
           {0xC7, 0x45, 0xFC, 0, 0},  // movl imm cut off
           {0xC7, 0xCD, 0, 0, 0, 0},  // C7 /1
           {0x48, 0x87, 0x03},        // xchg %rax,(%rbx): locked by the CPU
           {0x0F, 0xAF, 0xC1},        // imul %ecx,%eax
           {0xF7, 0xF1},              // div %ecx
           {0xF6, 0xC8, 0x01},        // test alias F6 /1
           {0xD3, 0xE0},              // shl %cl,%eax
           {0xC0, 0xE0, 0x09},        // shl $9,%al: count beyond the width
           {0x66, 0xC1, 0xE0, 0x10},  // shl $16,%ax
           {0x63, 0xC1},              // movsxd without REX.W
           {0x66, 0xE8, 0, 0, 0, 0},  // call with an operand-size prefix
           {0x66, 0x8D, 0x00},        // lea into a 16-bit register
           {0xFF, 0x30},              // push (%rax)
           {0x0F, 0xA2},              // cpuid
           {0x48, 0x0F, 0xC7, 0x08},  // cmpxchg16b
           {0xF3, 0x0F, 0x10, 0xC1},  // movss
       }) {
    EXPECT_FALSE(DecodeX86(refused).has_value()) << ::testing::PrintToString(refused);
  }
}

// Calls, jumps and conditional branches: targets, the return address pushed, bnd/notrack.
TEST(X86DecoderTest, Branches) {
  Emulated call({0xE8, 0x10, 0x00, 0x00, 0x00});  // call .+0x15
  ASSERT_TRUE(call.ok);
  EXPECT_EQ(call.state.rip, State().rip + 5 + 0x10);
  EXPECT_EQ(call.state.gpr[kRsp], 0x7078u);
  EXPECT_EQ(call.memory.Load64(0x7078), State().rip + 5);
  Emulated back({0xE8, 0xFB, 0xFF, 0xFF, 0xFF});  // call to itself
  EXPECT_EQ(back.state.rip, State().rip);
  Emulated jmp8({0xEB, 0xFE});  // jmp .
  EXPECT_EQ(jmp8.state.rip, State().rip);
  EXPECT_EQ(jmp8.state.gpr, State().gpr);
  Emulated jmp32({0xE9, 0x00, 0x01, 0x00, 0x00});
  EXPECT_EQ(jmp32.state.rip, State().rip + 5 + 0x100);
  Emulated bnd_jmp({0xF2, 0xE9, 0x00, 0x01, 0x00, 0x00});
  EXPECT_EQ(bnd_jmp.state.rip, State().rip + 6 + 0x100);

  // State() has ZF clear: jne is taken, je falls through.
  Emulated jne({0x75, 0x20});
  EXPECT_EQ(jne.state.rip, State().rip + 2 + 0x20);
  Emulated je({0x74, 0x20});
  EXPECT_EQ(je.state.rip, State().rip + 2);
  Emulated jle32({0x0F, 0x8E, 0x00, 0x10, 0x00, 0x00});  // ZF=0, SF=OF: not taken
  EXPECT_EQ(jle32.state.rip, State().rip + 6);
  Emulated jg32({0x0F, 0x8F, 0xF0, 0xFF, 0xFF, 0xFF});  // taken, backwards
  EXPECT_EQ(jg32.state.rip, State().rip + 6 - 0x10);
  EXPECT_EQ(jg32.state.rflags, State().rflags);

  Emulated indirect({0xFF, 0xD0});  // call *%rax
  EXPECT_EQ(indirect.state.rip, State().gpr[kRax]);
  EXPECT_EQ(indirect.memory.Load64(0x7078), State().rip + 2);
  Emulated through_stack({0xFF, 0x14, 0x24});  // call *(%rsp): the target is read first
  EXPECT_EQ(through_stack.state.rip, FakeMemory::kReturnAddress);
  EXPECT_EQ(through_stack.state.gpr[kRsp], 0x7078u);
  Emulated notrack({0x3E, 0xFF, 0xE2});  // notrack jmp *%rdx (a switch's jump table)
  EXPECT_EQ(notrack.state.rip, State().gpr[kRdx]);
  // jmp *disp(%rip): the first instruction of a PLT entry.
  auto plt = Decode({0xF2, 0xFF, 0x25, 0x00, 0x00, 0x00, 0x00});
  ASSERT_TRUE(plt);
  X86State state = State();
  state.rip = 0x7080 - 7;
  FakeMemory memory;
  ASSERT_TRUE(EmulateX86(*plt, state, memory));
  EXPECT_EQ(state.rip, FakeMemory::kReturnAddress);
}

// A branch to a non-canonical address faults on the branch itself: left to the CPU.
TEST(X86DecoderTest, NonCanonicalTargetsAreNotEmulated) {
  X86State state = State();
  state.gpr[kRax] = 0x0000800000000000;
  FakeMemory memory;
  EXPECT_FALSE(EmulateX86(*Decode({0xFF, 0xE0}), state, memory));  // jmp *%rax
  EXPECT_FALSE(EmulateX86(*Decode({0xFF, 0xD0}), state, memory));  // call *%rax
  EXPECT_EQ(state.rip, State().rip);
  EXPECT_EQ(state.gpr[kRsp], State().gpr[kRsp]);
  EXPECT_EQ(memory.Load64(0x7078), FakeMemory().Load64(0x7078));  // nothing pushed
  memory.Store64(0x7080, 0xFFFF000000000000);
  EXPECT_FALSE(EmulateX86(*Decode({0xC3}), state, memory));
  EXPECT_EQ(state.gpr[kRsp], State().gpr[kRsp]);
}

// A read-modify-write whose write faults (a read-only page) changes nothing: neither memory
// nor the flags, nor RIP.
TEST(X86DecoderTest, AFaultingWriteLeavesEverythingUnchanged) {
  for (std::vector<uint8_t> bytes : std::vector<std::vector<uint8_t>>{
           {0x83, 0x45, 0xFC, 0x01},        // addl $1,-4(%rbp)
           {0x48, 0xFF, 0x45, 0xF8},        // incq -8(%rbp)
           {0x48, 0xC1, 0x65, 0xF8, 0x03},  // shlq $3,-8(%rbp)
           {0x0F, 0x94, 0x45, 0xFF},        // sete -1(%rbp)
           {0xE8, 0, 0, 0, 0},              // call: the push faults
           {0x6A, 0x01},                    // push $1
       }) {
    auto decoded = Decode(bytes);
    ASSERT_TRUE(decoded) << ::testing::PrintToString(bytes);
    X86State state = State();
    FakeMemory memory;
    memory.read_only = true;
    EXPECT_FALSE(EmulateX86(*decoded, state, memory)) << ::testing::PrintToString(bytes);
    EXPECT_EQ(state.gpr, State().gpr);
    EXPECT_EQ(state.rip, State().rip);
    EXPECT_EQ(state.rflags, State().rflags);
    EXPECT_EQ(memory.bytes, FakeMemory().bytes);
  }
  // cmov reads its memory operand even when the condition is false: an unreadable one faults.
  X86State state = State();
  state.gpr[kRbx] = 0x10;
  FakeMemory memory;
  EXPECT_FALSE(EmulateX86(*Decode({0x48, 0x0F, 0x44, 0x03}), state, memory));  // cmove (%rbx)
  EXPECT_EQ(state.gpr, [] {
    X86State expected = State();
    expected.gpr[kRbx] = 0x10;
    return expected.gpr;
  }());
}

TEST(X86DecoderTest, SegmentAndAbsoluteAddressing) {
  // mov %fs:0x28,%rax (the stack protector's canary) reads fs_base + 0x28.
  auto canary = Decode({0x64, 0x48, 0x8B, 0x04, 0x25, 0x28, 0, 0, 0});
  ASSERT_TRUE(canary);
  EXPECT_EQ(canary->memory.segment, 0x64);
  EXPECT_EQ(canary->memory.base, -1);
  X86State state = State();
  state.fs_base = 0x7000;
  FakeMemory memory;
  ASSERT_TRUE(EmulateX86(*canary, state, memory));
  EXPECT_EQ(state.gpr[kRax], memory.Load64(0x7028));
  Emulated absolute({0x8B, 0x04, 0x25, 0x10, 0x70, 0, 0});  // mov 0x7010,%eax
  ASSERT_TRUE(absolute.ok);
  EXPECT_EQ(absolute.state.gpr[kRax], absolute.memory.Load64(0x7010) & 0xFFFFFFFF);
  auto gs = Decode({0x65, 0x48, 0x8B, 0x04, 0x25, 0x08, 0, 0, 0});
  state.gs_base = 0x7040;
  ASSERT_TRUE(EmulateX86(*gs, state, memory));
  EXPECT_EQ(state.gpr[kRax], memory.Load64(0x7048));
}

TEST(X86DecoderTest, NeverReadsPastFifteenBytes) {
  std::vector<uint8_t> prefixes(20, 0x66);
  prefixes.push_back(0x90);
  EXPECT_FALSE(DecodeX86(prefixes));
  std::vector<uint8_t> longest = {0x66, 0x66, 0x66, 0x66, 0x66, 0x2E, 0x0F,
                                  0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(DecodeX86(longest)->length, 14);
}

TEST(X86DecoderTest, DecodesGccPrologueAndEpilogue) {
  // dt_loop's probe_target, byte for byte.
  std::vector<uint8_t> code = {0x55, 0x48, 0x89, 0xE5, 0x48, 0x89, 0x7D, 0xF8, 0x48,
                               0x8B, 0x55, 0xF8, 0x48, 0x89, 0xD0, 0x48, 0x01, 0xC0,
                               0x48, 0x01, 0xD0, 0x48, 0x83, 0xC0, 0x01, 0x5D, 0xC3};
  std::vector<int> lengths;
  for (size_t at = 0; at < code.size();) {
    auto decoded = DecodeX86(std::span(code).subspan(at));
    ASSERT_TRUE(decoded) << "at " << at;
    lengths.push_back(decoded->length);
    at += decoded->length;
  }
  EXPECT_EQ(lengths, (std::vector<int>{1, 3, 4, 4, 3, 3, 3, 4, 1, 1}));
}

}  // namespace
}  // namespace rastrace::dyntrace
