/* unwind.c -- unwinding through C frames (built with -fexceptions):
   pthread_exit and pthread_cancel from deep inside a thread run the
   cleanups of the frames they unwind, and every cleanup that logs must see
   its exact context: the frames below it are gone, nothing stale may
   remain.  (pthread_cleanup_push with -fexceptions is a cleanup attribute
   calling glibc's extern inline __pthread_cleanup_routine; it is not used
   here because at -O0, in the oracle, that call goes to libc's copy.)  */

#include <pthread.h>
#include <cce.h>

static volatile int zero;

__attribute__ ((noinline)) static void
on_cleanup (int *tag)
{
  cce_log ((unsigned) *tag);
}

__attribute__ ((noinline)) static void
handler (void *arg)
{
  cce_log ((unsigned) (long) arg);
}

/* A cleanup that calls on: the landing pad calls run_handler, which calls
   handler.  */
__attribute__ ((noinline)) static void
run_handler (long *arg)
{
  handler ((void *) *arg);
}

/* Recursion below the frames with cleanups, so that the ccStack is deep
   when the thread exits.  */
__attribute__ ((noinline)) static int
sink (int n, int how)
{
  if (n == 0)
    {
      cce_log (10 + how);
      if (how == 0)
        pthread_exit (0);
      pthread_testcancel ();
      return 0;
    }
  int r = sink (n - 1, how);
  return r + 1 + zero;
}

__attribute__ ((noinline)) static void
middle (int how)
{
  int tag __attribute__ ((cleanup (on_cleanup))) = 20 + how;
  long arg __attribute__ ((cleanup (run_handler))) = 30 + how;
  sink (5, how);
  cce_log (99);   /* never reached */
}

__attribute__ ((noinline)) static void
outer (int how)
{
  int tag __attribute__ ((cleanup (on_cleanup))) = 40 + how;
  middle (how);
}

static void *
exiting (void *arg)
{
  (void) arg;
  outer (0);
  return 0;
}

static void *
cancelled (void *arg)
{
  pthread_barrier_t *b = arg;
  pthread_barrier_wait (b);      /* main cancels while we wait here */
  pthread_barrier_wait (b);
  outer (1);
  return 0;
}

int
main (void)
{
  pthread_t t;
  pthread_barrier_t b;

  cce_log (1);
  pthread_create (&t, 0, exiting, 0);
  pthread_join (t, 0);
  cce_log (2);

  pthread_barrier_init (&b, 0, 2);
  pthread_setcancelstate (PTHREAD_CANCEL_ENABLE, 0);
  pthread_create (&t, 0, cancelled, &b);
  pthread_barrier_wait (&b);
  pthread_cancel (t);            /* pending until pthread_testcancel */
  pthread_barrier_wait (&b);
  pthread_join (t, 0);
  cce_log (3);
  return 0;
}
