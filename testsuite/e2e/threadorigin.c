/* threadorigin.c -- where threads were created.  spawn (K) logs tag K
   from the context it then calls pthread_create in, so that the oracle
   sees the creating context; each thread logs tags 100 * K + I.  Thread 2
   creates thread 3 from deeper inside, so origins nest.  */

#include <pthread.h>
#include <cce.h>

static volatile int sink;

__attribute__ ((noinline)) static void
leaf (unsigned tag)
{
  cce_log (tag);
  sink++;
}

__attribute__ ((noinline)) static pthread_t
spawn (unsigned k, void *(*start) (void *))
{
  pthread_t t;
  cce_log (k);
  pthread_create (&t, 0, start, (void *) (long) k);
  sink++;
  return t;
}

static void *
worker3 (void *arg)
{
  unsigned k = (unsigned) (long) arg;
  leaf (100 * k + 1);
  return 0;
}

__attribute__ ((noinline)) static void
deeper (unsigned k)
{
  pthread_t t = spawn (k + 1, worker3);
  pthread_join (t, 0);
  sink++;
}

static void *
worker2 (void *arg)
{
  unsigned k = (unsigned) (long) arg;
  leaf (100 * k + 1);
  deeper (k);
  leaf (100 * k + 2);
  return 0;
}

static void *
worker1 (void *arg)
{
  unsigned k = (unsigned) (long) arg;
  leaf (100 * k + 1);
  return 0;
}

__attribute__ ((noinline)) static void
start_all (void)
{
  pthread_t a = spawn (1, worker1);
  pthread_join (a, 0);
  pthread_t b = spawn (2, worker2);
  pthread_join (b, 0);
}

int
main (void)
{
  leaf (0);
  start_all ();
  leaf (9);
  return 0;
}
