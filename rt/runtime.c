/* runtime.c -- libcce, the cce runtime: the calling context of each
   thread.

   Instrumented code keeps the calling context of each thread in two
   pieces: the id, the number of the context relative to the start of the
   current segment, and the ccStack, the (id, site) pairs of the calls that
   started each segment.  Both live in one initial-exec TLS block,
   __cce_tls (cce-abi.h): the id, the ccStack's top, its limit and its
   base.  Instrumented code pushes and pops the ccStack inline and calls
   __cce_grow_v6 only when the ccStack is full.  This file owns the block
   and the ccStack's memory; log.c writes the event log.

   The ccStack's memory.  A thread's first grow reserves a large region of
   address space (CCE_STACK_RESERVE entries, 4 GiB; less if that fails or
   if RLIMIT_AS is set) without memory, and makes its first
   CCE_STACK_CHUNK entries read-write; each later grow doubles the
   read-write part in place, with mprotect.  Entries never move:
   instrumented code keeps the top of the ccStack in a register across a
   call (cce-abi.h), so a ccStack deeper than the whole reservation cannot
   move elsewhere, and the runtime says so and aborts.  The region is
   unmapped when the thread exits (a pthread key destructor, which the
   first grow registers).

   Memory comes from mmap, never malloc, so that nothing here depends on
   the state of the program's allocator, and a grow runs with signals
   blocked.  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rt-internal.h"

/* ccStack sizes, in entries (struct cce_log_frame, 16 bytes).  All are
   powers of two.  */

/* The read-write part of a thread's first reservation (64 KiB, or a page
   if pages are larger); each grow doubles the read-write part.  */
#define CCE_STACK_CHUNK ((size_t) 4096)

/* What a thread's first grow tries to reserve (4 GiB of address space on
   64-bit hosts), halving on failure down to CCE_STACK_CHUNK.  */
#define CCE_STACK_RESERVE \
  (sizeof (size_t) >= 8 ? (size_t) 1 << 28 : (size_t) 1 << 22)

/* With RLIMIT_AS set, a first reservation takes at most this fraction of
   it, so that the address space stays the program's.  */
#define CCE_STACK_AS_SHARE 1024

/* The calling context of the running thread (cce-abi.h): [CCE_TLS_ID] the
   id, [CCE_TLS_TOP] the first free ccStack entry (0: empty),
   [CCE_TLS_LIMIT] the end of the room for entries, 0 while every push
   must grow (cce-abi.h), [CCE_TLS_BASE] the bottom.  All 0 at thread
   start, so the first push grows the ccStack.
   Aligned so that it sits in one cache line.  An executable built with
   cce defines its own (cce-abi.h), and this one then goes unused: every
   reference binds to the executable's.  Weak, so that a static link
   takes the executable's too.  */
CCE_EXPORT __thread uint64_t __cce_tls[CCE_TLS_WORDS] CCE_TLS
  __attribute__ ((aligned (4 * sizeof (uint64_t)), weak));

__thread struct cce_thread cce_self CCE_TLS;

/* Key whose destructor frees an exiting thread's memory.  */
static pthread_key_t cce_key;
static int cce_key_ok;
static pthread_once_t cce_key_once = PTHREAD_ONCE_INIT;

static void cce_thread_exit (void *);
static void cce_stack_free (struct cce_thread *t);

/* ------------------------------------------------------------------------
   Helpers that are async-signal-safe.
   ------------------------------------------------------------------------ */

/* Append the decimal form of N to the string being built at *P, whose end
   is END.  */
void
cce_str_num (char **p, char *end, unsigned long n)
{
  char tmp[24];
  int i = 0;
  do
    tmp[i++] = (char) ('0' + n % 10);
  while ((n /= 10) != 0);
  while (i > 0 && *p < end)
    *(*p)++ = tmp[--i];
}

/* Append the string S to the string being built at *P, whose end is
   END.  */
void
cce_str_cat (char **p, char *end, const char *s)
{
  while (*s && *p < end)
    *(*p)++ = *s++;
}

/* Print "cce: WHAT FILE: DESCRIPTION OF ERR" on standard error; FILE and
   ERR are left out when NULL and 0.  */
