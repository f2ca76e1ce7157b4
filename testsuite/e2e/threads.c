/* threads -- four threads with different start routines and a shared
   worker function, each logging, and a fifth that C11's thrd_create
   starts; main logs before and after.  The path of
   a thread's record starts at its start routine.  Threads run one after
   the other in no fixed order, but each one's records are deterministic. */
#include <pthread.h>
#include <stdio.h>
#include <threads.h>
#include <cce.h>

static volatile int sink;

#define NOINLINE __attribute__ ((noinline))

NOINLINE static int
worker (int id, int depth)
{
  if (depth > 0)
    {
      int r = worker (id, depth - 1);
      sink += r;               /* not a tail call */
      return r + 1;
    }
  cce_log (100 + id);
  return id;
}

static int
common_helper (int id)
{
  cce_log (200 + id);
  return worker (id, 1);
}

static void *
start_alpha (void *arg)
{
  (void) arg;
  cce_log (301);
  sink += worker (1, 0);
  return NULL;
}

static void *
start_beta (void *arg)
{
  int id = *(int *) arg;
  sink += common_helper (id);
  sink += worker (id, 2);
  cce_log (302);
  return NULL;
}

NOINLINE static void
gamma_inner (int id)
{
  for (int i = 0; i < 3; i++)
    sink += worker (id, i);
}

static void *
start_gamma (void *arg)
{
  gamma_inner (*(int *) arg);
  cce_log (303);
  return NULL;
}

static void *
start_delta (void *arg)
{
  int id = *(int *) arg;
  cce_log (304);
  sink += common_helper (id);
  /* A nested thread: its path starts at start_alpha again.  */
  pthread_t t;
  if (pthread_create (&t, NULL, start_alpha, NULL) != 0)
    {
      perror ("pthread_create");
      return NULL;
    }
  pthread_join (t, NULL);
  cce_log (314);
  return NULL;
}

/* Called through a pointer: a ccStack push at each call.  */
static int (*volatile through) (int, int) = worker;

/* A thread that C11's thrd_create starts, with glibc's own pthread_create
   rather than libcce's: its start routine finds the ccStack empty (TOP 0)
   and, with a copy of TOP, restores that 0 after each push.  */
static int
start_c11 (void *arg)
{
  int id = *(int *) arg;
  sink += through (id, 0);
  sink += through (id, 1);
  cce_log (305);
  sink += through (id, 2);
  return 0;
}

int
main (void)
{
  static int ids[4] = { 1, 2, 3, 4 };
  void *(*starts[4]) (void *) = { start_alpha, start_beta, start_gamma,
                                  start_delta };
  pthread_t t[4];

  cce_log (1);
  sink += worker (0, 1);
  for (int i = 0; i < 4; i++)
    if (pthread_create (&t[i], NULL, starts[i], &ids[i]) != 0)
      {
        perror ("pthread_create");
        return 1;
      }
  for (int i = 0; i < 4; i++)
    pthread_join (t[i], NULL);
  static int five = 5;
  thrd_t c11;
  if (thrd_create (&c11, start_c11, &five) != thrd_success)
    {
      fputs ("thrd_create failed\n", stderr);
      return 1;
    }
  thrd_join (c11, NULL);
  sink += common_helper (0);
  cce_log (2);
  return 0;
}
