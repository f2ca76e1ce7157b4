/* pc.c -- PC words: where an interrupted instruction is.

   A record of an interrupted instruction (a crash record, a sample) and
   the ccStack entry of an asynchronous signal name the instruction by its
   PC word (cce-format.h): the module key of the dictionary of the module
   that holds it and its link-time address there,

     word = (KEY << 32) | CCE_PC_FLAG | (PC - BIAS)

   The main program's executable segments and its load bias are found
   once, at load time, before any handler of libcce can run; a handler
   then only compares.  Only the main program is placed.  An instruction
   anywhere else (libc, libcce, a shared library, even one built with
   cce, whose dictionary libcce cannot reach) is placed by the call that
   led there from the main program: the handler unwinds from the
   interrupted instruction (libgcc's unwinder, through the call frame
   information of the signal frame and of the code it stopped in) to the
   first return address into the main program, and gives its PC word
   with CCE_PC_CALLER.  A fault while unwinding is caught (the crash
   handler jumps back) and gives CCE_PC_EXTERNAL, as does any
   instruction of a program without a dictionary.

   The id that goes with a PC word is the TLS id, or in a program that
   keeps it in a register (cce-abi.h, CCE_IDREG) that register as the
   interrupted code had it: from the signal's context in the main
   program, from the unwound frame of the call that led elsewhere (code
   outside the program saves it as callee-saved, and its call frame
   information says where).  */

#define _GNU_SOURCE
#include <link.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <unwind.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "rt-internal.h"

/* The executable PT_LOAD segments of the main program that libcce
   places, as link-time address ranges [START, END).  */
#define CCE_PC_SEGMENTS 8

static struct
{
  uint32_t key;                 /* module key; 0: place nothing */
  uintptr_t bias;               /* run-time address - link-time address */
  unsigned nsegs;
  struct
  {
    uintptr_t start, end;
  } seg[CCE_PC_SEGMENTS];
} cce_pc;

/* dl_iterate_phdr callback: the first object is the main program.  Keep
   its bias and executable segments, and stop.  */
static int
cce_pc_main (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  cce_pc.bias = (uintptr_t) info->dlpi_addr;
  for (ElfW (Half) i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)
          || cce_pc.nsegs == CCE_PC_SEGMENTS)
        continue;
      cce_pc.seg[cce_pc.nsegs].start = (uintptr_t) ph->p_vaddr;
      cce_pc.seg[cce_pc.nsegs].end = (uintptr_t) (ph->p_vaddr + ph->p_memsz);
      cce_pc.nsegs++;
    }
  return 1;
}

void
cce_pc_init (void)
{
  uint64_t stamp = cce_dict_stamp ();
  if (!stamp)
    return;
  dl_iterate_phdr (cce_pc_main, NULL);
  cce_pc.key = cce_module_key (stamp);
}

/* The PC of the instruction the signal whose handler got CONTEXT (a
   ucontext_t) interrupted.  */
uintptr_t
cce_context_pc (const void *context)
{
  const ucontext_t *uc = context;
  if (!uc)
    return 0;
#if defined __x86_64__
  return (uintptr_t) uc->uc_mcontext.gregs[REG_RIP];
#elif defined __i386__
  return (uintptr_t) uc->uc_mcontext.gregs[REG_EIP];
#elif defined __aarch64__
  return (uintptr_t) uc->uc_mcontext.pc;
#else
  return 0;
#endif
}

/* The PC word of the instruction at PC: in the main program, below 2^30
   of link-time address, or CCE_PC_EXTERNAL.  */
uint64_t
cce_pc_word (uintptr_t pc)
{
  if (!cce_pc.key)
    return CCE_PC_EXTERNAL;
  uintptr_t addr = pc - cce_pc.bias;
  if (addr >= (uintptr_t) CCE_PC_ADDR_LIMIT)
    return CCE_PC_EXTERNAL;
  for (unsigned i = 0; i < cce_pc.nsegs; i++)
    if (addr >= cce_pc.seg[i].start && addr < cce_pc.seg[i].end)
      return CCE_PC_WORD (cce_pc.key, addr);
  return CCE_PC_EXTERNAL;
}

/* The most frames the walk to the main program looks at.  */
#define CCE_PC_WALK_FRAMES 64

struct cce_walk
{
  uintptr_t pc;                 /* the interrupted instruction */
  int past;                     /* its frame was seen */
  int frames;
  uintptr_t last;               /* the IP of the frame before */
  uint64_t word;                /* the result */
  uint64_t reg;                 /* the id's register in that frame */
};

