/* inline -- inlined functions are frames of their own.

   static inline functions, small static functions GCC inlines at -O2,
   always_inline functions (inlined even at -O0), nested inlining, cce_log
   called inside an inlined function, the same function inlined into
   several callers, and an inlined function calling a function that is not
   inlined.  */
#include <cce.h>

static volatile int sink;

#define AI static inline __attribute__ ((always_inline))
#define NOINLINE __attribute__ ((noinline))

/* always_inline, nested three deep; the innermost logs.  */
AI void ai_log (unsigned tag)
{
  sink += tag;
  cce_log (tag);
}

AI void ai_mid (unsigned tag)
{
  ai_log (tag);
  sink++;
  ai_log (tag + 1);
}

AI void ai_outer (unsigned tag)
{
  ai_mid (tag);
  cce_log (tag + 5);
}

/* Plain static inline helpers: tiny, inlined at -O1 and up.  */
static inline int
sq (int x)
{
  return x * x;
}

static inline void
inl_log (unsigned tag)
{
  cce_log (tag);
}

/* Small static function without the inline keyword: inlined at -O2.  */
static int
small_logger (int x)
{
  inl_log (x);
  return sq (x) + 1;
}

/* Not inlined: reached from inlined code.  */
static NOINLINE int
leaf (int x)
{
  cce_log (500 + x);
  return x + sink;
}

/* Small, calls the non-inlined leaf: inlined into its callers.  */
static inline int
inl_calls_leaf (int x)
{
  return leaf (x) + 2;
}

/* Nested plain inlining: l1 -> l2 -> l3, l3 logs.  */
static inline void
l3 (unsigned tag)
{
  sink += 3;
  cce_log (tag);
}

static inline void
l2 (unsigned tag)
{
  l3 (tag);
  l3 (tag + 1);
}

static inline void
l1 (unsigned tag)
{
  l2 (tag);
}

/* A bigger function called from several places: inlined in some callers
   at some levels, not at others.  */
static int
medium (int x)
{
  int s = 0;
  for (int i = 0; i < 4; i++)
    s += sq (x + i) ^ sink;
  if (x > 0)
    cce_log (600 + x);
  return s;
}

NOINLINE int
caller1 (int x)
{
  int r = small_logger (10);
  ai_outer (20);
  r += inl_calls_leaf (1);
  r += medium (1);
  return r + sq (x);
}

NOINLINE int
caller2 (int x)
{
  int r = small_logger (30);
  ai_outer (40);
  r += inl_calls_leaf (2);
  l1 (50);
  r += medium (2);
  return r - x;
}

/* Inlined (small, static) into main, itself inlining others.  */
static int
caller3 (int x)
{
  l1 (60);
  return small_logger (x) + inl_calls_leaf (3);
}

int
main (void)
{
  cce_log (1);
  sink += caller1 (3);
  sink += caller2 (4);
  sink += caller3 (70);
  ai_outer (80);
  sink += small_logger (90);
  sink += medium (3);
  sink += leaf (4);
  l1 (95);
  cce_log (2);
  return 0;
}
