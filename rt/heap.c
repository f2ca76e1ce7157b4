/* heap.c -- the heap profile: CCE_HEAP=1 counts every allocation of the
   program with the exact context of the program's call.

   libcce defines malloc, calloc, realloc, reallocarray, free,
   posix_memalign, aligned_alloc, memalign, valloc, pvalloc and
   malloc_usable_size.  It is linked ahead of the C library, so these are
   the program's (and the C library's own calls of them: strdup, getline,
   fopen... go through them too); each forwards to the C library's
   allocator (__libc_malloc...).  Without CCE_HEAP, that is all they do:
   malloc, free, calloc and realloc in one jump through a pointer, the
   others after one test of a flag.

   The context of an allocation is that of the program's call: a PC word
   (cce-format.h) of the return address with CCE_PC_CALLER, with the
   thread's id and ccStack, as for an instruction a signal interrupted in
   the C library.  When the allocator's caller is the program, that is
   __builtin_return_address (0), without an unwind; when it is the C
   library or another library (strdup, operator new), the runtime unwinds
   to the first return address into the program (pc.c): only those pay
   for it.

   Counts.  Each thread has a table of the contexts it allocated in:
   groups of three entries (allocations, frees, the peak) in heap spans
   of the log file (cce-format.h), mapped shared like the records, so the
   profile is in the file whatever ends the process; and an index in its
   own memory (open addressing on the context's hash) that only it
   reads.  The allocating thread adds to its entries with plain stores;
   a free, from any thread, adds to the group's free entry atomically.

   Blocks.  A profiled block has 16 bytes in front of it: the address of
   its group, and a word with bit 63 set, the block's size and the log2
   of its offset from the start of the C library's block (16, or the
   alignment of memalign and the like).  The C library's own header word
   right before a block it returned never has bit 63 set (it is the
   chunk's size), so free tells a profiled block from one allocated
   before CCE_HEAP took effect, or by code that called __libc_malloc,
   or not sampled: those go straight to __libc_free.

   Recursion.  While a thread is in this code (HEAP_BUSY), its
   allocations (the unwinder's, the log's) are not profiled.

   The peak.  Each thread keeps the bytes it allocated minus those it
   freed, and adds them to the process's count every 64 KiB; when that
   count grows 1/16 past the last snapshot, the live blocks of every
   context (allocations minus frees) are copied into the peak entries,
   under a lock.  The peak entries are then those of a heap within 1/16
   (and 64 KiB per thread) of its largest.

   Sampling (CCE_HEAP_SAMPLE=BYTES): a thread profiles the block in which
   its next sample point falls, the points an exponential distance apart
   with mean BYTES (tcmalloc's and jemalloc's scheme); the other blocks
   get no header and cost a subtraction.  The decoder weights the counts
   (cce-format.h).

   fork: the child's allocations are not profiled; the tables it
   inherited become private copies, so that its frees do not reach the
   parent's file.  A thread's table goes, when it exits, to the next
   thread that allocates: its blocks may be freed later, so its entries
   must stay.  */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rt-internal.h"

#if CCE_HAVE_KEEP
/* The id's register (cce-abi.h, CCE_IDREG), reserved in this file: an
   allocation function the program calls finds the program's id there,
   since the code of other files saves the register as callee-saved.  */
register uint64_t cce_heap_reg __asm__ (CCE_IDREG);
static inline uint64_t
cce_heap_idreg (void)
{
  return cce_heap_reg;
}
#else
static inline uint64_t
cce_heap_idreg (void)
{
  return 0;
}
#endif

/* The static libcce has no allocator functions: linked into a static
   program, they would be defined twice, with the C library's.  */
#ifndef PIC

void
cce_heap_init (void)
{
  const char *env = cce_getenv ("CCE_HEAP");
  if (env && *env && strcmp (env, "0") != 0)
    cce_complain ("CCE_HEAP needs the shared libcce; the heap is not"
                  " profiled", NULL, 0);
}

void
cce_heap_thread_exit (struct cce_thread *t)
{
  (void) t;
}

#else /* PIC */

/* The C library's allocator.  Called through the GOT, without a PLT
   stub.  */
#define CCE_LIBC __attribute__ ((noplt))
extern void *__libc_malloc (size_t) CCE_LIBC;
extern void *__libc_calloc (size_t, size_t) CCE_LIBC;
extern void *__libc_realloc (void *, size_t) CCE_LIBC;
extern void __libc_free (void *) CCE_LIBC;
extern void *__libc_memalign (size_t, size_t) CCE_LIBC;

