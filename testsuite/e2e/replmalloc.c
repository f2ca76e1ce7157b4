/* replmalloc -- a program that replaces malloc, free, calloc and realloc
   (glibc's manual, "Replacing malloc").  The C library then calls the
   program's allocator from inside its own functions, also from those it
   declares `leaf' (strdup, strndup), which promise not to call back into
   the program.  Each allocation made while logging is on logs its
   context: from strdup and strndup called in different contexts of the
   same function (a stale id would decode as a plausible wrong context),
   from qsort's buffer while its comparator is also called back, from
   getline's buffer, and from the program's own calls.  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

static char arena[1 << 22];
static size_t used;
static volatile int logging;
static volatile size_t sink;

void *
malloc (size_t n)
{
  if (logging)
    cce_log (1);
  if (n > sizeof arena - used)
    return NULL;
  void *p = arena + used;
  used += (n + 15) & ~(size_t) 15;
  return p;
}

void
free (void *p)
{
  if (p && logging)
    cce_log (2);
}

void *
calloc (size_t a, size_t b)
{
  /* The arena is zeroed and never reused.  */
  return malloc (a * b);
}

void *
realloc (void *old, size_t n)
{
  if (logging)
    cce_log (3);
  void *p = malloc (n);
  if (p && old)
    memcpy (p, old, n);
  return p;
}

NOINLINE static char *
copy (const char *s, int whole)
{
  char *r = whole ? strdup (s) : strndup (s, 4);
  sink += r[0];
  return r;
}

NOINLINE static void
first (const char *s)
{
  free (copy (s, 1));
  free (copy (s, 0));
}

NOINLINE static void
second (const char *s)
{
  free (copy (s, 1));
}

static int
cmp (const void *a, const void *b)
{
  int x = *(const int *) a, y = *(const int *) b;
  if (x == 17 && y == 4)
    cce_log (4);
  return (x > y) - (x < y);
}

NOINLINE static void
sort (void)
{
  /* Large enough that qsort allocates a buffer.  */
  enum { N = 4096 };
  int *v = calloc (N, sizeof *v);
  for (int i = 0; i < N; i++)
    v[i] = (i * 37) % 101;
  qsort (v, N, sizeof *v, cmp);
  sink += v[N - 1];
  free (v);
}

NOINLINE static void
lines (void)
{
  FILE *f = fmemopen ((char *) "one\ntwo\n", 8, "r");
  if (!f)
    return;
  char *line = NULL;
  size_t cap = 0;
  while (getline (&line, &cap, f) > 0)
    sink += line[0];
  free (line);
  fclose (f);
}

int
main (int argc, char **argv)
{
  (void) argc;
  logging = 1;
  first (argv[0]);
  second (argv[0]);
  sort ();
  lines ();
  char *p = malloc (10);
  sink += (size_t) p;
  logging = 0;
  return sink == 0;
}
