/* pcstep.c -- a program to be stepped through one instruction at a time
   (pcstep.py): every kind of call site, so that the instructions around
   each are visited: direct calls with and without an addition value,
   inlined frames, recursion, calls through a pointer, a callback from the
   C library, a longjmp, and two calls in a row whose callees are called
   more often from elsewhere (under async the restore after the first
   is left out: the second's store follows at once), also in a loop
   (the restore after the second too: the first's store follows at the
   top of the next iteration), calls in a row with different addition
   values (under async one change of the id between them), calls in
   branches that read the id where they are, and pushes in a rare
   branch that go out of line, and a guessed target that does
   nothing.  */
#include <cce.h>
#include <setjmp.h>
#include <stdlib.h>

static volatile int sink;
static jmp_buf env;

__attribute__ ((noinline)) static int
leaf (int x)
{
  cce_log (1);
  return x * 3 + 1;
}

static inline int
twice (int x)
{
  return leaf (x) + leaf (x + 1);
}

__attribute__ ((noinline)) int
shared (int x)
{
  sink = x;
  return twice (x) + leaf (x + 2);
}

__attribute__ ((noinline)) int
first (int x)
{
  return shared (x) + 1;
}

__attribute__ ((noinline)) int
second (int x)
{
  return shared (x + 1) * 2;
}

__attribute__ ((noinline)) int
rec (int n)
{
  if (n <= 0)
    return leaf (n);
  return rec (n - 1) + (n & 1 ? first (n) : 1);
}

static int
by_value (const void *p, const void *q)
{
  int a = *(const int *) p, b = *(const int *) q;
  if (a == 2)
    leaf (a);
  return a - b;
}

__attribute__ ((noinline)) static void
jump_back (int n)
{
  if (n == 0)
    longjmp (env, 1);
  jump_back (n - 1);
}

__attribute__ ((noinline)) static int
step_a (int x)
{
  cce_log (2);
  return x + 5;
}

__attribute__ ((noinline)) static int
step_b (int x)
{
  sink = x;
  return leaf (x) - 1;
}

/* step_a and step_b with addition values, one after the other.  */
__attribute__ ((noinline)) int
in_a_row (int x)
{
  int a = step_a (x);
  sink = a;
  int b = step_b (a);
  return a + b;
}

/* Calls in a row whose addition values differ, up and down: under
   async the subtraction after one and the addition before the next are
   one change of the id word (none in in_a_row, whose two values are the
   same).  */
__attribute__ ((noinline)) int
chained (int x)
{
  int a = step_a (x);
  int b = leaf (a);
  sink = b;
  return step_a (b) + leaf (a + b);
}

/* The hottest calls of step_a and step_b: those with no code.  */
__attribute__ ((noinline)) int
in_a_loop (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += step_a (i) + step_b (i);
  return s;
}

__attribute__ ((noinline)) static int
step_c (int x)
{
  if (x == 1)
    cce_log (3);
  return x + 7;
}

__attribute__ ((noinline)) static int
step_d (int x)
{
  sink = x;
  return leaf (x) + 2;
}

/* The hottest calls of step_c and step_d, in a nested loop: no code.  */
__attribute__ ((noinline)) int
cd_nested (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += step_c (j) + step_d (i);
  return s;
}

/* step_c and step_d once each per iteration, with addition values:
   under async no restore follows step_d, the loop's entry edge stores
   the id step_d is called with, and its exit restores the id.  */
__attribute__ ((noinline)) int
cd_loop (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    {
      s += step_c (i);
      s ^= step_d (s & 3);
    }
  return s;
}

/* Calls in branches that not every call takes, with addition values:
   each reads the id where it is, and the function loads no copy at its
   entry.  */
__attribute__ ((noinline)) int
by_kind (int k)
{
  if (k == 1)
    return step_c (k + 2) + 1;
  if (k == 2)
    return step_d (k) * 2;
  return k;
}

/* step_c alone in a loop, with an addition value: under async the
   loop's entry edge stores the id step_c is called with, no store comes
   before the call either (step_c returns with the id it found), and the
   exit edge takes the addition value off the id word.  */
__attribute__ ((noinline)) int
c_loop (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += step_c (i + (s & 1));
  return s;
}

/* Recursions whose function takes K folded back edges, each call in a
   branch of its own, with the id read after it (a log): under async
   the restore after each computes the function's id from the id word,
   and no copy of the id is kept across the calls.  K = 2 (a shift),
   3 (a product with an inverse) and 6 (both).  */
__attribute__ ((noinline)) static int unfold_two (int n);
__attribute__ ((noinline)) static int unfold_three (int n);
__attribute__ ((noinline)) static int unfold_six (int n);

