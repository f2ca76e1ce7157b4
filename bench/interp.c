/* interp.c -- interpreter-like: a small stack bytecode machine with a
   switch dispatch loop; a CALL instruction evaluates the callee by a
   recursive call of eval, and a NATIVE instruction calls a builtin through
   a table of function pointers.  The bytecode computes a Fibonacci-like
   recursion, and a counting loop that calls a recursive gcd.  */

#include "bench.h"

enum op
{
  PUSH, ARG, LD, ST, ADD, SUB, MUL, MOD, LT, JZ, JMP, CALL, RET, NATIVE
};

struct insn
{
  enum op op;
  int a, b;     /* operand; CALL: function index, argument count */
};

struct func
{
  const struct insn *code;
  int nargs;
};

static const struct func funcs[3];

typedef int64_t (*native_fn) (int64_t);
static int64_t
nat_hash (int64_t x)
{
  return (int64_t) (((uint64_t) x * 0x9E3779B97F4A7C15ULL) >> 40);
}
static int64_t
nat_note (int64_t x)
{
  BENCH_TICK (2);
  return x & 0xff;
}
static native_fn natives[2] = { nat_hash, nat_note };

#define STACK 64

static int64_t __attribute__ ((noinline))
eval (const struct func *f, const int64_t *args)
{
  int64_t st[STACK], loc[4] = { 0, 0, 0, 0 };
  int sp = 0;
  const struct insn *pc = f->code;
  for (;;)
    {
      const struct insn *i = pc++;
      switch (i->op)
        {
        case PUSH: st[sp++] = i->a; break;
        case ARG: st[sp++] = args[i->a]; break;
        case ADD: sp--; st[sp - 1] += st[sp]; break;
        case SUB: sp--; st[sp - 1] -= st[sp]; break;
        case MUL: sp--; st[sp - 1] *= st[sp]; break;
        case LT: sp--; st[sp - 1] = st[sp - 1] < st[sp]; break;
        case JZ: if (!st[--sp]) pc = f->code + i->a; break;
        case JMP: pc = f->code + i->a; break;
        case MOD: sp--; st[sp - 1] %= st[sp]; break;
        case LD: st[sp++] = loc[i->a]; break;
        case ST: loc[i->a] = st[--sp]; break;
        case CALL:
          {
            BENCH_TICK (1);
            sp -= i->b;
            int64_t r = eval (&funcs[i->a], &st[sp]);
            st[sp++] = r;
            break;
          }
        case NATIVE: st[sp - 1] = natives[i->a] (st[sp - 1]); break;
        case RET: return st[sp - 1];
        }
    }
}

/* f0 (n) = n < 2 ? n : f0 (n - 1) + f0 (n - 2) + hash (n)  */
static const struct insn code_fib[] = {
  /* 0 */ { ARG, 0, 0 }, { PUSH, 2, 0 }, { LT, 0, 0 }, { JZ, 6, 0 },
  /* 4 */ { ARG, 0, 0 }, { RET, 0, 0 },
  /* 6 */ { ARG, 0, 0 }, { PUSH, 1, 0 }, { SUB, 0, 0 }, { CALL, 0, 1 },
  /* 10 */ { ARG, 0, 0 }, { PUSH, 2, 0 }, { SUB, 0, 0 }, { CALL, 0, 1 },
  /* 14 */ { ADD, 0, 0 }, { ARG, 0, 0 }, { NATIVE, 0, 0 }, { ADD, 0, 0 },
  /* 18 */ { RET, 0, 0 },
};

/* f1 (n, m) = sum over i = n-1 .. 0 of note (f2 (i + m, 3 i + 1))  */
static const struct insn code_loop[] = {
  /* 0 */ { PUSH, 0, 0 }, { ST, 0, 0 },         /* acc = 0 */
  /* 2 */ { ARG, 0, 0 }, { ST, 1, 0 },          /* i = n */
  /* 4 */ { LD, 1, 0 }, { JZ, 24, 0 },          /* while (i) */
  /* 6 */ { LD, 1, 0 }, { PUSH, 1, 0 }, { SUB, 0, 0 }, { ST, 1, 0 },
  /* 10 */ { LD, 1, 0 }, { ARG, 1, 0 }, { ADD, 0, 0 },
  /* 13 */ { LD, 1, 0 }, { PUSH, 3, 0 }, { MUL, 0, 0 }, { PUSH, 1, 0 },
  /* 17 */ { ADD, 0, 0 }, { CALL, 2, 2 },       /* f2 (i + m, 3 i + 1) */
  /* 19 */ { NATIVE, 1, 0 },                    /* note */
  /* 20 */ { LD, 0, 0 }, { ADD, 0, 0 }, { ST, 0, 0 }, { JMP, 4, 0 },
  /* 24 */ { LD, 0, 0 }, { RET, 0, 0 },
};

/* f2 (a, b) = b == 0 ? a : f2 (b, a mod b)  */
static const struct insn code_gcd[] = {
  /* 0 */ { ARG, 1, 0 }, { JZ, 8, 0 },
  /* 2 */ { ARG, 1, 0 }, { ARG, 0, 0 }, { ARG, 1, 0 }, { MOD, 0, 0 },
  /* 6 */ { CALL, 2, 2 }, { RET, 0, 0 },
  /* 8 */ { ARG, 0, 0 }, { RET, 0, 0 },
};

static const struct func funcs[3] = {
  { code_fib, 1 }, { code_loop, 2 }, { code_gcd, 2 },
};

int
main (int argc, char **argv)
{
  long rounds = bench_scale (argc, argv, 300);
  uint64_t sum = 0;
  for (long r = 0; r < rounds; r++)
    {
      int64_t a[2] = { 18 + (r & 3), 0 };
      sum = sum * 31 + (uint64_t) eval (&funcs[0], a);
      int64_t b[2] = { 20000, 1000 * r };
      sum = sum * 31 + (uint64_t) eval (&funcs[1], b);
    }
  bench_report ("interp", sum);
  return 0;
}
