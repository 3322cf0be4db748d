/* The BPF engine's one program: attached to every uprobe of a `trace on` session, it executes
 * the hit tracepoint's data statements at the moment of the hit, in the traced thread, exactly as
 * record_builder.cc does for the ptrace engine, and sends the record through a ring buffer.
 *
 * A generic interpreter: the tracepoint's statements are data (struct rt_tracepoint in the
 * `tracepoints` map, hit_abi.h), so the verifier checks one program, whatever the TSF says.
 * The statements run in a bpf_loop callback, which the verifier checks once, not once per op.
 *
 * Sleepable (uprobe.s): memory is read with bpf_copy_from_user and strings with the
 * bpf_copy_from_user_str kfunc, which bring a page in as the program's own access would (and as
 * the ptrace engine's process_vm_readv does), so both engines store the same data. A read fails
 * only for memory the program could not read either; the failing page is then looked up with
 * bpf_find_vma: inside a readable mapping it is "page not present" (status 1, e.g. a file mapping
 * beyond the end of its file), else "invalid address" (2), as ProcessMemory::Classify decides.
 *
 * The record is assembled in a per-CPU scratch slot, then copied into the ring with its real
 * length. A sleeping or preempted program keeps its slot (a flag taken with compare-and-swap),
 * so several threads on one CPU cannot mix their records; with every slot taken the hit is
 * counted as lost, as is a hit the ring has no room for. */
// The libbpf headers use the kernel's types: linux/bpf.h goes first.
// clang-format off
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
// clang-format on

#include "hit_abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define EFAULT_ 14
#define ENOENT_ 2
#define PAGE_SIZE_ 4096ULL
#define VM_READ_ 0x1ULL

/* The kernel's x86-64 struct pt_regs (the uprobe program's context), field by field. */
struct rt_pt_regs {
  rt_u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags,
      sp, ss;
};

/* The few kernel fields the program reads, relocated against the running kernel's BTF. */
struct thread_struct {
  unsigned short es, ds, fsindex, gsindex;
} __attribute__((preserve_access_index));
struct task_struct {
  struct thread_struct thread;
} __attribute__((preserve_access_index));
struct vm_area_struct {
  unsigned long vm_flags;
} __attribute__((preserve_access_index));

extern int bpf_copy_from_user_str(void* dst, rt_u32 dst__sz, const void* unsafe_ptr__ign,
                                  rt_u64 flags) __ksym;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1); /* set to the number of tracepoints before loading */
  __type(key, rt_u32);
  __type(value, struct rt_tracepoint);
} tracepoints SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1); /* set to the number of probes before loading */
  __type(key, rt_u32);
  __type(value, struct rt_probe);
} probes SEC(".maps");

/* State of one hit's interpretation. It lives in the scratch slot, not on the stack: the
 * verifier checks the loop callback again for as long as the state it is called with changes,
 * and it does not track what a map value holds, so the callback is checked once. */
struct interp {
  rt_u64 bias;
  rt_u32 used;
  rt_u32 pending_length;
  rt_u64 pending_pointer;
  rt_u64 pending_failed_at; /* where reading the LEN word (or its pointers) failed */
  rt_u64 fault_address;
  rt_u16 fault_status_at;
  rt_u8 pending_status;
  rt_u8 flags;
  rt_u8 pad[4];
};

struct scratch_slot {
  rt_u32 busy;
  rt_u32 pad;
  struct interp state;
  rt_u64 regs[RT_REG_COUNT];
  struct rt_record record; /* the record header and its data, contiguous */
  rt_u8 data[RT_DATA_CAPACITY];
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, RT_SCRATCH_SLOTS);
  __type(key, rt_u32);
  __type(value, struct scratch_slot);
} scratch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 1 << 24); /* set by the engine before loading */
} ring SEC(".maps");

/* Set before loading: ring bytes waiting above which the program wakes the reader (below it,
 * the reader drains on its own timer: one wakeup per batch instead of per hit). */
const volatile rt_u64 wake_threshold = 1 << 22;

/* Hits not recorded: the ring had no room, or every scratch slot of the CPU was taken. Read by
 * the engine (the log's 006 event, the save file's summary). */
