/* forkkill -- fork, threads and deaths.  A child made by fork logs to a
   file of its own and dies by SIGKILL; the parent, whose threads logged
   before the fork, logs again after the child's death and then ends in
   way WAY.  The records of both must survive.

   Usage: forkkill WAY N

   WAY is how the parent ends: "exit" (a return from main), "kill"
   (SIGKILL sent to itself) or "exec" (execv of /bin/true, without exit);
   or "oracle": no fork, the child's part runs in the process itself, as
   the child would run it (same calls, same paths), and the program
   returns 0 -- the run for gdb.

   Records (crashlog.h, tag I << 20 | SEQ, I the thread index):
     0  the parent's main thread: records 0 .. N-1 before the fork,
        N .. 2N-1 after the child's death;
     1, 2  two threads of the parent: N records each before the fork, then
        blocked until the parent ends;
     3  the child's main thread (the one that forked: its paths go on from
        main through spawn_child and child_main): N records;
     4  a thread the child starts: N records, then blocked until the child
        is killed.
   The parent prints "child PID killed by SIGKILL" (or how else it
   ended).  An alarm of 60 seconds ends a process nobody killed.  */

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crashlog.h"

static unsigned nrecords;
static int oracle;
static pthread_barrier_t logged;
static sem_t child_logged;

static void __attribute__ ((noreturn))
block_forever (void)
{
  for (;;)
    pause ();
}

static void
log_records (unsigned i, unsigned from, unsigned to)
{
  for (unsigned seq = from; seq < to; seq++)
    crash_log (i, seq);
}

static void *
parent_worker (void *arg)
{
  log_records ((unsigned) (uintptr_t) arg, 0, nrecords);
  pthread_barrier_wait (&logged);
  if (oracle)
    return NULL;
  block_forever ();
}

static void *
child_worker (void *arg)
{
  (void) arg;
  log_records (4, 0, nrecords);
  sem_post (&child_logged);
  if (oracle)
    return NULL;
  block_forever ();
}

static void
start (pthread_t *t, void *(*fn) (void *), unsigned i)
{
  int err = pthread_create (t, NULL, fn, (void *) (uintptr_t) i);
  if (err)
    {
      fprintf (stderr, "forkkill: pthread_create: %s\n", strerror (err));
      exit (2);
    }
}

/* The child: log, start a thread that logs, and once it has, die by
   SIGKILL while it is still there.  */
CRASH_NOINLINE static void
child_main (void)
{
  sem_init (&child_logged, 0, 0);
  log_records (3, 0, nrecords);
  pthread_t t;
  start (&t, child_worker, 4);
  while (sem_wait (&child_logged) != 0 && errno == EINTR)
    ;
  if (oracle)
    {
      pthread_join (t, NULL);
      return;
    }
  kill (getpid (), SIGKILL);
  block_forever ();
}

/* Fork; the child runs child_main.  In the oracle's run, run child_main
   here and return 0.  */
CRASH_NOINLINE static pid_t
spawn_child (void)
{
  pid_t pid = oracle ? 0 : fork ();
  if (pid == 0)
    child_main ();
  return pid;
}

int
main (int argc, char **argv)
{
  if (argc != 3)
    {
      fprintf (stderr, "usage: forkkill exit|kill|exec|oracle N\n");
      return 2;
    }
  const char *way = argv[1];
  oracle = strcmp (way, "oracle") == 0;
  nrecords = (unsigned) atoi (argv[2]);
  if (nrecords < 1 || nrecords > CRASH_SEQ_MAX / 2)
    {
      fprintf (stderr, "forkkill: bad N\n");
      return 2;
    }
  alarm (60);
  pthread_barrier_init (&logged, NULL, 3);
  pthread_t t1, t2;
  start (&t1, parent_worker, 1);
  start (&t2, parent_worker, 2);
  log_records (0, 0, nrecords);
  pthread_barrier_wait (&logged);

  pid_t pid = spawn_child ();
  if (pid < 0)
    {
      perror ("forkkill: fork");
      return 2;
    }
  if (pid > 0)
    {
      int st;
      while (waitpid (pid, &st, 0) < 0)
        if (errno != EINTR)
          {
            perror ("forkkill: waitpid");
            return 2;
          }
      if (WIFSIGNALED (st) && WTERMSIG (st) == SIGKILL)
        printf ("child %ld killed by SIGKILL\n", (long) pid);
      else
        printf ("child %ld ended with wait status %#x\n", (long) pid, st);
      fflush (stdout);
    }
  log_records (0, nrecords, 2 * nrecords);

  if (oracle)
    {
      pthread_join (t1, NULL);
      pthread_join (t2, NULL);
      return 0;
    }
  if (strcmp (way, "kill") == 0)
    {
      kill (getpid (), SIGKILL);
      block_forever ();
    }
  if (strcmp (way, "exec") == 0)
    {
      char *args[] = { (char *) "true", NULL };
      execv ("/bin/true", args);
      perror ("forkkill: execv /bin/true");
      return 127;
    }
  return 0;
}
