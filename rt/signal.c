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

   The program sees its own handlers: sigaction and signal return the
   handler the program installed, not the trampoline.  Handlers installed
   with sysv_signal, bsd_signal or sigset, or by code that calls the kernel
   directly, are not wrapped.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cce-abi.h"
#include "cce-format.h"

#define CCE_EXPORT __attribute__ ((visibility ("default")))

typedef int (*sigaction_fn) (int, const struct sigaction *,
                             struct sigaction *);

/* The program's handler for each signal, and whether it takes siginfo.  */
static struct
{
  _Atomic (void *) fn;
  _Atomic int siginfo;
} cce_handlers[_NSIG];

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

/* The trampoline every wrapped handler runs through.  SIG, INFO and
   CONTEXT are the kernel's.  */
static void
cce_signal_trampoline (int sig, siginfo_t *info, void *context)
{
  uint64_t id = __cce_tls[CCE_TLS_ID];
  uint64_t top = __cce_tls[CCE_TLS_TOP];
  int saved_errno = errno;
  int sync = info && (info->si_code == SI_USER || info->si_code == SI_TKILL)
             && info->si_pid == getpid ();
  void *fn = atomic_load_explicit (&cce_handlers[sig].fn,
                                   memory_order_acquire);
  int takes_info = atomic_load_explicit (&cce_handlers[sig].siginfo,
                                         memory_order_relaxed);

  errno = saved_errno;
  __cce_push_v5 (id, sync ? CCE_SITE_SIGNAL_SYNC : CCE_SITE_SIGNAL_ASYNC, 0);
  if (fn)
    {
      if (takes_info)
        ((void (*) (int, siginfo_t *, void *)) fn) (sig, info, context);
      else
        ((void (*) (int)) fn) (sig);
    }
  __cce_tls[CCE_TLS_TOP] = top;
  __cce_tls[CCE_TLS_ID] = id;
}

/* The program's view of the kernel's action OLD: the trampoline stands for
   the handler PREV_FN (taking siginfo if PREV_INFO).  */
static void
cce_unwrap (struct sigaction *old, void *prev_fn, int prev_info)
{
  if (!old || old->sa_sigaction != cce_signal_trampoline)
    return;
  if (prev_info)
    old->sa_sigaction = (void (*) (int, siginfo_t *, void *)) prev_fn;
  else
    {
      old->sa_flags &= ~SA_SIGINFO;
      old->sa_handler = (void (*) (int)) prev_fn;
    }
}

CCE_EXPORT int
sigaction (int sig, const struct sigaction *act, struct sigaction *old)
{
  sigaction_fn real = cce_real_sigaction ();
  struct sigaction mine;
  const struct sigaction *use = act;
  void *prev_fn = NULL, *fn = NULL;
  int prev_info = 0, info = 0, r;

  if (!real)
    {
      errno = ENOSYS;
      return -1;
    }
  if (sig <= 0 || sig >= _NSIG)
    return real (sig, act, old);
  prev_fn = atomic_load (&cce_handlers[sig].fn);
  prev_info = atomic_load (&cce_handlers[sig].siginfo);
  if (act)
    {
      info = (act->sa_flags & SA_SIGINFO) != 0;
      fn = info ? (void *) act->sa_sigaction : (void *) act->sa_handler;
      if (fn == (void *) SIG_DFL || fn == (void *) SIG_IGN)
        fn = NULL;
      else
        {
          mine = *act;
          mine.sa_sigaction = cce_signal_trampoline;
          mine.sa_flags |= SA_SIGINFO;
          use = &mine;
          /* Known before the kernel can call the trampoline for it.  */
          atomic_store (&cce_handlers[sig].siginfo, info);
          atomic_store (&cce_handlers[sig].fn, fn);
        }
    }
  r = real (sig, use, old);
  if (r != 0 && act && fn)
    {
      atomic_store (&cce_handlers[sig].fn, prev_fn);
      atomic_store (&cce_handlers[sig].siginfo, prev_info);
    }
  if (r == 0)
    cce_unwrap (old, prev_fn, prev_info);
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