rt_u64 lost = 0;
rt_u64 lost_no_slot = 0;

struct vma_probe {
  rt_u64 flags;
};

static long on_vma(struct task_struct* task, struct vm_area_struct* vma, void* ctx) {
  struct vma_probe* probe = ctx;
  probe->flags = vma->vm_flags;
  return 0;
}

/* Status of an unreadable address (seed 001): 1 inside a readable mapping (its page could not be
 * brought in), 2 otherwise; 0 when the mapping could not be looked up now (the mm's lock was
 * held), left to user space. */
static __always_inline rt_u8 classify(rt_u64 address) {
  struct vma_probe probe = {0};
  long found = bpf_find_vma(bpf_get_current_task_btf(), address, on_vma, &probe, 0);
  if (found == 0) return (probe.flags & VM_READ_) ? 1 : 2;
  if (found == -ENOENT_) return 2;
  return 0;
}

/* Reads `size` (at most RT_MAX_RECORD) bytes; on failure returns the address of the first page
 * that cannot be read, which is where process_vm_readv stops for the ptrace engine. */
static __always_inline int read_memory(void* dst, rt_u32 size, rt_u64 address, rt_u64* failed_at) {
  if (size == 0) return 0;
  if (bpf_copy_from_user(dst, size, (const void*)address) == 0) return 0;
  rt_u64 at = address;
  rt_u64 end = address + size;
  rt_u8 byte;
  *failed_at = address;
  /* At most 3 pages hold RT_MAX_RECORD bytes. */
  for (int page = 0; page < 3; page++) {
    if (bpf_copy_from_user(&byte, 1, (const void*)at) != 0) {
      *failed_at = at;
      break;
    }
    at = (at & ~(PAGE_SIZE_ - 1)) + PAGE_SIZE_;
    if (at >= end) break;
  }
  return -EFAULT_;
}

/* Stores a failed data record: status, length 8, the pointer that could not be read. */
static __always_inline void store_fault(struct scratch_slot* slot, struct interp* in,
                                        rt_u64 pointer, rt_u64 failed_at) {
  rt_u32 at = in->used;
  in->flags |= RT_RECORD_FAULTED;
  if (at > RT_MAX_RECORD) return;
  rt_u8 status = classify(failed_at);
  if (status == 0) {
    in->flags |= RT_RECORD_UNCLASSIFIED;
    in->fault_address = failed_at;
    in->fault_status_at = (rt_u16)at;
  }
  slot->data[at] = status;
  slot->data[at + 1] = 8;
  slot->data[at + 2] = 0;
  __builtin_memcpy(&slot->data[at + 3], &pointer, 8);
  in->used = at + 11;
}

/* What the loop callback is called with: unchanged by it. */
struct loop_context {
  rt_u32 tracepoint;
  rt_u32 slot;
};

