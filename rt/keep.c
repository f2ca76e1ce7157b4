/* keep.c -- the ccStack push, pop and grow for the cold paths of
   instrumented code, keeping every register (x86-64).

   Instrumented code takes an out-of-line push and pop around a folded
   back edge whose caller's id has reached the fold limit, and grows the
   ccStack out of line when an inline push finds it full.  All three are
   rare, but a plain call on any path makes GCC keep every value that
   lives across it in a callee-saved register, and those registers are
   saved and restored on every path through the function, the hot ones
   included.  So on x86-64 the plugin reaches these entry points from
   inline asm that clobbers nothing but memory, the flags, r10 and r11
   (cce-abi.h): the registers stay free on the hot path.

   GCC does not see that transfer, so the function it comes from may be a
   leaf that keeps data in the 128-byte red zone below its stack pointer,
   and its call frame information may give its CFA from rsp or from rbp.
   So the caller moves neither (no call, which would store the return
   address in the red zone): it jumps here with the return address in
   r11, and every entry point steps over the red zone
   (rsp - CCE_KEEP_SKIP) before it stores anything, and returns with
   jmp *%r11 once rsp is back.  The call frame information says so at
   every instruction: at entry the CFA is rsp + 0 and the return address
   is in r11; where an entry point saves r11 or another register, it
   says where.  The push's slow path reaches the grow the same way.

   __cce_push_keep_v6, __cce_pop_keep_v6 and __cce_pop_entry_keep_v6 do
   their work with r10 and with rax, which they save.
   __cce_grow_keep_v6 calls into libc (mmap, mprotect, sigprocmask), so
   it saves every general register the ABI lets a call clobber, r10
   included (the push's slow path keeps the TLS offset there), and the
   whole vector state (xsave, or fxsave where the OS has not enabled
   xsave) around __cce_grow_v6.  */

#include <stdint.h>

#include "cce-abi.h"
#include "rt-internal.h"

#if CCE_HAVE_KEEP

#define CCE_STR2(x) #x
#define CCE_STR(x) CCE_STR2 (x)
#define CCE_SKIP CCE_STR (CCE_KEEP_SKIP)
/* Offsets of the words of __cce_tls from its start.  */
#define CCE_OFF(w) "8*" CCE_STR (w)
/* The start of entry point SYM.  */
#define CCE_KEEP_BEGIN(sym)                                             \
  "	.globl " sym "\n"                                                  \
  "	.type " sym ", @function\n"                                        \
  "	.p2align 4\n"                                                      \
  sym ":\n"
/* Its first instruction, the step over the red zone, with the call frame
   information of entry: the CFA is rsp + 0 (the caller's rsp, untouched)
   and the return address is in r11; then the CFA is rsp +
   CCE_KEEP_SKIP.  */
#define CCE_KEEP_ENTRY                                                  \
  "	.cfi_startproc\n"                                                  \
  "	.cfi_def_cfa %rsp, 0\n"                                            \
  "	.cfi_register %rip, %r11\n"                                        \
  "	leaq -" CCE_SKIP "(%rsp), %rsp\n"                                  \
  "	.cfi_def_cfa_offset " CCE_SKIP "\n"
#define CCE_KEEP_END(sym)                                               \
  "	.cfi_endproc\n"                                                    \
  "	.size " sym ", .-" sym "\n"
/* Back over the red zone (rsp is where CCE_KEEP_ENTRY left it) and to
   the caller.  */
#define CCE_KEEP_JUMP_BACK                                              \
  "	leaq " CCE_SKIP "(%rsp), %rsp\n"                                   \
  "	.cfi_def_cfa_offset 0\n"                                           \
  "	jmp *%r11\n"
/* The push and the pops, after CCE_KEEP_ENTRY: save rax, ...  */
#define CCE_KEEP_SAVE                                                   \
  "	pushq %rax\n"                                                      \
  "	.cfi_adjust_cfa_offset 8\n"                                        \
  "	.cfi_rel_offset %rax, 0\n"
