/* cfeatures.c -- C features on the paths: variadic functions forwarding
   a va_list to a v-function, alloca and variable-length arrays in frames,
   calls nested in the arguments of calls, a static function "helper" of
   the same name here and in cfeatures_b.c (records carry names only, so
   both decode as "helper"; their callers tell them apart), and GNU C
   nested functions, called directly and through trampolines from a
   qsort-like function of the program and from the C library's qsort (the
   trampolines need an executable stack: run-e2e.sh links with
   -z execstack).  */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

static volatile int sink;

void b_entry (int k);           /* cfeatures_b.c */

/* ---- varargs --------------------------------------------------------- */

NOINLINE static int
vsum (unsigned tag, int n, va_list ap)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg (ap, int);
  cce_log (tag);
  return s;
}

NOINLINE static int
vformat (unsigned tag, const char *fmt, va_list ap)
{
  char buf[64];
  int r = vsnprintf (buf, sizeof buf, fmt, ap);
  cce_log (tag);
  return r + buf[0];
}

/* Variadic, forwards its va_list twice (va_copy).  */
NOINLINE static int
sum (unsigned tag, int n, ...)
{
  va_list ap, aq;
  va_start (ap, n);
  va_copy (aq, ap);
  int s = vsum (tag, n, ap);
  s += vsum (tag + 1, n, aq);
  va_end (aq);
  va_end (ap);
  return s;
}

/* Variadic, logs itself, then forwards.  */
NOINLINE static int
format (unsigned tag, const char *fmt, ...)
{
  va_list ap;
  cce_log (tag);
  va_start (ap, fmt);
  int r = vformat (tag + 1, fmt, ap);
  va_end (ap);
  return r;
}

/* Variadic and small: may be inlined (GCC inlines variadic functions
   that do not use va_start).  */
static int
first (unsigned tag, ...)
{
  cce_log (tag);
  return 1;
}

NOINLINE static void
varargs (void)
{
  sink += sum (100, 3, 1, 2, 3);
  sink += sum (110, 0);
  sink += format (120, "%d-%s", 7, "x");
  sink += first (130, 1.5, "y");
}

/* ---- alloca and VLAs ------------------------------------------------- */

NOINLINE static int
use_buf (unsigned tag, int *p, int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  cce_log (tag);
  return s;
}

NOINLINE static int
with_vla (int n)
{
  int a[n];
  for (int i = 0; i < n; i++)
    a[i] = i;
  int s = use_buf (200 + n, a, n);
  cce_log (210 + n);
  return s + a[n - 1];
}

NOINLINE static int
with_alloca (int n)
{
  int *p = alloca (n * sizeof *p);
  memset (p, 0, n * sizeof *p);
  p[0] = n;
  int s = use_buf (220 + n, p, n);
  s += with_vla (n + 1);
  cce_log (230 + n);
  return s + p[0];
}

/* A VLA in a loop: a new one each iteration.  */
NOINLINE static int
vla_loop (int n)
{
  int s = 0;
  for (int i = 1; i <= n; i++)
    {
      char v[i * 8];
      v[0] = (char) i;
      s += use_buf (240 + i, (int *) v, i);
    }
  return s;
}

NOINLINE static void
frames (void)
{
  sink += with_vla (3);
  sink += with_alloca (5);
  sink += vla_loop (2);
}

/* ---- calls nested in arguments ----------------------------------------- */

NOINLINE static int
g (int x)
{
  cce_log (300 + x);
  return x + 1;
}

NOINLINE static int
f (int x)
{
  cce_log (310 + x);
  return x * 2;
}

static inline int
h (int x)
{
  cce_log (320 + x);
  return x;
}

NOINLINE static void
nested_args (void)
{
  sink += f (g (1));
  sink += f (g (h (3)));
  sink += g (f (5));
}

/* ---- a static function named helper (another one in cfeatures_b.c) ----- */

NOINLINE static void
helper (int k)
{
  cce_log (400 + k);
}

NOINLINE static void
a_entry (int k)
{
  helper (k);
}

/* ---- GNU C nested functions -------------------------------------------- */

/* A qsort of the program (insertion sort) calling through a pointer.  */
NOINLINE static void
my_sort (int *v, int n, int (*cmp) (const void *, const void *))
{
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && cmp (&v[j - 1], &v[j]) > 0; j--)
      {
        int t = v[j];
        v[j] = v[j - 1];
        v[j - 1] = t;
      }
}

NOINLINE static void
nested_fns (int bias)
{
  int calls = 0;

  /* Called directly only.  */
  void note (unsigned tag)
  {
    calls++;
    cce_log (tag + bias);
  }

  /* Its address is taken: called through a trampoline.  */
  int cmp (const void *a, const void *b)
  {
    int x = *(const int *) a, y = *(const int *) b;
    calls++;
    cce_log (600 + bias + x * 10 + y);
    return (x > y) - (x < y);
  }

  int v[3] = { 3, 1, 2 };
  note (500);
  my_sort (v, 3, cmp);
  note (501);
  int w[3] = { 2, 3, 1 };
  qsort (w, 3, sizeof w[0], cmp);
  note (502);
  sink += calls + v[0] + w[0];
}

int
main (void)
{
  cce_log (1);
  varargs ();
  frames ();
  nested_args ();
  a_entry (1);
  b_entry (2);
  nested_fns (0);
  return 0;
}
