/* cce-abi.h -- the one declaration of the ABI between the cce plugin and
   the libcce runtime.

   The plugin (C++, inside lto1) includes this file for the *names* of the
   symbols it references; the runtime (C) includes it with CCE_RUNTIME
   defined and gets the declarations.  Nothing else in the tree spells these
   names.

   The ABI version is part of every function symbol, so a program
   instrumented by one plugin and linked against a runtime of another ABI
   fails at link time instead of producing wrong contexts at run time.

   What instrumented code does (the plugin inserts this; ID is a register
   copy of __cce_id loaded once at function entry):

     direct edge, addition value AV != 0:
         __cce_id = ID + AV;  callee ();  __cce_id = ID;
     direct edge, AV == 0:
         callee ();                               (no code at all)
     ccStack edge (back edge, overflow cut, indirect call, or a call to
     code outside the program that may call back into it):
         __cce_push (ID, SITE, ENTRY);  callee ();  __cce_pop (ID);
       where ENTRY is the id the callee starts its segment with: the
       callee's root value for a back edge, 0 for an indirect or external
       call (every function that can be entered that way reserves id 0 for
       "segment start").
     noreturn callee: only the "before" half.
     cce_log (TAG) in instrumented code is rewritten to
         __cce_log_at (TAG, SITE)
     so that the decoder knows the exact call site, inlined frames
     included.  */

#ifndef CCE_ABI_H
#define CCE_ABI_H

#define CCE_ABI_VERSION 1

/* __thread uint64_t __cce_id;  initial-exec TLS, defined in libcce.
   The context number of the function currently running, relative to the
   segment that starts at the top of the ccStack.  */
#define CCE_SYM_ID "__cce_id"

/* void __cce_push_v1 (uint64_t id, uint64_t site, uint64_t entry);
   Push (ID, SITE) on the calling thread's ccStack and set __cce_id = ENTRY.
   nothrow, leaf.  */
#define CCE_SYM_PUSH "__cce_push_v1"

/* void __cce_pop_v1 (uint64_t id);
   Drop the top ccStack entry and set __cce_id = ID.  nothrow, leaf.  */
#define CCE_SYM_POP "__cce_pop_v1"

/* void __cce_log_at_v1 (unsigned tag, uint64_t site);
   cce_log (TAG) as seen from the log call site SITE.  nothrow, leaf.  */
#define CCE_SYM_LOG_AT "__cce_log_at_v1"

/* The public logging function the plugin recognises and rewrites.  */
#define CCE_SYM_LOG "cce_log"

/* const char __cce_dict[];  the decoding dictionary the plugin emits into
   the program (see cce-format.h), in section CCE_DICT_SECTION.  libcce
   holds a weak reference to it to read the stamp it writes into logs.  */
#define CCE_SYM_DICT "__cce_dict"
#define CCE_DICT_SECTION "cce_dict"

/* Site number meaning "unknown call site" (cce_log called from code that
   was not instrumented).  */
#define CCE_SITE_NONE UINT64_C (0xffffffffffffffff)

#if defined CCE_RUNTIME
#include <stdint.h>
extern __thread uint64_t __cce_id __attribute__ ((tls_model ("initial-exec")));
void __cce_push_v1 (uint64_t id, uint64_t site, uint64_t entry);
void __cce_pop_v1 (uint64_t id);
void __cce_log_at_v1 (unsigned tag, uint64_t site);
extern const char __cce_dict[] __attribute__ ((weak));
#endif

#endif /* CCE_ABI_H */
