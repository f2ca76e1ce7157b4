/* sigsync.c -- signal handlers run synchronously, by raise and by
   kill (getpid (), SIG), from several contexts at different depths.  The
   handlers log and call functions that log; one handler raises another
   signal from inside a function it calls.  Each path goes through one
   external frame named by the libc function that sent the signal
   (..;raise;on_usr1 or ..;kill;on_usr1): the libc frames and the signal
   trampoline in between are external.  */
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

static volatile int sink;
static volatile unsigned depth_tag;

NOINLINE static void
note (unsigned tag)
{
  cce_log (tag);
  sink++;
}

NOINLINE static void
in_handler (unsigned tag)
{
  note (tag);
  sink++;
}

static void
on_usr2 (int sig)
{
  (void) sig;
  cce_log (200 + depth_tag);
  in_handler (250 + depth_tag);
}

NOINLINE static void
resignal (void)
{
  cce_log (300);
  raise (SIGUSR2);
  note (301);
}

static void
on_usr1 (int sig)
{
  (void) sig;
  cce_log (100 + depth_tag);
  in_handler (150 + depth_tag);
  if (depth_tag == 3)
    resignal ();
}

/* SA_SIGINFO handler.  */
static void
on_alrm (int sig, siginfo_t *si, void *uc)
{
  (void) sig;
  (void) uc;
  note (si->si_pid == getpid () ? 400 + depth_tag : 499);
}

NOINLINE static void
by_raise (unsigned d, int sig)
{
  depth_tag = d;
  raise (sig);
  sink++;
}

NOINLINE static void
by_kill (unsigned d, int sig)
{
  depth_tag = d;
  kill (getpid (), sig);
  sink++;
}

NOINLINE static void
level (int n, unsigned d)
{
  if (n > 0)
    {
      level (n - 1, d);
      sink++;
      return;
    }
  by_raise (d, SIGUSR1);
  by_kill (d + 1, SIGUSR2);
}

NOINLINE static void
setup (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sigemptyset (&sa.sa_mask);
  sa.sa_handler = on_usr1;
  sigaction (SIGUSR1, &sa, 0);
  sa.sa_handler = on_usr2;
  sigaction (SIGUSR2, &sa, 0);
  sa.sa_flags = SA_SIGINFO;
  sa.sa_sigaction = on_alrm;
  sigaction (SIGALRM, &sa, 0);
}

int
main (void)
{
  setup ();
  cce_log (1);
  raise (SIGUSR1);              /* depth 0 from main */
  by_raise (1, SIGUSR1);
  by_kill (2, SIGUSR1);
  by_raise (3, SIGUSR1);        /* on_usr1 -> resignal -> on_usr2 */
  level (3, 5);
  level (6, 7);
  by_kill (8, SIGALRM);
  by_raise (9, SIGALRM);
  note (2);
  return 0;
}
