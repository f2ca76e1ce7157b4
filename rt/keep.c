/* keep.c -- the ccStack push, pop and grow for the cold paths of
   instrumented code, keeping every register (x86-64).

   Instrumented code takes an out-of-line push and pop around a folded
   back edge whose caller's id has reached the fold limit, and grows the
   ccStack out of line when an inline push finds it full.  All three are
   rare, but a plain call on any path makes GCC keep every value that
   lives across it in a callee-saved register, and those registers are
   saved and restored on every path through the function, the hot ones
   included.  So on x86-64 the plugin calls these entry points from inline
   asm that clobbers nothing but memory, the flags, r10 and r11
   (cce-abi.h): the registers stay free on the hot path.

   __cce_push_keep_v5, __cce_pop_keep_v5 and __cce_pop_entry_keep_v5 do
   their work with the registers they save themselves.
   __cce_grow_keep_v5 calls into libc (mmap, mprotect, sigprocmask), so
   it saves every general register the ABI lets a call clobber and the
   whole vector state (xsave, or fxsave where the OS has not enabled
   xsave) around __cce_grow_v5.

   GCC does not see the asm's call, so the function around it may be a
   leaf that keeps data in the 128-byte red zone below its stack pointer.
   The caller steps over the red zone (rsp - CCE_KEEP_SKIP before the
   call, + CCE_KEEP_SKIP after), and the call frame information here says
   so: at entry the CFA is rsp + 8 + CCE_KEEP_SKIP and the return address
   is at CFA - 8 - CCE_KEEP_SKIP, so that an unwinder finds the caller's
   stack pointer as the caller's own CFI expects it (unchanged by the
   asm).  The push's slow path calls the grow the same way.  */

#include <stdint.h>

#include "cce-abi.h"

#if CCE_HAVE_KEEP

#define CCE_STR2(x) #x
#define CCE_STR(x) CCE_STR2 (x)
/* Offsets of the words of __cce_tls from its start.  */
#define CCE_OFF(w) "8*" CCE_STR (w)
/* The entry CFI of every entry point: CFA and return address as the
   caller's red-zone skip leaves them.  */
#define CCE_KEEP_CFI_ENTRY                                              \
  "	.cfi_def_cfa_offset 8+" CCE_STR (CCE_KEEP_SKIP) "\n"               \
  "	.cfi_offset 16, -8-" CCE_STR (CCE_KEEP_SKIP) "\n"
/* The start of entry point SYM, up to its entry CFI.  */
#define CCE_KEEP_BEGIN(sym)                                             \
  "	.globl " sym "\n"                                                  \
  "	.type " sym ", @function\n"                                        \
  "	.p2align 4\n"                                                      \
  sym ":\n"
#define CCE_KEEP_END(sym)                                               \
  "	.cfi_endproc\n"                                                    \
  "	.size " sym ", .-" sym "\n"
/* The push and the pop: save rax and rcx, rcx = the offset of __cce_tls
   from the thread pointer, rax = the ccStack top, flags = rax == 0.  */
#define CCE_KEEP_TOP                                                    \
  "	.cfi_startproc\n"                                                  \
  CCE_KEEP_CFI_ENTRY                                                   \
  "	pushq %rax\n"                                                      \
  "	.cfi_adjust_cfa_offset 8\n"                                        \
  "	pushq %rcx\n"                                                      \
  "	.cfi_adjust_cfa_offset 8\n"                                        \
  "	movq " CCE_SYM_TLS "@gottpoff(%rip), %rcx\n"                       \
  "	movq %fs:" CCE_OFF (CCE_TLS_TOP) "(%rcx), %rax\n"                  \
  "	testq %rax, %rax\n"
/* The two pops: CCE_KEEP_TOP, then drop the top entry unless
   the ccStack is empty (to 1f); rax = the dropped entry.  */
#define CCE_KEEP_DROP                                                   \
  CCE_KEEP_TOP                                                         \
  "	je 1f\n"                       /* empty: nothing to drop */        \
  "	cmpq %fs:" CCE_OFF (CCE_TLS_BASE) "(%rcx), %rax\n"                \
  "	je 1f\n"                                                          \
  "	subq $16, %rax\n"                                                 \
  "	movq %rax, %fs:" CCE_OFF (CCE_TLS_TOP) "(%rcx)\n"
/* ... and their return.  */
#define CCE_KEEP_RETURN                                                 \
  "	popq %rcx\n"                                                       \
  "	.cfi_adjust_cfa_offset -8\n"                                       \
  "	popq %rax\n"                                                       \
  "	.cfi_adjust_cfa_offset -8\n"                                       \
  "	ret\n"

