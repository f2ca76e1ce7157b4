/* spacesaving.h -- counters of distinct keys in bounded space: exact
   while there are at most CAP keys, a Space-Saving summary (Metwally,
   Agrawal and El Abbadi, "Efficient computation of frequent and top-k
   elements in data streams", ICDT 2005) past that.

   The core knows counters, not keys: the caller maps its keys to counter
   numbers (slots) and back, and asks the core for a slot for each key it
   has no slot for.  While fewer than CAP slots are in use that is a new
   slot; then it is the slot of the least count M, which the caller takes
   from its old key: the new key's count is M + 1 and its error M.  With
   T events in all, every key of more than T / CAP events keeps a slot,
   and every count is over the key's true count by at most its error,
   itself at most T / CAP.

   Each event costs O(1): until the first replacement a slot's count is
   only incremented; the first replacement sorts the counts once into the
   stream-summary structure (a list of buckets of equal counts, in
   increasing order, each with the list of its slots), which keeps the
   least count at the head from then on, in O(1) per event, since counts
   only ever go up by 1.

   No allocation, no locks, no library call: the caller gives the memory
   (cce_ss_bytes), and the functions are async-signal-safe as long as
   one call at a time works on a summary.  Used by libcce's aggregation
   (log.c) and by the unit tests; it depends on nothing else.  */

#ifndef CCE_SPACESAVING_H
#define CCE_SPACESAVING_H

#include <stddef.h>
#include <stdint.h>

/* Inside libcce, none of this is exported.  */
#if defined CCE_RUNTIME
#pragma GCC visibility push(hidden)
#endif

#define CCE_SS_NIL UINT32_C (0xffffffff)

struct cce_ss
{
  uint32_t cap;                 /* slots */
  uint32_t used;                /* slots in use, 0 .. CAP */
  int summary;                  /* the stream summary is built */
  uint32_t bmin;                /* the bucket of the least count */
  uint32_t bfree;               /* free buckets, through BNEXT */
  uint64_t *count;              /* per slot */
  uint64_t *error;
  uint32_t *bucket;             /* per slot: its bucket */
  uint32_t *enext, *eprev;      /* per slot: the slots of its bucket */
  uint64_t *bcount;             /* per bucket: the count of its slots */
  uint32_t *bhead;              /* per bucket: its first slot */
  uint32_t *bnext, *bprev;      /* the buckets, by increasing count */
};

/* Bytes of memory a summary of CAP slots needs (8-byte aligned).  */
size_t cce_ss_bytes (uint32_t cap);

/* Make S an empty summary of CAP >= 1 slots in MEM, cce_ss_bytes (CAP)
   bytes, which need not be zeroed.  */
void cce_ss_init (struct cce_ss *s, uint32_t cap, void *mem);

/* A slot for a key that has none, with its count and error set (1 and 0
   for a slot never used).  *REPLACED is 1 if the slot was taken from
   another key, 0 if it is a new one.  */
uint32_t cce_ss_take (struct cce_ss *s, int *replaced);

/* The slot cce_ss_take would give now, when all CAP slots are in use (it
   may build the stream summary).  */
uint32_t cce_ss_peek (struct cce_ss *s);

void cce_ss_hit_summary (struct cce_ss *s, uint32_t slot);

/* One more event of the key of SLOT.  */
static inline void
cce_ss_hit (struct cce_ss *s, uint32_t slot)
{
  if (__builtin_expect (!s->summary, 1))
    s->count[slot]++;
  else
    cce_ss_hit_summary (s, slot);
}

/* The least count of a slot in use (0 if none).  */
uint64_t cce_ss_min (const struct cce_ss *s);

#if defined CCE_RUNTIME
#pragma GCC visibility pop
#endif

#endif /* CCE_SPACESAVING_H */
