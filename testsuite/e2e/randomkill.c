/* randomkill -- threads that log without end, for a test that kills the
   process with SIGKILL at a random moment (randomkill.sh).

   Usage: randomkill COUNTS [N]

   Starts NTHREADS threads; thread I logs records 0, 1, 2, ... with
   crash_log (I, SEQ) (crashlog.h, with CRASH_DEEP 100: every 16th record
   is logged more than 200 frames deep through a recursion by function
   pointer, with a ccStack as deep), storing its count in the file COUNTS
   after each record's cce_log returns.  A thread logs BURST records in a
   row, then sleeps PAUSE_US microseconds, so that the log grows by at most
   some tens of thousands of records a second whatever the speed of the
   machine.

   Without N the threads never stop (an alarm of 60 seconds ends a
   process nobody killed).  With N each thread stops after N records, and
   the program exits with status 0 once all have (the oracle's run).  */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CRASH_DEEP 100
#include "crashlog.h"

#define NTHREADS 8
#define BURST 24
#define PAUSE_US 2000

static volatile uint64_t *counts;
static unsigned limit = CRASH_SEQ_MAX + 1;

static void
sleep_us (long us)
{
  struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

static void *
logger (void *arg)
{
  unsigned i = (unsigned) (uintptr_t) arg;
  for (unsigned seq = 0; seq < limit; seq++)
    {
      crash_log (i, seq);
      crash_count_store (counts, i, seq + 1);
      if ((seq + 1) % BURST == 0)
        sleep_us (PAUSE_US);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  if (argc != 2 && argc != 3)
    {
      fprintf (stderr, "usage: randomkill COUNTS [N]\n");
      return 2;
    }
  if (argc == 3)
    limit = (unsigned) atoi (argv[2]);
  else
    alarm (60);
  counts = crash_counts_open (argv[1], NTHREADS);

  pthread_t t[NTHREADS];
  for (unsigned i = 0; i < NTHREADS; i++)
    {
      int err = pthread_create (&t[i], NULL, logger, (void *) (uintptr_t) i);
      if (err)
        {
          fprintf (stderr, "randomkill: pthread_create: %s\n",
                   strerror (err));
          return 2;
        }
    }
  for (unsigned i = 0; i < NTHREADS; i++)
    pthread_join (t[i], NULL);
  return 0;
}
