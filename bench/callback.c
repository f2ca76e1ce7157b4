/* callback.c -- callback-heavy: libc's qsort and bsearch with comparators
   (the library calls back into the program), and a visitor pattern: a
   generic walker over a tree calls a visitor function for every node.
   With cce, a call to qsort is an external ccStack call and each
   comparator call starts a segment; a visitor call is an indirect
   ccStack call.  */

#include "bench.h"

struct rec
{
  uint32_t key;
  uint32_t group;
  uint64_t payload;
};

static int __attribute__ ((noinline))
cmp_u32 (uint32_t a, uint32_t b)
{
  return (a > b) - (a < b);
}

static int
by_key (const void *pa, const void *pb)
{
  const struct rec *a = pa, *b = pb;
  BENCH_TICK (1);
  return cmp_u32 (a->key, b->key);
}

static int
by_group_then_key (const void *pa, const void *pb)
{
  const struct rec *a = pa, *b = pb;
  int c = cmp_u32 (a->group, b->group);
  return c ? c : cmp_u32 (a->key, b->key);
}

static int
find_key (const void *pk, const void *pe)
{
  const uint32_t *k = pk;
  const struct rec *e = pe;
  BENCH_TICK (2);
  return cmp_u32 (*k, e->key);
}

/* A tree visited by a generic walker.  */
struct tnode
{
  struct tnode *kid[3];
  uint64_t val;
};

typedef void (*visit_fn) (struct tnode *, void *);

static void __attribute__ ((noinline))
walk (struct tnode *t, visit_fn pre, visit_fn post, void *ctx)
{
  if (!t)
    return;
  pre (t, ctx);
  for (int i = 0; i < 3; i++)
    walk (t->kid[i], pre, post, ctx);
  if (post)
    post (t, ctx);
}

static void
visit_sum (struct tnode *t, void *ctx)
{
  *(uint64_t *) ctx += t->val;
}

static void
visit_hash (struct tnode *t, void *ctx)
{
  uint64_t *h = ctx;
  *h = (*h ^ t->val) * 0x100000001b3ULL;
  BENCH_TICK (3);
}

static void
visit_bump (struct tnode *t, void *ctx)
{
  t->val = t->val * 5 + *(uint64_t *) ctx % 7;
}

static struct tnode *
build (int depth, uint64_t *seed)
{
  if (depth == 0)
    return NULL;
  struct tnode *t = malloc (sizeof *t);
  if (!t)
    abort ();
  t->val = bench_rand (seed) & 0xffff;
  for (int i = 0; i < 3; i++)
    t->kid[i] = build (depth - 1, seed);
  return t;
}

#define NREC 20000

int
main (int argc, char **argv)
{
  long rounds = bench_scale (argc, argv, 90);
  static struct rec recs[NREC];
  uint64_t seed = 3, sum = 0;
  struct tnode *root = build (10, &seed);       /* 29524 nodes */
  for (long r = 0; r < rounds; r++)
    {
      for (int i = 0; i < NREC; i++)
        {
          recs[i].key = (uint32_t) bench_rand (&seed);
          recs[i].group = (uint32_t) (bench_rand (&seed) % 16);
          recs[i].payload = (uint64_t) i;
        }
      qsort (recs, NREC, sizeof recs[0], by_group_then_key);
      sum = sum * 31 + recs[NREC / 2].payload;
      qsort (recs, NREC, sizeof recs[0], by_key);
      for (int i = 0; i < NREC; i++)
        {
          uint32_t k = recs[(i * 7919) % NREC].key + (uint32_t) (i & 1);
          const struct rec *e = bsearch (&k, recs, NREC, sizeof recs[0],
                                         find_key);
          sum = sum * 31 + (e ? e->payload : 1);
        }
      for (int k = 0; k < 10; k++)
        {
          uint64_t s = 0, h = 14695981039346656037ULL;
          walk (root, visit_sum, NULL, &s);
          walk (root, visit_hash, visit_bump, &h);
          sum = sum * 31 + s + h;
        }
    }
  bench_report ("callback", sum);
  return 0;
}
