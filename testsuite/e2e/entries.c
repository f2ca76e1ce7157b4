/* entries -- functions that code outside the program calls (qsort and
   bsearch comparators) and that the program calls directly too, whose
   calls leave the TLS id word as they found it or not: a call of a
   varargs function whose address is taken, a call through a pointer
   that no guess catches, a recursion; and the same comparators called
   again and again by the C library, which sets nothing between two
   calls.  */
#include <stdarg.h>
#include <stdlib.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

static volatile int sink;

/* A varargs function, its address taken: code outside may call it, and
   it has only one entry point.  */
NOINLINE int
vsum (int n, ...)
{
  va_list ap;
  int s = 0;
  va_start (ap, n);
  for (int i = 0; i < n; i++)
    s += va_arg (ap, int);
  va_end (ap);
  cce_log (10);
  return s;
}

int (*volatile vsum_ptr) (int, ...) = vsum;

NOINLINE static int
helper (int x)
{
  cce_log (20 + (x & 1));
  return x + sink;
}

NOINLINE static int
deep (int n)
{
  if (n == 0)
    {
      cce_log (30);
      return 0;
    }
  return deep (n - 1) + 1 + sink;
}

static int h0 (int x) { cce_log (40); return x; }
static int h1 (int x) { cce_log (41); return x + 1; }
static int h2 (int x) { cce_log (42); return x + 2; }
static int h3 (int x) { cce_log (43); return x + 3; }
static int h4 (int x) { cce_log (44); return x + 4; }
static int (*const table[]) (int) = { h0, h1, h2, h3, h4 };

/* Calls only what takes its id in the register.  */
int
cmp_clean (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  helper (x);
  cce_log (1);
  return (x > y) - (x < y);
}

/* Calls a function that takes its id from the TLS word.  */
int
cmp_varargs (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  sink += vsum (2, x, y);
  cce_log (2);
  return (x > y) - (x < y);
}

/* Calls through a pointer (a push).  */
int
cmp_pointer (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  sink += table[(unsigned) (x + sink) % 5] (x);
  cce_log (3);
  return (x > y) - (x < y);
}

/* Recurses: back edges, folded into the id.  */
int
cmp_deep (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  sink += deep (x);
  cce_log (4);
  return (x > y) - (x < y);
}

NOINLINE static void
sort_with (int (*cmp) (const void *, const void *), int seed)
{
  int v[7];
  for (int i = 0; i < 7; i++)
    v[i] = (seed * 7 + i * 5) % 11;
  qsort (v, 7, sizeof *v, cmp);
  int key = v[3];
  if (!bsearch (&key, v, 7, sizeof *v, cmp))
    abort ();
  sink += v[0];
}

int
main (void)
{
  int a = 3, b = 4;
  /* Direct calls: the body, with the id in the register.  */
  sink += cmp_clean (&a, &b) + cmp_varargs (&a, &b) + cmp_pointer (&a, &b)
          + cmp_deep (&a, &b);
  sink += vsum_ptr (3, 1, 2, 3);
  sort_with (cmp_clean, 1);
  sort_with (cmp_varargs, 2);
  sort_with (cmp_pointer, 3);
  sort_with (cmp_deep, 4);
  /* And again directly, after the C library's calls.  */
  sink += cmp_varargs (&b, &a) + cmp_deep (&b, &a);
  return 0;
}
