/* logerr -- a program whose log cannot be written, or not all of it
   (logerr.sh, enospc.sh): it must run exactly as it would otherwise.

   Usage: logerr COUNTS T N STATUS

   Prints a line, starts T threads that log N records each with
   crash_log (I, SEQ) (crashlog.h), storing their counts in COUNTS, waits
   for them, prints what they did, and exits with status STATUS (the
   tests use 3, so that a changed exit status shows; gdb's oracle run,
   0).  */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashlog.h"

static unsigned nrecords;
static volatile uint64_t *counts;

static void *
worker (void *arg)
{
  unsigned i = (unsigned) (uintptr_t) arg;
  for (unsigned seq = 0; seq < nrecords; seq++)
    {
      crash_log (i, seq);
      crash_count_store (counts, i, seq + 1);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: logerr COUNTS T N STATUS\n");
      return 2;
    }
  unsigned nthreads = (unsigned) atoi (argv[2]);
  nrecords = (unsigned) atoi (argv[3]);
  if (nthreads < 1 || nthreads > 64 || nrecords > CRASH_SEQ_MAX)
    {
      fprintf (stderr, "logerr: bad T or N\n");
      return 2;
    }
  counts = crash_counts_open (argv[1], nthreads);
  printf ("logerr: %u threads, %u records each\n", nthreads, nrecords);
  fflush (stdout);

  pthread_t t[64];
  for (unsigned i = 0; i < nthreads; i++)
    {
      int err = pthread_create (&t[i], NULL, worker, (void *) (uintptr_t) i);
      if (err)
        {
          fprintf (stderr, "logerr: pthread_create: %s\n", strerror (err));
          return 2;
        }
    }
  uint64_t total = 0;
  for (unsigned i = 0; i < nthreads; i++)
    {
      pthread_join (t[i], NULL);
      total += crash_count_load (counts, i);
    }
  printf ("logerr: %llu records logged\n", (unsigned long long) total);
  return atoi (argv[4]);
}
