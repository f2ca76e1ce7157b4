/* dispatch.c -- pointer-heavy: objects with vtables (a table of function
   pointers per class, as C code does object orientation), a table of
   operation handlers indexed by an opcode, and a chain of filter stages
   linked by pointers.  Every call here is indirect: with cce each one is
   a ccStack push and pop.  */

#include "bench.h"

struct shape;
struct shape_vt
{
  uint64_t (*area) (const struct shape *);
  uint64_t (*perimeter) (const struct shape *);
  void (*scale) (struct shape *, uint64_t);
};

struct shape
{
  const struct shape_vt *vt;
  uint64_t a, b, c;
};

static uint64_t
rect_area (const struct shape *s)
{
  return s->a * s->b;
}
static uint64_t
rect_perimeter (const struct shape *s)
{
  return 2 * (s->a + s->b);
}
static void
rect_scale (struct shape *s, uint64_t k)
{
  s->a = (s->a * k) % 1000 + 1;
  s->b = (s->b * k) % 1000 + 1;
}
static uint64_t
tri_area (const struct shape *s)
{
  return s->a * s->b / 2;
}
static uint64_t
tri_perimeter (const struct shape *s)
{
  return s->a + s->b + s->c;
}
static void
tri_scale (struct shape *s, uint64_t k)
{
  s->a = (s->a * k) % 997 + 1;
  s->b = (s->b * k) % 997 + 1;
  s->c = (s->c * k) % 997 + 1;
}
static uint64_t
circle_area (const struct shape *s)
{
  return 3 * s->a * s->a;
}
static uint64_t
circle_perimeter (const struct shape *s)
{
  BENCH_TICK (1);
  return 6 * s->a;
}
static void
circle_scale (struct shape *s, uint64_t k)
{
  s->a = (s->a * k) % 991 + 1;
}

static const struct shape_vt rect_vt = { rect_area, rect_perimeter, rect_scale };
static const struct shape_vt tri_vt = { tri_area, tri_perimeter, tri_scale };
static const struct shape_vt circle_vt
  = { circle_area, circle_perimeter, circle_scale };

/* Operation handlers, indexed by opcode.  */
typedef uint64_t (*op_fn) (uint64_t, uint64_t);
static uint64_t op_add (uint64_t x, uint64_t y) { return x + y; }
static uint64_t op_sub (uint64_t x, uint64_t y) { return x - y; }
static uint64_t op_xor (uint64_t x, uint64_t y) { return x ^ y; }
static uint64_t op_mul (uint64_t x, uint64_t y) { return x * (y | 1); }
static uint64_t op_rot (uint64_t x, uint64_t y)
{
  unsigned k = (unsigned) (y & 63);
  return k ? (x << k) | (x >> (64 - k)) : x;
}
static uint64_t op_min (uint64_t x, uint64_t y) { return x < y ? x : y; }
static uint64_t op_max (uint64_t x, uint64_t y) { return x > y ? x : y; }
static uint64_t
op_note (uint64_t x, uint64_t y)
{
  BENCH_TICK (2);
  return x + 3 * y;
}
static op_fn ops[8]
  = { op_add, op_sub, op_xor, op_mul, op_rot, op_min, op_max, op_note };

/* A pipeline of stages, each calling the next through a pointer.  */
struct stage
{
  uint64_t (*run) (const struct stage *, uint64_t);
  const struct stage *next;
  uint64_t k;
};
static uint64_t
stage_mix (const struct stage *s, uint64_t v)
{
  v = v * s->k + 1;
  return s->next ? s->next->run (s->next, v) : v;
}
static uint64_t
stage_shift (const struct stage *s, uint64_t v)
{
  v ^= v >> s->k;
  return s->next ? s->next->run (s->next, v) : v;
}
static uint64_t
stage_sink (const struct stage *s, uint64_t v)
{
  BENCH_TICK (3);
  return v + s->k;
}

#define NSHAPES 1024

int
main (int argc, char **argv)
{
  long rounds = bench_scale (argc, argv, 360);
  static struct shape shapes[NSHAPES];
  static unsigned char code[4096];
  uint64_t seed = 11, sum = 0;
  for (int i = 0; i < NSHAPES; i++)
    {
      uint64_t r = bench_rand (&seed);
      shapes[i].vt = r % 3 == 0 ? &rect_vt : r % 3 == 1 ? &tri_vt : &circle_vt;
      shapes[i].a = r % 100 + 1;
      shapes[i].b = (r >> 8) % 100 + 1;
      shapes[i].c = (r >> 16) % 100 + 1;
    }
  for (int i = 0; i < 4096; i++)
    code[i] = (unsigned char) (bench_rand (&seed) & 7);
  struct stage st[6];
  for (int i = 0; i < 6; i++)
    {
      st[i].run = i == 5 ? stage_sink : i & 1 ? stage_shift : stage_mix;
      st[i].next = i == 5 ? NULL : &st[i + 1];
      st[i].k = 3 + (uint64_t) i * 5;
    }
  /* volatile: keep the compiler from following the pointers.  */
  const struct stage *volatile head = &st[0];

  for (long r = 0; r < rounds; r++)
    {
      for (int k = 0; k < 100; k++)
        for (int i = 0; i < NSHAPES; i++)
          {
            struct shape *s = &shapes[i];
            sum += s->vt->area (s) + s->vt->perimeter (s);
            if (((unsigned) i & 63) == (unsigned) k)
              s->vt->scale (s, sum & 15);
          }
      uint64_t acc = (uint64_t) r;
      for (int k = 0; k < 50; k++)
        for (int i = 0; i < 4096; i++)
          acc = ops[code[i]] (acc, (uint64_t) i);
      sum ^= acc;
      for (int i = 0; i < 50000; i++)
        sum += head->run (head, (uint64_t) i + sum);
    }
  bench_report ("dispatch", sum);
  return 0;
}
