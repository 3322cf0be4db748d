#include "dyntrace/x86_length.h"

#include <gtest/gtest.h>

#include <vector>

#include "dyntrace/elf_module.h"
#include "dyntrace/test_support.h"

namespace rastrace::dyntrace {
namespace {

size_t Length(std::vector<uint8_t> bytes) {
  auto length = X86InstructionLength(bytes);
  return length ? *length : 0;
}

TEST(X86LengthTest, EveryEncodingPart) {
  EXPECT_EQ(Length({0x55}), 1u);                                      // push %rbp
  EXPECT_EQ(Length({0x48, 0x89, 0xE5}), 3u);                          // mov %rsp,%rbp
  EXPECT_EQ(Length({0x48, 0x83, 0xEC, 0x10}), 4u);                    // sub $0x10,%rsp
  EXPECT_EQ(Length({0x48, 0x81, 0xEC, 0, 1, 0, 0}), 7u);              // sub $0x100,%rsp
  EXPECT_EQ(Length({0x66, 0x81, 0xC0, 0, 1}), 5u);                    // add $0x100,%ax
  EXPECT_EQ(Length({0x48, 0x8B, 0x04, 0xCC}), 4u);                    // SIB
  EXPECT_EQ(Length({0x48, 0x8B, 0x04, 0x25, 0, 0, 0, 0}), 8u);        // SIB, no base: disp32
  EXPECT_EQ(Length({0x48, 0x8B, 0x05, 1, 2, 3, 4}), 7u);              // rip-relative
  EXPECT_EQ(Length({0x48, 0xB8, 1, 2, 3, 4, 5, 6, 7, 8}), 10u);       // movabs
  EXPECT_EQ(Length({0x66, 0xB8, 1, 2}), 4u);                          // mov $imm16,%ax
  EXPECT_EQ(Length({0xA1, 1, 2, 3, 4, 5, 6, 7, 8}), 9u);              // mov moffs64,%eax
  EXPECT_EQ(Length({0x67, 0xA1, 1, 2, 3, 4}), 6u);                    // with a 32-bit address
  EXPECT_EQ(Length({0xF6, 0xC0, 0x01}), 3u);                          // test $1,%al
  EXPECT_EQ(Length({0xF6, 0xD0}), 2u);                                // not %al: no immediate
  EXPECT_EQ(Length({0xF7, 0xC0, 1, 0, 0, 0}), 6u);                    // test $1,%eax
  EXPECT_EQ(Length({0xC8, 0x10, 0x00, 0x00}), 4u);                    // enter
  EXPECT_EQ(Length({0xC2, 0x08, 0x00}), 3u);                          // ret $8
  EXPECT_EQ(Length({0xE8, 0, 0, 0, 0}), 5u);                          // call
  EXPECT_EQ(Length({0x0F, 0x84, 0, 0, 0, 0}), 6u);                    // je rel32
  EXPECT_EQ(Length({0x0F, 0x05}), 2u);                                // syscall
  EXPECT_EQ(Length({0x0F, 0xBA, 0xE0, 0x03}), 4u);                    // bt $3,%eax
  EXPECT_EQ(Length({0x66, 0x0F, 0x3A, 0x0F, 0xC1, 0x08}), 6u);        // palignr
  EXPECT_EQ(Length({0x66, 0x0F, 0x38, 0x00, 0xC1}), 5u);              // pshufb
  EXPECT_EQ(Length({0xC5, 0xF8, 0x77}), 3u);                          // vzeroupper
  EXPECT_EQ(Length({0xC5, 0xFD, 0x6F, 0x06}), 4u);                    // vmovdqa (%rsi),%ymm0
  EXPECT_EQ(Length({0xC4, 0xE3, 0x7D, 0x39, 0xC1, 0x01}), 6u);        // vextracti128
  EXPECT_EQ(Length({0x62, 0xF1, 0x7E, 0x48, 0x6F, 0x46, 0x01}), 7u);  // vmovdqu64 disp8*N
  EXPECT_EQ(Length({0xF3, 0x0F, 0x1E, 0xFA}), 4u);                    // endbr64
  EXPECT_EQ(Length({0x66, 0x2E, 0x0F, 0x1F, 0x84, 0, 0, 0, 0, 0}), 10u);
}

TEST(X86LengthTest, RefusesInvalidAndTruncated) {
  for (std::vector<uint8_t> bad :
       std::vector<std::vector<uint8_t>>{{},
                                         {0x06},
                                         {0x9A, 0, 0, 0, 0, 0, 0},
                                         {0xD6},
                                         {0x0F, 0x04},
                                         {0x48},
                                         {0x48, 0x8B},
                                         {0x48, 0x8B, 0x45},
                                         {0xE8, 0, 0},
                                         {0xC5},
                                         {0x62, 0xF1, 0x7E},
                                         std::vector<uint8_t>(16, 0x66)}) {
    EXPECT_FALSE(X86InstructionLength(bad).has_value()) << ::testing::PrintToString(bad);
  }
}

TEST(X86LengthTest, FindsTheReturnsOfAProcedure) {
  // push %rbp; mov %rsp,%rbp; test %edi,%edi; je +3; pop %rbp; ret; mov $1,%eax; pop %rbp; ret
  std::vector<uint8_t> code = {0x55, 0x48, 0x89, 0xE5, 0x85, 0xFF, 0x74, 0x02, 0x5D,
                               0xC3, 0xB8, 0x01, 0x00, 0x00, 0x00, 0x5D, 0xC3};
  code[7] = 0x02;
  auto returns = FindReturns(code);
  ASSERT_TRUE(returns);
  EXPECT_EQ(*returns, (std::vector<size_t>{9, 16}));
}

TEST(X86LengthTest, RefusesProceduresLeftOtherThanByRet) {
  // A tail call: jmp rel32 out of the procedure.
  EXPECT_FALSE(FindReturns(std::vector<uint8_t>{0x55, 0x5D, 0xE9, 0x10, 0, 0, 0}));
  // A conditional jump out.
  EXPECT_FALSE(FindReturns(std::vector<uint8_t>{0x85, 0xFF, 0x75, 0x40, 0xC3}));
  // A jump into the middle of an instruction: the sweep cannot be trusted.
  EXPECT_FALSE(FindReturns(std::vector<uint8_t>{0xEB, 0x01, 0x48, 0x89, 0xE5, 0xC3}));
  // An indirect jump (a jump table or a tail call through a pointer).
  EXPECT_FALSE(FindReturns(std::vector<uint8_t>{0xFF, 0xE0, 0xC3}));
  // The last instruction runs past the end.
  EXPECT_FALSE(FindReturns(std::vector<uint8_t>{0x55, 0x48, 0x89}));
  // An undecodable byte.
  EXPECT_FALSE(FindReturns(std::vector<uint8_t>{0x55, 0x06, 0xC3}));
  // A call is not a way out.
  EXPECT_EQ(FindReturns(std::vector<uint8_t>{0xE8, 0x10, 0, 0, 0, 0xC3}), (std::vector<size_t>{5}));
}

TEST(X86LengthTest, FindsTheReturnsOfTheExamplePrograms) {
  auto elf = ElfModule::Open(testing::TestProgram("dt_sample"));
  ASSERT_TRUE(elf) << elf.error().message;
  for (const char* name : {"DosOpen", "DosOpenC", "CheckParm", "main"}) {
    auto symbol = elf->FindSymbol(name);
    ASSERT_TRUE(symbol) << name;
    auto code = elf->ReadBytes(symbol->value, symbol->size);
    ASSERT_TRUE(code) << name;
    auto returns = FindReturns(*code);
    ASSERT_TRUE(returns) << name;
    ASSERT_FALSE(returns->empty()) << name;
    for (size_t at : *returns) EXPECT_EQ((*code)[at], 0xC3) << name;
    EXPECT_EQ(returns->back(), code->size() - 1) << name;  // -O0: one ret, the last byte
  }
}

}  // namespace
}  // namespace rastrace::dyntrace
