/* rt-internal.h -- what the files of libcce share: the state of a thread,
   and the helpers that are safe in a signal handler.  Not installed.  */

#ifndef CCE_RT_INTERNAL_H
#define CCE_RT_INTERNAL_H

#include <signal.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "cce-abi.h"
#include "cce-format.h"

#define CCE_EXPORT __attribute__ ((visibility ("default")))
#define CCE_HIDDEN __attribute__ ((visibility ("hidden")))
#define CCE_TLS __attribute__ ((tls_model ("initial-exec")))
#define likely(X) __builtin_expect (!!(X), 1)
#define unlikely(X) __builtin_expect (!!(X), 0)

/* Compiler barrier: what a signal handler of this thread sees is ordered
   as written.  */
#define cce_barrier() atomic_signal_fence (memory_order_seq_cst)

/* Signal nesting levels of cce_log a thread has a log window for: a
   handler that interrupts cce_log logs at the next level (log.c).  */
#define CCE_LOG_LEVELS 4

/* Where one level of a thread writes its records: a span of the log file
   mapped shared, or a scratch mapping when the log is /dev/null.  Records
   go at NEXT while NEXT + size <= LIMIT; a LIMIT of NULL means none.  */
struct cce_window
{
  char *next;
  char *limit;
  char *base;                   /* the mapping, BYTES long; NULL if none */
  size_t bytes;
  size_t chunks;                /* chunks of the last span (log.c) */
};

/* The state of one thread besides __cce_tls.  Zero at thread start.  */
struct cce_thread
{
  /* The log (log.c).  */
  unsigned level;               /* cce_log calls in progress on the
                                   thread: the level of the next one */
  uint32_t number;              /* thread number, 0 = none yet */
  struct cce_window win[CCE_LOG_LEVELS];
  /* CCE_MODE=aggregate (log.c): the thread's table, NULL until its first
     event, and the window of its last span, where new entries go.  */
  struct cce_table *table;
  struct cce_window tabwin;

  /* The ccStack (runtime.c).  */
  struct cce_log_frame *region; /* the reservation, or NULL; the ccStack
                                   is at its start */
  size_t reserved;              /* entries REGION has address space for */
  size_t committed;             /* entries of REGION that are read-write */
  int slow;                     /* every push grows: the thread's code may
                                   hold a TOP of 0 (cce-abi.h) */

  /* The log's lock (log.c): set while the thread holds it, so that a
     crash handler of the thread does not wait for it.  */
  int locked;

  /* The alternate signal stack libcce made for the thread (crash.c), or
     NULL: the mapping, guard page included.  */
  char *altstack;
  size_t altstack_bytes;

  /* The sampler (sample.c): the thread's CPU-time timer, valid while
     SAMPLING is set.  */
  int sampling;
  void *timer;

  /* PC words (pc.c): set while the thread unwinds to the main program
     in a handler; a crash signal then jumps back to UNWIND_JB.  */
  volatile int unwinding;
  sigjmp_buf unwind_jb;

  /* The heap profile (heap.c): set while the thread is in libcce's
     allocator code, whose own allocations are then not profiled; the
     thread's table of contexts; the bytes until its next sample
     (CCE_HEAP_SAMPLE) and its random state; and the bytes it allocated
     minus those it freed since it last added them to the process's.  */
  int heap_busy;
  struct cce_heap_table *heap;
  int64_t heap_left;
  uint64_t heap_rand;
  int64_t heap_delta;
};

extern __thread struct cce_thread cce_self CCE_TLS CCE_HIDDEN;

/* The process's id, set at load time and in a fork child (0 before
   libcce's constructor ran).  A vfork child, which shares libcce's
   memory with its parent until it execs, has another.  */
extern pid_t cce_pid CCE_HIDDEN;

/* Have the calling thread T's memory freed when it exits (runtime.c):
   its log windows and its ccStack.  */
CCE_HIDDEN void cce_thread_register (struct cce_thread *t);