/* A block's header, in front of it.  */
struct cce_heap_header
{
  struct cce_log_entry *group;  /* its context's allocation entry */
  uint64_t word;                /* CCE_HEAP_MARK | shift << 56 | size */
};
#define CCE_HEAP_MARK (UINT64_C (1) << 63)
#define CCE_HEAP_SIZE_MAX ((UINT64_C (1) << 56) - 1)
#define CCE_HEAP_SHIFT(w) ((unsigned) ((w) >> 56) & 0x7f)

/* The thread's bytes go to the process's count past this.  */
#define CCE_HEAP_FLUSH (64 * 1024)

/* The most contexts of a table; past them, allocations count in the
   table's group of CCE_PC_EXTERNAL.  */
#define CCE_HEAP_CONTEXTS_MAX (1u << 22)

/* The most spans of a table (each twice the last, up to 1 MiB).  */
#define CCE_HEAP_SPANS 4096
#define CCE_HEAP_SPAN_MAX_CHUNKS 256

/* Set at load time with CCE_HEAP: the wrappers profile.  Never cleared:
   free must find the headers of the blocks made while it was set.  */
int cce_heap_on CCE_HIDDEN;
/* Allocations are no longer profiled (the log failed, a fork child).  */
static int cce_heap_stopped;
/* CCE_HEAP_SAMPLE, 0: every allocation.  */
static uint32_t cce_heap_interval;
/* The C library's malloc_usable_size, found at its first use.  */
static size_t (*_Atomic cce_libc_usable) (void *);

/* The bytes of the C library's block P the program may use.  */
static size_t
cce_libc_usable_size (void *p)
{
  size_t (*f) (void *) = atomic_load_explicit (&cce_libc_usable,
                                               memory_order_relaxed);
  if (!f)
    {
      f = (size_t (*) (void *)) dlsym (RTLD_NEXT, "malloc_usable_size");
      atomic_store_explicit (&cce_libc_usable, f, memory_order_relaxed);
    }
  return f ? f (p) : 0;
}

/* A table of contexts.  */
struct cce_heap_slot
{
  uint64_t hash;
  struct cce_log_entry *group;  /* NULL: free */
};

struct cce_heap_table
{
  struct cce_heap_table *all;   /* every table, for the peak */
  struct cce_heap_table *free;  /* tables of threads that exited */
  struct cce_heap_slot *index;  /* owner only */
  size_t mask;                  /* slots - 1 */
  size_t used;
  /* The groups, for the peak snapshot (under cce_heap_lock).  */
  struct cce_log_entry **groups;
  size_t ngroups, agroups;
  struct cce_log_entry *overflow; /* group of CCE_PC_EXTERNAL, or NULL */
  struct cce_window win;        /* where new groups go */
  uint32_t thread;              /* the thread of its span */
  size_t nspans;
  struct { char *base; size_t bytes; } spans[CCE_HEAP_SPANS];
};

/* Serialises new groups, the list of tables and the peak snapshot.  */
static pthread_mutex_t cce_heap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cce_heap_table *cce_heap_tables, *cce_heap_free_tables;
/* The process's live bytes (as the threads added them), and those of
   the last snapshot.  */
static _Atomic int64_t cce_heap_live;
static int64_t cce_heap_snap;
static int cce_heap_warned;

/* ------------------------------------------------------------------------
   Tables.
   ------------------------------------------------------------------------ */

/* Say once that the heap profile stops, and why.  */
static void __attribute__ ((cold))
cce_heap_fail (const char *what, int err)
{
  cce_heap_stopped = 1;
  if (!cce_heap_warned)
    {
      cce_heap_warned = 1;
      cce_complain (what, NULL, err);
    }
}

static void *
cce_heap_map (size_t bytes)
{
  void *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}

/* A table for thread T: one a thread left, or a new one.  Under
   cce_heap_lock.  */