/* ... then r10 = the offset of __cce_tls from the thread pointer, rax =
   the ccStack top.  */
#define CCE_KEEP_LOAD                                                   \
  "	movq " CCE_SYM_TLS "@gottpoff(%rip), %r10\n"                       \
  "	movq %fs:" CCE_OFF (CCE_TLS_TOP) "(%r10), %rax\n"
/* The pops: CCE_KEEP_SAVE, CCE_KEEP_LOAD, then drop the top entry
   unless the ccStack is empty (to 1f): rax = the dropped entry, then
   LOAD_ID (instructions that may read the id of the entry at rax), then
   the store of the top.  */
#define CCE_KEEP_DROP(load_id)                                          \
  CCE_KEEP_SAVE                                                        \
  CCE_KEEP_LOAD                                                        \
  "	testq %rax, %rax\n"                                                \
  "	je 1f\n"                       /* empty: nothing to drop */        \
  "	cmpq %fs:" CCE_OFF (CCE_TLS_BASE) "(%r10), %rax\n"                \
  "	je 1f\n"                                                          \
  "	subq $16, %rax\n"                                                 \
  load_id                                                              \
  "	movq %rax, %fs:" CCE_OFF (CCE_TLS_TOP) "(%r10)\n"
/* ... and the return of all three.  */
#define CCE_KEEP_RETURN                                                 \
  "	popq %rax\n"                                                       \
  "	.cfi_adjust_cfa_offset -8\n"                                       \
  "	.cfi_restore %rax\n"                                               \
  CCE_KEEP_JUMP_BACK

/* A push: SYM, its commit labels DONE and END (cce_pc_keep), and
   STORE_ENTRY, the instruction that pops the entry, the callee's id, to
   where the callee takes it: the TLS word, or the id's register.  The
   site and the entry go from r10's pair of words to the stack, and from
   the stack to the slot and to the id, so that r10 is free for the TLS
   offset.  The slot is written first and the top moved past it in one
   store, the commit: before it the ccStack is the caller's, after it the
   caller's push is on top (cce_pc_keep tells a record which).  */
#define CCE_KEEP_PUSH(sym, done, end, store_entry)                      \
  CCE_KEEP_BEGIN (sym)                                                 \
  CCE_KEEP_ENTRY                                                       \
  CCE_KEEP_SAVE                                                        \
  "	pushq 8(%r10)\n"               /* the entry */                    \
  "	.cfi_adjust_cfa_offset 8\n"                                       \
  "	pushq (%r10)\n"                /* the site */                     \
  "	.cfi_adjust_cfa_offset 8\n"                                       \
  CCE_KEEP_LOAD                                                        \
  "	cmpq %fs:" CCE_OFF (CCE_TLS_LIMIT) "(%r10), %rax\n"  /* top >= */ \
  "	jae 2f\n"                      /* limit, unsigned: grow */        \
  "1:	movq %rdi, (%rax)\n"           /* slot->id */                     \
  "	.cfi_remember_state\n"                                            \
  "	popq 8(%rax)\n"                /* slot->site */                   \
  "	.cfi_adjust_cfa_offset -8\n"                                      \
  "	addq $16, %rax\n"                                                 \
  "	movq %rax, %fs:" CCE_OFF (CCE_TLS_TOP) "(%r10)\n"  /* commit */   \
  "	.globl " done "\n"                                                \
  "	.hidden " done "\n"                                               \
  done ":\n"                                                          \
  store_entry                                                          \
  "	.cfi_adjust_cfa_offset -8\n"                                      \
  CCE_KEEP_RETURN                                                      \
  "	.globl " end "\n"                                                 \
  "	.hidden " end "\n"                                                \
  end ":\n"                                                           \
  "	.cfi_restore_state\n"                                             \
  /* The slow path: rax = grow (top), the slot, keeping r11 and rdi    \
     (the grow keeps r10).  */                                         \
  "2:\n"                                                               \
  "	pushq %r11\n"                                                     \
  "	.cfi_adjust_cfa_offset 8\n"                                       \
  "	.cfi_rel_offset %rip, 0\n"                                        \
  "	pushq %rdi\n"                                                     \
  "	.cfi_adjust_cfa_offset 8\n"                                       \
  "	.cfi_rel_offset %rdi, 0\n"                                        \
  "	movq %rax, %rdi\n"                                                \
  "	leaq 3f(%rip), %r11\n"                                            \
  "	jmp .Lcce_grow_keep\n"                                            \
  "3:	popq %rdi\n"                                                      \
  "	.cfi_adjust_cfa_offset -8\n"                                      \
  "	.cfi_restore %rdi\n"                                              \
  "	popq %r11\n"                                                      \
  "	.cfi_adjust_cfa_offset -8\n"                                      \
  "	.cfi_register %rip, %r11\n"                                       \
  "	jmp 1b\n"                                                         \
  CCE_KEEP_END (sym)

