/* death -- a process that dies, in one of many ways, after its threads
   have logged: its records must all be in the log all the same.

   Usage: death WAY T N MODE COUNTS READY

   Starts T threads; thread I logs records 0 .. N-1 with crash_log (I, SEQ)
   (crashlog.h), storing its count in the file COUNTS after each one.
   Then, in MODE
     idle  every thread waits at a barrier once it has logged its N
           records; after the barrier, thread T-1 dies in way WAY while the
           main thread and the other threads are still alive (blocked);
     busy  threads 0 .. T-2 go on logging, one record every few tens of
           microseconds, with no end; thread T-1, after its own N records,
           waits until each of the others has logged at least N + 16, and
           then dies in way WAY while they are logging.
   The main thread creates the file READY once the threads are where MODE
   says (so that a test can send a signal from outside), then waits
   forever, except for WAY "return", where it returns from main.

   WAY is one of
     segv    a write through a null pointer (SIGSEGV)
     bus     a write to a file mapping beyond the file's end (SIGBUS)
     fpe     an integer division by zero (SIGFPE on x86)
     ill     __builtin_trap (SIGILL on x86: ud2)
     abort   abort ()
     assert  a failed assert ()
     _exit   _exit (3)
     kill    kill (getpid (), SIGKILL)
     term    raise (SIGTERM), its default action
     int     raise (SIGINT), its default action
     exec    execv ("/bin/true"), without exit
     return  return 0 from main (with the threads still there)
     wait    nothing: the test kills the process from outside
   SIGTERM and SIGINT are set to their default action first (a shell
   starts a background job with SIGINT ignored).  No core file is
   written.  An alarm of 120 seconds ends a process nobody killed.  */

#define _GNU_SOURCE
#undef NDEBUG
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "crashlog.h"

/* Records each of threads 0 .. T-2 logs beyond N before thread T-1 dies,
   in busy mode.  */
#define BUSY_MARGIN 16

static const char *way;
static unsigned nthreads, nrecords;
static int busy;
static volatile uint64_t *counts;
static pthread_barrier_t logged;

static void
sleep_us (long us)
{
  struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
  while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
    ;
}

static void __attribute__ ((noreturn))
block_forever (void)
{
  for (;;)
    pause ();
}

/* Wait until thread I has logged at least N records, for every I <
   LIMIT.  */
static void
wait_counts (unsigned limit, uint64_t n)
{
  for (unsigned i = 0; i < limit; i++)
    while (crash_count_load (counts, i) < n)
      sleep_us (1000);
}

static volatile int one = 1;
static volatile int zero;

/* Die in way WAY.  */
static void __attribute__ ((noreturn))
die (void)
{
  prctl (PR_SET_DUMPABLE, 0);           /* no core file */
  if (strcmp (way, "segv") == 0)
    {
      volatile int *volatile p = NULL;
      *p = 1;
    }
  else if (strcmp (way, "bus") == 0)
    {
      long page = sysconf (_SC_PAGESIZE);
      FILE *f = tmpfile ();
      if (!f || ftruncate (fileno (f), page) != 0)
        {
          perror ("death: tmpfile");
          _exit (98);
        }
      volatile char *m = mmap (NULL, (size_t) page, PROT_READ | PROT_WRITE,
                               MAP_SHARED, fileno (f), 0);
      if (m == MAP_FAILED || ftruncate (fileno (f), 0) != 0)
        {
          perror ("death: mmap");
          _exit (98);
        }
      m[0] = 1;
    }
  else if (strcmp (way, "fpe") == 0)
    crash_sink = (unsigned) (one / zero);
  else if (strcmp (way, "ill") == 0)
    __builtin_trap ();
  else if (strcmp (way, "abort") == 0)
    abort ();
  else if (strcmp (way, "assert") == 0)
    assert (one == 0);
  else if (strcmp (way, "_exit") == 0)
    _exit (3);
  else if (strcmp (way, "kill") == 0)
    {
      kill (getpid (), SIGKILL);
      block_forever ();
    }
  else if (strcmp (way, "term") == 0)
    {
      raise (SIGTERM);
      block_forever ();
    }
  else if (strcmp (way, "int") == 0)
    {
      raise (SIGINT);
      block_forever ();
    }
  else if (strcmp (way, "exec") == 0)
    {
      char *argv[] = { (char *) "true", NULL };
      execv ("/bin/true", argv);
      perror ("death: execv /bin/true");
      _exit (127);
    }
  fprintf (stderr, "death: %s did not end the process\n", way);
  _exit (99);
}

static int
dies_by_itself (void)
{
  return strcmp (way, "return") != 0 && strcmp (way, "wait") != 0;
}

static void *
worker (void *arg)
{
  unsigned i = (unsigned) (uintptr_t) arg;
  unsigned seq = 0;
  for (; seq < nrecords; seq++)
    {
      crash_log (i, seq);
      crash_count_store (counts, i, seq + 1);
    }
  if (!busy)
    pthread_barrier_wait (&logged);
  if (i == nthreads - 1)
    {
      if (busy)
        wait_counts (nthreads - 1, (uint64_t) nrecords + BUSY_MARGIN);
      if (dies_by_itself ())
        die ();
      block_forever ();
    }
  if (busy)
    for (; seq <= CRASH_SEQ_MAX; seq++)
      {
        crash_log (i, seq);
        crash_count_store (counts, i, seq + 1);
        sleep_us (20);
      }
  block_forever ();
}

int
main (int argc, char **argv)
{
  if (argc != 7)
    {
      fprintf (stderr, "usage: death WAY T N idle|busy COUNTS READY\n");
      return 2;
    }
  way = argv[1];
  nthreads = (unsigned) atoi (argv[2]);
  nrecords = (unsigned) atoi (argv[3]);
  busy = strcmp (argv[4], "busy") == 0;
  if (nthreads < 1 || nthreads > 256 || nrecords > CRASH_SEQ_MAX / 2
      || (busy && nthreads < 2))
    {
      fprintf (stderr, "death: bad T or N\n");
      return 2;
    }
  signal (SIGTERM, SIG_DFL);
  signal (SIGINT, SIG_DFL);
  alarm (120);
  counts = crash_counts_open (argv[5], nthreads);
  pthread_barrier_init (&logged, NULL, nthreads + 1);

  for (unsigned i = 0; i < nthreads; i++)
    {
      pthread_t t;
      int err = pthread_create (&t, NULL, worker, (void *) (uintptr_t) i);
      if (err)
        {
          fprintf (stderr, "death: pthread_create: %s\n", strerror (err));
          return 2;
        }
    }
  if (busy)
    {
      wait_counts (nthreads - 1, (uint64_t) nrecords + BUSY_MARGIN);
      wait_counts (nthreads, nrecords);
    }
  else
    pthread_barrier_wait (&logged);

  FILE *ready = fopen (argv[6], "w");
  if (!ready || fclose (ready) != 0)
    {
      perror (argv[6]);
      return 2;
    }
  if (strcmp (way, "return") == 0)
    return 0;
  block_forever ();
}
