/* util.c -- second translation unit of the cce example.  With -flto the
   plugin sees both files as one program: the calls between them are plain
   direct edges of the call graph.  */

#include <cce.h>

/* A direct chain: main -> chain_a -> chain_b -> chain_c.  chain_c is also
   called from main directly, so its log site has two contexts.  */
void
chain_c (void)
{
  cce_log (1);
}

void
chain_b (void)
{
  chain_c ();
}

void
chain_a (void)
{
  chain_b ();
}

/* Recursion a few levels deep.  Two recursive calls, so that GCC cannot
   turn it into a loop: the back edge goes through the ccStack.  */
unsigned
walk (unsigned n)
{
  if (n < 2)
    {
      cce_log (2);
      return 1;
    }
  return walk (n - 1) + walk (n - 2);
}

/* Only ever called through a function pointer.  */
void
by_pointer (void)
{
  cce_log (3);
}

/* The workload of "hello N": call-heavy code that logs rarely, to measure
   what the encoding costs.  A small interpreter dispatching through a table
   of handlers, a recursive tree sum, and a direct call chain.  */
static unsigned acc;

static void op_add (unsigned x) { acc += x; }
static void op_mix (unsigned x) { acc = acc * 31 + x; }
static void op_xor (unsigned x) { acc ^= x << 3; }
static void op_log (unsigned x)
{
  if ((x & 0xfffff) == 0)
    cce_log (6);
  acc += 1;
}

static void (*const ops[4]) (unsigned) = { op_add, op_mix, op_xor, op_log };

__attribute__ ((noinline)) static unsigned
tree_sum (unsigned depth, unsigned seed)
{
  if (depth == 0)
    return seed & 7;
  return tree_sum (depth - 1, seed * 3 + 1) + tree_sum (depth - 1, seed + 7);
}

__attribute__ ((noinline)) static unsigned
step (unsigned i)
{
  ops[(i * 2654435761u) >> 30] (i);
  return acc;
}

unsigned
workload (unsigned long n)
{
  unsigned long i;
  unsigned r = 0;

  for (i = 0; i < n; i++)
    {
      r += step ((unsigned) i);
      if ((i & 1023) == 0)
        r += tree_sum (10, (unsigned) i);
    }
  return r;
}