static struct cce_heap_table *
cce_heap_table_get (void)
{
  struct cce_heap_table *tb = cce_heap_free_tables;
  if (tb)
    {
      cce_heap_free_tables = tb->free;
      tb->free = NULL;
      return tb;
    }
  tb = cce_heap_map (sizeof *tb);
  if (!tb)
    return NULL;
  size_t slots = 1024;
  tb->index = cce_heap_map (slots * sizeof *tb->index);
  tb->agroups = 512;
  tb->groups = cce_heap_map (tb->agroups * sizeof *tb->groups);
  if (!tb->index || !tb->groups)
    return NULL;
  tb->mask = slots - 1;
  tb->all = cce_heap_tables;
  cce_heap_tables = tb;
  return tb;
}

/* Make the index of TB twice as large.  Return 0 if it cannot.  */
static int
cce_heap_index_grow (struct cce_heap_table *tb)
{
  size_t slots = (tb->mask + 1) * 2;
  struct cce_heap_slot *n = cce_heap_map (slots * sizeof *n);
  if (!n)
    return 0;
  for (size_t i = 0; i <= tb->mask; i++)
    if (tb->index[i].group)
      {
        size_t j = (size_t) tb->index[i].hash & (slots - 1);
        while (n[j].group)
          j = (j + 1) & (slots - 1);
        n[j] = tb->index[i];
      }
  munmap (tb->index, (tb->mask + 1) * sizeof *tb->index);
  tb->index = n;
  tb->mask = slots - 1;
  return 1;
}

/* Write one entry of a group at E (SIZE bytes of room).  */
static void
cce_heap_entry_put (struct cce_log_entry *e, uint32_t size, unsigned tag,
                    uint64_t site, uint64_t id, uint32_t nstack,
                    const struct cce_log_frame *frames, uint32_t thread)
{
  e->size = size;
  cce_entry_put (e, tag, site, id, nstack, frames, CCE_ENTRY_VALUE, 0, 0, 0,
                 thread);
}

/* A new group for the context in thread T's table, or NULL.  Under
   cce_heap_lock.  */
static struct cce_log_entry *
cce_heap_group_new (struct cce_thread *t, uint64_t site, uint64_t id,
                    uint32_t nstack, const struct cce_log_frame *frames)
{
  struct cce_heap_table *tb = t->heap;
  size_t one = sizeof (struct cce_log_entry)
               + (size_t) nstack * sizeof (struct cce_log_frame);
  size_t need = 3 * one;
  if (one > UINT32_MAX / 4)
    return NULL;
  if (tb->ngroups == tb->agroups)
    {
      size_t n = tb->agroups * 2;
      struct cce_log_entry **g = cce_heap_map (n * sizeof *g);
      if (!g)
        return NULL;
      memcpy (g, tb->groups, tb->ngroups * sizeof *g);
      munmap (tb->groups, tb->agroups * sizeof *g);
      tb->groups = g;
      tb->agroups = n;
    }
  struct cce_window *w = &tb->win;
  if ((size_t) (w->limit - w->next) < need)
    {
      if (tb->nspans == CCE_HEAP_SPANS)
        return NULL;
      size_t chunks = w->chunks ? w->chunks * 2 : 1;
      if (chunks > CCE_HEAP_SPAN_MAX_CHUNKS)
        chunks = CCE_HEAP_SPAN_MAX_CHUNKS;
      char *m;
      size_t bytes;
      /* The rest of the last span stays 0: the decoder stops there.  */
      if (!cce_log_heap_span (t, chunks, need, cce_heap_interval, &m,
                              &bytes))
        {
          cce_heap_fail ("cannot write the heap profile (CCE_HEAP needs a"
                         " log file); allocations are no longer profiled",
                         0);
          return NULL;
        }
      tb->thread = t->number;
      tb->spans[tb->nspans].base = m;
      tb->spans[tb->nspans].bytes = bytes;
      tb->nspans++;
      w->base = m;
      w->bytes = bytes;
      w->chunks = bytes / (size_t) getpagesize ();
      w->next = m + sizeof (struct cce_log_span);
      w->limit = m + bytes;
    }
  struct cce_log_entry *g = (struct cce_log_entry *) w->next;
  w->next += need;
  /* Frees and peak first: the group is whole once its allocation entry
     is valid.  */
  cce_heap_entry_put ((struct cce_log_entry *) ((char *) g + one),
                      (uint32_t) one, CCE_TAG_HEAP_FREE, site, id, nstack,
                      frames, tb->thread);
  cce_heap_entry_put ((struct cce_log_entry *) ((char *) g + 2 * one),
                      (uint32_t) one, CCE_TAG_HEAP_PEAK, site, id, nstack,
                      frames, tb->thread);
  cce_heap_entry_put (g, (uint32_t) one, CCE_TAG_HEAP_ALLOC, site, id,
                      nstack, frames, tb->thread);
  tb->groups[tb->ngroups++] = g;
  return g;
}