static long run_op(rt_u64 index, void* ctx) {
  struct loop_context* loop = ctx;
  rt_u32 key = loop->tracepoint;
  struct rt_tracepoint* tp = bpf_map_lookup_elem(&tracepoints, &key);
  key = loop->slot;
  struct scratch_slot* slot = bpf_map_lookup_elem(&scratch, &key);
  if (!tp || !slot) return 1;
  struct interp* in = &slot->state;
  if (index >= tp->op_count || index >= RT_MAX_OPS) return 1;
  struct rt_op* op = &tp->ops[index];
  rt_u32 limit = tp->max_data_length;
  if (limit > RT_MAX_RECORD) limit = RT_MAX_RECORD;
  rt_u32 used = in->used;
  if (used > limit) return 1;
  rt_u32 room = limit - used;

  if (op->kind == RT_OP_REG) {
    rt_u32 size = op->size;
    if (size > 8) return 1;
    if (room < size) {
      in->flags |= RT_RECORD_INCOMPLETE;
      return 1;
    }
    rt_u32 reg = op->reg;
    if (reg >= RT_REG_COUNT) return 1;
    rt_u64 value = slot->regs[reg];
    __builtin_memcpy(&slot->data[used], &value, 8);
    in->used = used + size;
    return 0;
  }

  /* The address, following INDIRECT pointers. */
  rt_u64 failed_at = 0;
  rt_u8 failed = 0;
  rt_u64 address;
  if (op->base_is_reg) {
    rt_u32 reg = op->reg;
    if (reg >= RT_REG_COUNT) return 1;
    address = slot->regs[reg];
  } else {
    address = (rt_u64)op->base + in->bias;
  }
  address += (rt_u64)op->displacement;
  rt_u32 levels = op->levels;
  for (int level = 0; level < RT_MAX_LEVELS; level++) {
    if (level >= levels) break;
    rt_u64 next = 0;
    if (read_memory(&next, 8, address, &failed_at) != 0) {
      failed = 1;
      break;
    }
    address = next + (rt_u64)op->level_offsets[level];
  }
  if (!failed) address += (rt_u64)op->final_displacement;

  if (op->kind == RT_OP_LEN) {
    in->pending_status = failed;
    in->pending_pointer = address;
    in->pending_length = 0;
    if (!failed) {
      rt_u16 word = 0;
      if (read_memory(&word, 2, address, &failed_at) != 0) {
        in->pending_status = 1;
      } else {
        in->pending_length = word;
      }
    }
    /* Classified when the MEM32 after it stores the failure. */
    in->pending_failed_at = failed_at;
    return 0;
  }

  if (!failed && op->length_from_len && in->pending_status) {
    failed = 1;
    address = in->pending_pointer;
    failed_at = in->pending_failed_at;
  }
  if (failed) {
    if (room < 11) {
      in->flags |= RT_RECORD_INCOMPLETE | RT_RECORD_FAULTED;
      return 1;
    }
    store_fault(slot, in, address, failed_at);
    return 1;
  }
  if (room < 3) {
    in->flags |= RT_RECORD_INCOMPLETE;
    return 1;
  }
  rt_u32 prefix_at = used;
  rt_u32 data_at = used + 3;
  room -= 3;
  rt_u32 wanted = op->length_from_len ? in->pending_length : op->length;
  rt_u32 length = wanted < room ? wanted : room;
  rt_u8 incomplete = length < wanted;
  if (data_at > RT_MAX_RECORD || length > RT_MAX_RECORD) return 1;

  rt_u32 stored = length;
  if (op->kind == RT_OP_STR) {
    /* Page by page, so that a string ending before an unreadable page is still stored (the
     * ptrace engine's ReadString). The kfunc reads at most size - 1 bytes and adds a NUL. */
    stored = 0;
    rt_u64 at = address;
    for (int chunk = 0; chunk < 3; chunk++) {
      if (stored >= length) break;
      rt_u32 left = length - stored;
      rt_u32 in_page = (rt_u32)(PAGE_SIZE_ - (at & (PAGE_SIZE_ - 1)));
      rt_u32 size = left < in_page ? left : in_page;
      rt_u32 dst = data_at + stored;
      if (dst > RT_MAX_RECORD || size > RT_MAX_RECORD) break;
      int got = bpf_copy_from_user_str(&slot->data[dst], size + 1, (const void*)at, 0);
      if (got <= 0) {
        if (stored == 0) {
          failed = 1;
          failed_at = at;
        }
        break;
      }
      rt_u32 copied = (rt_u32)got - 1; /* bytes before the NUL or the end of the chunk */
      stored += copied;
      if (copied < size) break; /* the NUL */
      at += size;
    }
    if (incomplete && stored < length) incomplete = 0;
  } else {
    if (read_memory(&slot->data[data_at], length, address, &failed_at) != 0) failed = 1;
  }
  if (failed) {
    if (room + 3 < 11) {
      in->flags |= RT_RECORD_INCOMPLETE | RT_RECORD_FAULTED;
      return 1;
    }
    store_fault(slot, in, address, failed_at);
    return 1;
  }
  slot->data[prefix_at] = 0;
  slot->data[prefix_at + 1] = (rt_u8)stored;
  slot->data[prefix_at + 2] = (rt_u8)(stored >> 8);
  in->used = data_at + stored;
  if (incomplete) {
    in->flags |= RT_RECORD_INCOMPLETE;
    return 1;
  }
  return 0;
}

