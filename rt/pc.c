/* pc.c -- PC words: where an interrupted instruction is.

   A record of an interrupted instruction (a crash record, a sample) and
   the ccStack entry of an asynchronous signal name the instruction by its
   PC word (cce-format.h): the module key of the dictionary of the module
   that holds it and its link-time address there,

     word = (KEY << 32) | CCE_PC_FLAG | (PC - BIAS)

   The main program's executable segments and its load bias are found
   once, at load time, before any handler of libcce can run; a handler
   then only compares.  Only the main program is placed: an instruction
   anywhere else (libc, libcce, a shared library, even one built with
   cce, whose dictionary libcce cannot reach) gives CCE_PC_EXTERNAL, and
   so does any instruction of a program without a dictionary.  */

#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
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

/* The PC word of the instruction at PC: in the main program, below 2^31
   of link-time address, or CCE_PC_EXTERNAL.  */
uint64_t
cce_pc_word (uintptr_t pc)
{
  if (!cce_pc.key)
    return CCE_PC_EXTERNAL;
  uintptr_t addr = pc - cce_pc.bias;
  if (addr >= (uintptr_t) CCE_PC_FLAG)
    return CCE_PC_EXTERNAL;
  for (unsigned i = 0; i < cce_pc.nsegs; i++)
    if (addr >= cce_pc.seg[i].start && addr < cce_pc.seg[i].end)
      return CCE_PC_WORD (cce_pc.key, addr);
  return CCE_PC_EXTERNAL;
}
