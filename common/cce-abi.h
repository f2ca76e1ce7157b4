/* cce-abi.h -- the one declaration of the ABI between the cce plugin and
   the libcce runtime.

   The plugin (C++, inside lto1) includes this file for the *names* of the
   symbols it references; the runtime (C) includes it with CCE_RUNTIME
   defined and gets the declarations.  Nothing else in the tree spells these
   names.

   The ABI version is part of every function symbol, so a program
   instrumented by one plugin and linked against a runtime of another ABI
   fails at link time instead of producing wrong contexts at run time.

   What instrumented code does (the plugin inserts this; ID and TOP are
   register copies of __cce_tls[CCE_TLS_ID] and [CCE_TLS_TOP], loaded in
   the function before its first use and before any call that may change
   them).  Every call leaves TOP as it found it.  A function that code
   outside the program can enter (an ENTRY node of the dictionary: main,
   a function whose address is taken or that is exported) returns with
   the id it found, too, and so does a function GCC takes for const or
   pure; any other function may return with another id
   in the TLS (the one its last call stored), and its callers restore ID
   where they read it again (the "tls[ID] = ID" restores below are left
   out where nothing reads the id before it is stored again, and one is
   added after a call with no code whose callee may return so):

     direct edge, addition value AV != 0:
         tls[ID] = ID + AV;  callee ();  tls[ID] = ID;
     direct edge, AV == 0:
         callee ();                               (no code at all)
     ccStack edge (back edge, overflow cut, indirect call, or a call to
     code outside the program that may call back into it):
         t = TOP;
         if (t >= tls[LIMIT])                     (unsigned)
           t = __cce_grow (t);                    (cold)
         tls[TOP] = t + 1;
         t->id = ID;  t->site = SITE;
         tls[ID] = ENTRY;
         callee ();
         tls[TOP] = TOP;  tls[ID] = ID;
       where t is a struct cce_log_frame * (cce-format.h) and ENTRY is the
       id the callee starts its segment with: the callee's root value for
       a back edge, 0 for an indirect or external call (every function
       that can be entered that way reserves id 0 for "segment start").
       The stores are volatile, in this order: the slot is reserved before
       it is written.
     back edge of recursion folded into the id (cce-format.h, 'r'
     lines: the callee has NUMCC contexts, K folded back edges, fold limit
     LIM, and this one is number J):
         tls[ID] = ID * K + NUMCC + J;
         if (ID >= LIM)                           (cold)
           __cce_push (ID, SITE, ENTRY);
         callee ();
         if (ID >= LIM)                           (cold)
           __cce_pop (ID);
         tls[ID] = ID;
       or, where the call does not end its block (no exception edge),
         tls[ID] = ID * K + NUMCC + J;
         if (ID >= LIM)                           (cold)
           { __cce_push (ID, SITE, ENTRY); callee (); __cce_pop (ID); }
         else
           callee ();
         tls[ID] = ID;
       so that nothing on the hot path needs ID after the call (the cold
       pop is __cce_pop_entry_keep, which takes it from the entry).
     On x86-64 the cold __cce_grow, __cce_push and __cce_pop above are
     the register-keeping __cce_*_keep entry points below.
     noreturn callee: only the "before" half (a folded back edge that is
     noreturn takes the plain out-of-line push).
     SITE is always a site word (cce-format.h): the module key of the
     dictionary in the high half, so that an executable and the shared
     libraries built with cce share one ccStack.
     cce_log (TAG) in instrumented code is rewritten to
         __cce_log_at (TAG, SITE)
     and cce_count (TAG, VALUE) to
         __cce_count_at (TAG, VALUE, SITE)
     so that the decoder knows the exact call site, inlined frames
     included.

   TOP is 0 (an empty ccStack) until the thread's first grow, and may be
   0 again where a function restores a TOP it loaded before that grow: 0
   always means "empty", the same as BASE.  So LIMIT stays 0, and every
   push grows, in a thread whose code may still hold a TOP of 0: one
   whose code ran before libcce gave it a ccStack (libcce does at load
   time for the main thread, and before the start routine for a thread
   that its pthread_create starts; a thread made otherwise, or one whose
   ccStack was freed at its exit, keeps the grow call).  Entries never
   move once written (the ccStack grows in place, inside one
   reservation), so a TOP kept in a register stays valid.  */