#if CCE_HAVE_KEEP
/* keep.c's labels.  */
#define CCE_KEEP_LABEL(name) \
  extern const char name[] __asm__ (name##_SYM) CCE_HIDDEN;
#define cce_keep_first_SYM CCE_KEEP_FIRST
#define cce_keep_last_SYM CCE_KEEP_LAST
#define cce_keep_push_done_SYM CCE_KEEP_PUSH_DONE
#define cce_keep_push_end_SYM CCE_KEEP_PUSH_END
#define cce_keep_pop_done_SYM CCE_KEEP_POP_DONE
#define cce_keep_pop_end_SYM CCE_KEEP_POP_END
#define cce_keep_push_reg_done_SYM CCE_KEEP_PUSH_REG_DONE
#define cce_keep_push_reg_end_SYM CCE_KEEP_PUSH_REG_END
#define cce_keep_pop_reg_done_SYM CCE_KEEP_POP_REG_DONE
#define cce_keep_pop_reg_end_SYM CCE_KEEP_POP_REG_END
CCE_KEEP_LABEL (cce_keep_first)
CCE_KEEP_LABEL (cce_keep_last)
CCE_KEEP_LABEL (cce_keep_push_done)
CCE_KEEP_LABEL (cce_keep_push_end)
CCE_KEEP_LABEL (cce_keep_pop_done)
CCE_KEEP_LABEL (cce_keep_pop_end)
CCE_KEEP_LABEL (cce_keep_push_reg_done)
CCE_KEEP_LABEL (cce_keep_push_reg_end)
CCE_KEEP_LABEL (cce_keep_pop_reg_done)
CCE_KEEP_LABEL (cce_keep_pop_reg_end)

/* The PC word for a thread stopped in a register-keeping entry point, at
   IP, that the main program's code at RET (its return address) reached:
   the entry point is part of that code, not a function of its own.
   Until the push or pop commits, the thread is at the jump there (the
   state of the instructions before the return address, RET - 1); once
   it has, at RET.  A grow changes nothing the records read (it blocks
   signals while it moves the ccStack): at the jump too.  */
static uint64_t
cce_pc_keep (uintptr_t ip, uintptr_t ret)
{
#define CCE_IN(from, to) (ip >= (uintptr_t) from && ip < (uintptr_t) to)
  int done = CCE_IN (cce_keep_push_done, cce_keep_push_end)
             || CCE_IN (cce_keep_pop_done, cce_keep_pop_end)
             || CCE_IN (cce_keep_push_reg_done, cce_keep_push_reg_end)
             || CCE_IN (cce_keep_pop_reg_done, cce_keep_pop_reg_end);
#undef CCE_IN
  return cce_pc_word (done ? ret : ret - 1);
}

/* Is IP in the register-keeping entry points?  */
static int
cce_pc_in_keep (uintptr_t ip)
{
  return ip >= (uintptr_t) cce_keep_first && ip < (uintptr_t) cce_keep_last;
}
#endif

static _Unwind_Reason_Code
cce_walk_frame (struct _Unwind_Context *c, void *arg)
{
  struct cce_walk *w = arg;
  int signal_frame = 0;
  uintptr_t ip = _Unwind_GetIPInfo (c, &signal_frame);

  if (++w->frames > CCE_PC_WALK_FRAMES)
    return _URC_END_OF_STACK;
  if (!w->past)
    {
      /* The handler's own frames, up to the interrupted one.  */
      if (signal_frame && ip == w->pc)
        {
          w->past = 1;
          w->last = ip;
        }
      return _URC_NO_REASON;
    }
  if (signal_frame)
    return _URC_END_OF_STACK;   /* another signal below: give up */
  uint64_t word = cce_pc_word (ip);
  if (word == CCE_PC_EXTERNAL)
    {
      w->last = ip;
      return _URC_NO_REASON;
    }
#if CCE_HAVE_KEEP
  w->reg = (uint64_t) _Unwind_GetGR (c, CCE_IDREG_DWARF);
  if (cce_pc_in_keep (w->last))
    {
      w->word = cce_pc_keep (w->last, ip);
      return _URC_END_OF_STACK;
    }
#endif
  w->word = word | CCE_PC_CALLER;
  return _URC_END_OF_STACK;
}

/* The PC word of the first call from the main program found by
   unwinding: from the frame the signal interrupted at PC, or with PC 0
   from the caller's frame.  CCE_PC_EXTERNAL if there is none, or another
   signal frame comes first.  */
static uint64_t
cce_pc_walk (uintptr_t pc, uint64_t *reg)
{
  struct cce_thread *t = &cce_self;
  static __thread struct cce_walk w CCE_TLS;

  if (!cce_pc.key || t->unwinding)
    return CCE_PC_EXTERNAL;
  w.pc = pc;
  w.past = pc == 0;
  w.frames = 0;
  w.last = 0;
  w.word = CCE_PC_EXTERNAL;
  w.reg = 0;
  t->unwinding = 1;
  cce_barrier ();
  if (sigsetjmp (t->unwind_jb, 0) == 0)
    _Unwind_Backtrace (cce_walk_frame, &w);
  cce_barrier ();
  t->unwinding = 0;
  *reg = w.reg;
  return w.word;
}

/* The id's register in CONTEXT (0 where there is none).  */
static uint64_t
cce_context_reg (const void *context)
{
#if CCE_HAVE_KEEP
  const ucontext_t *uc = context;
  return uc ? (uint64_t) uc->uc_mcontext.gregs[REG_R15] : 0;
#else
  (void) context;
  return 0;
#endif
}

uint64_t
cce_context_word (const void *context, uint64_t *id)
{
  uintptr_t pc = cce_context_pc (context);
  uint64_t word = cce_pc_word (pc);
  uint64_t reg = cce_context_reg (context);
  if (word == CCE_PC_EXTERNAL && pc)
    word = cce_pc_walk (pc, &reg);
  *id = cce_program_id (reg);
  return word;
}

uint64_t
cce_caller_word (uint64_t *id)
{
  uint64_t reg;
  uint64_t word = cce_pc_walk (0, &reg);
  *id = cce_program_id (reg);
  return word;
}