static __always_inline struct scratch_slot* take_slot(rt_u32* index) {
  for (rt_u32 i = 0; i < RT_SCRATCH_SLOTS; i++) {
    rt_u32 key = i;
    struct scratch_slot* slot = bpf_map_lookup_elem(&scratch, &key);
    if (!slot) return 0;
    if (__sync_val_compare_and_swap(&slot->busy, 0, 1) == 0) {
      *index = i;
      return slot;
    }
  }
  return 0;
}

SEC("uprobe.s")
int rastrace_hit(struct rt_pt_regs* regs) {
  rt_u32 probe_index = (rt_u32)bpf_get_attach_cookie(regs);
  struct rt_probe* probe = bpf_map_lookup_elem(&probes, &probe_index);
  if (!probe) return 0;
  rt_u32 tp_index = probe->tracepoint;
  struct rt_tracepoint* tp = bpf_map_lookup_elem(&tracepoints, &tp_index);
  if (!tp) return 0;

  struct loop_context loop = {.tracepoint = tp_index};
  struct scratch_slot* slot = take_slot(&loop.slot);
  if (!slot) {
    __sync_fetch_and_add(&lost, 1);
    __sync_fetch_and_add(&lost_no_slot, 1);
    return 0;
  }
  slot->record.time_ns = bpf_ktime_get_ns();
  struct interp* in = &slot->state;
  __builtin_memset(in, 0, sizeof(*in));

  /* In dyntrace::Reg order. */
  slot->regs[0] = regs->ax;
  slot->regs[1] = regs->bx;
  slot->regs[2] = regs->cx;
  slot->regs[3] = regs->dx;
  slot->regs[4] = regs->si;
  slot->regs[5] = regs->di;
  slot->regs[6] = regs->bp;
  slot->regs[7] = regs->sp;
  slot->regs[8] = regs->r8;
  slot->regs[9] = regs->r9;
  slot->regs[10] = regs->r10;
  slot->regs[11] = regs->r11;
  slot->regs[12] = regs->r12;
  slot->regs[13] = regs->r13;
  slot->regs[14] = regs->r14;
  slot->regs[15] = regs->r15;
  slot->regs[16] = regs->ip;
  slot->regs[17] = regs->flags;
  slot->regs[18] = regs->cs;
  slot->regs[19] = regs->ss;
  if (tp->needs_segments) {
    /* The selectors the task saved at its last switch: what ptrace's GETREGS reports. */
    struct task_struct* task = (struct task_struct*)bpf_get_current_task();
    slot->regs[RT_REG_DS] = BPF_CORE_READ(task, thread.ds);
    slot->regs[RT_REG_DS + 1] = BPF_CORE_READ(task, thread.es);
    slot->regs[RT_REG_DS + 2] = BPF_CORE_READ(task, thread.fsindex);
    slot->regs[RT_REG_DS + 3] = BPF_CORE_READ(task, thread.gsindex);
  } else {
    slot->regs[RT_REG_DS] = slot->regs[RT_REG_DS + 1] = 0;
    slot->regs[RT_REG_DS + 2] = slot->regs[RT_REG_DS + 3] = 0;
  }
  if (tp->needs_bias) in->bias = bpf_get_func_ip(regs) - probe->link_address;

  bpf_loop(RT_MAX_OPS, run_op, &loop, 0);

  rt_u64 pid_tgid = bpf_get_current_pid_tgid();
  slot->record.probe = probe_index;
  slot->record.pid = (rt_u32)(pid_tgid >> 32);
  slot->record.tid = (rt_u32)pid_tgid;
  rt_u32 length = in->used;
  if (length > RT_MAX_RECORD) length = RT_MAX_RECORD;
  slot->record.length = (rt_u16)length;
  slot->record.flags = in->flags;
  slot->record.fault_address = in->fault_address;
  slot->record.fault_status_at = in->fault_status_at;

  rt_u64 waiting = bpf_ringbuf_query(&ring, BPF_RB_AVAIL_DATA);
  rt_u64 wake = waiting >= wake_threshold ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
  if (bpf_ringbuf_output(&ring, &slot->record, sizeof(struct rt_record) + length, wake) != 0) {
    __sync_fetch_and_add(&lost, 1);
  }
  asm volatile("" ::: "memory");
  *(volatile rt_u32*)&slot->busy = 0;
  return 0;
}
