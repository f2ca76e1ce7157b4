/* real.c -- the program whose logs seed the fuzz target of the log
   reader: threads, a callback through qsort, recursion, a call through
   a pointer, a traced function, and a signal handler that logs.
   real.dict is its dictionary, from

     cce-cc -O2 -fplugin-arg-cce-trace=traced real.c -o real -pthread
     objcopy -O binary --only-section=cce_dict real real.dict

   and the corpus has its logs (CCE_LOG=FILE ./real N, N calls per
   thread; CCE_LOG=/dev/stdout ./real N | cat for a log without chunks),
   also turned into the other byte order, torn, cut short and damaged.
   A log and the dictionary go together: rebuilding real with another
   compiler changes the stamp, and the corpus keeps the old pair.  */

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <cce.h>

static volatile int sink;

__attribute__ ((noinline)) static void
leaf (unsigned tag)
{
  cce_log (tag);
}

__attribute__ ((noinline)) static void
traced (unsigned n)
{
  sink += n;
}

static int
cmp (const void *a, const void *b)
{
  cce_log (2);
  return *(const int *) a - *(const int *) b;
}

__attribute__ ((noinline)) static unsigned
rec (unsigned n)
{
  if (n == 0)
    {
      leaf (3);
      return 0;
    }
  return rec (n - 1) + 1;
}

static void (*volatile by_pointer) (unsigned) = leaf;

static void
on_signal (int sig)
{
  (void) sig;
  leaf (5);
}

static void *
worker (void *arg)
{
  unsigned n = (unsigned) (unsigned long) arg;
  int v[4] = { 3, 1, 2, 0 };
  for (unsigned i = 0; i < n; i++)
    {
      leaf (1);
      if (i % 7 == 0)
        qsort (v, 4, sizeof *v, cmp);
      rec (i % 5);
      by_pointer (4);
      traced (i);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  unsigned n = argc > 1 ? (unsigned) strtoul (argv[1], NULL, 10) : 10;
  pthread_t th[3];
  signal (SIGUSR1, on_signal);
  for (int t = 0; t < 3; t++)
    pthread_create (&th[t], NULL, worker, (void *) (unsigned long) n);
  worker ((void *) (unsigned long) n);
  raise (SIGUSR1);
  for (int t = 0; t < 3; t++)
    pthread_join (th[t], NULL);
  return 0;
}
