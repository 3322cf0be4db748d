/* What the BPF hit program (hit.bpf.c) and the engine (bpf_engine.cc) share: the compiled form
 * of a tracepoint's data statements that the program interprets at every hit, and the record it
 * sends through the ring buffer. C, so that both clang's BPF target and C++ read it; every field
 * has a fixed size and offset. */
#ifndef RASTRACE_DYNTRACE_BPF_HIT_ABI_H_
#define RASTRACE_DYNTRACE_BPF_HIT_ABI_H_

#ifdef __bpf__
typedef unsigned char rt_u8;
typedef unsigned short rt_u16;
typedef unsigned int rt_u32;
typedef unsigned long long rt_u64;
typedef long long rt_s64;
#else
#include <stdint.h>
typedef uint8_t rt_u8;
typedef uint16_t rt_u16;
typedef uint32_t rt_u32;
typedef uint64_t rt_u64;
typedef int64_t rt_s64;
#endif

/* Limits of the BPF engine (docs/dyntrace.md, "Limits"). A tracepoint beyond them is refused
 * with the reason, and `auto` takes the ptrace engine for it. */
#define RT_MAX_OPS 64         /* registers (one op each) plus MEM32/ASCIIZ32/LEN statements */
#define RT_MAX_LEVELS 8       /* INDIRECT pointers followed by one address */
#define RT_MAX_RECORD 4099    /* MAXDATALENGTH's upper bound (seed 004) */
#define RT_DATA_CAPACITY 8208 /* a record plus the longest read that may start at its end */
#define RT_SCRATCH_SLOTS 4    /* per CPU: programs of preempted or sleeping threads keep theirs */

/* Register numbers: the order of dyntrace::Reg (x86_registers.h). */
#define RT_REG_COUNT 24
#define RT_REG_DS 20 /* DS ES FS GS: 20..23, from the task's saved selectors */

enum rt_op_kind {
  RT_OP_REG = 1, /* one register: `size` low bytes of regs[reg] */
  RT_OP_MEM = 2, /* MEM32: prefix, `length` bytes (or the LEN word's) */
  RT_OP_STR = 3, /* ASCIIZ32: prefix, at most `length` bytes before the NUL */
  RT_OP_LEN = 4, /* LEN: a 16-bit length for the MEM32 right after it; stores nothing */
};

/* The address of a MEM/STR/LEN op: base (a register, or a link-time address in the module that
 * the load bias found at the hit is added to) + displacement; then `levels` 8-byte pointers
 * followed, level_offsets[i] added after following level i; then final_displacement. */
struct rt_op {
  rt_u8 kind;
  rt_u8 size;        /* RT_OP_REG: 2, 4 or 8 */
  rt_u8 reg;         /* RT_OP_REG: the register; else the base register when base_is_reg */
  rt_u8 base_is_reg; /* else `base` is a link-time address in the probed module */
  rt_u8 levels;      /* 0: DIRECT */
  rt_u8 length_from_len;
  rt_u8 pad[2];
  rt_u32 length; /* RT_OP_MEM: bytes; RT_OP_STR: the maximum */
  rt_u32 pad2;
  rt_s64 base;
  rt_s64 displacement;
  rt_s64 level_offsets[RT_MAX_LEVELS];
  rt_s64 final_displacement;
};

struct rt_tracepoint {
  rt_u16 max_data_length; /* MAXDATALENGTH */
  rt_u16 op_count;
  rt_u8 needs_bias;     /* an op addresses a symbol: find the load bias at the hit */
  rt_u8 needs_segments; /* an op records DS, ES, FS or GS */
  rt_u8 pad[2];
  struct rt_op ops[RT_MAX_OPS];
};

/* One uprobe: the attach cookie is its index. A RETEP tracepoint whose returns were found has one
 * probe per `ret`; every other tracepoint one probe (a uretprobe for the fallback RETEP). */
struct rt_probe {
  rt_u32 tracepoint;
  rt_u32 pad;
  rt_u64 link_address; /* of the probed instruction (the function's entry for a uretprobe) */
};

enum rt_record_flag {
  RT_RECORD_INCOMPLETE = 1,   /* MAXDATALENGTH cut the data (STDA flag 0x10) */
  RT_RECORD_FAULTED = 2,      /* a data record has a non-zero status */
  RT_RECORD_UNCLASSIFIED = 4, /* the kernel could not look up the mapping of fault_address: the
                                 status byte at fault_status_at is to be decided in user space */
};

/* A hit as it goes through the ring buffer: this header, then `length` bytes of data exactly as
 * the record stores them (REGS values, data records with their seed 001 prefixes). */
struct rt_record {
  rt_u32 probe;
  rt_u32 pid;
  rt_u32 tid;
  rt_u16 length;
  rt_u8 flags;
  rt_u8 pad;
  rt_u64 time_ns; /* CLOCK_MONOTONIC at the hit */
  rt_u64 fault_address;
  rt_u16 fault_status_at;
  rt_u16 pad2[3];
};

#endif /* RASTRACE_DYNTRACE_BPF_HIT_ABI_H_ */