/* The group of the context (SITE, ID and the thread's ccStack) in
   thread T's table, made if need be; NULL if none can be.  */
static struct cce_log_entry *
cce_heap_group (struct cce_thread *t, uint64_t site, uint64_t id)
{
  uint32_t nstack;
  const struct cce_log_frame *frames = cce_tls_stack (&nstack);
  const uint64_t k = UINT64_C (0x9e3779b97f4a7c15);
  uint64_t h = (site ^ UINT64_C (0x48454150)) * k;
  h = (h ^ id) * k;
  for (uint32_t i = 0; i < nstack; i++)
    {
      h = (h ^ frames[i].id) * k;
      h = (h ^ frames[i].site) * k;
    }
  h ^= h >> 29;

  struct cce_heap_table *tb = t->heap;
  if (likely (tb != NULL))
    {
      size_t i = (size_t) h & tb->mask;
      struct cce_log_entry *g;
      while ((g = tb->index[i].group) != NULL)
        {
          if (tb->index[i].hash == h && g->site == site && g->id == id
              && g->nstack == nstack)
            {
              const struct cce_log_frame *f
                = (const struct cce_log_frame *) (g + 1);
              uint32_t j = 0;
              while (j < nstack && f[j].id == frames[j].id
                     && f[j].site == frames[j].site)
                j++;
              if (j == nstack)
                return g;
            }
          i = (i + 1) & tb->mask;
        }
    }

  /* A new context.  */
  struct cce_log_entry *g = NULL;
  pthread_mutex_lock (&cce_heap_lock);
  if (cce_heap_stopped)
    goto out;
  if (!tb)
    {
      if (!(tb = t->heap = cce_heap_table_get ()))
        {
          cce_heap_fail ("no memory for the heap profile; allocations are"
                         " no longer profiled", ENOMEM);
          goto out;
        }
      cce_thread_register (t);
    }
  if (tb->used >= CCE_HEAP_CONTEXTS_MAX
      || (2 * (tb->used + 1) > tb->mask + 1 && !cce_heap_index_grow (tb)))
    {
      if (!tb->overflow)
        tb->overflow = cce_heap_group_new (t, CCE_PC_EXTERNAL, 0, 0, NULL);
      g = tb->overflow;
      goto out;
    }
  g = cce_heap_group_new (t, site, id, nstack, frames);
  if (g)
    {
      size_t i = (size_t) h & tb->mask;
      while (tb->index[i].group)
        i = (i + 1) & tb->mask;
      tb->index[i].hash = h;
      tb->index[i].group = g;
      tb->used++;
    }
 out:
  pthread_mutex_unlock (&cce_heap_lock);
  return g;
}

/* The free entry and the peak entry of group G.  */
static inline struct cce_log_entry *
cce_heap_freed (struct cce_log_entry *g)
{
  return (struct cce_log_entry *) ((char *) g + g->size);
}

/* The heap grew 1/16 past the last snapshot: copy every context's live
   blocks into its peak entry.  */
static void __attribute__ ((noinline, cold))
cce_heap_snapshot (int64_t live)
{
  if (pthread_mutex_trylock (&cce_heap_lock) != 0)
    return;
  if (live > cce_heap_snap + cce_heap_snap / 16)
    {
      cce_heap_snap = live;
      for (struct cce_heap_table *tb = cce_heap_tables; tb; tb = tb->all)
        for (size_t i = 0; i < tb->ngroups; i++)
          {
            struct cce_log_entry *g = tb->groups[i];
            struct cce_log_entry *f = cce_heap_freed (g);
            struct cce_log_entry *p = cce_heap_freed (f);
            uint64_t fc = atomic_load_explicit ((_Atomic uint64_t *)
                                                &f->count,
                                                memory_order_relaxed);
            uint64_t fv = atomic_load_explicit ((_Atomic uint64_t *)
                                                &f->value,
                                                memory_order_relaxed);
            uint64_t ac = *(volatile uint64_t *) &g->count;
            uint64_t av = *(volatile uint64_t *) &g->value;
            p->count = ac >= fc ? ac - fc : 0;
            p->value = av >= fv ? av - fv : 0;
          }
    }
  pthread_mutex_unlock (&cce_heap_lock);
}