#ifndef CCE_ABI_H
#define CCE_ABI_H

#define CCE_ABI_VERSION 6

/* __thread uint64_t __cce_tls[CCE_TLS_WORDS];  defined (weak) in libcce
   and accessed there as initial-exec TLS.  An executable built with cce
   defines it too, 32-byte aligned, and accesses it as local-exec TLS (a
   fixed offset from the thread pointer); the linker exports that
   definition, and the dynamic linker binds libcce's references and those
   of shared objects built with cce (initial-exec) to it.  One block, so
   that a function needs one TLS address.  */
#define CCE_SYM_TLS "__cce_tls"
#define CCE_TLS_ID 0      /* context number of the running function,
                             relative to the segment that starts at the top
                             of the ccStack */
#define CCE_TLS_TOP 1     /* struct cce_log_frame *: the first free
                             entry of the ccStack, or 0 when it is empty */
#define CCE_TLS_LIMIT 2   /* struct cce_log_frame *: the end of the room
                             for entries (a TOP at or above it grows), 0
                             where every push must grow (above) */
#define CCE_TLS_BASE 3    /* struct cce_log_frame *: the ccStack, bottom
                             first (cce-format.h) */
#define CCE_TLS_WORDS 4

/* struct cce_log_frame *__cce_grow_v6 (struct cce_log_frame *t);
   (declared with uint64_t for T and the result.)  Make room for an entry
   at T, the TOP the caller loaded (0: an empty ccStack), and return where
   that entry goes: T, or BASE for 0.  Entries never move.  Aborts with a
   message when memory or the reservation is exhausted.  nothrow, leaf.  */
#define CCE_SYM_GROW "__cce_grow_v6"

/* void __cce_push_v6 (uint64_t id, uint64_t site, uint64_t entry);
void __cce_push_counted_v6 (uint64_t id, uint64_t site, uint64_t entry);
   void __cce_pop_v6 (uint64_t id);
   The ccStack edge code above as functions, for code that is not
   instrumented by the plugin (tests, hand-written glue).  */
#define CCE_SYM_PUSH "__cce_push_v6"

/* void __cce_push_counted_v6 (uint64_t id, uint64_t site, uint64_t entry);
   __cce_push_v6, counted: with -fplugin-arg-cce-count every ccStack push
   goes through it, and the runtime reports the count at exit to the file
   $CCE_STATS names.  */
#define CCE_SYM_PUSH_COUNTED "__cce_push_counted_v6"
#define CCE_SYM_POP "__cce_pop_v6"

/* The same three for the cold paths of instrumented code, on x86-64,
   where they keep every register but r10 and r11: the plugin reaches
   them through the GOT from inline asm that clobbers only memory, the
   flags, r10 and r11, so that values live across a cold push, pop or
   grow need no callee-saved register on the hot path.
     __cce_push_keep_v6:  rdi = id, r10 = the address of two words, the
                          site and the entry (the plugin puts them in
                          .rodata)
     __cce_pop_keep_v6:   rdi = id
     __cce_pop_entry_keep_v6: no argument; the pop of an entry this
                          caller pushed, which restores the id from the
                          entry itself, so that the caller need not keep
                          its id across the call in between
     __cce_grow_keep_v6:  rdi = t; the slot in rax
   The grow saves the vector registers too (xsave), since it calls into
   libc.  GCC does not see the transfer: the function that makes it may
   be a leaf that keeps data in the red zone below its stack pointer, and
   its CFA may be rsp- or rbp-based.  So the caller's instructions leave
   rsp and rbp alone and store nothing; it jumps with the return address
   in r11:
     leaq 1f(%rip), %r11; jmp *NAME@GOTPCREL(%rip); 1:
   and the entry point steps over the red zone (CCE_KEEP_SKIP bytes)
   before it stores anything, and returns with jmp *%r11 once rsp is
   back.  Their call frame information gives the CFA as rsp + 0 and the
   return address in r11 at entry, and where each saves what from there
   on, so that an unwinder that stops at any instruction of the caller or
   of the entry point finds the caller's frame.  Defined in rt/keep.c.  */
