/* spacesaving.c -- Space-Saving counters (spacesaving.h).  */

#include "spacesaving.h"

size_t
cce_ss_bytes (uint32_t cap)
{
  size_t n = cap;
  size_t b = n * (3 * sizeof (uint64_t) + 6 * sizeof (uint32_t));
  return (b + 7) & ~(size_t) 7;
}

void
cce_ss_init (struct cce_ss *s, uint32_t cap, void *mem)
{
  size_t n = cap;
  char *p = mem;
  s->cap = cap;
  s->used = 0;
  s->summary = 0;
  s->bmin = CCE_SS_NIL;
  s->bfree = CCE_SS_NIL;
  s->count = (uint64_t *) (void *) p;
  p += n * sizeof (uint64_t);
  s->error = (uint64_t *) (void *) p;
  p += n * sizeof (uint64_t);
  s->bcount = (uint64_t *) (void *) p;
  p += n * sizeof (uint64_t);
  s->bucket = (uint32_t *) (void *) p;
  p += n * sizeof (uint32_t);
  s->enext = (uint32_t *) (void *) p;
  p += n * sizeof (uint32_t);
  s->eprev = (uint32_t *) (void *) p;
  p += n * sizeof (uint32_t);
  s->bhead = (uint32_t *) (void *) p;
  p += n * sizeof (uint32_t);
  s->bnext = (uint32_t *) (void *) p;
  p += n * sizeof (uint32_t);
  s->bprev = (uint32_t *) (void *) p;
}

/* Put slot E at the head of bucket B.  */
static void
link_slot (struct cce_ss *s, uint32_t e, uint32_t b)
{
  uint32_t h = s->bhead[b];
  s->enext[e] = h;
  s->eprev[e] = CCE_SS_NIL;
  if (h != CCE_SS_NIL)
    s->eprev[h] = e;
  s->bhead[b] = e;
  s->bucket[e] = b;
}

/* Take slot E out of its bucket's list.  */
static void
unlink_slot (struct cce_ss *s, uint32_t e)
{
  uint32_t b = s->bucket[e], n = s->enext[e], p = s->eprev[e];
  if (p != CCE_SS_NIL)
    s->enext[p] = n;
  else
    s->bhead[b] = n;
  if (n != CCE_SS_NIL)
    s->eprev[n] = p;
}

/* Sift slot number I of the heap H of N slots down (by count, the
   largest at the root).  */
static void
sift (const struct cce_ss *s, uint32_t *h, size_t i, size_t n)
{
  uint32_t v = h[i];
  for (;;)
    {
      size_t c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && s->count[h[c + 1]] > s->count[h[c]])
        c++;
      if (s->count[h[c]] <= s->count[v])
        break;
      h[i] = h[c];
      i = c;
    }
  h[i] = v;
}

/* Build the stream summary of the CAP slots in use: sort them by count
   (a heap sort, in BHEAD, which the buckets then take over from the
   front: there are never more buckets than slots read), then make a
   bucket of each count.  */
static void
build (struct cce_ss *s)
{
  uint32_t *h = s->bhead;
  size_t n = s->used, i, nb = 0;
  for (i = 0; i < n; i++)
    h[i] = (uint32_t) i;
  for (i = n / 2; i-- > 0;)
    sift (s, h, i, n);
  for (i = n; i-- > 1;)
    {
      uint32_t t = h[0];
      h[0] = h[i];
      h[i] = t;
      sift (s, h, 0, i);
    }
  for (i = 0; i < n; i++)
    {
      uint32_t e = h[i];
      if (nb == 0 || s->bcount[nb - 1] != s->count[e])
        {
          uint32_t b = (uint32_t) nb++;
          s->bcount[b] = s->count[e];
          s->bhead[b] = CCE_SS_NIL;
          s->bprev[b] = b ? b - 1 : CCE_SS_NIL;
          s->bnext[b] = CCE_SS_NIL;
          if (b)
            s->bnext[b - 1] = b;
        }
      link_slot (s, e, (uint32_t) (nb - 1));
    }
  s->bmin = nb ? 0 : CCE_SS_NIL;
  s->bfree = CCE_SS_NIL;
  for (i = s->cap; i-- > nb;)
    {
      s->bnext[i] = s->bfree;
      s->bfree = (uint32_t) i;
    }
  s->summary = 1;
}

void
cce_ss_hit_summary (struct cce_ss *s, uint32_t e)
{
  uint32_t b = s->bucket[e], nb = s->bnext[b];
  uint64_t c = s->count[e] + 1;
  s->count[e] = c;
  if (nb != CCE_SS_NIL && s->bcount[nb] == c)
    ;                           /* move E to the next bucket */
  else if (s->bhead[b] == e && s->enext[e] == CCE_SS_NIL)
    {
      s->bcount[b] = c;         /* alone: its bucket goes up with it */
      return;
    }
  else
    {
      /* A new bucket after B (B keeps its other slots, so there is a
         free one).  */
      uint32_t k = s->bfree;
      s->bfree = s->bnext[k];
      s->bcount[k] = c;
      s->bhead[k] = CCE_SS_NIL;
      s->bprev[k] = b;
      s->bnext[k] = nb;
      if (nb != CCE_SS_NIL)
        s->bprev[nb] = k;
      s->bnext[b] = k;
      nb = k;
    }
  unlink_slot (s, e);
  if (s->bhead[b] == CCE_SS_NIL)
    {
      /* B is empty: drop it.  */
      uint32_t p = s->bprev[b];
      if (p != CCE_SS_NIL)
        s->bnext[p] = nb;
      else
        s->bmin = nb;
      s->bprev[nb] = p;
      s->bnext[b] = s->bfree;
      s->bfree = b;
    }
  link_slot (s, e, nb);
}

uint32_t
cce_ss_take (struct cce_ss *s, int *replaced)
{
  if (s->used < s->cap)
    {
      uint32_t e = s->used++;
      s->count[e] = 1;
      s->error[e] = 0;
      *replaced = 0;
      return e;
    }
  if (!s->summary)
    build (s);
  uint32_t e = s->bhead[s->bmin];
  s->error[e] = s->count[e];
  cce_ss_hit_summary (s, e);
  *replaced = 1;
  return e;
}

uint32_t
cce_ss_peek (struct cce_ss *s)
{
  if (s->used < s->cap)
    return s->used;
  if (!s->summary)
    build (s);
  return s->bhead[s->bmin];
}

uint64_t
cce_ss_min (const struct cce_ss *s)
{
  uint64_t m = 0;
  if (s->summary)
    return s->bcount[s->bmin];
  for (uint32_t i = 0; i < s->used; i++)
    if (i == 0 || s->count[i] < m)
      m = s->count[i];
  return m;
}
