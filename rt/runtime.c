/* runtime.c -- libcce, the cce runtime.

   Instrumented code keeps the calling context of each thread in two
   pieces: the id, the number of the context relative to the start of the
   current segment, and the ccStack, the (id, site) pairs of the calls that
   started each segment.  Both live in one initial-exec TLS block,
   __cce_tls (cce-abi.h): the id, the ccStack's top, its last slot and its
   base.  Instrumented code pushes and pops the ccStack inline and calls
   __cce_grow_v5 only when the ccStack is full.  This file owns the block,
   and writes the event log (cce-format.h, part 2): each cce_log call
   appends one record with the thread number, the tag, the log site, the
   id and a copy of the ccStack.

   Threads.  Everything a thread needs lives in initial-exec TLS (__cce_tls
   and cce_self), so the hot paths (the push and pop, inline or
   __cce_push_v5 and __cce_pop_v5, and the fast path of __cce_log_at_v5)
   take no lock and make no call.  Records go to a per-thread buffer; a
   full buffer is appended to the file with write(2) under the one global
   mutex, so a record is never split and the records of a thread stay in
   order.  The file is opened at the first write that has data, so a
   process that logs nothing leaves no file.

   No record is lost at exit.  A thread's buffer is written when the thread
   exits (pthread key destructor).  The main thread never runs key
   destructors; its buffer, and those of threads still running, are written
   by cce_fini, a destructor of priority 101 that runs after every other
   destructor of libcce's object, and -- since an object's destructors run
   after those of the objects that depend on it -- after the program's own
   destructors and atexit handlers.  From then on every record is written
   straight to the file (write-through), so records made later still get
   there.  A thread that has run its exit flush is write-through too.

   fork.  The child drops the records it inherited unwritten (the parent
   writes them) and logs to a file of its own: $CCE_LOG.PID, or cce-PID.log.
   Its ccStack is left as it is: the child returns through the same frames.

   The ccStack's memory.  A thread's first grow reserves a large region of
   address space (CCE_STACK_RESERVE entries, 4 GiB; less if that fails or
   if RLIMIT_AS is set) without memory, and makes its first
   CCE_STACK_CHUNK entries read-write; each later grow doubles the
   read-write part in place, with mprotect.  Entries never move:
   instrumented code keeps the top of the ccStack in a register across a
   call (cce-abi.h), so a ccStack deeper than the whole reservation cannot
   move elsewhere, and the runtime says so and aborts.  The region is
   unmapped when the thread exits (the key destructor, which the first
   grow registers).

   Signals.  Memory comes from mmap, never malloc, so that nothing here
   depends on the state of the allocator.  While a thread is inside the
   runtime's buffer or lock code its in_log flag is set; a cce_log from a
   signal handler that interrupts it does not touch the buffer or the lock:
   it copies its record into a fresh mapping and pushes that on a lock-free
   per-thread list, which the interrupted code appends to the buffer before
   it returns.  A grow runs with signals blocked.  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/membarrier.h>
#include <unistd.h>

#include "cce-abi.h"
#include "cce-format.h"
#include "cce.h"

#define CCE_EXPORT __attribute__ ((visibility ("default")))
#define CCE_TLS __attribute__ ((tls_model ("initial-exec")))
#define likely(X) __builtin_expect (!!(X), 1)
#define unlikely(X) __builtin_expect (!!(X), 0)

/* Bytes of a thread's record buffer.  */
#define CCE_BUF_SIZE (64 * 1024)

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

/* How long the final flush waits for a thread that is in the middle of
   copying a record into its buffer (sched_yield calls).  */
#define CCE_FINAL_SPINS 100000

/* A record made by a signal handler while its thread was inside the
   runtime: a mapping of BYTES bytes holding the record and its frames.  */
struct cce_deferred
{
  struct cce_deferred *next;
  size_t bytes;
  struct cce_log_record rec;
  /* struct cce_log_frame frames[rec.nstack] follow.  */
};

enum cce_thread_state
{
  CCE_THREAD_NEW,       /* no record yet */
  CCE_THREAD_BUFFERED,  /* has a buffer, on the thread list */
  CCE_THREAD_DIRECT     /* exited, or no buffer: write-through */
};

