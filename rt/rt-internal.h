/* rt-internal.h -- what the files of libcce share: the state of a thread,
   and the helpers that are safe in a signal handler.  Not installed.  */

#ifndef CCE_RT_INTERNAL_H
#define CCE_RT_INTERNAL_H

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

  /* The ccStack (runtime.c).  */
  struct cce_log_frame *region; /* the reservation, or NULL; the ccStack
                                   is at its start */
  size_t reserved;              /* entries REGION has address space for */
  size_t committed;             /* entries of REGION that are read-write */
};

extern __thread struct cce_thread cce_self CCE_TLS CCE_HIDDEN;

/* Have the calling thread T's memory freed when it exits (runtime.c):
   its log windows and its ccStack.  */
CCE_HIDDEN void cce_thread_register (struct cce_thread *t);

/* Async-signal-safe helpers (runtime.c).  */
CCE_HIDDEN void cce_str_num (char **p, char *end, unsigned long n);
CCE_HIDDEN void cce_str_cat (char **p, char *end, const char *s);
CCE_HIDDEN void cce_complain (const char *what, const char *file, int err);
CCE_HIDDEN const char *cce_getenv (const char *name);

/* The log (log.c): unmap thread T's windows as it exits; and the fork
   handlers, called by runtime.c's.  */
CCE_HIDDEN void cce_log_thread_exit (struct cce_thread *t);
CCE_HIDDEN void cce_log_fork_prepare (void);
CCE_HIDDEN void cce_log_fork_parent (void);
CCE_HIDDEN void cce_log_fork_child (void);

#endif /* CCE_RT_INTERNAL_H */
