/* signal.c -- exact handler contexts for signals.

   A signal handler can run anywhere, on top of whatever id and ccStack the
   interrupted code had, possibly in the middle of an id update.  libcce
   therefore puts itself between the program and the kernel: its sigaction
   and signal install a trampoline, which

     1. pushes (interrupted id, CCE_SITE_SIGNAL_SYNC or _ASYNC) on the
        ccStack and enters the handler with id 0 (a handler is an entry
        function: id 0 is its segment start);
     2. calls the program's handler;
     3. restores the interrupted top and id, so the interrupted code goes
        on exactly as before.

   The decoder continues an exact path below a SYNC entry when the thread
   was provably inside the libc call that sent the signal (raise, kill,
   ...); otherwise the handler's part of the path is exact and the part
   below it is reported as incomplete.

   For an asynchronous signal, the entry pushed in step 1 carries the PC
   word of the interrupted instruction (pc.c) instead of _ASYNC when the
   instruction is in the main program.

   Kept signals.  For the signals of crash records (crash.c) and the
   sampler's SIGPROF (sample.c), libcce keeps a handler of its own at the
   kernel whatever the program installs: the wrappers record the
   program's choice (its handler, SIG_DFL or SIG_IGN, its flags) and
   install libcce's handler with the program's mask and flags, plus
   SA_SIGINFO and SA_ONSTACK.  libcce's handler does its work and then
   what the program chose (cce_signal_forward): it runs the program's
   handler through the trampoline, ignores the signal, or takes the
   default action with the kernel's own SIG_DFL, so that the process ends
   as it would have without libcce.  A crash signal the program ignores
   is ignored by the kernel itself.

   The program sees its own handlers: sigaction and signal return the
   handler the program installed, not the trampoline nor libcce's own,
   with the flags it gave.  Handlers installed with sysv_signal,
   bsd_signal or sigset, or by code that calls the kernel directly, are
   not wrapped.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "rt-internal.h"

typedef int (*sigaction_fn) (int, const struct sigaction *,
                             struct sigaction *);

/* The flag glibc adds to every action it gives the kernel, which the
   kernel then reports in the old action.  */
#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

/* The program's choice for each signal: its handler, SIG_DFL or SIG_IGN,
   whether the handler takes siginfo, the flags it gave, and whether it
   gave any (since libcce was loaded).  */
static struct
{
  _Atomic (void *) fn;
  _Atomic int siginfo;
  _Atomic int flags;
  _Atomic int set;
} cce_handlers[_NSIG];

/* Kept signals: libcce's handler at the kernel, the flags it adds, and
   whether it stays there when the program ignores the signal.  */
static struct
{
  _Atomic (cce_handler_fn) fn;
  _Atomic int flags;
  _Atomic int ignored;
} cce_kept[_NSIG];

static sigaction_fn
cce_real_sigaction (void)
{
  static _Atomic (sigaction_fn) real;
  sigaction_fn f = atomic_load_explicit (&real, memory_order_acquire);
  if (!f)
    {
      f = (sigaction_fn) dlsym (RTLD_NEXT, "sigaction");
      atomic_store_explicit (&real, f, memory_order_release);
    }
  return f;
}

/* Run the program's handler FN (taking siginfo if TAKES_INFO) for signal
   SIG, INFO and CONTEXT being the kernel's: push (interrupted id, the
   signal's site), enter FN with id 0, and restore the interrupted top and
   id.  */
static void
cce_signal_run (int sig, siginfo_t *info, void *context, void *fn,
                int takes_info)
{
  uint64_t id = __cce_tls[CCE_TLS_ID];
  uint64_t top = __cce_tls[CCE_TLS_TOP];
  int saved_errno = errno;
  int sync = info && (info->si_code == SI_USER || info->si_code == SI_TKILL)
             && info->si_pid == getpid ();
  uint64_t site = CCE_SITE_SIGNAL_SYNC;
  uint64_t pushed = id;

  /* A signal the process sent itself: the TLS id, which the push
     before the call that sent it set (cce-abi.h).  */
  if (!sync)
    {
      uint64_t at;
      site = cce_context_word (context, &at);
      if (site == CCE_PC_EXTERNAL)
        site = CCE_SITE_SIGNAL_ASYNC;
      else
        pushed = at;
    }
  errno = saved_errno;
  __cce_push_v6 (pushed, site, 0);
  if (takes_info)
    ((void (*) (int, siginfo_t *, void *)) fn) (sig, info, context);
  else
    ((void (*) (int)) fn) (sig);
  __cce_tls[CCE_TLS_TOP] = top;
  __cce_tls[CCE_TLS_ID] = id;
}