/* The pop of an entry the caller pushed: SYM, its commit labels DONE
   and END, and LOAD_ID, instructions that put the id of the entry at
   rax where the caller keeps its id: the TLS word, or the id's
   register.  The id goes back before the top, whose store is the
   commit: before it the caller's push is on top, after it the ccStack
   and the id are the caller's.  */
#define CCE_KEEP_POP_ENTRY(sym, done, end, load_id)                     \
  CCE_KEEP_BEGIN (sym)                                                 \
  CCE_KEEP_ENTRY                                                       \
  CCE_KEEP_DROP (load_id)               /* its store: the commit */    \
  "	.globl " done "\n"                                                \
  "	.hidden " done "\n"                                               \
  done ":\n"                                                          \
  "1:\n"                                                               \
  CCE_KEEP_RETURN                                                      \
  "	.globl " end "\n"                                                 \
  "	.hidden " end "\n"                                                \
  end ":\n"                                                           \
  CCE_KEEP_END (sym)

__asm__ (
  "	.text\n"

  /* __cce_push_keep_v6 and __cce_push_keep_reg_v6: rdi id, r10 the
     address of {site, entry}.  */
  "	.globl " CCE_KEEP_FIRST "\n"
  "	.hidden " CCE_KEEP_FIRST "\n"
  "	.p2align 4\n"
  CCE_KEEP_FIRST ":\n"
  CCE_KEEP_PUSH (CCE_SYM_PUSH_KEEP, CCE_KEEP_PUSH_DONE, CCE_KEEP_PUSH_END,
                 "	popq %fs:" CCE_OFF (CCE_TLS_ID) "(%r10)\n")
  CCE_KEEP_PUSH (CCE_SYM_PUSH_KEEP_REG, CCE_KEEP_PUSH_REG_DONE,
                 CCE_KEEP_PUSH_REG_END, "	popq %" CCE_IDREG "\n")

  /* __cce_pop_keep_v6: rdi id.  */
  CCE_KEEP_BEGIN (CCE_SYM_POP_KEEP)
  CCE_KEEP_ENTRY
  CCE_KEEP_DROP ("")
  "1:	movq %rdi, %fs:" CCE_OFF (CCE_TLS_ID) "(%r10)\n"
  CCE_KEEP_RETURN
  CCE_KEEP_END (CCE_SYM_POP_KEEP)
  /* __cce_pop_entry_keep_v6 and __cce_pop_entry_keep_reg_v6: the id
     from the entry it drops.  */
  CCE_KEEP_POP_ENTRY (CCE_SYM_POP_ENTRY_KEEP, CCE_KEEP_POP_DONE,
                      CCE_KEEP_POP_END,
                      "	pushq (%rax)\n"        /* slot->id */
                      "	.cfi_adjust_cfa_offset 8\n"
                      "	popq %fs:" CCE_OFF (CCE_TLS_ID) "(%r10)\n"
                      "	.cfi_adjust_cfa_offset -8\n")
  CCE_KEEP_POP_ENTRY (CCE_SYM_POP_ENTRY_KEEP_REG, CCE_KEEP_POP_REG_DONE,
                      CCE_KEEP_POP_REG_END,
                      "	movq (%rax), %" CCE_IDREG "\n")

  /* __cce_grow_keep_v6: rdi t; the slot in rax.  The frame, from rbp:
     the return address at 8, the caller's rbp at 0, then rbx, rcx, rdx,
     rsi, rdi (-40), r8, r9, r10 (-64) and the result (-72).  */
  CCE_KEEP_BEGIN (CCE_SYM_GROW_KEEP)
  ".Lcce_grow_keep:\n"
  CCE_KEEP_ENTRY
  "	pushq %r11\n"
  "	.cfi_adjust_cfa_offset 8\n"
  "	.cfi_rel_offset %rip, 0\n"
  "	pushq %rbp\n"
  "	.cfi_adjust_cfa_offset 8\n"
  "	.cfi_rel_offset %rbp, 0\n"
  "	movq %rsp, %rbp\n"
  "	.cfi_def_cfa_register %rbp\n"
  "	pushq %rbx\n"                  /* cpuid writes it */
  "	.cfi_rel_offset %rbx, -8\n"
  "	pushq %rcx\n"
  "	.cfi_rel_offset %rcx, -16\n"
  "	pushq %rdx\n"
  "	.cfi_rel_offset %rdx, -24\n"
  "	pushq %rsi\n"
  "	.cfi_rel_offset %rsi, -32\n"
  "	pushq %rdi\n"
  "	.cfi_rel_offset %rdi, -40\n"
  "	pushq %r8\n"
  "	.cfi_rel_offset %r8, -48\n"
  "	pushq %r9\n"
  "	.cfi_rel_offset %r9, -56\n"
  "	pushq %r10\n"
  "	subq $8, %rsp\n"               /* -72(%rbp): the result */
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
  "	movq %rax, -72(%rbp)\n"
  "	movl $-1, %eax\n"
  "	movl $-1, %edx\n"
  "	xrstor (%rsp)\n"
  "	jmp 4f\n"
  "3:	subq $512, %rsp\n"
  "	andq $-64, %rsp\n"
  "	fxsave64 (%rsp)\n"
  "	movq -40(%rbp), %rdi\n"
  "	call " CCE_SYM_GROW "@PLT\n"
  "	movq %rax, -72(%rbp)\n"
  "	fxrstor64 (%rsp)\n"
  "4:	movq -72(%rbp), %rax\n"
  "	leaq -64(%rbp), %rsp\n"
  "	popq %r10\n"
  "	popq %r9\n"
  "	.cfi_restore %r9\n"
  "	popq %r8\n"
  "	.cfi_restore %r8\n"
  "	popq %rdi\n"
  "	.cfi_restore %rdi\n"
  "	popq %rsi\n"
  "	.cfi_restore %rsi\n"
  "	popq %rdx\n"
  "	.cfi_restore %rdx\n"
  "	popq %rcx\n"
  "	.cfi_restore %rcx\n"
  "	popq %rbx\n"
  "	.cfi_restore %rbx\n"
  "	popq %rbp\n"
  "	.cfi_def_cfa %rsp, 8+" CCE_SKIP "\n"
  "	.cfi_restore %rbp\n"
  "	popq %r11\n"
  "	.cfi_def_cfa_offset " CCE_SKIP "\n"
  "	.cfi_register %rip, %r11\n"
  CCE_KEEP_JUMP_BACK
  CCE_KEEP_END (CCE_SYM_GROW_KEEP)
  "	.globl " CCE_KEEP_LAST "\n"
  "	.hidden " CCE_KEEP_LAST "\n"
  CCE_KEEP_LAST ":\n");

#endif /* CCE_HAVE_KEEP */