/* The state of one thread besides __cce_tls.  */
struct cce_thread
{
  char *buf;                    /* record buffer, CCE_BUF_SIZE bytes */
  size_t len;                   /* bytes of BUF in use */
  _Atomic int appending;        /* copying a record into BUF (no lock) */
  volatile sig_atomic_t in_log; /* inside buffer, list or lock code */
  int holds_lock;               /* holds cce_lock */
  int fork_locked;              /* cce_fork_prepare took cce_lock */
  enum cce_thread_state state;
  _Atomic uint32_t number;      /* thread number, 0 = none yet */
  _Atomic (struct cce_deferred *) deferred; /* newest first */

  struct cce_thread *next;      /* thread list, under cce_lock */
  struct cce_thread **pprev;    /* NULL when not on the list */

  struct cce_log_frame *region; /* the ccStack's reservation, or NULL;
                                   the ccStack is at its start */
  size_t reserved;              /* entries REGION has address space for */
  size_t committed;             /* entries of REGION that are read-write */
};

/* The calling context of the running thread (cce-abi.h): [CCE_TLS_ID] the
   id, [CCE_TLS_TOP] the first free ccStack entry (0: empty),
   [CCE_TLS_LAST] the last entry there is room for, [CCE_TLS_BASE] the
   bottom.  All 0 at thread start, so the first push grows the ccStack.  Aligned so that it sits in one cache
   line.  An executable built with cce defines its own (cce-abi.h), and
   this one then goes unused: every reference binds to the executable's.
   Weak, so that a static link takes the executable's too.  */
CCE_EXPORT __thread uint64_t __cce_tls[CCE_TLS_WORDS] CCE_TLS
  __attribute__ ((aligned (4 * sizeof (uint64_t)), weak));

static __thread struct cce_thread cce_self CCE_TLS;

/* Serialises writes to the log file, the file state below and the thread
   list.  */
static pthread_mutex_t cce_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cce_thread *cce_threads;
static int cce_fd = -1;
static int cce_fd_failed;       /* open or write failed: drop records */
static dev_t cce_fd_dev;        /* identity of the file cce_fd names */
static ino_t cce_fd_ino;
static int cce_forked;          /* this process is a fork child */
static char cce_path[PATH_MAX + 32];

/* Thread numbers, 1 first.  */
static _Atomic uint32_t cce_next_number = 1;

/* Set by cce_fini: every record from then on is written through.  */
static _Atomic int cce_final;

/* Set when membarrier(2) is registered: then the Dekker pair of
   cce_append and cce_fini is asymmetric -- the append, on every record,
   needs only a compiler barrier, and cce_fini, once, makes every thread
   run a full barrier with MEMBARRIER_CMD_PRIVATE_EXPEDITED.  */
static int cce_asym_fence;

/* Key whose destructor flushes an exiting thread.  */
static pthread_key_t cce_key;
static int cce_key_ok;
static pthread_once_t cce_key_once = PTHREAD_ONCE_INIT;

static void cce_thread_exit (void *);
static void cce_key_create (void);

/* ------------------------------------------------------------------------
   Helpers that are async-signal-safe.
   ------------------------------------------------------------------------ */

/* Compiler barrier: what a signal handler of this thread sees is ordered
   as written.  */
#define cce_barrier() atomic_signal_fence (memory_order_seq_cst)

/* Append the decimal form of N to the string being built at *P, whose end
   is END.  */
static void
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
static void
cce_str_cat (char **p, char *end, const char *s)
{
  while (*s && *p < end)
    *(*p)++ = *s++;
}

/* Print "cce: WHAT FILE: DESCRIPTION OF ERR" on standard error; FILE and
   ERR are left out when NULL and 0.  */
static void
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

