/* crash.c -- the record of a thread that dies of a signal.

   When a thread is stopped by SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
   SIGTRAP or SIGSYS, libcce's handler logs one record on that thread
   (cce-format.h, "Records of interrupted instructions"): tag
   CCE_TAG_SIGNAL + the signal's number, the PC word of the interrupted
   instruction as its site, and the thread's id and ccStack as they were
   there: the handler pushes nothing before it logs.  Then it does what the
   program chose for the signal (signal.c keeps libcce's handler at the
   kernel and records the program's choice): it runs the program's
   handler, or takes the default action, so that the process ends exactly
   as it would have without libcce (status, core dump, signal).  A
   program handler that returns or jumps away saves the thread; its record
   is in the log all the same.

     fault in the program    libcce's handler       the program's handler
     ------------------->    logs the record   -->  or SIG_DFL: the fault
                             (on the alternate      happens again, or the
                              signal stack)         signal is sent again

   The handler runs on an alternate signal stack (SA_ONSTACK), so that a
   thread whose stack is exhausted (a runaway recursion) still gets its
   record: libcce gives one to the main thread at load time and to every
   thread that its pthread_create starts, unless the thread has one of the
   program's already, and takes it away when the thread exits.  Its memory
   comes from mmap, with a guard page below it.

   A crash inside libcce's log while the thread holds the log's lock (a
   fault in its slow path) gets no record: the handler would wait for
   that lock forever.

   CCE_CRASH=0 in the environment turns all of this off: the signals are
   then wrapped like any other (signal.c).  */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt-internal.h"

/* The bytes of an alternate signal stack libcce makes, at least: room for
   the kernel's signal frame (AT_MINSIGSTKSZ, a few KiB with the largest
   vector registers), libcce's handler (its slow path writes a line of a
   path on the stack) and the program's handler.  */
#define CCE_ALTSTACK_BYTES (64 * 1024)

/* The signals of crash records.  */
static const int cce_crash_signals[] = {
  SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS
};

/* Whether crash records are on (CCE_CRASH is not 0).  */
static int cce_crash_on;

/* The size of the alternate stacks, and of their guard page.  */
static size_t cce_altstack_bytes;
static size_t cce_page;

/* libcce's handler of the crash signals: log the record of the
   interrupted instruction, then do what the program chose.  */
static void
cce_crash_handler (int sig, siginfo_t *info, void *context)
{
  /* A fault of the unwinder (pc.c) in a handler of this thread: back to
     it, which gives up placing its instruction.  */
  if (cce_self.unwinding)
    siglongjmp (cce_self.unwind_jb, 1);
  int saved_errno = errno;
  if (!cce_self.locked)
    {
      uint64_t id;
      uint64_t word = cce_context_word (context, &id);
      cce_log_pc (CCE_TAG_SIGNAL + (unsigned) sig, word, id);
    }
  errno = saved_errno;
  cce_signal_forward (sig, info, context);
}

/* CCE_CRASH: on unless it is 0.  */
void
cce_crash_init (void)
{
  const char *env = cce_getenv ("CCE_CRASH");
  if (env && env[0] == '0' && env[1] == '\0')
    return;
  if (env && *env && !(env[0] == '1' && env[1] == '\0'))
    cce_complain ("CCE_CRASH must be 0 or 1; crash records stay on",
                  NULL, 0);
  cce_page = (size_t) getauxval (AT_PAGESZ);
  if (cce_page < 4096)
    cce_page = 4096;
  size_t bytes = CCE_ALTSTACK_BYTES;
  size_t min = (size_t) getauxval (AT_MINSIGSTKSZ);
  while (bytes < 8 * min)
    bytes *= 2;
  cce_altstack_bytes = (bytes + cce_page - 1) & ~(cce_page - 1);
  cce_crash_on = 1;
  for (size_t i = 0; i < sizeof cce_crash_signals / sizeof (int); i++)
    cce_signal_keep (cce_crash_signals[i], cce_crash_handler, 0, 0);
}

/* Give the calling thread T an alternate signal stack, unless it has one
   (the program's).  */
void
cce_crash_thread_start (struct cce_thread *t)
{
  stack_t cur, ss;
  if (!cce_crash_on || t->altstack)
    return;
  if (sigaltstack (NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
    return;
  size_t bytes = cce_page + cce_altstack_bytes;
  char *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                  -1, 0);
  if (m == MAP_FAILED)
    return;
  if (mprotect (m, cce_page, PROT_NONE) != 0)
    {
      munmap (m, bytes);
      return;
    }
  ss.ss_sp = m + cce_page;
  ss.ss_size = cce_altstack_bytes;
  ss.ss_flags = 0;
  if (sigaltstack (&ss, NULL) != 0)
    {
      munmap (m, bytes);
      return;
    }
  t->altstack = m;
  t->altstack_bytes = bytes;
}

/* Thread T exits, its signals blocked: take its alternate stack away,
   unless the program has put another in its place (then it is not in
   use), or the thread runs on it (it exits from a handler: the stack
   stays, unused).  */
void
cce_crash_thread_exit (struct cce_thread *t)
{
  stack_t cur, off;
  if (!t->altstack)
    return;
  if (sigaltstack (NULL, &cur) != 0)
    return;
  if (!(cur.ss_flags & SS_DISABLE) && cur.ss_sp == t->altstack + cce_page)
    {
      if (cur.ss_flags & SS_ONSTACK)
        return;
      off.ss_sp = NULL;
      off.ss_size = 0;
      off.ss_flags = SS_DISABLE;
      if (sigaltstack (&off, NULL) != 0)
        return;
    }
  munmap (t->altstack, t->altstack_bytes);
  t->altstack = NULL;
  t->altstack_bytes = 0;
}