void
cce_complain (const char *what, const char *file, int err)
{
  char msg[PATH_MAX + 256];
  char *p = msg, *end = msg + sizeof msg - 1;
  cce_str_cat (&p, end, "cce: ");
  cce_str_cat (&p, end, what);
  if (file)
    {
      cce_str_cat (&p, end, " ");
      cce_str_cat (&p, end, file);
    }
  if (err)
    {
      const char *desc = strerrordesc_np (err);
      cce_str_cat (&p, end, ": ");
      cce_str_cat (&p, end, desc ? desc : "unknown error");
    }
  *p++ = '\n';
  ssize_t r;
  do
    r = write (STDERR_FILENO, msg, (size_t) (p - msg));
  while (r < 0 && errno == EINTR);
}
/* getenv without calling getenv: a program may define its own (bash
   does, on top of its shell variables), and the runtime must neither run
   program code nor see something else than the environment.  */
const char *
cce_getenv (const char *name)
{
  extern char **environ;
  size_t n = strlen (name);
  if (!environ)
    return NULL;
  for (char **e = environ; *e; e++)
    if (strncmp (*e, name, n) == 0 && (*e)[n] == '=')
      return *e + n + 1;
  return NULL;
}

/* ------------------------------------------------------------------------
   Threads.
   ------------------------------------------------------------------------ */

/* Create cce_key (once per process).  */
static void
cce_key_create (void)
{
  cce_key_ok = pthread_key_create (&cce_key, cce_thread_exit) == 0;
}

/* Have the key destructor free thread T's memory when it exits.  A thread
   that logs or grows its ccStack again after that (in another key
   destructor) is registered again, for the next round of destructors.  */
void
cce_thread_register (struct cce_thread *t)
{
  pthread_once (&cce_key_once, cce_key_create);
  if (cce_key_ok && pthread_getspecific (cce_key) != t)
    pthread_setspecific (cce_key, t);
}

/* Key destructor: the calling thread exits.  Delete its sampling timer,
   take its alternate signal stack away, unmap its log windows (the
   records are in the file already) and its ccStack: __cce_tls is all 0
   again.  ARG is the thread's cce_thread.  */
static void
cce_thread_exit (void *arg)
{
  struct cce_thread *t = arg;
  sigset_t all, saved;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  cce_sample_thread_exit (t);
  cce_crash_thread_exit (t);
  cce_heap_thread_exit (t);
  cce_log_thread_exit (t);
  cce_stack_free (t);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
}

/* The calling thread starts: its alternate signal stack for crash
   records and its sampling timer, which the key destructor takes away
   when it exits.  */
void
cce_thread_start_hooks (void)
{
  struct cce_thread *t = &cce_self;
  cce_crash_thread_start (t);
  cce_sample_thread_start (t);
  if (t->altstack || t->sampling)
    cce_thread_register (t);
}

/* ------------------------------------------------------------------------
   The ccStack.
   ------------------------------------------------------------------------ */

/* Word I of the calling thread's __cce_tls, accessed as the instrumented
   code accesses it: every load and store happens, in order with the
   others.  */
#define CCE_TLS_WORD(I) (((volatile uint64_t *) __cce_tls)[I])

/* Say that the ccStack cannot grow, and abort.  */
static void __attribute__ ((noreturn, cold))
cce_stack_oom (void)
{
  cce_complain ("out of memory for the ccStack", NULL, 0);
  abort ();
}

/* Say that the ccStack of thread T outgrew its reservation, and abort.  */
static void __attribute__ ((noreturn, cold))
cce_stack_too_deep (const struct cce_thread *t)
{
  char what[96];
  char *p = what, *end = what + sizeof what - 1;
  cce_str_cat (&p, end, "ccStack deeper than its reservation of ");
  cce_str_num (&p, end, (unsigned long) t->reserved);
  cce_str_cat (&p, end, " entries");
  *p = '\0';
  cce_complain (what, NULL, 0);
  abort ();
}

/* Reserve address space for ENTRIES entries, without memory (no access,
   no commit charge); NULL if there is none.  */