#define CCE_SYM_PUSH_KEEP "__cce_push_keep_v6"
#define CCE_SYM_POP_KEEP "__cce_pop_keep_v6"
#define CCE_SYM_POP_ENTRY_KEEP "__cce_pop_entry_keep_v6"
#define CCE_SYM_GROW_KEEP "__cce_grow_keep_v6"
/* With the id in a register (CCE_IDREG, below), the push and the pop
   whose callee and caller keep it there: the push sets the register to
   the entry instead of the TLS word, after its commit; the pop sets it
   to the dropped entry's id, before its commit.  */
#define CCE_SYM_PUSH_KEEP_REG "__cce_push_keep_reg_v6"
#define CCE_SYM_POP_ENTRY_KEEP_REG "__cce_pop_entry_keep_reg_v6"
#define CCE_KEEP_SKIP 128
#if defined __x86_64__ && defined __ELF__
#define CCE_HAVE_KEEP 1
#else
#define CCE_HAVE_KEEP 0
#endif

/* void __cce_log_at_v6 (unsigned tag, uint64_t site);
void __cce_log_id_v6 (unsigned tag, uint64_t site, uint64_t id);
void __cce_count_id_v6 (unsigned tag, uint64_t value, uint64_t site,
                        uint64_t id);
void __cce_count_at_v6 (unsigned tag, uint64_t value, uint64_t site);
   cce_log (TAG) as seen from the log call site SITE.  nothrow, leaf.  */
#define CCE_SYM_LOG_AT "__cce_log_at_v6"

/* void __cce_count_at_v6 (unsigned tag, uint64_t value, uint64_t site);
   cce_count (TAG, VALUE) as seen from the log call site SITE.  nothrow,
   leaf.  */
#define CCE_SYM_COUNT_AT "__cce_count_at_v6"

/* void __cce_log_id_v6 (unsigned tag, uint64_t site, uint64_t id);
   void __cce_count_id_v6 (unsigned tag, uint64_t value, uint64_t site,
                           uint64_t id);
   The same with the id given, for code that keeps it in CCE_IDREG.  */
#define CCE_SYM_LOG_ID "__cce_log_id_v6"
#define CCE_SYM_COUNT_ID "__cce_count_id_v6"

/* The id in a register (-fplugin-arg-cce-idreg, x86-64).  Instrumented
   code then keeps the id of the code
   described above in register CCE_IDREG instead of tls[ID], which it
   reserves (no code of the program allocates it), and the TLS word is
   the id only where code enters a function from outside:
     - a function that code outside the program can call (an ENTRY node)
       starts with  OUTER = r15; ID = tls[ID]; r15 = ID  and returns with
         tls[ID] = ID; r15 = OUTER
       so that its callers' register survives (code outside the program
       saves the register as callee-saved) and a caller outside finds
       the TLS id as it left it;
     - a call of an ENTRY node, and the push before an indirect call or
       a call out of the program, store the callee's id in tls[ID], as
       above; any other call sets the register;
     - the runtime takes the id of a log site as an argument
       (__cce_log_id), and reads the register of the interrupted or
       calling program code where it needs the id otherwise.
   An executable that keeps the id there defines CCE_SYM_IDREG_MARK
   (const char), to which libcce holds a weak reference.  */
#define CCE_IDREG "r15"
#define CCE_SYM_IDREG_MARK "__cce_id_in_register"