/* Add thread T's bytes to the process's.  */
static void __attribute__ ((noinline))
cce_heap_flush (struct cce_thread *t)
{
  int64_t d = t->heap_delta;
  t->heap_delta = 0;
  int64_t live = atomic_fetch_add_explicit (&cce_heap_live, d,
                                            memory_order_relaxed) + d;
  if (d > 0 && live > cce_heap_snap + cce_heap_snap / 16
      && !cce_heap_stopped)
    cce_heap_snapshot (live);
}

/* ------------------------------------------------------------------------
   Sampling.
   ------------------------------------------------------------------------ */

/* The bytes to thread T's next sample point: exponential, of mean
   cce_heap_interval.  */
static int64_t
cce_heap_next_sample (struct cce_thread *t)
{
  uint64_t x = t->heap_rand;
  if (!x)
    x = (uint64_t) (uintptr_t) t ^ (uint64_t) time (NULL)
        ^ UINT64_C (0x9e3779b97f4a7c15);
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  t->heap_rand = x;
  double u = (double) ((x * UINT64_C (2685821657736338717)) >> 11)
             * (1.0 / 9007199254740992.0);
  double d = -log (1.0 - u) * (double) cce_heap_interval;
  return d < 1.0 ? 1 : d > 9e18 ? INT64_MAX : (int64_t) d;
}

/* Whether thread T profiles a block of N bytes.  */
static inline int
cce_heap_sampled (struct cce_thread *t, size_t n)
{
  if (likely (!cce_heap_interval))
    return 1;
  if (t->heap_left == 0)
    t->heap_left = cce_heap_next_sample (t);
  if ((uint64_t) t->heap_left > n)
    {
      t->heap_left -= (int64_t) n;
      return 0;
    }
  int64_t over = (int64_t) n - t->heap_left;
  do
    {
      int64_t d = cce_heap_next_sample (t);
      t->heap_left = d;
      over -= d;
    }
  while (over >= 0);
  t->heap_left = -over;
  return 1;
}

/* ------------------------------------------------------------------------
   Allocations.
   ------------------------------------------------------------------------ */

/* The group of an allocation of N bytes whose caller returns to RA, in
   thread T (HEAP_BUSY set), or NULL if it is not profiled.  */
static struct cce_log_entry *
cce_heap_context (struct cce_thread *t, size_t n, void *ra)
{
  if (cce_heap_stopped || n > CCE_HEAP_SIZE_MAX || !cce_heap_sampled (t, n))
    return NULL;
  uint64_t word = cce_pc_word ((uintptr_t) ra);
  uint64_t id;
  if (word != CCE_PC_EXTERNAL)
    {
      word |= CCE_PC_CALLER;
      id = cce_program_id (cce_heap_idreg ());
    }
  else
    word = cce_caller_word (&id);
  return cce_heap_group (t, word, id);
}

/* Count a block of N bytes of group G at P (the C library's block Q),
   and write its header.  */
static inline void *
cce_heap_count (struct cce_thread *t, struct cce_log_entry *g, char *q,
                size_t n, unsigned shift)
{
  char *p = q + ((size_t) 1 << shift);
  struct cce_heap_header *h = (struct cce_heap_header *) p - 1;
  h->group = g;
  h->word = CCE_HEAP_MARK | (uint64_t) shift << 56 | (uint64_t) n;
  g->count++;
  g->value += n;
  cce_barrier ();
  t->heap_delta += (int64_t) n;
  if (t->heap_delta >= CCE_HEAP_FLUSH)
    cce_heap_flush (t);
  return p;
}

/* The header of P, a block of the program, or NULL if P is not a
   profiled block.  */
static inline struct cce_heap_header *
cce_heap_header (void *p)
{
  struct cce_heap_header *h = (struct cce_heap_header *) p - 1;
  return (h->word & CCE_HEAP_MARK) ? h : NULL;
}

/* Count the free of the block with header H; return the C library's
   block.  */
