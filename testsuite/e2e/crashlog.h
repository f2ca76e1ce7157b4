/* crashlog.h -- the records of the programs that die on purpose
   (death.c, randomkill.c, logerr.c), and what they tell the test about
   them.

   Record SEQ of thread I has the tag I << 20 | SEQ (CRASH_TAG) and is
   logged by crash_log (I, SEQ) along one of CRASH_NCLASS call paths,
   chosen by SEQ % CRASH_NCLASS: direct calls several frames deep, calls
   through function pointers, self recursion, mutual recursion, and
   recursion through a function pointer CRASH_DEEP and CRASH_DEEP / 4
   levels deep (deep ccStacks; a program may define CRASH_DEEP before
   including this file).  The path of a record therefore depends on its
   class and on the function that called crash_log, never on the thread
   or the time: the test scripts take each class's path from gdb
   (oracle.py, an -O0 build without cce) and check every decoded record
   against the path of its class (crashcheck.awk).

   The counts.  After each crash_log returns (so after cce_log returned),
   the thread stores how many records it has logged in a file mapped
   MAP_SHARED (crash_counts_open), which outlives the process however it
   dies: word 8 * I of the file, a uint64_t in native byte order, is
   thread I's count.  A record whose cce_log returned is therefore in the
   count, except the last one of a thread killed between the return and
   the store.  */

#ifndef CRASHLOG_H
#define CRASHLOG_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cce.h>

#define CRASH_NOINLINE __attribute__ ((noinline))

#ifndef CRASH_DEEP
#define CRASH_DEEP 12
#endif

#define CRASH_NCLASS 16
#define CRASH_SEQ_BITS 20
#define CRASH_SEQ_MAX ((1u << CRASH_SEQ_BITS) - 1)
#define CRASH_TAG(I, SEQ) ((unsigned) (I) << CRASH_SEQ_BITS | (unsigned) (SEQ))

/* uint64_t words per thread in the counts file: one cache line each.  */
#define CRASH_COUNT_STRIDE 8

static volatile unsigned crash_sink;

/* Direct calls.  */
static void
crash_direct_c (unsigned tag)
{
  cce_log (tag);
  crash_sink++;
}

static void
crash_direct_b (unsigned tag)
{
  crash_direct_c (tag);
  crash_sink++;
}

static void
crash_direct_a (unsigned tag)
{
  crash_direct_b (tag);
  crash_sink++;
}

/* Called through function pointers.  */
static void
crash_via_ptr (unsigned tag)
{
  cce_log (tag);
  crash_sink++;
}

static void
crash_via_ptr2 (unsigned tag)
{
  crash_direct_c (tag);
  crash_sink++;
}

typedef void (*crash_fn) (unsigned);

/* Volatile: the calls through it are never devirtualized.  */
static crash_fn volatile crash_ptr_table[2] = { crash_via_ptr, crash_via_ptr2 };

/* Self recursion, N levels below the first call.  Each recursive call's
   result is used after it: no tail call, no loop.  */
CRASH_NOINLINE static unsigned
crash_recurse (unsigned tag, unsigned n)
{
  if (n == 0)
    {
      cce_log (tag);
      return 1;
    }
  unsigned r = crash_recurse (tag, n - 1);
  crash_sink += r;
  return r + 1;
}

/* Mutual recursion: ping -> pong -> ping ...  */
static unsigned crash_pong (unsigned tag, unsigned n);

CRASH_NOINLINE static unsigned
crash_ping (unsigned tag, unsigned n)
{
  if (n == 0)
    {
      cce_log (tag);
      return 1;
    }
  unsigned r = crash_pong (tag, n - 1);
  crash_sink += r;
  return r + 1;
}

CRASH_NOINLINE static unsigned
crash_pong (unsigned tag, unsigned n)
{
  if (n == 0)
    {
      crash_direct_c (tag);
      return 2;
    }
  unsigned r = crash_ping (tag, n - 1);
  crash_sink += r;
  return r + 2;
}

/* Recursion through a function pointer: cycle_a -> (*ptr) cycle_b ->
   cycle_a ...; every level is a call on the ccStack.  */
static unsigned crash_cycle_b (unsigned tag, unsigned n);
typedef unsigned (*crash_cycle_fn) (unsigned, unsigned);
static crash_cycle_fn volatile crash_cycle_ptr = crash_cycle_b;

CRASH_NOINLINE static unsigned
crash_cycle_a (unsigned tag, unsigned n)
{
  if (n == 0)
    {
      cce_log (tag);
      return 1;
    }
  unsigned r = crash_cycle_ptr (tag, n - 1);
  crash_sink += r;
  return r + 1;
}

CRASH_NOINLINE static unsigned
crash_cycle_b (unsigned tag, unsigned n)
{
  unsigned r = crash_cycle_a (tag, n);
  crash_sink += r;
  return r + 3;
}

/* Log record SEQ of thread I along the path of class SEQ % CRASH_NCLASS.  */
CRASH_NOINLINE static void
crash_log (unsigned i, unsigned seq)
{
  unsigned tag = CRASH_TAG (i, seq);
  switch (seq % CRASH_NCLASS)
    {
    case 0: crash_direct_a (tag); break;
    case 1: cce_log (tag); break;
    case 2: crash_ptr_table[0] (tag); break;
    case 3: crash_ptr_table[1] (tag); break;
    case 4: crash_sink += crash_recurse (tag, 4); break;
    case 5: crash_sink += crash_ping (tag, 6); break;
    case 6: crash_sink += crash_cycle_a (tag, CRASH_DEEP); break;
    case 7: crash_direct_b (tag); break;
    case 8: crash_direct_c (tag); break;
    case 9: crash_sink += crash_recurse (tag, 1); break;
    case 10: crash_ptr_table[1] (tag); break;
    case 11: crash_sink += crash_pong (tag, 3); break;
    case 12: crash_sink += crash_cycle_a (tag, CRASH_DEEP / 4); break;
    case 13: crash_direct_a (tag); break;
    case 14: crash_sink += crash_recurse (tag, 0); break;
    default: crash_ptr_table[0] (tag); break;
    }
  crash_sink++;
}

/* Create FILE with room for the counts of NTHREADS threads, all 0, and
   map it shared; exit with status 2 on failure.  */
static inline volatile uint64_t *
crash_counts_open (const char *file, unsigned nthreads)
{
  size_t bytes = (size_t) nthreads * CRASH_COUNT_STRIDE * sizeof (uint64_t);
  int fd = open (file, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate (fd, (off_t) bytes) != 0)
    {
      perror (file);
      exit (2);
    }
  void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    {
      perror ("mmap");
      exit (2);
    }
  close (fd);
  return p;
}

/* Thread I has logged N records (their cce_log returned).  */
static inline void
crash_count_store (volatile uint64_t *counts, unsigned i, uint64_t n)
{
  __atomic_store_n (&counts[(size_t) i * CRASH_COUNT_STRIDE], n,
                    __ATOMIC_RELEASE);
}

static inline uint64_t
crash_count_load (volatile uint64_t *counts, unsigned i)
{
  return __atomic_load_n (&counts[(size_t) i * CRASH_COUNT_STRIDE],
                          __ATOMIC_ACQUIRE);
}

#endif /* CRASHLOG_H */