/* The trampoline every wrapped handler of a signal that is not kept runs
   through.  SIG, INFO and CONTEXT are the kernel's.  */
static void
cce_signal_trampoline (int sig, siginfo_t *info, void *context)
{
  void *fn = atomic_load_explicit (&cce_handlers[sig].fn,
                                   memory_order_acquire);
  int takes_info = atomic_load_explicit (&cce_handlers[sig].siginfo,
                                         memory_order_relaxed);
  if (fn != (void *) SIG_DFL && fn != (void *) SIG_IGN)
    cce_signal_run (sig, info, context, fn, takes_info);
}

/* The default action of signal SIG, from the handler that got INFO and
   CONTEXT: give the kernel SIG_DFL, and have the signal happen again.  A
   fault of the hardware does, by itself, when the handler returns to the
   instruction; any other signal is sent again to the thread, and is
   delivered (with the thread's mask less SIG) as the handler returns.  */
static void
cce_signal_default (int sig, siginfo_t *info, void *context)
{
  struct sigaction dfl;
  memset (&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset (&dfl.sa_mask);
  cce_real_sigaction () (sig, &dfl, NULL);
  if (info && info->si_code > 0
      && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE))
    return;
  if (context)
    sigdelset (&((ucontext_t *) context)->uc_sigmask, sig);
  tgkill (getpid (), gettid (), sig);
}

void
cce_signal_forward (int sig, siginfo_t *info, void *context)
{
  void *fn = atomic_load_explicit (&cce_handlers[sig].fn,
                                   memory_order_acquire);
  int takes_info = atomic_load_explicit (&cce_handlers[sig].siginfo,
                                         memory_order_relaxed);
  if (fn == (void *) SIG_IGN)
    return;
  if (fn == (void *) SIG_DFL)
    {
      int saved_errno = errno;
      cce_signal_default (sig, info, context);
      errno = saved_errno;
      return;
    }
  /* SA_RESETHAND: the kernel would have reset the action as it delivered
     the signal; libcce's handler stays, the program's choice goes back to
     SIG_DFL.  */
  int flags = atomic_load_explicit (&cce_handlers[sig].flags,
                                    memory_order_relaxed);
  if (flags & SA_RESETHAND)
    {
      atomic_store (&cce_handlers[sig].flags, flags & ~SA_RESETHAND);
      atomic_store (&cce_handlers[sig].fn, (void *) SIG_DFL);
    }
  cce_signal_run (sig, info, context, fn, takes_info);
}

/* Record the program's choice for SIG: handler FN, TAKES_INFO, FLAGS.  */
static void
cce_choice_set (int sig, void *fn, int takes_info, int flags)
{
  atomic_store (&cce_handlers[sig].siginfo, takes_info);
  atomic_store (&cce_handlers[sig].flags, flags);
  atomic_store (&cce_handlers[sig].set, 1);
  atomic_store (&cce_handlers[sig].fn, fn);
}

int
cce_signal_keep (int sig, cce_handler_fn handler, int flags, int ignored)
{
  sigaction_fn real = cce_real_sigaction ();
  struct sigaction cur, mine;
  if (!real || real (sig, NULL, &cur) != 0)
    return 0;
  void *h = (void *) cur.sa_sigaction;
  if (h != (void *) SIG_DFL && h != (void *) SIG_IGN
      && h != (void *) cce_signal_trampoline)
    return 0;
  atomic_store (&cce_kept[sig].flags, flags);
  atomic_store (&cce_kept[sig].ignored, ignored);
  atomic_store (&cce_kept[sig].fn, handler);
  if (h == (void *) SIG_IGN)
    {
      atomic_store (&cce_handlers[sig].fn, (void *) SIG_IGN);
      if (!ignored)
        return 1;
    }
  mine = cur;
  mine.sa_sigaction = handler;
  mine.sa_flags = ((cur.sa_flags & ~SA_RESTORER) | SA_SIGINFO | SA_ONSTACK
                   | flags) & ~SA_RESETHAND;
  if (real (sig, &mine, NULL) != 0)
    {
      atomic_store (&cce_kept[sig].fn, NULL);
      return 0;
    }
  return 1;
}

