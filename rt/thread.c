/* thread.c -- where each thread was created.

   libcce's pthread_create starts the new thread with a copy of the
   creating thread's ccStack at the call (its top entry is the
   pthread_create call site, pushed by the caller's instrumentation),
   followed by the entry (0, CCE_SITE_THREAD); the start routine then runs
   with id 0, a segment start like any entry function.  Every record of the
   thread so carries where it was made, and threads made by threads nest.
   cce-decode shows it with --thread-origin; by default a thread's path
   starts at its start routine.

   The copy lives in a mapping of its own, never in memory from malloc:
   the program may replace malloc, and its allocator may be the caller
   (jemalloc makes its background threads while holding its own lock).  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "rt-internal.h"

typedef int (*create_fn) (pthread_t *, const pthread_attr_t *,
                          void *(*) (void *), void *);

/* What the new thread needs: the start routine, its argument, and the
   ccStack to start with.  */
struct cce_origin
{
  void *(*start) (void *);
  void *arg;
  size_t size;                  /* of the mapping */
  size_t n;
  struct cce_log_frame entry[];
};

/* A new origin with room for N entries, or NULL.  */
static struct cce_origin *
cce_origin_new (size_t n)
{
  size_t size = sizeof (struct cce_origin)
                + n * sizeof (struct cce_log_frame);
  struct cce_origin *o = mmap (NULL, size, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (o == MAP_FAILED)
    return NULL;
  o->size = size;
  return o;
}

static void
cce_origin_free (struct cce_origin *o)
{
  munmap (o, o->size);
}

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

  __cce_tls[CCE_TLS_TOP] = (uint64_t) (uintptr_t) cce_stack_start ();
  for (size_t i = 0; i < o->n; i++)
    __cce_push_v6 (o->entry[i].id, o->entry[i].site, 0);
  cce_origin_free (o);
  cce_thread_start_hooks ();
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
  o = cce_origin_new (depth + 1);
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
    cce_origin_free (o);
  return r;
}
