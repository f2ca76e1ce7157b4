/* crashctx.c -- threads that die of a signal at the end of a known call
   path, for crashctx.sh.

   crashctx WAY dies in way WAY:

     segv      a store through a null pointer in store_through, at the end
               of chain1 -> chain2 -> reach (always inlined into chain2)
               -> (through a function pointer) store_through
     fpe       an integer division by zero in divide (volatile operands),
               called from chain1 -> chain2 -> reach -> divide_via
     abort     abort () at the bottom of a recursion 60 deep
               (recurse_abort); the signal comes from inside the C library
     overflow  a recursion without end (recurse_forever) on a second
               thread whose stack is 256 KiB, until the stack is exhausted
     qsort     a null pointer read in a qsort comparator
               (compare_faulting), on a second thread

   Nothing logs before the crash: the crash record is the log's only
   record (leaf_log could, under a flag that is never set, so that the
   default encoding instruments every function; store_through and
   divide_via call it after their fault, so that the id there is still
   the function's own in the default encoding too).  */
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline, noclone))
#define INLINE static inline __attribute__ ((always_inline))

static volatile int zero;
static volatile int log_now;
static int *volatile null_pointer;
static volatile int sink;

NOINLINE static void
leaf_log (int x)
{
  if (log_now)
    cce_log ((unsigned) x);
  sink += x;
}

NOINLINE static void
store_through (int *p)
{
  *p = 42;
  leaf_log (1);
}

NOINLINE static void
divide_via (int *p)
{
  volatile int x = 1, y = zero;
  sink = x / y + (p != NULL);
  leaf_log (2);
}

static void (*volatile actions[2]) (int *) = { store_through, divide_via };

INLINE void
reach (int which, int *p)
{
  leaf_log (3);
  actions[which] (p);
  sink++;
}

NOINLINE static void
chain2 (int which, int *p)
{
  reach (which, p);
  sink++;
}

NOINLINE static void
chain1 (int which, int *p)
{
  leaf_log (4);
  chain2 (which, p);
  sink++;
}

NOINLINE static int
recurse_abort (int n)
{
  if (n == 0)
    abort ();
  leaf_log (n);
  int r = recurse_abort (n - 1);
  sink = r;                     /* not a tail call, nor a loop */
  return r + n;
}

NOINLINE static int
recurse_forever (int n)
{
  volatile char pad[128];
  pad[0] = (char) n;
  leaf_log (n);
  int r = recurse_forever (n + 1);
  return r + pad[0];
}

/* strlen of a null pointer, in tail position: GCC makes it a jump
   unless the build keeps calls out of the program calls (async).  */
NOINLINE static size_t
tail_strlen (const char *s)
{
  leaf_log (5);
  return strlen (s);
}

static void *
overflow_thread (void *arg)
{
  (void) arg;
  sink = recurse_forever (0);
  return NULL;
}

NOINLINE static int
compare_faulting (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  leaf_log (x);
  if (x == 7 || y == 7)
    sink = *null_pointer;
  return (x > y) - (x < y);
}

static void *
qsort_thread (void *arg)
{
  int v[32];
  (void) arg;
  for (int i = 0; i < 32; i++)
    v[i] = (i * 13) % 32;
  qsort (v, 32, sizeof v[0], compare_faulting);
  return NULL;
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
  if (strcmp (way, "segv") == 0)
    chain1 (0, null_pointer);
  else if (strcmp (way, "fpe") == 0)
    chain1 (1, null_pointer);
  else if (strcmp (way, "abort") == 0)
    sink = recurse_abort (60);
  else if (strcmp (way, "overflow") == 0)
    on_thread (overflow_thread);
  else if (strcmp (way, "qsort") == 0)
    on_thread (qsort_thread);
  else if (strcmp (way, "tailcall") == 0)
    sink = tail_strlen ((const char *) null_pointer);
  else
    {
      fprintf (stderr, "crashctx: unknown way '%s'\n", way);
      return 2;
    }
  return 99;                    /* not reached: the way kills */
}
