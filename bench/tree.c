/* tree.c -- tree recursion: a binary search tree of 2^16 keys built by
   recursive insertion, then walked again and again by recursive
   traversals (sum, height, range count, mirror), and freed recursively.
   Calls with two recursive children per node, as in real tree code.  */

#include "bench.h"

struct node
{
  struct node *left, *right;
  uint64_t key;
};

static struct node * __attribute__ ((noinline))
insert (struct node *t, uint64_t key)
{
  if (!t)
    {
      BENCH_TICK (1);
      t = malloc (sizeof *t);
      if (!t)
        abort ();
      t->left = t->right = NULL;
      t->key = key;
      return t;
    }
  if (key < t->key)
    t->left = insert (t->left, key);
  else if (key > t->key)
    t->right = insert (t->right, key);
  return t;
}

static uint64_t __attribute__ ((noinline))
sum (const struct node *t)
{
  if (!t)
    {
      BENCH_TICK (2);
      return 0;
    }
  return sum (t->left) + (t->key ^ (t->key >> 7)) + sum (t->right) * 3;
}

static int __attribute__ ((noinline))
height (const struct node *t)
{
  if (!t)
    {
      BENCH_TICK (3);
      return 0;
    }
  int l = height (t->left), r = height (t->right);
  return 1 + (l > r ? l : r);
}

static long __attribute__ ((noinline))
count_range (const struct node *t, uint64_t lo, uint64_t hi)
{
  if (!t)
    {
      BENCH_TICK (4);
      return 0;
    }
  long n = lo <= t->key && t->key < hi;
  if (lo < t->key)
    n += count_range (t->left, lo, hi);
  if (t->key < hi)
    n += count_range (t->right, lo, hi);
  return n;
}

static void __attribute__ ((noinline))
mirror (struct node *t)
{
  if (!t)
    {
      BENCH_TICK (5);
      return;
    }
  mirror (t->left);
  mirror (t->right);
  struct node *x = t->left;
  t->left = t->right;
  t->right = x;
}

static void __attribute__ ((noinline))
destroy (struct node *t)
{
  if (!t)
    {
      BENCH_TICK (6);
      return;
    }
  destroy (t->left);
  destroy (t->right);
  free (t);
}

int
main (int argc, char **argv)
{
  long rounds = bench_scale (argc, argv, 12);
  uint64_t total = 0, seed = 7;
  for (long r = 0; r < rounds; r++)
    {
      struct node *t = NULL;
      for (int i = 0; i < 1 << 16; i++)
        t = insert (t, bench_rand (&seed) >> 40);
      for (int k = 0; k < 20; k++)
        {
          total = total * 31 + sum (t);
          total = total * 31 + (uint64_t) height (t);
          uint64_t lo = bench_rand (&seed) >> 40;
          total = total * 31 + (uint64_t) count_range (t, lo, lo + (1u << 22));
          mirror (t);           /* and back: keeps the search order */
          mirror (t);
        }
      destroy (t);
    }
  bench_report ("tree", total);
  return 0;
}
