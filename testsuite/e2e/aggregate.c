/* aggregate.c -- the program of aggregate.sh: events of many contexts on
   several threads, with cce_log and cce_count, the same in every run.

   aggregate T N           T threads (besides main) of N events each
   aggregate T N kill K    the same, then main makes K events of its own
                           and raises SIGKILL
   aggregate T 0 forever   T threads making events until killed
   aggregate 0 0 spin      CPU time in a few instructions (for samples)

   Thread K's events have tags 10 * (K + 1) and 10 * (K + 1) + 1 (its
   cce_count), main's 1000 and 1001; the value of a cce_count is a number
   of the event.  A skewed choice of the context: six events in ten take
   the same one.  Calls through one or two pointers give contexts of
   ccStacks of different depths.  */

#include <cce.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__ ((noinline))

static volatile unsigned long sink;

NOINLINE static void
leaf_log (unsigned tag)
{
  cce_log (tag);
  sink++;
}

NOINLINE static void
leaf_count (unsigned tag, unsigned long v)
{
  cce_count (tag + 1, v);
  sink++;
}

NOINLINE static void
via_a (unsigned tag, unsigned long i)
{
  if (i & 1)
    leaf_log (tag);
  else
    leaf_count (tag, i % 97);
  sink++;
}

NOINLINE static void
via_b (unsigned tag, unsigned long i)
{
  via_a (tag, i >> 1);
  sink++;
}

NOINLINE static void
rec (int d, unsigned tag, unsigned long i)
{
  if (d == 0)
    {
      if (i % 3)
        via_a (tag, i);
      else
        via_b (tag, i);
      return;
    }
  rec (d - 1, tag, i);
  sink++;
}

typedef void (*fn_t) (unsigned, unsigned long);
static fn_t volatile inner[] = { via_a, via_b };

/* A second call through a pointer: one more ccStack entry.  */
NOINLINE static void
via_c (unsigned tag, unsigned long i)
{
  inner[i & 1] (tag, i >> 1);
  sink++;
}

NOINLINE static void
via_d (unsigned tag, unsigned long i)
{
  via_c (tag, i + 1);
  sink++;
}

NOINLINE static void
via_e (unsigned tag, unsigned long i)
{
  leaf_log (tag);
  (void) i;
}

/* More functions of the type than the plugin guesses among (3): the
   calls through the table are ccStack calls.  */
static fn_t volatile table[] = { via_a, via_b, via_c, via_d, via_e };

NOINLINE static void
event (unsigned tag, unsigned long i)
{
  switch (i % 4)
    {
    case 0:
      via_a (tag, i);
      break;
    case 1:
      via_b (tag, i);
      break;
    case 2:
      rec ((int) (i / 4 % 12), tag, i);
      break;
    default:
      table[(i / 4) % 5] (tag, i);
      break;
    }
}

/* The I-th event's number: skewed.  */
static unsigned long
skew (unsigned long i)
{
  unsigned r = (unsigned) (i * 2654435761u >> 7) % 10;
  return r < 6 ? 6 : r < 8 ? i % 13 : i % 211;
}

static unsigned long n;
static int forever;

static void *
worker (void *arg)
{
  unsigned k = (unsigned) (unsigned long) arg;
  unsigned tag = 10 * (k + 1);
  for (unsigned long i = 0; forever || i < n; i++)
    event (tag, skew (i + k));
  return NULL;
}

NOINLINE static unsigned long
spin (unsigned long x)
{
  for (unsigned long i = 0; i < 200000000UL; i++)
    x = x * 6364136223846793005UL + 1442695040888963407UL;
  return x;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: aggregate T N [kill K|forever|spin]\n");
      return 2;
    }
  unsigned t = (unsigned) atoi (argv[1]);
  n = strtoul (argv[2], NULL, 10);
  const char *mode = argc > 3 ? argv[3] : "";
  if (strcmp (mode, "spin") == 0)
    {
      sink = spin (1);
      cce_log (1);
      return 0;
    }
  forever = strcmp (mode, "forever") == 0;
  pthread_t th[64];
  if (t > 64)
    t = 64;
  for (unsigned k = 0; k < t; k++)
    pthread_create (&th[k], NULL, worker, (void *) (unsigned long) k);
  for (unsigned k = 0; k < t; k++)
    pthread_join (th[k], NULL);
  if (strcmp (mode, "kill") == 0 && argc > 4)
    {
      unsigned long kk = strtoul (argv[4], NULL, 10);
      for (unsigned long i = 0; i < kk; i++)
        event (1000, skew (i));
      raise (SIGKILL);
    }
  return 0;
}