/* The calling thread's ccStack, where none of its code can yet hold a TOP
   of 0, with its room published for inline pushes (runtime.c): its
   bottom, the TOP of an empty ccStack.  */
CCE_HIDDEN struct cce_log_frame *cce_stack_start (void);

/* Async-signal-safe helpers (runtime.c).  */
CCE_HIDDEN void cce_str_num (char **p, char *end, unsigned long n);
CCE_HIDDEN void cce_str_cat (char **p, char *end, const char *s);
CCE_HIDDEN void cce_complain (const char *what, const char *file, int err);
CCE_HIDDEN const char *cce_getenv (const char *name);

/* The log (log.c): the stamp of the program's dictionary (0: none); its
   mode, from the environment (CCE_MODE, CCE_MAX_CONTEXTS); a
   record of the instruction a signal interrupted; unmap thread T's
   windows as it exits; and the fork handlers, called by runtime.c's.  */
CCE_HIDDEN uint64_t cce_dict_stamp (void);
CCE_HIDDEN void cce_log_init (void);
CCE_HIDDEN void cce_log_pc (unsigned tag, uint64_t word, uint64_t id);
/* The calling thread's ccStack: *NSTACK entries from the address
   returned (0 when it has none).  */
static inline const struct cce_log_frame *
cce_tls_stack (uint32_t *nstack)
{
  volatile uint64_t *tls = __cce_tls;
  uint64_t top, base;
  top = tls[CCE_TLS_TOP];
  base = tls[CCE_TLS_BASE];
  *nstack = (uint32_t) cce_tls_depth (top, base);
  return (const struct cce_log_frame *) (uintptr_t) base;
}

/* Write the context and counts into the table entry E (cce-format.h),
   whose SIZE is set and whose MARK is 0, then make it valid (log.c).  */
CCE_HIDDEN void cce_entry_put (struct cce_log_entry *e, unsigned tag,
                               uint64_t site, uint64_t id, uint32_t nstack,
                               const struct cce_log_frame *frames,
                               uint32_t flags, uint64_t count, uint64_t value,
                               uint64_t error, uint32_t thread);
CCE_HIDDEN void cce_log_thread_exit (struct cce_thread *t);
CCE_HIDDEN void cce_log_fork_prepare (void);
CCE_HIDDEN void cce_log_fork_parent (void);
CCE_HIDDEN void cce_log_fork_child (void);
CCE_HIDDEN int cce_log_heap_span (struct cce_thread *t, size_t chunks,
                                  size_t need, uint32_t word, char **base,
                                  size_t *bytes);

/* The heap profile (heap.c): CCE_HEAP and CCE_HEAP_SAMPLE, at load time;
   thread T exits (its table goes to the next thread).  */
CCE_HIDDEN void cce_heap_init (void);
CCE_HIDDEN void cce_heap_thread_exit (struct cce_thread *t);

/* PC words (pc.c): find the main program's executable segments, once,
   before any handler can run; the PC of the instruction a signal
   interrupted, from the handler's CONTEXT (0 if unknown); and the PC
   word of PC.  The last two are async-signal-safe.  */
CCE_HIDDEN void cce_pc_init (void);
CCE_HIDDEN uintptr_t cce_context_pc (const void *context);
CCE_HIDDEN uint64_t cce_pc_word (uintptr_t pc);
/* The PC word of the instruction the signal whose handler got CONTEXT
   interrupted: cce_pc_word of it, or outside the main program the word
   of the call that led there (CCE_PC_CALLER), or CCE_PC_EXTERNAL; and in
   *ID the id that goes with it.  */
CCE_HIDDEN uint64_t cce_context_word (const void *context, uint64_t *id);
/* The PC word, with CCE_PC_CALLER, of the main program's call that led
   to the caller of this function (found by unwinding), or
   CCE_PC_EXTERNAL; and in *ID the id that goes with it.  */
CCE_HIDDEN uint64_t cce_caller_word (uint64_t *id);

