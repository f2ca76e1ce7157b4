/* declog.c -- "declog N [deep]": make N log records at many different
   calling contexts, for timing cce-decode.  A loop picks, from a
   deterministic sequence, a path through four layers of four functions each
   (direct calls chosen by a switch), sometimes through a recursion of 0 to
   3 levels (0 to 63 with "deep") or a call through a function pointer (both
   ccStack calls), down to a leaf that logs: 2,304 distinct (tag, path)
   pairs, or some 20,000 with "deep", whose records also carry longer
   ccStacks.  */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cce.h>

static uint64_t seed = 1;
static long left;
static unsigned recmask = 3;

static unsigned
next (void)
{
  seed ^= seed >> 12;
  seed ^= seed << 25;
  seed ^= seed >> 27;
  return (unsigned) ((seed * 0x2545F4914F6CDD1DULL) >> 33);
}

#define LEAF(name, tag)                          \
  static void __attribute__ ((noinline))         \
  name (unsigned r)                              \
  {                                              \
    cce_log (tag + (r & 3));                     \
    left--;                                      \
  }
LEAF (leaf0, 0)
LEAF (leaf1, 4)
LEAF (leaf2, 8)
LEAF (leaf3, 12)

static void (*const leaves[4]) (unsigned) = { leaf0, leaf1, leaf2, leaf3 };
static void (*volatile pick) (unsigned) = leaf2;

#define LAYER(name, c0, c1, c2, c3)              \
  static void __attribute__ ((noinline))         \
  name (unsigned r)                              \
  {                                              \
    switch (r & 3)                               \
      {                                          \
      case 0: c0 (r >> 2); break;                \
      case 1: c1 (r >> 2); break;                \
      case 2: c2 (r >> 2); break;                \
      default: c3 (r >> 2); break;               \
      }                                          \
  }

static void __attribute__ ((noinline))
viaptr (unsigned r)
{
  pick = leaves[r & 3];
  pick (r >> 2);
}

static void __attribute__ ((noinline))
recur (unsigned r, int n)
{
  if (n > 0)
    recur (r, n - 1);
  else
    leaves[r & 3] == leaf0 ? leaf0 (r >> 2) : leaf1 (r >> 2);
}

static void __attribute__ ((noinline))
viarec (unsigned r)
{
  recur (r >> 6, (int) (r & recmask));
}

LAYER (c0, leaf0, leaf1, viaptr, viarec)
LAYER (c1, leaf1, leaf2, leaf3, viarec)
LAYER (c2, leaf2, leaf3, viaptr, leaf0)
LAYER (c3, leaf3, leaf0, leaf1, leaf2)
LAYER (b0, c0, c1, c2, c3)
LAYER (b1, c1, c2, c3, c0)
LAYER (b2, c2, c3, c0, c1)
LAYER (b3, c3, c0, c1, c2)
LAYER (a0, b0, b1, b2, b3)
LAYER (a1, b1, b2, b3, b0)
LAYER (a2, b2, b3, b0, b1)
LAYER (a3, b3, b0, b1, b2)
LAYER (top, a0, a1, a2, a3)

int
main (int argc, char **argv)
{
  left = argc > 1 ? atol (argv[1]) : 1000000;
  if (argc > 2 && argv[2][0] == 'd')
    recmask = 63;
  long n = left;
  while (left > 0)
    top (next ());
  printf ("%ld\n", n);
  return 0;
}
