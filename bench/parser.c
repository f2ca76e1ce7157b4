/* parser.c -- a recursive-descent parser and evaluator of arithmetic
   expressions, over a generated text of nested expressions: many small
   functions calling each other directly (expr > term > unary > primary >
   number, with helpers), recursion through parentheses, as in the front
   end of a compiler or a JSON reader.  */

#include "bench.h"
#include <string.h>

struct lexer
{
  const char *p;
  uint64_t seen;
};

static void __attribute__ ((noinline))
skip_space (struct lexer *lx)
{
  while (*lx->p == ' ')
    lx->p++;
}

static int __attribute__ ((noinline))
peek (struct lexer *lx)
{
  skip_space (lx);
  return *lx->p;
}

static int __attribute__ ((noinline))
accept (struct lexer *lx, int c)
{
  if (peek (lx) != c)
    return 0;
  lx->p++;
  lx->seen++;
  return 1;
}

static int64_t expr (struct lexer *lx);

static int64_t __attribute__ ((noinline))
number (struct lexer *lx)
{
  int64_t v = 0;
  skip_space (lx);
  while (*lx->p >= '0' && *lx->p <= '9')
    v = v * 10 + (*lx->p++ - '0');
  BENCH_TICK (1);
  return v;
}

static int64_t __attribute__ ((noinline))
primary (struct lexer *lx)
{
  if (accept (lx, '('))
    {
      int64_t v = expr (lx);
      if (!accept (lx, ')'))
        abort ();
      return v;
    }
  return number (lx);
}

static int64_t __attribute__ ((noinline))
unary (struct lexer *lx)
{
  if (accept (lx, '-'))
    return -unary (lx);
  return primary (lx);
}

static int64_t __attribute__ ((noinline))
term (struct lexer *lx)
{
  int64_t v = unary (lx);
  for (;;)
    {
      if (accept (lx, '*'))
        v = v * unary (lx) % 1000003;
      else if (accept (lx, '%'))
        {
          int64_t d = unary (lx);
          v = d ? v % d : v;
        }
      else
        return v;
    }
}

static int64_t __attribute__ ((noinline))
expr (struct lexer *lx)
{
  int64_t v = term (lx);
  for (;;)
    {
      if (accept (lx, '+'))
        v += term (lx);
      else if (accept (lx, '-'))
        v -= term (lx);
      else
        return v;
    }
}

/* Generating the text (not timed separately; a small part of the run).  */
static char *out;
static size_t out_len, out_cap;

static void
emit (const char *s)
{
  size_t n = strlen (s);
  if (out_len + n + 1 > out_cap)
    {
      out_cap = (out_len + n + 1) * 2;
      out = realloc (out, out_cap);
      if (!out)
        abort ();
    }
  memcpy (out + out_len, s, n + 1);
  out_len += n;
}

static void
gen (int depth, uint64_t *seed)
{
  uint64_t r = bench_rand (seed);
  if (depth == 0 || (depth < 12 && r % 3 == 0))
    {
      char buf[32];
      snprintf (buf, sizeof buf, "%u", (unsigned) (r >> 40) % 1000);
      emit (buf);
      return;
    }
  static const char *const opv[] = { " + ", " - ", " * ", " % " };
  if (r % 7 == 1)
    emit ("-");
  emit ("(");
  gen (depth - 1, seed);
  int n = 1 + (int) ((r >> 8) % 2);
  for (int i = 0; i < n; i++)
    {
      emit (opv[(r >> (12 + 2 * i)) & 3]);
      gen (depth - 1, seed);
    }
  emit (")");
}

int
main (int argc, char **argv)
{
  long rounds = bench_scale (argc, argv, 750);
  uint64_t seed = 5, sum = 0;
  gen (16, &seed);
  if (getenv ("PARSER_LEN"))
    fprintf (stderr, "%zu bytes\n", out_len);
  for (long r = 0; r < rounds; r++)
    {
      struct lexer lx = { out, 0 };
      int64_t v = expr (&lx);
      sum = sum * 31 + (uint64_t) v + lx.seen;
    }
  free (out);
  bench_report ("parser", sum);
  return 0;
}
