/* thread.c -- where each thread was created.

   libcce's pthread_create starts the new thread with a copy of the
   creating thread's ccStack at the call (its top entry is the
   pthread_create call site, pushed by the caller's instrumentation),
   followed by the entry (0, CCE_SITE_THREAD); the start routine then runs
   with id 0, a segment start like any entry function.  Every record of the
   thread so carries where it was made, and threads made by threads nest.
   cce-decode shows it with --thread-origin; by default a thread's path
   starts at its start routine.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cce-abi.h"
#include "cce-format.h"

#define CCE_EXPORT __attribute__ ((visibility ("default")))

typedef int (*create_fn) (pthread_t *, const pthread_attr_t *,
                          void *(*) (void *), void *);

/* What the new thread needs: the start routine, its argument, and the
   ccStack to start with.  */
struct cce_origin
{
  void *(*start) (void *);
  void *arg;
  size_t n;
  struct cce_log_frame entry[];
};

static create_fn
cce_real_create (void)
{
  static _Atomic (create_fn) real;
  create_fn f = atomic_load_explicit (&real, memory_order_acquire);
  if (!f)
    {
      f = (create_fn) dlsym (RTLD_NEXT, "pthread_create");
      atomic_store_explicit (&real, f, memory_order_release);
    }
  return f;
}

/* The start routine of every thread made through pthread_create: set up
   the ccStack of ORIGIN, then run the program's.  */
static void *
cce_thread_start (void *origin)
{
  struct cce_origin *o = origin;
  void *(*start) (void *) = o->start;
  void *arg = o->arg;

  for (size_t i = 0; i < o->n; i++)
    __cce_push_v4 (o->entry[i].id, o->entry[i].site, 0);
  free (o);
  return start (arg);
}

CCE_EXPORT int
pthread_create (pthread_t *thread, const pthread_attr_t *attr,
                void *(*start) (void *), void *arg)
{
  create_fn real = cce_real_create ();
  const struct cce_log_frame *base
    = (const struct cce_log_frame *) (uintptr_t) __cce_tls[CCE_TLS_BASE];
  size_t depth = (size_t) cce_tls_depth (__cce_tls[CCE_TLS_TOP],
                                         __cce_tls[CCE_TLS_BASE]);
  struct cce_origin *o;
  int r;

  if (!real)
    return ENOSYS;
  o = malloc (sizeof *o + (depth + 1) * sizeof o->entry[0]);
  if (!o)
    return real (thread, attr, start, arg);   /* no origin, still a thread */
  o->start = start;
  o->arg = arg;
  if (depth && base)
    memcpy (o->entry, base, depth * sizeof o->entry[0]);
  else
    depth = 0;
  o->entry[depth].id = __cce_tls[CCE_TLS_ID];
  o->entry[depth].site = CCE_SITE_THREAD;
  o->n = depth + 1;
  r = real (thread, attr, cce_thread_start, o);
  if (r != 0)
    free (o);
  return r;
}