/* With the id in a register, an ENTRY node that the program also calls
   directly has two entry points: its body (symbol SYM.cce, hidden),
   which takes its id in the register, and at its symbol SYM, which is
   its address, a stub that does what the first item above says around
   a call of the body:
     push r15; r15 = tls[ID]; call SYM.cce; tls[ID] = <the id loaded>;
     pop r15
   The stubs are in section CCE_STUB_SECTION: their instructions are in
   no function of the PC map.  */
#define CCE_STUB_SECTION "cce_stubs"

/* The public logging functions the plugin recognises and rewrites:
   cce_log (TAG) into __cce_log_at, cce_count (TAG, VALUE) into
   __cce_count_at; each call is a log site.  */
#define CCE_SYM_LOG "cce_log"
#define CCE_SYM_COUNT "cce_count"

/* const char __cce_dict[];  the decoding dictionary the plugin emits into
   the program (see cce-format.h), in section CCE_DICT_SECTION.  libcce
   holds a weak reference to it to read the stamp it writes into logs.  */
#define CCE_SYM_DICT "__cce_dict"
#define CCE_DICT_SECTION "cce_dict"

/* A program linked in several LTRANS partitions has one dictionary per
   partition, all in section CCE_DICT_SECTION: the first partition's is
   __cce_dict, the others' are local variables of this name.  */
#define CCE_SYM_DICT_PART "__cce_dict_part"

/* Site word meaning "unknown call site" (cce_log called from code that
   was not instrumented).  */
#define CCE_SITE_NONE UINT64_C (0xffffffffffffffff)

/* ccStack sites of signal delivery, pushed by libcce's handler trampoline
   with the interrupted id; the handler then runs with id 0.  SYNC: the
   signal was sent by this process to itself (SI_USER or SI_TKILL from our
   pid), so it arrived inside the libc call that sent it; ASYNC: anything
   else, the interrupted point is unknown.  */
#define CCE_SITE_SIGNAL_SYNC UINT64_C (0xfffffffffffffffe)
#define CCE_SITE_SIGNAL_ASYNC UINT64_C (0xfffffffffffffffd)
/* For an asynchronous signal the trampoline pushes, instead of (id,
   CCE_SITE_SIGNAL_ASYNC), the interrupted id with the PC word of the
   interrupted instruction (cce-format.h) when it can place it in a
   module with a dictionary.  */

/* Site word of an interrupted instruction the runtime cannot place in a
   module with a dictionary (cce-format.h, PC words).  */
#define CCE_PC_EXTERNAL UINT64_C (0xfffffffffffffffb)

/* ccStack site of thread creation.  libcce's pthread_create starts the new
   thread with the creating thread's ccStack at the call (its top entry is
   the pthread_create call site) and this entry on top; the start routine
   then runs with id 0.  A thread's records so carry where it was made.  */
#define CCE_SITE_THREAD UINT64_C (0xfffffffffffffffc)

#if defined CCE_RUNTIME
#include <stdint.h>
extern __thread uint64_t __cce_tls[CCE_TLS_WORDS]
  __attribute__ ((tls_model ("initial-exec")));
uint64_t __cce_grow_v6 (uint64_t t);
void __cce_push_v6 (uint64_t id, uint64_t site, uint64_t entry);
void __cce_push_counted_v6 (uint64_t id, uint64_t site, uint64_t entry);
void __cce_pop_v6 (uint64_t id);
void __cce_log_at_v6 (unsigned tag, uint64_t site);
void __cce_log_id_v6 (unsigned tag, uint64_t site, uint64_t id);
void __cce_count_id_v6 (unsigned tag, uint64_t value, uint64_t site,
                        uint64_t id);

/* The ccStack entries in use, from the words TOP and BASE of a thread's
   block (a TOP of 0 is an empty ccStack; an entry is 16 bytes).  */
static inline uint64_t
cce_tls_depth (uint64_t top, uint64_t base)
{
  return top ? (top - base) / (2 * sizeof (uint64_t)) : 0;
}
extern const char __cce_dict[] __attribute__ ((weak));
extern const char __cce_id_in_register __attribute__ ((weak));
#endif

#endif /* CCE_ABI_H */