/* Does the main program keep the id in a register (cce-abi.h,
   CCE_IDREG)?  */
static inline int
cce_id_in_register (void)
{
  return &__cce_id_in_register != 0;
}
/* The id of the program's code whose id register held REG: REG, or
   in a program that keeps the id in the TLS block, that.  */
static inline uint64_t
cce_program_id (uint64_t reg)
{
  return cce_id_in_register () ? reg : __cce_tls[CCE_TLS_ID];
}
/* The DWARF number of CCE_IDREG.  */
#define CCE_IDREG_DWARF 15

/* The register-keeping entry points (keep.c) are the code from
   CCE_KEEP_FIRST to CCE_KEEP_LAST.  The commit points of their push and
   pop, for pc.c: a thread stopped in __cce_push_keep_v6 at or after
   CCE_KEEP_PUSH_DONE and before CCE_KEEP_PUSH_END has made its push (the
   store of the top is behind it), anywhere else in it not yet; the same
   for __cce_pop_entry_keep_v6 and its pop with CCE_KEEP_POP_DONE and
   CCE_KEEP_POP_END.  */
#define CCE_KEEP_FIRST "__cce_keep_first"
#define CCE_KEEP_LAST "__cce_keep_last"
#define CCE_KEEP_PUSH_DONE "__cce_push_keep_done"
#define CCE_KEEP_PUSH_END "__cce_push_keep_end"
#define CCE_KEEP_POP_DONE "__cce_pop_entry_keep_done"
#define CCE_KEEP_POP_END "__cce_pop_entry_keep_end"
/* The same for __cce_push_keep_reg_v6 and __cce_pop_entry_keep_reg_v6.  */
#define CCE_KEEP_PUSH_REG_DONE "__cce_push_keep_reg_done"
#define CCE_KEEP_PUSH_REG_END "__cce_push_keep_reg_end"
#define CCE_KEEP_POP_REG_DONE "__cce_pop_entry_keep_reg_done"
#define CCE_KEEP_POP_REG_END "__cce_pop_entry_keep_reg_end"

/* Signals libcce keeps a handler of its own for at the kernel, while the
   program's choice for them is recorded (signal.c).  cce_signal_keep
   installs HANDLER for SIG at load time, with FLAGS added to SA_SIGINFO
   and SA_ONSTACK, and keeps it there whatever the program installs,
   except SIG_IGN unless IGNORED is set (the kernel then ignores the
   signal itself); it returns 0, having done nothing, when something else
   than libcce's wrappers installed a handler for SIG already.
   cce_signal_forward does, from HANDLER, what the program chose for the
   signal: run its handler (through the trampoline), ignore it, or take
   the default action.  */
typedef void (*cce_handler_fn) (int, siginfo_t *, void *);
CCE_HIDDEN int cce_signal_keep (int sig, cce_handler_fn handler, int flags,
                                int ignored);
CCE_HIDDEN void cce_signal_forward (int sig, siginfo_t *info, void *context);

/* Crash records (crash.c) and the sampler (sample.c): set up from the
   environment at load time; give the calling thread T its alternate
   signal stack and its timer as it starts, and take them away as it
   exits; the timer of a fork child's thread.  */
CCE_HIDDEN void cce_crash_init (void);
CCE_HIDDEN void cce_crash_thread_start (struct cce_thread *t);
CCE_HIDDEN void cce_crash_thread_exit (struct cce_thread *t);
CCE_HIDDEN void cce_sample_init (void);
CCE_HIDDEN void cce_sample_thread_start (struct cce_thread *t);
CCE_HIDDEN void cce_sample_thread_exit (struct cce_thread *t);
CCE_HIDDEN void cce_sample_fork_child (struct cce_thread *t);

/* A thread starts (thread.c's start routine, and the main thread at load
   time): its alternate signal stack, its timer, and the key destructor
   that takes them away (runtime.c).  */
CCE_HIDDEN void cce_thread_start_hooks (void);

#endif /* CCE_RT_INTERNAL_H */