__attribute__ ((noinline)) static int
unfold_back (int n)
{
  sink = n;
  if (n & 1)
    return unfold_two (n - 1) + 3;
  if (n & 2)
    return unfold_three (n - 1) + 5;
  return unfold_six (n - 1) + 7;
}

__attribute__ ((noinline)) static int
unfold_two (int n)
{
  if (n <= 0)
    return 1;
  if (n % 3 == 0)
    {
      int r = unfold_two (n - 1);
      cce_log (4);
      return r + 1;
    }
  return unfold_back (n) * 2;
}

__attribute__ ((noinline)) static int
unfold_three (int n)
{
  if (n <= 0)
    return 2;
  if (n % 3 == 0)
    {
      int r = unfold_three (n - 1);
      cce_log (5);
      return r + 1;
    }
  if (n % 3 == 1)
    {
      int r = unfold_three (n - 2);
      sink = r;
      return r * 3;
    }
  return unfold_back (n) - 1;
}

__attribute__ ((noinline)) static int
unfold_six (int n)
{
  int r;
  switch (n % 7)
    {
    case 0:
      return 3;
    case 1:
      r = unfold_six (n - 1);
      cce_log (6);
      return r + 1;
    case 2:
      r = unfold_six (n - 2);
      sink = r;
      return r * 5;
    case 3:
      r = unfold_six (n - 3);
      sink = r + 1;
      return r - 2;
    case 4:
      r = unfold_six (n - 1);
      sink = r + 2;
      return r ^ 3;
    case 5:
      r = unfold_six (n - 2);
      sink = r + 3;
      return r + 9;
    default:
      return n < 7 ? 4 : unfold_back (n) + 1;
    }
}

int (*volatile pointer) (int) = second;

/* A call through a pointer in a function without setjmp: one whose
   targets can be guessed (main's calls may all return to its setjmp).  */
__attribute__ ((noinline)) int
via_pointer (int x)
{
  return pointer (x) + 1;
}

/* A call through a pointer whose guessed targets include a function
   that does nothing (const to GCC): that guess gets neither a call nor
   any code around it.  */
__attribute__ ((noinline)) static void
quiet (int x)
{
  (void) x;
}

__attribute__ ((noinline)) static void
loud (int x)
{
  leaf (x);
}

void (*volatile hook) (int) = loud;

__attribute__ ((noinline)) int
via_hook (int x)
{
  hook (x);
  hook = quiet;
  hook (x + 1);
  hook = loud;
  return x;
}

/* A rare branch: it calls a cold function, so GCC optimizes it for
   size, and its call of the C library that calls back and its calls
   through pointers whose targets are not guessed push out of line (the
   keeping push and pop of the runtime).  */
__attribute__ ((noinline, cold)) static void
note_rare (int x)
{
  sink = x;
}

__attribute__ ((noinline)) static int
rare_add (int x, int y)
{
  return leaf (x) + y;
}

__attribute__ ((noinline)) static int
rare_sub (int x, int y)
{
  return leaf (x) - y;
}

__attribute__ ((noinline)) static int
rare_mul (int x, int y)
{
  return x * y;
}

__attribute__ ((noinline)) static int
rare_max (int x, int y)
{
  return x > y ? x : y;
}

/* More targets than an indirect call compares with (guess=3).  */
int (*const rare_ops[]) (int, int) = { rare_add, rare_sub, rare_mul,
                                       rare_max };

__attribute__ ((noinline)) int
rarely (int x)
{
  if (x > 5)
    {
      int v[3] = { x, 1, 2 };
      note_rare (x);
      qsort (v, 3, sizeof *v, by_value);
      x = rare_ops[(x + 1) & 3] (v[0], v[2])
          + rare_ops[x & 1] (v[1], 4);
    }
  return x + 1;
}

int
main (void)
{
  int v[5] = { 3, 1, 4, 2, 0 };
  int r = first (1) + second (2) + rec (3) + pointer (4) + via_pointer (5);
  r += in_a_row (6) + in_a_loop (2) + cd_nested (2) + cd_loop (3);
  r += chained (8);
  r += by_kind (0) + by_kind (1) + by_kind (2) + c_loop (3);
  r += unfold_two (3) + unfold_three (3) + unfold_three (4);
  r += unfold_six (8) + unfold_six (11) + unfold_six (12) + unfold_six (13);
  sink = 7;
  r += rarely (1) + rarely (sink) + via_hook (3);
  qsort (v, 5, sizeof *v, by_value);
  if (setjmp (env) == 0)
    jump_back (2);
  leaf (v[0]);
  return r == 0;
}
