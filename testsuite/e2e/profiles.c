/* profiles -- events of several kinds on several threads, for the
   profile outputs of cce-decode (profiles.sh): cce_log calls under
   inlined chains, a recursion and calls through a pointer, on three
   threads and main; a SIGALRM handler that logs on main while it spins
   (the handler's path hangs below the frame [signal]); and CPU time for
   the sampler (CCE_SAMPLE).  The argument is the milliseconds each
   thread spins.  */

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

static volatile unsigned sink;
static int spin_ms = 200;

NOINLINE static void
note (unsigned tag)
{
  cce_log (tag);
}

static inline void
inner (unsigned tag)
{
  cce_log (tag);
}

static inline void
middle (unsigned tag)
{
  inner (tag);
  sink++;
}

NOINLINE static unsigned
descend (unsigned n, unsigned tag)
{
  if (n == 0)
    {
      middle (tag);
      return 0;
    }
  unsigned r = descend (n - 1, tag);
  sink += r;
  return r + 1;
}

NOINLINE static void by_pointer_a (unsigned tag) { note (tag); }
NOINLINE static void by_pointer_b (unsigned tag) { inner (tag + 1); }
static void (*volatile ops[2]) (unsigned) = { by_pointer_a, by_pointer_b };

static double
cpu_ms (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

NOINLINE static unsigned
crunch (unsigned x)
{
  for (int i = 0; i < 1000; i++)
    x = x * 1103515245u + 12345u;
  return x;
}

NOINLINE static void
spin (void)
{
  double end = cpu_ms () + spin_ms;
  unsigned x = 1;
  while (cpu_ms () < end)
    x = crunch (x);
  sink += x;
}

static void *
worker (void *arg)
{
  unsigned id = (unsigned) (size_t) arg;
  for (unsigned i = 0; i < 3 + id; i++)
    {
      middle (10 + id);
      descend (i % 3, 20 + id);
      ops[i % 2] (30);
    }
  spin ();
  note (40 + id);
  return NULL;
}

static void
on_alarm (int sig)
{
  (void) sig;
  note (50);
}

int
main (int argc, char **argv)
{
  pthread_t t[3];
  struct itimerval it;

  if (argc > 1)
    spin_ms = atoi (argv[1]);
  for (unsigned i = 0; i < 3; i++)
    if (pthread_create (&t[i], NULL, worker, (void *) (size_t) (i + 1)) != 0)
      {
        perror ("pthread_create");
        return 1;
      }
  for (unsigned i = 0; i < 3; i++)
    pthread_join (t[i], NULL);

  signal (SIGALRM, on_alarm);
  memset (&it, 0, sizeof it);
  it.it_interval.tv_usec = 5000;
  it.it_value.tv_usec = 5000;
  setitimer (ITIMER_REAL, &it, NULL);
  middle (1);
  descend (4, 2);
  spin ();
  memset (&it, 0, sizeof it);
  setitimer (ITIMER_REAL, &it, NULL);
  note (3);
  return 0;
}
