/* guess -- indirect calls whose likely targets the plugin guesses (the
   functions whose address the program stores in the field the pointer is
   loaded from, else those of the call's type) and compares the pointer
   with: a field with one target, a field with three (each one called), a
   field that also holds a C library function (no guess matches: the
   ccStack push), a target that never logs (in the default build its
   guess needs no code), a recursion through two fields, guesses in a
   loop, a pointer parameter whose type only one function has, and one
   whose type two functions have where four more take pointers to other
   structs (types GCC's link time takes for the same: only the two are
   guessed), and a field that four variables initialize with four
   functions, whose call through one of them guesses that variable's
   function (and misses once, after a copy of another variable over it).  */
#include <stdlib.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

struct one
{
  long (*op) (long);
};

struct three
{
  int (*pick) (int);
};

struct mixed
{
  long (*fn) (long);
};

struct quiet
{
  double (*scale) (double);
};

struct walk
{
  int (*down) (struct walk *, int);
  int (*up) (struct walk *, int);
};

static long
only_op (long x)
{
  cce_log (100 + (int) x);
  return x * 3;
}

static int
pick_a (int x)
{
  cce_log (200 + x);
  return x + 1;
}

static int
pick_b (int x)
{
  cce_log (300 + x);
  return x + 2;
}

static int
pick_c (int x)
{
  cce_log (400 + x);
  return x + 3;
}

static long
mixed_own (long x)
{
  cce_log (500 + (int) x);
  return -x;
}

static double
halve (double d)
{
  return d / 2;
}

static int walk_down (struct walk *w, int n);

static int
walk_up (struct walk *w, int n)
{
  cce_log (600 + n);
  return n == 0 ? 0 : w->down (w, n - 1) + 1;
}

static int
walk_down (struct walk *w, int n)
{
  if (n == 1)
    cce_log (700);
  return w->up (w, n);
}

static int
only_of_its_type (const char *s, unsigned n)
{
  cce_log (800 + (int) n + (s[0] == 'g'));
  return (int) n;
}

struct key
{
  int k;
};

struct other
{
  char c;
};

struct others
{
  int (*f) (struct other *, char *);
};

static int
key_cmp (const struct key *a, const void *b)
{
  cce_log (1000 + a->k);
  return a->k - *(const int *) b;
}

static int
key_cmp_rev (const struct key *a, const void *b)
{
  cce_log (1100 + a->k);
  return *(const int *) b - a->k;
}

static int
other_1 (struct other *o, char *p)
{
  cce_log (1201);
  return o->c + p[0];
}

static int
other_2 (struct other *o, char *p)
{
  cce_log (1202);
  return o->c - p[0];
}

static int
other_3 (struct other *o, char *p)
{
  return o->c * p[0];
}

static int
other_4 (struct other *o, char *p)
{
  return o->c | p[0];
}

struct hooks
{
  long (*alloc) (long);
};

static long
hook_a (long x)
{
  cce_log (1400 + (int) x);
  return x + 10;
}

static long
hook_b (long x)
{
  cce_log (1500 + (int) x);
  return x + 20;
}

static long
hook_c (long x)
{
  cce_log (1600 + (int) x);
  return x + 30;
}

static long
hook_d (long x)
{
  cce_log (1700 + (int) x);
  return x + 40;
}

/* The field gets four functions, one from each variable's initializer;
   the calls go through hooks_now, which starts with hook_a.  */
static struct hooks hooks_now = { hook_a };
static struct hooks hooks_b = { hook_b };
static struct hooks hooks_c = { hook_c };
static struct hooks hooks_d = { hook_d };
static struct hooks *const hooks_all[] = { &hooks_b, &hooks_c, &hooks_d };

/* Volatile: GCC cannot see which function a field holds.  */
static struct one volatile_one;
static struct three three_of[3];
static struct mixed mixed_of[2];
static struct quiet quiet_of;
static struct walk walker;
static struct others others_of[4];
static volatile int sink;

NOINLINE static void
setup (void)
{
  volatile_one.op = only_op;
  three_of[0].pick = pick_a;
  three_of[1].pick = pick_b;
  three_of[2].pick = pick_c;
  mixed_of[0].fn = labs;
  mixed_of[1].fn = mixed_own;
  quiet_of.scale = halve;
  walker.down = walk_down;
  walker.up = walk_up;
  others_of[0].f = other_1;
  others_of[1].f = other_2;
  others_of[2].f = other_3;
  others_of[3].f = other_4;
}

NOINLINE static long
call_one (struct one *o, long x)
{
  return o->op (x) + 1;
}

NOINLINE static int
call_three (int i, int x)
{
  int r = three_of[i].pick (x);
  cce_log (210 + i);
  return r;
}

NOINLINE static long
call_mixed (int i, long x)
{
  long r = mixed_of[i].fn (x);
  cce_log (510 + i);
  return r;
}

NOINLINE static double
call_quiet (struct quiet *q, double d)
{
  double r = q->scale (d);
  cce_log (520);
  return r;
}

NOINLINE static int
loop_three (int n)
{
  int s = 0;
  for (int i = 0; i < n; i++)
    s += three_of[i % 3].pick (i);
  return s;
}

NOINLINE static int
call_param (int (*f) (const char *, unsigned), const char *s)
{
  return f (s, 7) + 1;
}

__attribute__ ((noinline, noclone)) static int
call_cmp (int (*cmp) (const struct key *, const void *),
          const struct key *a, const void *b)
{
  return cmp (a, b) + 1;
}

NOINLINE static long
call_hook (long x)
{
  return hooks_now.alloc (x) + 1;
}

NOINLINE static void
swap_hooks (int i)
{
  hooks_now = *hooks_all[i];
}

NOINLINE static int
call_other (int i, char *p)
{
  struct other o = { 1 };
  return others_of[i].f (&o, p);
}

int
main (void)
{
  setup ();
  sink += (int) call_one (&volatile_one, 1);
  for (int i = 0; i < 3; i++)
    sink += call_three (i, i);
  sink += (int) call_mixed (0, -5);
  sink += (int) call_mixed (1, 5);
  sink += (int) call_quiet (&quiet_of, 3.0);
  sink += walker.up (&walker, 3);
  sink += loop_three (4);
  sink += call_param (only_of_its_type, "guess");
  struct key k = { 5 };
  int v = 2;
  for (int i = 0; i < 2; i++)
    sink += call_cmp (sink >= 0 ? key_cmp : key_cmp_rev, &k, &v);
  sink += call_cmp (key_cmp_rev, &k, &v);
  for (int i = 0; i < 4; i++)
    sink += call_other (i, "x");
  sink += (int) call_hook (1);
  swap_hooks (sink & 1 ? 2 : 1);
  sink += (int) call_hook (2);
  cce_log (900);
  return 0;
}