/* The program's view of the kernel's action OLD for SIG: the trampoline
   or libcce's handler KEPT stands for the program's choice before the
   call, PREV_FN, PREV_INFO, PREV_FLAGS (PREV_SET: it made one).  */
static void
cce_unwrap (struct sigaction *old, cce_handler_fn kept, void *prev_fn,
            int prev_info, int prev_flags, int prev_set)
{
  void *h;
  if (!old)
    return;
  h = (void *) old->sa_sigaction;
  if (kept && h == (void *) kept)
    old->sa_flags = prev_flags | (prev_set ? old->sa_flags & SA_RESTORER : 0);
  else if (h != (void *) cce_signal_trampoline)
    return;
  if (prev_fn == (void *) SIG_DFL || prev_fn == (void *) SIG_IGN
      || !prev_info)
    {
      old->sa_flags &= ~SA_SIGINFO;
      old->sa_handler = (void (*) (int)) prev_fn;
    }
  else
    old->sa_sigaction = (void (*) (int, siginfo_t *, void *)) prev_fn;
}

CCE_EXPORT int
sigaction (int sig, const struct sigaction *act, struct sigaction *old)
{
  sigaction_fn real = cce_real_sigaction ();
  struct sigaction mine;
  const struct sigaction *use = act;
  void *prev_fn, *fn = NULL;
  int prev_info, prev_flags, prev_set, info = 0, early = 0, r;
  cce_handler_fn kept;

  if (!real)
    {
      errno = ENOSYS;
      return -1;
    }
  /* A vfork child (CPython's subprocess resets the handlers before it
     execs) has the handlers of its own process, but libcce's tables are
     its parent's.  */
  if (sig <= 0 || sig >= _NSIG || (cce_pid && getpid () != cce_pid))
    return real (sig, act, old);
  kept = atomic_load (&cce_kept[sig].fn);
  prev_fn = atomic_load (&cce_handlers[sig].fn);
  prev_info = atomic_load (&cce_handlers[sig].siginfo);
  prev_flags = atomic_load (&cce_handlers[sig].flags);
  prev_set = atomic_load (&cce_handlers[sig].set);
  if (act)
    {
      info = (act->sa_flags & SA_SIGINFO) != 0;
      fn = info ? (void *) act->sa_sigaction : (void *) act->sa_handler;
      early = fn != (void *) SIG_DFL && fn != (void *) SIG_IGN;
      if (kept && (fn != (void *) SIG_IGN
                   || atomic_load (&cce_kept[sig].ignored)))
        {
          mine = *act;
          mine.sa_sigaction = kept;
          mine.sa_flags = (act->sa_flags | SA_SIGINFO | SA_ONSTACK
                           | atomic_load (&cce_kept[sig].flags))
                          & ~SA_RESETHAND;
          use = &mine;
        }
      else if (early)
        {
          mine = *act;
          mine.sa_sigaction = cce_signal_trampoline;
          mine.sa_flags |= SA_SIGINFO;
          use = &mine;
        }
      /* A handler is known before the kernel can call libcce's for it;
         SIG_DFL and SIG_IGN once the kernel has them, so that a signal
         meanwhile still runs the handler it replaces.  */
      if (early)
        cce_choice_set (sig, fn, info, act->sa_flags);
    }
  r = real (sig, use, old);
  if (act && early && r != 0)
    {
      atomic_store (&cce_handlers[sig].fn, prev_fn);
      atomic_store (&cce_handlers[sig].siginfo, prev_info);
      atomic_store (&cce_handlers[sig].flags, prev_flags);
      atomic_store (&cce_handlers[sig].set, prev_set);
    }
  else if (act && !early && r == 0)
    cce_choice_set (sig, fn, info, act->sa_flags);
  if (r == 0)
    cce_unwrap (old, kept, prev_fn, prev_info, prev_flags, prev_set);
  return r;
}

CCE_EXPORT sighandler_t
signal (int sig, sighandler_t handler)
{
  struct sigaction act, old;

  /* glibc's signal: BSD semantics.  */
  memset (&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset (&act.sa_mask);
  if (sig > 0 && sig < _NSIG)
    sigaddset (&act.sa_mask, sig);
  act.sa_flags = SA_RESTART;
  if (sigaction (sig, &act, &old) != 0)
    return SIG_ERR;
  return old.sa_handler;
}
