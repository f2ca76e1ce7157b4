/* sample.c -- CPU-bound threads, for sample.sh.

   sample T MS [prof]: T threads (the main thread alone for T = 1) each
   log tag 100 + I (I = 0 .. T-1) and then spin in spin_outer, spin_inner
   and mix until they have used MS milliseconds of their own CPU time;
   each prints "cpu I NS", its CPU time in nanoseconds, the main thread
   last.  The main thread then prints "sigprof caught" or "sigprof
   default", what /proc/self/status says of SIGPROF (SigCgt), and "action
   mine" or "action other", whether sigaction gives back the handler the
   program installed for SIGPROF.

   With "prof", the program first installs a SIGPROF handler of its own
   (counting) and a process CPU-time timer, setitimer (ITIMER_PROF), of 10
   ms, which it stops before it prints "prof COUNT" with the count of its
   handler.  */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline, noclone))

static long ms;
static volatile uint64_t sink;
static volatile int prof_count;

static uint64_t
cpu_ns (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

NOINLINE static uint64_t
mix (uint64_t x)
{
  x ^= x >> 33;
  x *= UINT64_C (0xff51afd7ed558ccd);
  x ^= x >> 33;
  return x;
}

NOINLINE static uint64_t
spin_inner (uint64_t x)
{
  for (int i = 0; i < 1000; i++)
    x = mix (x + (uint64_t) i);
  return x;
}

NOINLINE static uint64_t
spin_outer (unsigned idx)
{
  uint64_t x = idx, start = cpu_ns (), end = start + (uint64_t) ms * 1000000u;
  while (cpu_ns () < end)
    x = spin_inner (x);
  return x;
}

static uint64_t cpu_of[64];

static void *
worker (void *arg)
{
  unsigned idx = (unsigned) (uintptr_t) arg;
  cce_log (100 + idx);
  sink += spin_outer (idx);
  cpu_of[idx] = cpu_ns ();
  return NULL;
}

static void
on_prof (int sig)
{
  (void) sig;
  prof_count++;
}

/* Whether the kernel has a handler for SIGPROF (SigCgt).  */
static int
sigprof_caught (void)
{
  char line[256];
  int caught = -1;
  FILE *f = fopen ("/proc/self/status", "r");
  if (!f)
    return -1;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "SigCgt:", 7) == 0)
      caught = (strtoull (line + 7, NULL, 16) >> (SIGPROF - 1)) & 1;
  fclose (f);
  return caught;
}

int
main (int argc, char **argv)
{
  int t = argc > 1 ? atoi (argv[1]) : 1;
  int prof = argc > 3 && strcmp (argv[3], "prof") == 0;
  struct itimerval itv;
  struct sigaction sa, old;
  pthread_t th[64];

  ms = argc > 2 ? atol (argv[2]) : 500;
  if (t < 1 || t > 64 || ms <= 0)
    return 2;
  if (prof)
    {
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = on_prof;
      sigemptyset (&sa.sa_mask);
      sa.sa_flags = SA_RESTART;
      if (sigaction (SIGPROF, &sa, NULL) != 0)
        return 3;
      memset (&itv, 0, sizeof itv);
      itv.it_interval.tv_usec = 10000;
      itv.it_value.tv_usec = 10000;
      if (setitimer (ITIMER_PROF, &itv, NULL) != 0)
        return 4;
    }
  if (t == 1)
    worker ((void *) 0);
  else
    {
      for (int i = 0; i < t; i++)
        if (pthread_create (&th[i], NULL, worker, (void *) (uintptr_t) i))
          return 5;
      for (int i = 0; i < t; i++)
        pthread_join (th[i], NULL);
    }
  if (prof)
    {
      memset (&itv, 0, sizeof itv);
      setitimer (ITIMER_PROF, &itv, NULL);
    }
  for (int i = 0; i < t; i++)
    printf ("cpu %d %llu\n", i, (unsigned long long) cpu_of[i]);
  if (prof)
    printf ("prof %d\n", prof_count);
  int c = sigprof_caught ();
  printf ("sigprof %s\n", c < 0 ? "unknown" : c ? "caught" : "default");
  if (sigaction (SIGPROF, NULL, &old) != 0)
    return 6;
  printf ("action %s\n",
          old.sa_handler == (prof ? on_prof : SIG_DFL) ? "mine" : "other");
  return 0;
}