static struct cce_log_frame *
cce_stack_reserve (size_t entries)
{
  void *p = mmap (NULL, entries * sizeof (struct cce_log_frame), PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* Make entries [FROM, TO) of the region at BASE read-write (FROM and TO
   are multiples of a page's worth of entries).  Return 0 on failure.  */
static int
cce_stack_commit (struct cce_log_frame *base, size_t from, size_t to)
{
  return mprotect (base + from, (to - from) * sizeof *base,
                   PROT_READ | PROT_WRITE) == 0;
}

/* The read-write part of a first reservation, in entries:
   CCE_STACK_CHUNK, or a page if pages are larger.  */
static size_t
cce_stack_chunk (void)
{
  size_t page = (size_t) getauxval (AT_PAGESZ);
  size_t n = CCE_STACK_CHUNK;
  while (n * sizeof (struct cce_log_frame) < page)
    n *= 2;
  return n;
}

/* The entries a first reservation asks for: CCE_STACK_RESERVE, but no
   more than 1/CCE_STACK_AS_SHARE of RLIMIT_AS, and at least CHUNK.  */
static size_t
cce_stack_first_size (size_t chunk)
{
  size_t n = CCE_STACK_RESERVE;
  struct rlimit rl;
  if (getrlimit (RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    {
      rlim_t share = rl.rlim_cur / CCE_STACK_AS_SHARE
                     / sizeof (struct cce_log_frame);
      while (n > chunk && n > share)
        n /= 2;
    }
  return n < chunk ? chunk : n;
}

/* Publish the room of thread T's ccStack, its end, for the pushes'
   compare; 0 where every push must grow (T->slow).  */
static void
cce_stack_publish (struct cce_thread *t)
{
  cce_barrier ();
  CCE_TLS_WORD (CCE_TLS_LIMIT)
    = t->slow ? 0 : (uint64_t) (uintptr_t) (t->region + t->committed);
}

/* Thread T's first grow: reserve its region, make the first chunk of it
   read-write, and have the key destructor free it when the thread
   exits.  */
static void
cce_stack_first (struct cce_thread *t)
{
  size_t chunk = cce_stack_chunk ();
  size_t n = cce_stack_first_size (chunk);
  struct cce_log_frame *base;
  while (!(base = cce_stack_reserve (n)) && n > chunk)
    n /= 2;
  if (!base)
    cce_stack_oom ();
  if (!cce_stack_commit (base, 0, chunk))
    {
      munmap (base, n * sizeof *base);
      cce_stack_oom ();
    }
  t->region = base;
  t->reserved = n;
  t->committed = chunk;
  cce_thread_register (t);
  CCE_TLS_WORD (CCE_TLS_BASE) = (uint64_t) (uintptr_t) base;
  cce_stack_publish (t);
}

/* Double the read-write part of thread T's ccStack, in place.  */
static void
cce_stack_grow_once (struct cce_thread *t)
{
  if (!t->region)
    {
      cce_stack_first (t);
      return;
    }
  if (t->committed >= t->reserved)
    cce_stack_too_deep (t);
  size_t n = t->committed * 2;
  if (n > t->reserved)
    n = t->reserved;
  if (!cce_stack_commit (t->region, t->committed, n))
    cce_stack_oom ();
  t->committed = n;
  cce_stack_publish (t);
}

/* Where the entry at TOP (0: an empty ccStack) goes, once there is room
   for it: grow the calling thread's ccStack, with signals blocked, until
   there is.  A signal handler may have grown it since the caller found it
   full, and in a thread where every push grows there is room most of the
   time: then there is nothing to do.  Aborts if there is no memory.  */
static struct cce_log_frame * __attribute__ ((noinline, cold))
cce_stack_grow (struct cce_log_frame *top)
{
  struct cce_thread *t = &cce_self;
  if (t->region && (!top || top < t->region + t->committed))
    return top ? top : t->region;
  sigset_t all, saved;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  if (!t->region)
    cce_stack_first (t);
  if (!top)
    top = t->region;
  while (top >= t->region + t->committed)
    cce_stack_grow_once (t);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  return top;
}

/* The calling thread's ccStack, from where none of its code can hold a
   TOP of 0 (libcce's load time, the start of a thread libcce made):
   where its TOP goes, with the room published for inline pushes.  */
struct cce_log_frame *
cce_stack_start (void)
{
  struct cce_thread *t = &cce_self;
  t->slow = 0;
  struct cce_log_frame *base = cce_stack_grow (NULL);
  cce_stack_publish (t);
  return base;
}

/* Make room for an entry at TOP and say where it goes (cce-abi.h).
   Called by the inline push of instrumented code when TOP is at or past
   LIMIT.  A TOP of 0 means that the thread's code may hold a TOP loaded
   before its ccStack existed, and restore it (cce-abi.h): from then on
   every push of the thread comes here.  */
CCE_EXPORT uint64_t
__cce_grow_v6 (uint64_t top)
{
  struct cce_thread *t = &cce_self;
  if (!top && !t->slow)
    {
      t->slow = 1;
      cce_stack_publish (t);
    }
  return (uint64_t) (uintptr_t)
    cce_stack_grow ((struct cce_log_frame *) (uintptr_t) top);
}

/* Unmap the calling thread T's ccStack; it starts again empty, as a new
   thread (__cce_tls all 0).  */
static void
cce_stack_free (struct cce_thread *t)
{
  CCE_TLS_WORD (CCE_TLS_LIMIT) = 0;
  CCE_TLS_WORD (CCE_TLS_TOP) = 0;
  CCE_TLS_WORD (CCE_TLS_BASE) = 0;
  CCE_TLS_WORD (CCE_TLS_ID) = 0;
  cce_barrier ();
  if (t->region)
    munmap (t->region, t->reserved * sizeof *t->region);
  t->region = NULL;
  t->reserved = 0;
  t->committed = 0;
}

/* Push (ID, SITE) on the ccStack and enter the callee's segment with id
   ENTRY: the inline push of cce-abi.h as a function.  The slot is
   reserved (TOP raised) before it is written, so a signal handler that
   pushes meanwhile works above it.  */
CCE_EXPORT void
__cce_push_v6 (uint64_t id, uint64_t site, uint64_t entry)
{
  uint64_t top = CCE_TLS_WORD (CCE_TLS_TOP);
  if (unlikely (top >= CCE_TLS_WORD (CCE_TLS_LIMIT)))
    top = __cce_grow_v6 (top);
  struct cce_log_frame *s = (struct cce_log_frame *) (uintptr_t) top;
  CCE_TLS_WORD (CCE_TLS_TOP) = (uint64_t) (uintptr_t) (s + 1);
  cce_barrier ();
  ((volatile struct cce_log_frame *) s)->id = id;
  ((volatile struct cce_log_frame *) s)->site = site;
  cce_barrier ();
  CCE_TLS_WORD (CCE_TLS_ID) = entry;
}

/* Counted pushes so far (-fplugin-arg-cce-count), reported at exit to the
   file CCE_STATS names.  */
static _Atomic uint64_t cce_push_count;

/* __cce_push_v6, counted: every ccStack push of a program linked with
   -fplugin-arg-cce-count.  */
CCE_EXPORT void
__cce_push_counted_v6 (uint64_t id, uint64_t site, uint64_t entry)
{
  atomic_fetch_add_explicit (&cce_push_count, 1, memory_order_relaxed);
  __cce_push_v6 (id, site, entry);
}

/* Leave a ccStack call: drop the top entry and return to the caller's id
   ID.  */
CCE_EXPORT void
__cce_pop_v6 (uint64_t id)
{
  uint64_t top = CCE_TLS_WORD (CCE_TLS_TOP);
  if (likely (top != 0 && top != CCE_TLS_WORD (CCE_TLS_BASE)))
    CCE_TLS_WORD (CCE_TLS_TOP) = top - sizeof (struct cce_log_frame);
  CCE_TLS_WORD (CCE_TLS_ID) = id;
}

/* CCE_STATS=FILE: append "cce-stats pid PID pushes N" to FILE.  */
static void __attribute__ ((destructor (101)))
cce_report_stats (void)
{
  const char *path = cce_getenv ("CCE_STATS");
  if (!path || !*path)
    return;
  int fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  char line[96];
  int n = snprintf (line, sizeof line, "cce-stats pid %ld pushes %llu\n",
                    (long) getpid (),
                    (unsigned long long) atomic_load (&cce_push_count));
  if (n > 0 && write (fd, line, (size_t) n) < 0)
    n = 0;
  close (fd);
}

/* ------------------------------------------------------------------------
   Process start and fork.
   ------------------------------------------------------------------------ */

pid_t cce_pid;

/* fork, in the child: the process's id, the log's handler, and the
   sampling timer of the child's one thread.  */
static void
cce_fork_child (void)
{
  cce_pid = getpid ();
  cce_log_fork_child ();
  cce_sample_fork_child (&cce_self);
}

/* Load time: register the fork handlers and the key of the thread exit;
   find the main program's code for PC words; set up crash records and the
   sampler, and the main thread's part of them.  */
static void __attribute__ ((constructor (101)))
cce_init (void)
{
  cce_pid = getpid ();
  pthread_atfork (cce_log_fork_prepare, cce_log_fork_parent,
                  cce_fork_child);
  pthread_once (&cce_key_once, cce_key_create);
  /* The main thread's ccStack, before any of its functions can load a
     TOP of 0, so that its pushes need not all grow (threads that
     pthread_create starts get theirs from the creator's entries).  */
  struct cce_log_frame *base = cce_stack_start ();
  if (!CCE_TLS_WORD (CCE_TLS_TOP))
    CCE_TLS_WORD (CCE_TLS_TOP) = (uint64_t) (uintptr_t) base;
  cce_log_init ();
  cce_pc_init ();
  cce_heap_init ();
  cce_crash_init ();
  cce_sample_init ();
  cce_thread_start_hooks ();
}