__asm__ (
  "	.text\n"

  /* __cce_push_keep_v5: rdi id, r10 site, r11 entry.  */
  CCE_KEEP_BEGIN (CCE_SYM_PUSH_KEEP)
  CCE_KEEP_TOP
  "	je 2f\n"                       /* empty: grow */
  "	cmpq %fs:" CCE_OFF (CCE_TLS_LAST) "(%rcx), %rax\n"
  "	ja 2f\n"                       /* full: grow */
  "1:	addq $16, %rax\n"
  "	movq %rax, %fs:" CCE_OFF (CCE_TLS_TOP) "(%rcx)\n"  /* reserve */
  "	movq %rdi, -16(%rax)\n"        /* slot->id */
  "	movq %r10, -8(%rax)\n"         /* slot->site */
  "	movq %r11, %fs:" CCE_OFF (CCE_TLS_ID) "(%rcx)\n"
  "	.cfi_remember_state\n"
  CCE_KEEP_RETURN
  "	.cfi_restore_state\n"
  "2:	pushq %rdi\n"
  "	.cfi_adjust_cfa_offset 8\n"
  "	movq %rax, %rdi\n"
  "	addq $-" CCE_STR (CCE_KEEP_SKIP) ", %rsp\n"
  "	.cfi_adjust_cfa_offset " CCE_STR (CCE_KEEP_SKIP) "\n"
  "	call .Lcce_grow_keep\n"
  "	subq $-" CCE_STR (CCE_KEEP_SKIP) ", %rsp\n"
  "	.cfi_adjust_cfa_offset -" CCE_STR (CCE_KEEP_SKIP) "\n"
  "	popq %rdi\n"
  "	.cfi_adjust_cfa_offset -8\n"
  "	jmp 1b\n"
  CCE_KEEP_END (CCE_SYM_PUSH_KEEP)

  /* __cce_pop_keep_v5: rdi id.  */
  CCE_KEEP_BEGIN (CCE_SYM_POP_KEEP)
  CCE_KEEP_DROP
  "1:	movq %rdi, %fs:" CCE_OFF (CCE_TLS_ID) "(%rcx)\n"
  CCE_KEEP_RETURN
  CCE_KEEP_END (CCE_SYM_POP_KEEP)
  /* __cce_pop_entry_keep_v5: the id from the entry it drops.  */
  CCE_KEEP_BEGIN (CCE_SYM_POP_ENTRY_KEEP)
  CCE_KEEP_DROP
  "	movq (%rax), %r10\n"          /* slot->id */
  "	movq %r10, %fs:" CCE_OFF (CCE_TLS_ID) "(%rcx)\n"
  "1:\n"
  CCE_KEEP_RETURN
  CCE_KEEP_END (CCE_SYM_POP_ENTRY_KEEP)

  /* __cce_grow_keep_v5: rdi t; the slot in rax.  */
  CCE_KEEP_BEGIN (CCE_SYM_GROW_KEEP)
  ".Lcce_grow_keep:\n"
  "	.cfi_startproc\n"
  CCE_KEEP_CFI_ENTRY
  "	pushq %rbp\n"
  "	.cfi_adjust_cfa_offset 8\n"
  "	.cfi_offset %rbp, -16-" CCE_STR (CCE_KEEP_SKIP) "\n"
  "	movq %rsp, %rbp\n"
  "	.cfi_def_cfa_register %rbp\n"
  "	pushq %rbx\n"                  /* -8(%rbp): cpuid writes it */
  "	.cfi_offset %rbx, -24-" CCE_STR (CCE_KEEP_SKIP) "\n"
  "	pushq %rcx\n"
  "	pushq %rdx\n"
  "	pushq %rsi\n"
  "	pushq %rdi\n"                  /* -40(%rbp) */
  "	pushq %r8\n"
  "	pushq %r9\n"
  "	pushq %r10\n"
  "	pushq %r11\n"                  /* -72(%rbp) */
  "	subq $8, %rsp\n"               /* -80(%rbp): the result */
  "	movl $1, %eax\n"
  "	cpuid\n"
  "	testl $0x8000000, %ecx\n"      /* OSXSAVE */
  "	jz 3f\n"
  "	movl $0xd, %eax\n"
  "	xorl %ecx, %ecx\n"
  "	cpuid\n"                       /* ebx: the xsave area's size */
  "	subq %rbx, %rsp\n"
  "	andq $-64, %rsp\n"
  "	xorl %eax, %eax\n"             /* the xsave header must be 0 */
  "	movq %rax, 512(%rsp)\n"
  "	movq %rax, 520(%rsp)\n"
  "	movq %rax, 528(%rsp)\n"
  "	movq %rax, 536(%rsp)\n"
  "	movq %rax, 544(%rsp)\n"
  "	movq %rax, 552(%rsp)\n"
  "	movq %rax, 560(%rsp)\n"
  "	movq %rax, 568(%rsp)\n"
  "	movl $-1, %eax\n"
  "	movl $-1, %edx\n"
  "	xsave (%rsp)\n"
  "	movq -40(%rbp), %rdi\n"
  "	call " CCE_SYM_GROW "@PLT\n"
  "	movq %rax, -80(%rbp)\n"
  "	movl $-1, %eax\n"
  "	movl $-1, %edx\n"
  "	xrstor (%rsp)\n"
  "	jmp 4f\n"
  "3:	subq $512, %rsp\n"
  "	andq $-64, %rsp\n"
  "	fxsave64 (%rsp)\n"
  "	movq -40(%rbp), %rdi\n"
  "	call " CCE_SYM_GROW "@PLT\n"
  "	movq %rax, -80(%rbp)\n"
  "	fxrstor64 (%rsp)\n"
  "4:	movq -80(%rbp), %rax\n"
  "	leaq -72(%rbp), %rsp\n"
  "	popq %r11\n"
  "	popq %r10\n"
  "	popq %r9\n"
  "	popq %r8\n"
  "	popq %rdi\n"
  "	popq %rsi\n"
  "	popq %rdx\n"
  "	popq %rcx\n"
  "	popq %rbx\n"
  "	popq %rbp\n"
  "	.cfi_def_cfa %rsp, 8+" CCE_STR (CCE_KEEP_SKIP) "\n"
  "	ret\n"
  CCE_KEEP_END (CCE_SYM_GROW_KEEP));

#endif /* CCE_HAVE_KEEP */
