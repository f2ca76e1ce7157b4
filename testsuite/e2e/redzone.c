/* redzone.c -- the cold grow of a ccStack push must not write into the
   red zone of the function it runs in.

   f's only call is __builtin_setjmp, which GCC expands inline, so f is a
   leaf and keeps its array in the red zone below the stack pointer.  Its
   push (setjmp returns twice, so the plugin pushes) grows the ccStack on
   a thread whose ccStack does not exist yet: a thread created with
   glibc's own pthread_create, which libcce does not see.  A grow that is
   a call hidden from GCC (an asm) would write its frame over the array.
   The expected results are plain C: the sums of the arrays.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <cce.h>

static void *jb[5];

__attribute__ ((noinline)) static long
f (const volatile long *p)
{
  long local[14];
  for (int i = 0; i < 14; i++)
    local[i] = p[i];
  if (__builtin_setjmp (jb) != 0)
    return -1;
  long s = 0;
  for (int i = 0; i < 14; i++)
    s += local[i] * (i + 1);
  return s;
}

static long result;

static void *
run (void *arg)
{
  result = f (arg);
  return NULL;
}

int
main (void)
{
  volatile long a[14];
  long want = 0;
  for (int i = 0; i < 14; i++)
    {
      a[i] = 1000 + 17 * i;
      want += a[i] * (i + 1);
    }
  void *libc = dlopen ("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  int (*create) (pthread_t *, const pthread_attr_t *, void *(*) (void *),
                 void *)
    = libc ? (int (*) (pthread_t *, const pthread_attr_t *,
                       void *(*) (void *), void *)) dlsym (libc,
                                                           "pthread_create")
           : NULL;
  if (!create)
    {
      printf ("SKIP: glibc's pthread_create not found: %s\n", dlerror ());
      return 77;
    }
  pthread_t t;
  if (create (&t, NULL, run, (void *) a) != 0 || pthread_join (t, NULL) != 0)
    {
      printf ("ERROR: cannot run a thread\n");
      return 1;
    }
  cce_log (1);
  printf ("%s: f = %ld, expected %ld\n", result == want ? "ok" : "FAIL",
          result, want);
  return result == want ? 0 : 1;
}
