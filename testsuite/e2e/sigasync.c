/* sigasync.c -- a SIGALRM handler that logs while a call-heavy loop runs
   (recursion, calls through pointers, direct calls with id updates), plus
   a SIGUSR1 handler reached synchronously through kill (getpid ()).

   The alarm can land anywhere, in the middle of an id update too.  The
   program must never crash, its own records must decode exactly as
   without the timer, and every alarm record must decode as its
   handler's exact part below the interrupted context, placed or marked
   incomplete.  With CCE_TEST_NO_TIMER set the timer is not armed (the
   oracle run).  */

#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>
#include <cce.h>

static volatile unsigned sink;
static volatile int alarms;

__attribute__ ((noinline)) static void
note (unsigned tag)
{
  cce_log (tag);
}

static void
on_alarm (int sig)
{
  (void) sig;
  alarms++;
  note (100);
}

static void
on_usr1 (int sig)
{
  (void) sig;
  note (200);
}

__attribute__ ((noinline)) static unsigned
fib (unsigned n)
{
  if (n < 2)
    return n;
  return fib (n - 1) + fib (n - 2);
}

__attribute__ ((noinline)) static void op_a (unsigned x) { sink += x; }
__attribute__ ((noinline)) static void op_b (unsigned x) { sink ^= x * 3; }
static void (*volatile ops[2]) (unsigned) = { op_a, op_b };

__attribute__ ((noinline)) static void
leaf (unsigned i)
{
  if (i % 5000 == 0)
    note (1);
}

__attribute__ ((noinline)) static void
mid (unsigned i)
{
  leaf (i);
  if (i & 1)
    leaf (i + 1);
  ops[i & 1] (i);
}

__attribute__ ((noinline)) static void
deep_kill (int n)
{
  if (n == 0)
    {
      kill (getpid (), SIGUSR1);
      return;
    }
  deep_kill (n - 1);
  sink++;
}

int
main (void)
{
  struct sigaction sa = { 0 };
  unsigned i, round;

  sa.sa_handler = on_alarm;
  sigaction (SIGALRM, &sa, 0);
  signal (SIGUSR1, on_usr1);
  if (!getenv ("CCE_TEST_NO_TIMER"))
    {
      struct itimerval t = { { 0, 200 }, { 0, 200 } };
      setitimer (ITIMER_REAL, &t, 0);
    }
  for (round = 0; round < 40; round++)
    {
      for (i = 0; i < 20000; i++)
        mid (i);
      sink += fib (18);
      if (round % 10 == 0)
        deep_kill (round / 10 + 1);
      note (2);
    }
  {
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer (ITIMER_REAL, &off, 0);
  }
  note (3);
  return 0;
}
