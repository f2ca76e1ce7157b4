/* crashrec.c -- threads that die of a signal, for crashrec.sh.

   crashrec WAY: log one record on the main thread (tag 1), then die in
   way WAY, every time in a function of its own that the test finds the
   crash record's PC word in (with nm):

     segv        a null pointer stored through, in store_through, called
                 through a function pointer at the end of a call chain
     fpe         an integer division by zero in divide
     abort       abort () at the bottom of a recursion 2000 deep
                 (recurse_abort); the PC is in the C library
     overflow    a recursion without end on the main thread, until its
                 stack is exhausted (recurse_forever)
     overflow-thread  the same on a second thread (tag 2 first), whose
                 stack is 256 KiB
     qsort       a null pointer read in a qsort comparator
                 (compare_faulting), on a second thread (tag 2 first)
     handler     a null pointer stored through (store_through) under a
                 SIGSEGV handler of the program that leaves with
                 siglongjmp: prints "handler ran", logs tag 3 and exits 0

   Every way but handler dies of its signal.  */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline, noclone))

static volatile int zero;
static int *volatile null_pointer;
static volatile int sink;

NOINLINE static void
store_through (int *p)
{
  *p = 42;
  sink++;
}

static void (*volatile storer) (int *) = store_through;

NOINLINE static void
chain3 (int *p)
{
  storer (p);
  sink++;
}

NOINLINE static void
chain2 (int *p)
{
  chain3 (p);
  sink++;
}

NOINLINE static void
chain1 (int *p)
{
  chain2 (p);
  sink++;
}

NOINLINE static int
divide (int a, int b)
{
  volatile int x = a, y = b;
  return x / y;
}

NOINLINE static int
recurse_abort (int n)
{
  if (n == 0)
    abort ();
  int r = recurse_abort (n - 1);
  return r + n;
}

NOINLINE static int
recurse_forever (int n)
{
  volatile char pad[128];
  pad[0] = (char) n;
  int r = recurse_forever (n + 1);
  return r + pad[0];
}

static void *
overflow_thread (void *arg)
{
  (void) arg;
  cce_log (2);
  sink = recurse_forever (0);
  return NULL;
}

NOINLINE static int
compare_faulting (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  if (x == 7 || y == 7)
    sink = *null_pointer;
  return (x > y) - (x < y);
}

static void *
qsort_thread (void *arg)
{
  int v[32];
  (void) arg;
  cce_log (2);
  for (int i = 0; i < 32; i++)
    v[i] = (i * 13) % 32;
  qsort (v, 32, sizeof v[0], compare_faulting);
  return NULL;
}

static sigjmp_buf escape;

static void
on_segv (int sig)
{
  (void) sig;
  printf ("handler ran\n");
  fflush (stdout);
  siglongjmp (escape, 1);
}

static void
on_thread (void *(*fn) (void *))
{
  pthread_attr_t attr;
  pthread_t th;
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, 256 * 1024);
  if (pthread_create (&th, &attr, fn, NULL) != 0)
    exit (90);
  pthread_join (th, NULL);
}

int
main (int argc, char **argv)
{
  const char *way = argc > 1 ? argv[1] : "";
  cce_log (1);
  if (strcmp (way, "segv") == 0)
    chain1 (null_pointer);
  else if (strcmp (way, "fpe") == 0)
    sink = divide (1, zero);
  else if (strcmp (way, "abort") == 0)
    sink = recurse_abort (2000);
  else if (strcmp (way, "overflow") == 0)
    sink = recurse_forever (0);
  else if (strcmp (way, "overflow-thread") == 0)
    on_thread (overflow_thread);
  else if (strcmp (way, "qsort") == 0)
    on_thread (qsort_thread);
  else if (strcmp (way, "handler") == 0)
    {
      struct sigaction sa, old;
      memset (&sa, 0, sizeof sa);
      sa.sa_handler = on_segv;
      sigemptyset (&sa.sa_mask);
      sigaction (SIGSEGV, &sa, NULL);
      /* The program sees its own handler.  */
      if (sigaction (SIGSEGV, NULL, &old) != 0 || old.sa_handler != on_segv
          || (old.sa_flags & SA_SIGINFO))
        {
          printf ("sigaction does not give back the program's handler\n");
          return 91;
        }
      if (sigsetjmp (escape, 1) == 0)
        chain1 (null_pointer);
      cce_log (3);
      return 0;
    }
  else
    {
      fprintf (stderr, "crashrec: unknown way '%s'\n", way);
      return 2;
    }
  return 99;                    /* not reached: the way kills */
}
