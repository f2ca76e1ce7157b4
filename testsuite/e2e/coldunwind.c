/* coldunwind.c -- a program whose instrumented code takes every cold
   path of the ccStack, for coldunwind.sh, which runs it under gdb:

   - fold_rec is self recursion folded into the id; built with a small
     fold limit (-fplugin-arg-cce-fold=1), its calls past the limit take
     the out-of-line push and pop (__cce_push_keep, __cce_pop_entry_keep
     on x86-64);
   - ind_rec recurses through a function pointer, an inline push per
     level, deeper than the first chunk of the ccStack, so that an inline
     push grows it (__cce_grow_keep);
   - fold_thread runs fold_rec in a thread made by glibc's own
     pthread_create, which libcce does not see: the thread has no ccStack,
     and its first cold push grows one (__cce_push_keep calling
     __cce_grow_keep).

   fold_frames and ind_frames count the frames of fold_rec and ind_rec
   that are running, so that gdb knows the backtrace to expect.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

/* Deeper than the fold limit.  */
#define FOLD_N 40
/* More than the entries of the first chunk of a ccStack (4096).  */
#define IND_N 5000

volatile int fold_frames, ind_frames;
static volatile int sink;

NOINLINE int
fold_rec (int n)
{
  fold_frames++;
  int r;
  if (n == 0)
    {
      cce_log (1);
      r = 1;
    }
  else
    r = fold_rec (n - 1) * 3 + sink;
  fold_frames--;
  return r;
}

static int ind_rec (int n);
static int (*volatile ind_fn) (int) = ind_rec;

NOINLINE static int
ind_rec (int n)
{
  ind_frames++;
  int r;
  if (n == 0)
    {
      cce_log (2);
      r = 2;
    }
  else
    r = ind_fn (n - 1) + sink;
  ind_frames--;
  return r;
}

NOINLINE static int
fold_run (void)
{
  return fold_rec (FOLD_N) + sink;
}

NOINLINE static int
ind_run (void)
{
  return ind_rec (IND_N) + sink;
}

static void *
fold_thread (void *arg)
{
  (void) arg;
  sink += fold_rec (FOLD_N);
  return NULL;
}

int
main (void)
{
  sink += fold_run ();
  sink += ind_run ();

  void *libc = dlopen ("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  int (*create) (pthread_t *, const pthread_attr_t *, void *(*) (void *),
                 void *)
    = libc ? (int (*) (pthread_t *, const pthread_attr_t *,
                       void *(*) (void *), void *)) dlsym (libc,
                                                           "pthread_create")
           : NULL;
  pthread_t t;
  if (!create || create (&t, NULL, fold_thread, NULL) != 0
      || pthread_join (t, NULL) != 0)
    {
      printf ("ERROR: cannot run a thread with glibc's pthread_create\n");
      return 1;
    }
  cce_log (3);
  return 0;
}
