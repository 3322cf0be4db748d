/* A function made of the instruction forms the ptrace engine emulates (ALU operations in every
 * operand form, inc/dec/neg/not, shifts, extensions, xchg, setcc, cmovcc, calls, jumps, fs:
 * loads), plus two it single-steps (pushfq, imul). The tests put a tracepoint on every one of its
 * instructions. Usage: dt_forms N; prints what each call computed and left in memory. */
#include <stdio.h>
#include <stdlib.h>

long forms(long a, long b, long* memory);

/* forms(a, b, memory): rdi = a, rsi = b, rdx = memory (3 longs). */
__asm__(
    ".text\n"
    ".globl forms\n"
    ".type forms, @function\n"
    "forms:\n"
    "  endbr64\n"
    "  push %rbp\n"
    "  mov %rsp, %rbp\n"
    "  push %rbx\n"
    "  push %r12\n"
    "  sub $0x20, %rsp\n"
    "  mov %rdx, %r12\n"
    "  mov %fs:0x0, %rbx\n"
    "  mov %rbx, 0x18(%rsp)\n"
    "  xor %eax, %eax\n"
    "  mov %rdi, %rax\n"
    "  add %rsi, %rax\n"
    "  adc $0x5, %rax\n"
    "  sub %rsi, %rax\n"
    "  sbb %rdi, %rax\n"
    "  and $0x7ffffff0, %eax\n"
    "  or %rsi, %rax\n"
    "  xor %rdi, %rax\n"
    "  cmp %rsi, %rdi\n"
    "  setl %cl\n"
    "  movzbl %cl, %ecx\n"
    "  add %rcx, %rax\n"
    "  test %rsi, %rsi\n"
    "  cmovs %rdi, %rax\n"
    "  cmovns %esi, %ecx\n"
    "  mov %rax, (%r12)\n"
    "  addq $1, (%r12)\n"
    "  addl %esi, 8(%r12)\n"
    "  sub 8(%r12), %rax\n"
    "  cmpl $0x10, 8(%r12)\n"
    "  jle 1f\n"
    "  incl 8(%r12)\n"
    "1:\n"
    "  dec %rax\n"
    "  neg %rcx\n"
    "  not %rcx\n"
    "  shl $3, %rax\n"
    "  shr $1, %rcx\n"
    "  sar $2, %rax\n"
    "  movsbl %sil, %ebx\n"
    "  movswq %di, %rdx\n"
    "  movslq %esi, %r8\n"
    "  add %r8, %rbx\n"
    "  add %rdx, %rbx\n"
    "  xchg %rbx, %rcx\n"
    "  cltq\n"
    "  cqto\n"
    "  xor %rdx, %rax\n"
    "  movzwl 8(%r12), %ebx\n"
    "  movsbq 9(%r12), %rcx\n"
    "  sub %rcx, %rbx\n"
    "  test $0x1, %bl\n"
    "  jne 2f\n"
    "  add $0x11, %rax\n"
    "2:\n"
    "  call forms_helper\n"
    "  jmp 3f\n"
    "  nop\n"
    "3:\n"
    "  cmp $0x3, %ecx\n"
    "  jb 4f\n"
    "  sete %dl\n"
    "  movb %dl, 16(%r12)\n"
    "4:\n"
    "  pushfq\n"
    "  pop %rcx\n"
    "  and $0x8d5, %ecx\n"
    "  mov %rcx, 16(%r12)\n"
    "  imul %rsi, %rax\n"
    "  mov 0x18(%rsp), %rdx\n"
    "  sub %fs:0x0, %rdx\n"
    "  or %rdx, %rax\n"
    "  add $0x20, %rsp\n"
    "  pop %r12\n"
    "  pop %rbx\n"
    "  leave\n"
    "  ret\n"
    ".size forms, .-forms\n"
    "forms_helper:\n"
    "  lea 0x1(%rax,%rax,2), %rax\n"
    "  ret\n");

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 10;
  static const long values[] = {0, 1, -1, 0x7f, 0x80, 0xffff, -0x8000, 0x7fffffff, 0x80000000L,
                                0x123456789abcdefL, -0x7fffffffffffffffL - 1};
  const long count = sizeof values / sizeof values[0];
  for (long i = 0; i < n; ++i) {
    long memory[3] = {i, values[i % count] ^ i, 0};
    long a = values[i % count] + i;
    long b = values[(i * 7 + 3) % count] - i;
    long result = forms(a, b, memory);
    printf("%ld %lx %lx %lx %lx\n", i, (unsigned long)result, (unsigned long)memory[0],
           (unsigned long)memory[1], (unsigned long)memory[2]);
  }
  return 0;
}