static inline void *
cce_heap_uncount (struct cce_heap_header *h)
{
  struct cce_log_entry *f = cce_heap_freed (h->group);
  uint64_t n = h->word & CCE_HEAP_SIZE_MAX;
  atomic_fetch_add_explicit ((_Atomic uint64_t *) &f->count, 1,
                             memory_order_relaxed);
  atomic_fetch_add_explicit ((_Atomic uint64_t *) &f->value, n,
                             memory_order_relaxed);
  struct cce_thread *t = &cce_self;
  t->heap_delta -= (int64_t) n;
  if (t->heap_delta <= -CCE_HEAP_FLUSH)
    cce_heap_flush (t);
  return (char *) (h + 1) - ((size_t) 1 << CCE_HEAP_SHIFT (h->word));
}

/* The bytes of the block P the program may use.  */
static size_t
cce_heap_usable (void *p)
{
  struct cce_heap_header *h = cce_heap_header (p);
  if (h)
    return h->word & CCE_HEAP_SIZE_MAX;
  return cce_libc_usable_size (p);
}

/* An allocation of N bytes aligned to ALIGN (a power of two; 0 for
   malloc's), zeroed with ZERO, whose caller returns to RA.  */
static void * __attribute__ ((noinline))
cce_heap_alloc (size_t n, size_t align, int zero, void *ra)
{
  struct cce_thread *t = &cce_self;
  struct cce_log_entry *g = NULL;
  /* Sampling, a block before the next sample point: only that.  */
  if (cce_heap_interval && (uint64_t) t->heap_left > n && !t->heap_busy)
    {
      t->heap_left -= (int64_t) n;
      return align ? __libc_memalign (align, n)
                   : zero ? __libc_calloc (1, n) : __libc_malloc (n);
    }
  if (!t->heap_busy)
    {
      t->heap_busy = 1;
      cce_barrier ();
      g = cce_heap_context (t, n, ra);
    }
  else
    ra = NULL;                  /* libcce's own: not profiled */
  unsigned shift = 4;
  if (align > 16)
    shift = (unsigned) __builtin_ctzl (align);
  size_t room = (size_t) 1 << shift;
  char *q;
  if (!g || n > SIZE_MAX - room)
    q = align ? __libc_memalign (align, n)
              : zero ? __libc_calloc (1, n) : __libc_malloc (n);
  else if (align > 16)
    {
      q = __libc_memalign (align, n + room);
      if (q && zero)
        memset (q + room, 0, n);
    }
  else
    q = zero ? __libc_calloc (1, n + room) : __libc_malloc (n + room);
  if (q && g && n <= SIZE_MAX - room)
    q = cce_heap_count (t, g, q, n, shift);
  if (ra)
    {
      cce_barrier ();
      t->heap_busy = 0;
    }
  return q;
}

/* free (P) with the heap profile on.  */
static void __attribute__ ((noinline))
cce_heap_free (void *p)
{
  struct cce_heap_header *h = cce_heap_header (p);
  __libc_free (h ? cce_heap_uncount (h) : p);
}

/* realloc (P, N) with the heap profile on: the free of P and an
   allocation of N bytes.  */
static void * __attribute__ ((noinline))
cce_heap_realloc (void *p, size_t n, void *ra)
{
  if (!p)
    return cce_heap_alloc (n, 0, 0, ra);
  if (n == 0)
    {
      cce_heap_free (p);
      return NULL;
    }
  struct cce_thread *t = &cce_self;
  struct cce_heap_header *h = cce_heap_header (p);
  if (t->heap_busy)
    {
      if (!h)
        return __libc_realloc (p, n);
      ra = NULL;
    }
  else
    {
      t->heap_busy = 1;
      cce_barrier ();
    }
  struct cce_log_entry *g = ra ? cce_heap_context (t, n, ra) : NULL;
  void *r;
  if (h && g && CCE_HEAP_SHIFT (h->word) == 4 && n <= SIZE_MAX - 16)
    {
      /* In place, or moved by the C library.  The old block is gone
         either way once it returns something.  */
      struct cce_heap_header old = *h;
      char *q = __libc_realloc ((char *) p - 16, n + 16);
      if (q)
        {
          cce_heap_uncount (&old);
          r = cce_heap_count (t, g, q, n, 4);
        }
      else
        r = NULL;
    }
  else if (!h && !g)
    r = __libc_realloc (p, n);
  else
    {
      /* A new block, with a header or without, then the old one's
         contents and its free.  */
      char *q;
      if (g && n <= SIZE_MAX - 16)
        {
          q = __libc_malloc (n + 16);
          if (q)
            q = cce_heap_count (t, g, q, n, 4);
        }
      else
        q = __libc_malloc (n);
      if (q)
        {
          size_t old = cce_heap_usable (p);
          memcpy (q, p, old < n ? old : n);
          cce_heap_free (p);
        }
      r = q;
    }
  if (ra)
    {
      cce_barrier ();
      t->heap_busy = 0;
    }
  return r;
}