/* Map BYTES bytes of zeroed memory; NULL if there is none.  */
static void *
cce_map (size_t bytes)
{
  void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

/* ------------------------------------------------------------------------
   The ccStack.
   ------------------------------------------------------------------------ */

/* Word I of the calling thread's __cce_tls, accessed as the instrumented
   code accesses it: every load and store happens, in order with the
   others.  */
#define CCE_TLS_WORD(I) (((volatile uint64_t *) __cce_tls)[I])

/* The calling thread's ccStack.  */
static inline struct cce_log_frame *
cce_stack_base (void)
{
  return (struct cce_log_frame *) (uintptr_t) CCE_TLS_WORD (CCE_TLS_BASE);
}

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

/* Publish the room of thread T's ccStack: its last usable entry.  */
static void
cce_stack_publish (struct cce_thread *t)
{
  cce_barrier ();
  CCE_TLS_WORD (CCE_TLS_LAST)
    = (uint64_t) (uintptr_t) (t->region + t->committed - 1);
}

/* Thread T's first grow: reserve its region, make the first chunk of it
   read-write, and have the key destructor free it when the thread exits.
   A thread that grows its ccStack again after its exit flush (in another
   key destructor) gets it freed in the next round of destructors.  */
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
  pthread_once (&cce_key_once, cce_key_create);
  if (cce_key_ok && pthread_getspecific (cce_key) != t)
    pthread_setspecific (cce_key, t);
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
   full: then there is nothing to do.  Aborts if there is no memory.  */
static struct cce_log_frame * __attribute__ ((noinline, cold))
cce_stack_grow (struct cce_log_frame *top)
{
  struct cce_thread *t = &cce_self;
  if (!top && t->region)
    return t->region;           /* a TOP loaded before the first grow */
  sigset_t all, saved;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  if (!t->region)
    cce_stack_first (t);
  if (!top)
    top = t->region;
  while (top > (struct cce_log_frame *) (uintptr_t)
                 CCE_TLS_WORD (CCE_TLS_LAST))
    cce_stack_grow_once (t);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  return top;
}

/* Make room for an entry at TOP and say where it goes (cce-abi.h).
   Called by the inline push of instrumented code when TOP is 0 or past
   the last entry there is room for.  */
CCE_EXPORT uint64_t
__cce_grow_v5 (uint64_t top)
{
  return (uint64_t) (uintptr_t)
    cce_stack_grow ((struct cce_log_frame *) (uintptr_t) top);
}

/* Unmap the calling thread T's ccStack; it starts again empty, as a new
   thread (__cce_tls all 0).  */
static void
cce_stack_free (struct cce_thread *t)
{
  CCE_TLS_WORD (CCE_TLS_LAST) = 0;
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
__cce_push_v5 (uint64_t id, uint64_t site, uint64_t entry)
{
  uint64_t top = CCE_TLS_WORD (CCE_TLS_TOP);
  if (unlikely (top - 1 >= CCE_TLS_WORD (CCE_TLS_LAST)))
    top = __cce_grow_v5 (top);
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

/* __cce_push_v5, counted: every ccStack push of a program linked with
   -fplugin-arg-cce-count.  */
CCE_EXPORT void
__cce_push_counted_v5 (uint64_t id, uint64_t site, uint64_t entry)
{
  atomic_fetch_add_explicit (&cce_push_count, 1, memory_order_relaxed);
  __cce_push_v5 (id, site, entry);
}

/* Leave a ccStack call: drop the top entry and return to the caller's id
   ID.  */
CCE_EXPORT void
__cce_pop_v5 (uint64_t id)
{
  uint64_t top = CCE_TLS_WORD (CCE_TLS_TOP);
  if (likely (top != 0 && top != CCE_TLS_WORD (CCE_TLS_BASE)))
    CCE_TLS_WORD (CCE_TLS_TOP) = top - sizeof (struct cce_log_frame);
  CCE_TLS_WORD (CCE_TLS_ID) = id;
}

/* ------------------------------------------------------------------------
   The log file.  All of this runs under cce_lock.
   ------------------------------------------------------------------------ */

/* Lock cce_lock for thread T.  */
static void
cce_lock_take (struct cce_thread *t)
{
  pthread_mutex_lock (&cce_lock);
  t->holds_lock = 1;
}

/* Unlock cce_lock for thread T.  */
static void
cce_lock_give (struct cce_thread *t)
{
  t->holds_lock = 0;
  pthread_mutex_unlock (&cce_lock);
}

/* The stamp of the program's dictionary, 0 if it has none or if its
   header line is not "cce-dict VERSION STAMP".  */
static uint64_t
cce_dict_stamp (void)
{
  const char *p = __cce_dict;
  if (!p)
    return 0;
  size_t n = sizeof CCE_DICT_MAGIC - 1;
  if (strncmp (p, CCE_DICT_MAGIC, n) != 0 || p[n] != ' ')
    return 0;
  p += n + 1;
  if (*p < '0' || *p > '9')
    return 0;
  while (*p >= '0' && *p <= '9')
    p++;
  if (*p++ != ' ')
    return 0;
  uint64_t stamp = 0;
  for (int i = 0; i < 16; i++, p++)
    {
      unsigned v;
      if (*p >= '0' && *p <= '9')
        v = (unsigned) (*p - '0');
      else if (*p >= 'a' && *p <= 'f')
        v = (unsigned) (*p - 'a' + 10);
      else
        return 0;
      stamp = stamp << 4 | v;
    }
  return *p == '\n' ? stamp : 0;
}

/* getenv without calling getenv: a program may define its own (bash
   does, on top of its shell variables), and the runtime must neither run
   program code nor see something else than the environment.  */
static const char *
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

/* Build the log file's name in cce_path: $CCE_LOG (with ".PID" appended
   in a fork child) or cce-PID.log.  Return 0 if it does not fit.  */
static int
cce_path_make (void)
{
  const char *env = cce_getenv ("CCE_LOG");
  char *p = cce_path, *end = cce_path + sizeof cce_path - 1;
  unsigned long pid = (unsigned long) getpid ();
  if (env && *env)
    {
      cce_str_cat (&p, end, env);
      if (cce_forked)
        {
          cce_str_cat (&p, end, ".");
          cce_str_num (&p, end, pid);
        }
    }
  else
    {
      cce_str_cat (&p, end, "cce-");
      cce_str_num (&p, end, pid);
      cce_str_cat (&p, end, ".log");
    }
  *p = '\0';
  return p < end;
}

/* Write the IOVCNT buffers at IOV to cce_fd entirely, across short writes
   and EINTR.  IOV is modified.  On error, complain once, close the file
   and drop every later record; return 0.  */
static int
cce_write_all (struct iovec *iov, int iovcnt)
{
  while (iovcnt > 0)
    {
      ssize_t r = writev (cce_fd, iov, iovcnt);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          cce_complain ("cannot write log", cce_path, errno);
          close (cce_fd);
          cce_fd = -1;
          cce_fd_failed = 1;
          return 0;
        }
      size_t done = (size_t) r;
      while (iovcnt > 0 && done >= iov->iov_len)
        {
          done -= iov->iov_len;
          iov++;
          iovcnt--;
        }
      if (iovcnt > 0)
        {
          iov->iov_base = (char *) iov->iov_base + done;
          iov->iov_len -= done;
        }
    }
  return 1;
}

/* The log header: struct cce_log_header and the module table
   (cce-format.h).  */
static _Alignas (8) char cce_header_buf[16384];

/* dl_iterate_phdr callback: add the shared object INFO to the module
   table of the header in cce_header_buf, whose length is *DATA.  The
   decoder finds the dictionaries of shared libraries built with cce in
   these files; the executable (no name) and the vDSO (no file) are left
   out.  */
static int
cce_add_module (struct dl_phdr_info *info, size_t size, void *data)
{
  size_t *len = data;
  struct cce_log_header *h = (struct cce_log_header *) cce_header_buf;
  struct cce_log_module m;
  char abs[PATH_MAX];
  const char *path = info->dlpi_name;
  (void) size;
  if (!path || !*path)
    return 0;
  if (path[0] != '/')
    {
      /* Found through a relative LD_LIBRARY_PATH, or the vDSO.  */
      if (!strchr (path, '/') || !realpath (path, abs))
        return 0;
      path = abs;
    }
  size_t n = strlen (path), padded = (n + 7) & ~(size_t) 7;
  if (*len + sizeof m + padded > sizeof cce_header_buf)
    return 0;
  m.pathlen = (uint32_t) n;
  m.reserved = 0;
  memcpy (cce_header_buf + *len, &m, sizeof m);
  memcpy (cce_header_buf + *len + sizeof m, path, n);
  *len += sizeof m + padded;
  h->nmodules++;
  return 0;
}

/* Open the log file with FLAGS (besides O_WRONLY | O_CLOEXEC) and write
   its header if it is empty.  Return 0 (having complained and given up on
   the file) if it cannot be opened.  */
static int
cce_file_open (int flags)
{
  int fd = open (cce_path, O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd < 0)
    {
      cce_complain ("cannot open log", cce_path, errno);
      cce_fd_failed = 1;
      return 0;
    }
  /* Keep out of 0, 1 and 2, should the program have closed them: its
     next open of standard output must not get our file.  */
  if (fd <= STDERR_FILENO)
    {
      int high = fcntl (fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
      close (fd);
      if (high < 0)
        {
          cce_complain ("cannot open log", cce_path, errno);
          cce_fd_failed = 1;
          return 0;
        }
      fd = high;
    }
  struct stat st;
  if (fstat (fd, &st) != 0)
    st.st_size = 0, st.st_dev = 0, st.st_ino = 0;
  cce_fd = fd;
  cce_fd_dev = st.st_dev;
  cce_fd_ino = st.st_ino;
  if (st.st_size == 0)
    {
      struct cce_log_header *h = (struct cce_log_header *) cce_header_buf;
      size_t len = sizeof *h;
      memset (cce_header_buf, 0, sizeof cce_header_buf);
      memcpy (h->magic, CCE_LOG_MAGIC, sizeof h->magic);
      h->version = CCE_LOG_VERSION;
      h->stamp = cce_dict_stamp ();
      h->pid = (uint64_t) getpid ();
      dl_iterate_phdr (cce_add_module, &len);
      h->header_size = (uint32_t) len;
      struct iovec iov = { cce_header_buf, len };
      return cce_write_all (&iov, 1);
    }
  return 1;
}

/* Make cce_fd the open log file, opening it at the first write.  If the
   program closed our descriptor (and perhaps reused its number for a file
   of its own), open the log again to append.  Return 0 if records are to
   be dropped.  */
static int
cce_file_ready (void)
{
  if (cce_fd_failed)
    return 0;
  if (cce_fd < 0)
    {
      if (!cce_path_make ())
        {
          cce_complain ("cannot open log", cce_path, ENAMETOOLONG);
          cce_fd_failed = 1;
          return 0;
        }
      return cce_file_open (O_CREAT | O_TRUNC);
    }
  struct stat st;
  if (fstat (cce_fd, &st) == 0 && st.st_dev == cce_fd_dev
      && st.st_ino == cce_fd_ino)
    return 1;
  cce_fd = -1;                  /* not ours any more: do not close it */
  return cce_file_open (O_CREAT | O_APPEND);
}

/* Write LEN bytes at BUF (whole records) to the log.  */
static void
cce_file_write (const char *buf, size_t len)
{
  if (!len || !cce_file_ready ())
    return;
  struct iovec iov = { (void *) buf, len };
  cce_write_all (&iov, 1);
}

/* Write the record R followed by its R->nstack FRAMES to the log.  */
static void
cce_file_write_record (const struct cce_log_record *r,
                       const struct cce_log_frame *frames)
{
  if (!cce_file_ready ())
    return;
  struct iovec iov[2] = {
    { (void *) r, sizeof *r },
    { (void *) frames, r->nstack * sizeof *frames },
  };
  cce_write_all (iov, r->nstack ? 2 : 1);
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

/* The number of thread T, given it at its first record.  */
static uint32_t
cce_thread_number (struct cce_thread *t)
{
  uint32_t n = atomic_load_explicit (&t->number, memory_order_relaxed);
  if (likely (n != 0))
    return n;
  n = atomic_fetch_add (&cce_next_number, 1);
  uint32_t none = 0;
  /* A signal handler may have numbered the thread meanwhile.  */
  if (!atomic_compare_exchange_strong (&t->number, &none, n))
    return none;
  return n;
}

/* Give thread T, which has not logged yet, its buffer and its exit flush.
   Without either it writes its records through.  */
static void
cce_thread_start (struct cce_thread *t)
{
  pthread_once (&cce_key_once, cce_key_create);
  t->state = CCE_THREAD_DIRECT;
  if (!cce_key_ok || pthread_setspecific (cce_key, t) != 0)
    return;
  t->buf = cce_map (CCE_BUF_SIZE);
  if (t->buf)
    t->state = CCE_THREAD_BUFFERED;
}

/* Put T on the thread list; under cce_lock.  */
static void
cce_thread_link (struct cce_thread *t)
{
  t->next = cce_threads;
  if (cce_threads)
    cce_threads->pprev = &t->next;
  t->pprev = &cce_threads;
  cce_threads = t;
}

/* Take T off the thread list; under cce_lock.  */
static void
cce_thread_unlink (struct cce_thread *t)
{
  if (!t->pprev)
    return;
  *t->pprev = t->next;
  if (t->next)
    t->next->pprev = t->pprev;
  t->next = NULL;
  t->pprev = NULL;
}

/* ------------------------------------------------------------------------
   Logging.
   ------------------------------------------------------------------------ */

/* Append record R and its FRAMES to thread T's log, the slow way: under
   cce_lock, writing the buffer out first, or writing the record through
   if the thread has no buffer, the process is exiting, or the record is
   bigger than the buffer.  SIZE is the record's size in bytes.  */
static void __attribute__ ((noinline))
cce_append_slow (struct cce_thread *t, const struct cce_log_record *r,
                 const struct cce_log_frame *frames, size_t size)
{
  if (t->state == CCE_THREAD_NEW && !atomic_load (&cce_final))
    cce_thread_start (t);
  cce_lock_take (t);
  if (t->state == CCE_THREAD_BUFFERED && !t->pprev)
    cce_thread_link (t);
  if (t->len)
    {
      cce_file_write (t->buf, t->len);
      t->len = 0;
    }
  if (t->state == CCE_THREAD_BUFFERED && !atomic_load (&cce_final)
      && size <= CCE_BUF_SIZE)
    {
      memcpy (t->buf, r, sizeof *r);
      memcpy (t->buf + sizeof *r, frames, size - sizeof *r);
      t->len = size;
    }
  else
    cce_file_write_record (r, frames);
  cce_lock_give (t);
}

/* Append record R and its FRAMES to thread T's log; T->in_log is set.  */
static inline void
cce_append (struct cce_thread *t, const struct cce_log_record *r,
            const struct cce_log_frame *frames)
{
  size_t size = sizeof *r + (size_t) r->nstack * sizeof *frames;
  /* With cce_fini's store to cce_final and load of APPENDING, a Dekker
     pair: either cce_fini waits for this copy, or this sees cce_final.
     With membarrier, cce_fini's barrier on every thread stands for the
     full fence between the store and the load here.  */
  if (likely (cce_asym_fence))
    {
      atomic_store_explicit (&t->appending, 1, memory_order_relaxed);
      atomic_signal_fence (memory_order_seq_cst);
    }
  else
    atomic_store (&t->appending, 1);
  if (likely (!atomic_load (&cce_final) && t->buf != NULL
              && size <= CCE_BUF_SIZE - t->len))
    {
      char *p = t->buf + t->len;
      memcpy (p, r, sizeof *r);
      if (r->nstack)
        memcpy (p + sizeof *r, frames, size - sizeof *r);
      t->len += size;
      atomic_store_explicit (&t->appending, 0, memory_order_release);
      return;
    }
  atomic_store_explicit (&t->appending, 0, memory_order_release);
  cce_append_slow (t, r, frames, size);
}

/* Keep record R with its FRAMES, made by a signal handler that interrupted
   thread T inside the runtime, for T to append when it leaves.  */
static void __attribute__ ((noinline, cold))
cce_defer (struct cce_thread *t, const struct cce_log_record *r,
           const struct cce_log_frame *frames)
{
  size_t fbytes = (size_t) r->nstack * sizeof *frames;
  size_t bytes = sizeof (struct cce_deferred) + fbytes;
  struct cce_deferred *d = cce_map (bytes);
  if (!d)
    {
      cce_complain ("out of memory for a log record", NULL, 0);
      abort ();
    }
  d->bytes = bytes;
  d->rec = *r;
  if (fbytes)
    memcpy (d + 1, frames, fbytes);
  d->next = atomic_load (&t->deferred);
  while (!atomic_compare_exchange_weak (&t->deferred, &d->next, d))
    ;
}

/* Append the records signal handlers deferred on thread T, oldest first;
   T->in_log is set.  */
static void __attribute__ ((noinline, cold))
cce_drain (struct cce_thread *t)
{
  struct cce_deferred *d = atomic_exchange (&t->deferred, NULL);
  struct cce_deferred *oldest = NULL;
  while (d)
    {
      struct cce_deferred *next = d->next;
      d->next = oldest;
      oldest = d;
      d = next;
    }
  while (oldest)
    {
      struct cce_deferred *next = oldest->next;
      cce_append (t, &oldest->rec, (const struct cce_log_frame *) (oldest + 1));
      munmap (oldest, oldest->bytes);
      oldest = next;
    }
}

/* Thread T leaves the runtime: clear T->in_log, appending first what
   signal handlers deferred meanwhile.  */
static inline void
cce_leave (struct cce_thread *t)
{
  for (;;)
    {
      if (unlikely (atomic_load_explicit (&t->deferred,
                                          memory_order_relaxed) != NULL))
        cce_drain (t);
      cce_barrier ();
      t->in_log = 0;
      cce_barrier ();
      if (likely (atomic_load_explicit (&t->deferred,
                                        memory_order_relaxed) == NULL))
        return;
      t->in_log = 1;
      cce_barrier ();
    }
}

/* The frames of a record with an empty ccStack (whose base may be
   NULL).  */
static const struct cce_log_frame cce_no_frames[1];

/* Record TAG at log site SITE with the calling thread's context.  A
   signal handler that interrupts this leaves the id and the entries below
   the top as they were.  */
static inline void
cce_log_at (unsigned tag, uint64_t site)
{
  struct cce_thread *t = &cce_self;
  struct cce_log_record r;
  r.thread = cce_thread_number (t);
  r.tag = tag;
  r.site = site;
  r.id = CCE_TLS_WORD (CCE_TLS_ID);
  uint64_t top = CCE_TLS_WORD (CCE_TLS_TOP);
  uint64_t base = CCE_TLS_WORD (CCE_TLS_BASE);
  r.nstack = (uint32_t) cce_tls_depth (top, base);
  r.module = site == CCE_SITE_NONE ? 0 : CCE_SITE_KEY (site);
  const struct cce_log_frame *frames
    = r.nstack ? (const struct cce_log_frame *) (uintptr_t) base
               : cce_no_frames;
  if (unlikely (t->in_log))
    {
      cce_defer (t, &r, frames);
      return;
    }
  t->in_log = 1;
  cce_barrier ();
  cce_append (t, &r, frames);
  cce_leave (t);
}

/* cce_log (TAG) at the instrumented log site SITE.  */
CCE_EXPORT void
__cce_log_at_v5 (unsigned tag, uint64_t site)
{
  cce_log_at (tag, site);
}

/* cce_log (TAG) from code the plugin did not rewrite: no site.  */
CCE_EXPORT void
cce_log (unsigned tag)
{
  cce_log_at (tag, CCE_SITE_NONE);
}

/* ------------------------------------------------------------------------
   Thread exit, process exit, fork.
   ------------------------------------------------------------------------ */

/* Key destructor: the calling thread exits.  Write its buffer, leave the
   thread list, free its memory (the ccStack too: __cce_tls is all 0
   again); whatever it logs later (other key destructors) is written
   through, with an empty ccStack.  ARG is the thread's cce_thread.  */
static void
cce_thread_exit (void *arg)
{
  struct cce_thread *t = arg;
  sigset_t all, saved;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  t->in_log = 1;
  cce_barrier ();
  cce_lock_take (t);
  if (t->len)
    cce_file_write (t->buf, t->len);
  t->len = 0;
  cce_thread_unlink (t);
  t->state = CCE_THREAD_DIRECT;
  cce_lock_give (t);
  if (t->buf)
    munmap (t->buf, CCE_BUF_SIZE);
  t->buf = NULL;
  cce_stack_free (t);
  cce_leave (t);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
}

/* CCE_STATS=FILE: append "cce-stats pid PID pushes N" to FILE.  */
static void
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

/* Process exit, after the program's destructors and atexit handlers:
   write every thread's buffer and switch to write-through.  Threads that
   still run are flushed as well as can be: one in the middle of copying
   a record is waited for a while.  */
static void __attribute__ ((destructor (101)))
cce_fini (void)
{
  struct cce_thread *self = &cce_self;
  sig_atomic_t was_in_log = self->in_log;
  self->in_log = 1;
  cce_barrier ();
  atomic_store (&cce_final, 1);
#ifdef __NR_membarrier
  if (cce_asym_fence
      && syscall (__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0)
         != 0)
    cce_asym_fence = 0;
#endif
  /* exit () from a signal handler that interrupted this thread while it
     held the lock: the interrupted code never resumes.  */
  int locked = !self->holds_lock;
  if (locked)
    cce_lock_take (self);
  for (struct cce_thread *t = cce_threads; t; t = t->next)
    {
      if (t != self)
        for (int i = 0; i < CCE_FINAL_SPINS && atomic_load (&t->appending);
             i++)
          sched_yield ();
      if (atomic_load (&t->appending) && t != self)
        continue;
      if (t->len)
        cce_file_write (t->buf, t->len);
      t->len = 0;
    }
  if (locked)
    cce_lock_give (self);
  if (!was_in_log)
    cce_leave (self);
  else
    self->in_log = was_in_log;
  cce_report_stats ();
}

/* fork: hold the lock across it, so the child's copy of the file state
   and thread list is consistent.  */
static void
cce_fork_prepare (void)
{
  struct cce_thread *t = &cce_self;
  t->fork_locked = 0;
  if (t->in_log)
    return;                     /* fork from a signal handler */
  t->in_log = 1;
  cce_barrier ();
  cce_lock_take (t);
  t->fork_locked = 1;
}

/* fork, in the parent: let go.  */
static void
cce_fork_parent (void)
{
  struct cce_thread *t = &cce_self;
  if (!t->fork_locked)
    return;
  t->fork_locked = 0;
  cce_lock_give (t);
  cce_leave (t);
}

/* fork, in the child: drop the records inherited unwritten (the parent
   writes them), forget the parent's other threads and its file; the
   child's records go to a file of its own.  Thread numbers go on from
   the parent's.  The ccStack (__cce_tls and its regions, a private copy
   now) stays as it is: the child returns through the same frames.  */
static void
cce_fork_child (void)
{
  struct cce_thread *t = &cce_self;
  pthread_mutex_init (&cce_lock, NULL);
  t->holds_lock = 0;
  cce_threads = NULL;
  if (t->pprev)
    cce_thread_link (t);
  t->len = 0;
  struct cce_deferred *d = atomic_exchange (&t->deferred, NULL);
  while (d)
    {
      struct cce_deferred *next = d->next;
      munmap (d, d->bytes);
      d = next;
    }
  if (cce_fd >= 0)
    close (cce_fd);
  cce_fd = -1;
  cce_fd_failed = 0;
  cce_forked = 1;
  if (t->fork_locked)
    {
      t->fork_locked = 0;
      cce_barrier ();
      t->in_log = 0;
    }
}

/* Load time: register the fork handlers and the exit flush key.  */
static void __attribute__ ((constructor (101)))
cce_init (void)
{
  pthread_atfork (cce_fork_prepare, cce_fork_parent, cce_fork_child);
  pthread_once (&cce_key_once, cce_key_create);
  /* The main thread's ccStack, so that its functions never load a TOP of
     0 and take the grow call at every push (threads that pthread_create
     starts get theirs from the creator's entries).  */
  if (!CCE_TLS_WORD (CCE_TLS_TOP))
    CCE_TLS_WORD (CCE_TLS_TOP) = (uint64_t) (uintptr_t) cce_stack_grow (NULL);
#ifdef __NR_membarrier
  if (syscall (__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0,
               0) == 0)
    cce_asym_fence = 1;
#endif
}
