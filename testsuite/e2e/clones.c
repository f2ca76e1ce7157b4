/* clones -- functions GCC clones must be reported by their source names.

   - ipa-cp: cp_work is called with constant MODE from several call sites
     (cp_work.constprop.N), and once with a variable MODE;
   - ipa-sra: sra_sum takes a struct by reference of which it reads two
     fields and an unused parameter (sra_sum.isra.0);
   - function splitting (partial inlining): split_me has a cheap early
     exit and a big cold tail that logs; the header is inlined into the
     callers and the tail becomes split_me.part.0;
   - a static function called once from a constant-argument site that is
     also cloned and then reached through another clone.  */
#include <cce.h>

static volatile int sink;
static int table[64];

#define NOINLINE __attribute__ ((noinline))

/* A body large enough that cloning pays off per MODE.  */
static NOINLINE int
cp_work (int mode, int x)
{
  int s = 0;
  if (mode == 1)
    {
      for (int i = 0; i < 16; i++)
        s += table[(x + i) & 63] * (i + 1);
      cce_log (100 + x);
    }
  else if (mode == 2)
    {
      for (int i = 0; i < 16; i++)
        s ^= table[(x * i) & 63] << (i & 7);
      cce_log (200 + x);
    }
  else
    {
      for (int i = 0; i < 8; i++)
        s -= table[(x ^ i) & 63];
      cce_log (300 + x);
    }
  return s + sink;
}

struct big
{
  int a;
  int b;
  int pad[30];
  int c;
};

static NOINLINE int
sra_sum (struct big *p, int unused, const struct big *q)
{
  (void) unused;
  int a = p->a, b = p->b, c = q->c;
  cce_log (400 + a);
  return b + c;
}

/* Only a struct by reference, two fields read: ipa-sra passes them by
   value (sra_fields.isra.0).  */
static NOINLINE int
sra_fields (const struct big *p)
{
  /* Load the fields before the call that might change them: else
     ipa-sra must keep the pointer.  */
  int a = p->a, b = p->b, c = p->c;
  cce_log (450 + a);
  return b * 3 + c;
}

/* Early exit, then a big tail.  Not static noinline: it must stay
   inlinable for the splitter.  */
static int
split_me (int x)
{
  if (__builtin_expect (x < 1000, 1))
    return x + 1;
  int s = 0;
  for (int i = 0; i < 32; i++)
    {
      s += table[(x + i) & 63] * x;
      s ^= s >> 3;
      if (s & 1)
        s += table[(s >> 4) & 63];
      else
        s -= table[(s >> 5) & 63];
    }
  for (int i = 0; i < 8; i++)
    table[(s + i) & 63] += i;
  cce_log (500 + (x - 1000));
  return s;
}

/* Clone chain: cp_outer is cloned for its constant and calls cp_work
   with a constant derived from it.  */
static NOINLINE int
cp_outer (int k, int x)
{
  int s = 0;
  for (int i = 0; i < 4; i++)
    s += table[(k * 7 + i) & 63];
  return s + cp_work (k, x);
}

NOINLINE int
site_a (int x)
{
  int r = 0;
  for (int i = 0; i < 3; i++)
    r += cp_work (1, 10 + i);
  for (int i = 0; i < 2; i++)
    r += cp_work (2, 20 + i);
  r += split_me (x);
  r += split_me (1001);
  return r;
}

NOINLINE int
site_b (int x)
{
  int r = 0;
  for (int i = 0; i < 3; i++)
    r += cp_work (1, 30 + i);
  r += split_me (1002);
  r += split_me (x + 3);
  return r;
}

NOINLINE int
site_c (int mode)
{
  struct big b1, b2;
  b1.a = table[1] & 7;
  b1.b = table[2];
  b1.c = table[3];
  b2.a = table[4] & 7;
  b2.b = table[5];
  b2.c = table[6];
  int r = sra_sum (&b1, table[7], &b2);
  r += sra_sum (&b2, table[8], &b1);
  r += sra_fields (&b1);
  r += cp_work (mode, 4);
  r += sra_fields (&b2);
  return r;
}

int
main (void)
{
  for (int i = 0; i < 64; i++)
    table[i] = i * 2654435761u >> 7;
  cce_log (1);
  sink += site_a (5);
  sink += site_b (6);
  sink += site_c (sink & 0 ? 1 : 3);
  sink += cp_work (2, 5);
  sink += cp_outer (1, 6);
  sink += cp_outer (2, 7);
  sink += split_me (1003);
  struct big b3;
  b3.a = table[9] & 7;
  b3.b = table[10];
  b3.c = table[11];
  sink += sra_sum (&b3, sink, &b3);
  sink += sra_fields (&b3);
  cce_log (2);
  return 0;
}