/* ------------------------------------------------------------------------
   The C library's interface.
   ------------------------------------------------------------------------ */

#define CCE_RA __builtin_return_address (0)

/* The profiling versions of the four most frequent entry points.  Each
   is entered by a jump from the entry point, so that CCE_RA is the
   program's return address (where the compiler made no tail call, it is
   one in libcce, and the runtime unwinds to the program's).  */
static void *
cce_heap_malloc (size_t n)
{
  return cce_heap_alloc (n, 0, 0, CCE_RA);
}

static void
cce_heap_free_or_null (void *p)
{
  if (p)
    cce_heap_free (p);
}

static void *
cce_heap_calloc (size_t n, size_t size)
{
  size_t bytes;
  if (__builtin_mul_overflow (n, size, &bytes))
    {
      errno = ENOMEM;
      return NULL;
    }
  return cce_heap_alloc (bytes, 0, 1, CCE_RA);
}

static void *
cce_heap_realloc_at (void *p, size_t n)
{
  return cce_heap_realloc (p, n, CCE_RA);
}

/* Where malloc, free, calloc and realloc go: the C library's allocator,
   and the versions above once CCE_HEAP turns the profile on
   (cce_heap_init, at load time, before any thread).  Each entry point
   is one indirect jump, as a call of the C library's through its PLT
   entry would be, with no test of cce_heap_on: the programs that
   allocate most pay nothing more than that while the heap is not
   profiled.  The pointers have a page of their own, read-only once
   cce_heap_init has set them: what every allocation jumps through does
   not stay writable.  */
#define CCE_ALLOC_PAGE 4096
static union
{
  struct
  {
    void *(*malloc) (size_t);
    void (*free) (void *);
    void *(*calloc) (size_t, size_t);
    void *(*realloc) (void *, size_t);
  } fn;
  char page[CCE_ALLOC_PAGE];
} cce_alloc __attribute__ ((aligned (CCE_ALLOC_PAGE))) = {
  { __libc_malloc, __libc_free, __libc_calloc, __libc_realloc }
};

CCE_EXPORT void *
malloc (size_t n)
{
  return cce_alloc.fn.malloc (n);
}

CCE_EXPORT void
free (void *p)
{
  cce_alloc.fn.free (p);
}

CCE_EXPORT void *
calloc (size_t n, size_t size)
{
  return cce_alloc.fn.calloc (n, size);
}

CCE_EXPORT void *
realloc (void *p, size_t n)
{
  return cce_alloc.fn.realloc (p, n);
}

CCE_EXPORT void *
reallocarray (void *p, size_t n, size_t size)
{
  size_t bytes;
  if (__builtin_mul_overflow (n, size, &bytes))
    {
      errno = ENOMEM;
      return NULL;
    }
  if (likely (!cce_heap_on))
    return __libc_realloc (p, bytes);
  return cce_heap_realloc (p, bytes, CCE_RA);
}

/* An aligned allocation: ALIGN rounded up to a power of two, as the C
   library's memalign does.  */
static inline void *
cce_heap_aligned (size_t align, size_t n, void *ra)
{
  if (align & (align - 1))
    {
      if (align > SIZE_MAX / 2 + 1)
        {
          errno = EINVAL;
          return NULL;
        }
      align = (size_t) 1 << (64 - __builtin_clzl (align));
    }
  if (likely (!cce_heap_on))
    return __libc_memalign (align, n);
  return cce_heap_alloc (n, align > 16 ? align : 0, 0, ra);
}

CCE_EXPORT void *
memalign (size_t align, size_t n)
{
  return cce_heap_aligned (align, n, CCE_RA);
}

CCE_EXPORT void *
aligned_alloc (size_t align, size_t n)
{
  return cce_heap_aligned (align, n, CCE_RA);
}

CCE_EXPORT int
posix_memalign (void **r, size_t align, size_t n)
{
  if (align % sizeof (void *) || (align & (align - 1)) || !align)
    return EINVAL;
  int e = errno;
  void *p = cce_heap_aligned (align, n, CCE_RA);
  if (!p)
    {
      int err = errno;
      errno = e;
      return err ? err : ENOMEM;
    }
  *r = p;
  return 0;
}

