#include "dyntrace/bpf_tracepoint.h"

#include <gtest/gtest.h>

namespace rastrace::dyntrace {
namespace {

// A tracepoint in a module loaded 0x10000 above its link addresses.
CompiledTracepoint Tracepoint() {
  CompiledTracepoint tracepoint;
  tracepoint.major = 0x50;
  tracepoint.minor = 1;
  tracepoint.name = "minor 0x0001 (.process_item)";
  tracepoint.site.module_path = "/opt/prog";
  tracepoint.site.link_address = 0x1100;
  tracepoint.site.file_offset = 0x100;
  tracepoint.site.address = 0x11100;
  return tracepoint;
}

CompiledData Regs(std::vector<RegisterSlot> slots) {
  CompiledData data;
  data.kind = tsf::DataKind::kRegs;
  data.registers = std::move(slots);
  return data;
}

TEST(DescribeForBpf, TurnsEveryStatementIntoAnOpInRecordOrder) {
  CompiledTracepoint tracepoint = Tracepoint();
  tracepoint.max_data_length = 300;
  tracepoint.data.push_back(Regs({{Reg::kRsi, 4}, {Reg::kRip, 8}}));
  CompiledData name;
  name.kind = tsf::DataKind::kAsciiz32;
  name.address.register_base = true;
  name.address.base_register = Reg::kRdi;
  name.length = 40;
  tracepoint.data.push_back(name);
  CompiledData length;
  length.kind = tsf::DataKind::kLen;
  length.address.base_address = 0x14000;  // run time: link 0x4000
  length.address.displacement = 2;
  tracepoint.data.push_back(length);
  CompiledData chain;
  chain.kind = tsf::DataKind::kMem32;
  chain.length_from_len = true;
  chain.address.base_address = 0x14010;
  chain.address.displacement = -8;
  chain.address.levels = 2;
  chain.address.level_offsets = {6, 8};
  chain.address.final_displacement = 3;
  tracepoint.data.push_back(chain);

  auto described = DescribeForBpf(std::vector{tracepoint});
  ASSERT_TRUE(described) << described.error().message;
  ASSERT_EQ(described->tracepoints.size(), 1u);
  const rt_tracepoint& t = described->tracepoints[0];
  EXPECT_EQ(t.max_data_length, 300);
  EXPECT_EQ(t.op_count, 5);
  EXPECT_EQ(t.needs_bias, 1);
  EXPECT_EQ(t.needs_segments, 0);
  EXPECT_EQ(t.ops[0].kind, RT_OP_REG);
  EXPECT_EQ(t.ops[0].reg, static_cast<uint8_t>(Reg::kRsi));
  EXPECT_EQ(t.ops[0].size, 4);
  EXPECT_EQ(t.ops[1].reg, static_cast<uint8_t>(Reg::kRip));
  EXPECT_EQ(t.ops[1].size, 8);
  EXPECT_EQ(t.ops[2].kind, RT_OP_STR);
  EXPECT_EQ(t.ops[2].base_is_reg, 1);
  EXPECT_EQ(t.ops[2].reg, static_cast<uint8_t>(Reg::kRdi));
  EXPECT_EQ(t.ops[2].length, 40u);
  EXPECT_EQ(t.ops[2].levels, 0);
  EXPECT_EQ(t.ops[3].kind, RT_OP_LEN);
  EXPECT_EQ(t.ops[3].base_is_reg, 0);
  EXPECT_EQ(t.ops[3].base, 0x4000);  // link-time: the program adds the bias it finds
  EXPECT_EQ(t.ops[3].displacement, 2);
  EXPECT_EQ(t.ops[4].kind, RT_OP_MEM);
  EXPECT_EQ(t.ops[4].length_from_len, 1);
  EXPECT_EQ(t.ops[4].base, 0x4010);
  EXPECT_EQ(t.ops[4].displacement, -8);
  EXPECT_EQ(t.ops[4].levels, 2);
  EXPECT_EQ(t.ops[4].level_offsets[0], 6);
  EXPECT_EQ(t.ops[4].level_offsets[1], 8);
  EXPECT_EQ(t.ops[4].final_displacement, 3);
  ASSERT_EQ(described->probes.size(), 1u);
  EXPECT_EQ(described->probes[0].tracepoint, 0u);
  EXPECT_EQ(described->probes[0].link_address, 0x1100u);
  EXPECT_EQ(described->sites[0].path, "/opt/prog");
  EXPECT_EQ(described->sites[0].file_offset, 0x100u);
  EXPECT_FALSE(described->sites[0].retprobe);
}

TEST(DescribeForBpf, SegmentRegistersAskForTheTaskSelectors) {
  CompiledTracepoint tracepoint = Tracepoint();
  tracepoint.data.push_back(Regs({{Reg::kFs, 2}}));
  auto described = DescribeForBpf(std::vector{tracepoint});
  ASSERT_TRUE(described) << described.error().message;
  EXPECT_EQ(described->tracepoints[0].needs_segments, 1);
  EXPECT_EQ(described->tracepoints[0].needs_bias, 0);
}

// RETEP: a uretprobe records after the return, the same values as at the `ret` but for RIP and
// RSP; a record that holds them probes each `ret` (when all were found) as the ptrace engine does.
TEST(DescribeForBpf, RetepProbesEveryRetOnlyWhenTheRecordHoldsRipOrRsp) {
  CompiledTracepoint at_rets = Tracepoint();
  at_rets.site.retep = true;
  at_rets.site.return_sites = {0x11140, 0x11180};
  at_rets.data.push_back(Regs({{Reg::kRax, 4}, {Reg::kRsp, 8}}));
  CompiledTracepoint fallback = Tracepoint();
  fallback.minor = 2;
  fallback.site.retep = true;
  fallback.data.push_back(Regs({{Reg::kRip, 8}}));
  CompiledTracepoint value_only = Tracepoint();  // another procedure
  value_only.minor = 3;
  value_only.site.retep = true;
  value_only.site.link_address = 0x1200;
  value_only.site.file_offset = 0x200;
  value_only.site.address = 0x11200;
  value_only.site.return_sites = {0x11240};
  value_only.data.push_back(Regs({{Reg::kRax, 4}, {Reg::kRbp, 8}}));
  CompiledData stack;
  stack.kind = tsf::DataKind::kMem32;
  stack.length = 8;
  stack.address.register_base = true;
  stack.address.base_register = Reg::kRsp;
  CompiledTracepoint stack_at_ret = value_only;
  stack_at_ret.minor = 4;
  stack_at_ret.data = {stack};
  auto described = DescribeForBpf(std::vector{at_rets, fallback, value_only});
  ASSERT_TRUE(described) << described.error().message;
  ASSERT_EQ(described->probes.size(), 4u);
  EXPECT_EQ(described->probes[3].tracepoint, 2u);
  EXPECT_TRUE(described->sites[3].retprobe);
  EXPECT_EQ(described->sites[3].file_offset, 0x200u);
  // Beside a RETEP at the `ret`s of the same procedure, the value-only one is taken there too:
  // a uretprobe would put its own return address on the stack the other one reads.
  auto together = DescribeForBpf(std::vector{value_only, stack_at_ret});
  ASSERT_TRUE(together) << together.error().message;
  ASSERT_EQ(together->probes.size(), 2u);
  for (const BpfProbeSite& site : together->sites) {
    EXPECT_FALSE(site.retprobe);
    EXPECT_EQ(site.file_offset, 0x240u);
  }
  EXPECT_EQ(described->probes[0].tracepoint, 0u);
  EXPECT_EQ(described->probes[0].link_address, 0x1140u);
  EXPECT_EQ(described->sites[0].file_offset, 0x140u);
  EXPECT_FALSE(described->sites[0].retprobe);
  EXPECT_EQ(described->probes[1].link_address, 0x1180u);
  EXPECT_EQ(described->sites[1].file_offset, 0x180u);
  EXPECT_EQ(described->probes[2].tracepoint, 1u);
  EXPECT_EQ(described->probes[2].link_address, 0x1100u);
  EXPECT_EQ(described->sites[2].file_offset, 0x100u);
  EXPECT_TRUE(described->sites[2].retprobe);
}

TEST(DescribeForBpf, RefusesWhatTheProgramCannotRunNamingTheLimit) {
  CompiledTracepoint many = Tracepoint();
  for (int i = 0; i <= RT_MAX_OPS; ++i) many.data.push_back(Regs({{Reg::kRax, 8}}));
  auto too_many = DescribeForBpf(std::vector{many});
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().message.find("minor 0x0001"), std::string::npos);
  EXPECT_NE(too_many.error().message.find("64"), std::string::npos) << too_many.error().message;

  CompiledTracepoint deep = Tracepoint();
  CompiledData chain;
  chain.kind = tsf::DataKind::kMem32;
  chain.length = 4;
  chain.address.levels = RT_MAX_LEVELS + 1;
  deep.data.push_back(chain);
  auto too_deep = DescribeForBpf(std::vector{deep});
  ASSERT_FALSE(too_deep);
  EXPECT_NE(too_deep.error().message.find("INDIRECT"), std::string::npos);

  CompiledTracepoint exactly = Tracepoint();
  for (int i = 0; i < RT_MAX_OPS; ++i) exactly.data.push_back(Regs({{Reg::kRax, 8}}));
  chain.address.levels = RT_MAX_LEVELS;
  EXPECT_TRUE(DescribeForBpf(std::vector{exactly}));
}

}  // namespace
}  // namespace rastrace::dyntrace