CCE_EXPORT void *
valloc (size_t n)
{
  return cce_heap_aligned ((size_t) getpagesize (), n, CCE_RA);
}

CCE_EXPORT void *
pvalloc (size_t n)
{
  size_t page = (size_t) getpagesize ();
  if (n > SIZE_MAX - page)
    {
      errno = ENOMEM;
      return NULL;
    }
  return cce_heap_aligned (page, n ? (n + page - 1) & ~(page - 1) : page,
                           CCE_RA);
}

CCE_EXPORT size_t
malloc_usable_size (void *p)
{
  if (!p)
    return 0;
  if (likely (!cce_heap_on))
    return cce_libc_usable_size (p);
  return cce_heap_usable (p);
}

/* ------------------------------------------------------------------------
   Set-up, threads, fork.
   ------------------------------------------------------------------------ */

/* fork: no new group or snapshot across it.  */
static void
cce_heap_fork_prepare (void)
{
  pthread_mutex_lock (&cce_heap_lock);
}

static void
cce_heap_fork_parent (void)
{
  pthread_mutex_unlock (&cce_heap_lock);
}

/* fork, in the child: stop profiling, and make the spans private
   copies, so that the child's frees reach nothing of the parent's.  */
static void
cce_heap_fork_child (void)
{
  cce_heap_stopped = 1;
  for (struct cce_heap_table *tb = cce_heap_tables; tb; tb = tb->all)
    for (size_t i = 0; i < tb->nspans; i++)
      {
        char *b = tb->spans[i].base;
        size_t n = tb->spans[i].bytes;
        void *c = cce_heap_map (n);
        if (c)
          {
            memcpy (c, b, n);
            if (mremap (c, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, b)
                != MAP_FAILED)
              continue;
            munmap (c, n);
          }
        mmap (b, n, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      }
  pthread_mutex_init (&cce_heap_lock, NULL);
}

/* Thread T exits: its table goes to the next thread that allocates.  */
void
cce_heap_thread_exit (struct cce_thread *t)
{
  struct cce_heap_table *tb = t->heap;
  if (!tb)
    return;
  if (t->heap_delta)
    cce_heap_flush (t);
  t->heap = NULL;
  pthread_mutex_lock (&cce_heap_lock);
  tb->free = cce_heap_free_tables;
  cce_heap_free_tables = tb;
  pthread_mutex_unlock (&cce_heap_lock);
}

/* CCE_HEAP and CCE_HEAP_SAMPLE: does the heap profile go on?  */
static int
cce_heap_wanted (void)
{
  const char *env = cce_getenv ("CCE_HEAP");
  if (!env || !*env || strcmp (env, "0") == 0)
    return 0;
  if (strcmp (env, "1") != 0)
    {
      cce_complain ("CCE_HEAP is not 0 or 1; the heap is not profiled",
                    NULL, 0);
      return 0;
    }
  env = cce_getenv ("CCE_HEAP_SAMPLE");
  if (env && *env)
    {
      unsigned long n = 0;
      const char *p;
      for (p = env; *p >= '0' && *p <= '9' && n <= UINT32_MAX; p++)
        n = n * 10 + (unsigned long) (*p - '0');
      if (*p || n > UINT32_MAX)
        cce_complain ("CCE_HEAP_SAMPLE is not a number of bytes (0 to"
                      " 4294967295); every allocation is profiled", NULL, 0);
      else
        cce_heap_interval = (uint32_t) n;
    }
  return 1;
}

/* At load time.  */
void
cce_heap_init (void)
{
  if (cce_heap_wanted ())
    {
      pthread_atfork (cce_heap_fork_prepare, cce_heap_fork_parent,
                      cce_heap_fork_child);
      cce_barrier ();
      cce_heap_on = 1;
      cce_alloc.fn.malloc = cce_heap_malloc;
      cce_alloc.fn.free = cce_heap_free_or_null;
      cce_alloc.fn.calloc = cce_heap_calloc;
      cce_alloc.fn.realloc = cce_heap_realloc_at;
    }
  if (getpagesize () == CCE_ALLOC_PAGE)
    mprotect (&cce_alloc, sizeof cce_alloc, PROT_READ);
}

#endif /* PIC */
