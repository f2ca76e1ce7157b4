/* core-tests.h -- what the unit tests of cce's encoding core share
   (core-tests.c): failure reporting, a seeded PRNG, models of call graphs
   and the graphs built from them, a simulation of the instrumented
   program exactly as cce-abi.h describes that checks that every log
   record decodes to the path taken, graph generators and the timeout.

   Random tests print their seed when they fail; set CCE_TEST_SEED to
   replay a run, and CCE_TEST_GRAPH=N to run only graph N of it.  */

#ifndef CCE_CORE_TESTS_H
#define CCE_CORE_TESTS_H

#include <setjmp.h>
#include <signal.h>
#include <unistd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cce-abi.h"   /* CCE_SITE_NONE */
#include "cce-core.h"

#define MAXFR 3           /* frames of a site in the models */
#define MAXENT 4          /* ENTRY nodes an 'i' or 'x' site may enter */
#define MAXPATH 200       /* sites of a simulated path */
#define TOP63 (UINT64_C (1) << 63)

/* Failure reporting.  */

extern char ctx[256];             /* what is being tested */
extern struct model *cur_model;   /* dumped on failure */

void check_failed (const char *file, int line, const char *expr);

#define CHECK(cond, ...)                                                \
  do                                                                    \
    {                                                                   \
      if (!(cond))                                                      \
        {                                                               \
          check_failed (__FILE__, __LINE__, #cond);                     \
          fail_msg (__VA_ARGS__);                                       \
        }                                                               \
    }                                                                   \
  while (0)

/* Name what is being tested, for the failure reports.  */
void set_ctx (const char *s);

/* Seeded PRNG (splitmix64).  */

extern uint64_t rng_state;

uint64_t rnd (void);
uint32_t rnd_below (uint32_t n);
int chance (unsigned pct);
uint64_t base_seed (void);
long only_graph (void);

/* Models: what the test means to build, independent of the library.  */

struct mframe
{
  uint32_t func;
  const char *file;
  uint32_t line, col;
};

struct mnode
{
  uint32_t func, flags;
};

struct msite
{
  uint32_t node;
  char kind;
  uint32_t target;        /* callee node for 'd' */
  const char *ext;        /* external callee for 'x' */
  double freq;
  int nfr;
  struct mframe fr[MAXFR];
  int nent;
  uint32_t ent[MAXENT];   /* 'i', 'x': ENTRY nodes it may enter */
  double weight;          /* random walk weight */
  uint32_t gtarget;       /* target in the graph, set by model_build */
  int may_log;            /* 'i', 'x': may enter another cce module */
  int guess;              /* 'd': a guessed target of an indirect call */
};

struct model
{
  uint32_t nfuncs;
  size_t nnodes, anodes, nsites, asites;
  struct mnode *nodes;
  struct msite *sites;
  uint32_t *first, *count, *list;   /* sites by node (model_index) */
  int fold_max;                     /* the graph's fold_max */
};

void model_free (struct model *m);
uint32_t m_node (struct model *m, uint32_t func, uint32_t flags);
uint32_t m_site (struct model *m, uint32_t node, char kind, uint32_t target,
                 double freq);
void m_ent (struct model *m, uint32_t site, uint32_t node);
uint32_t m_ext (struct model *m, uint32_t node, const char *name,
                double freq);

/* Building and checking a graph.  */

void compare_graphs (const struct cce_graph *g, const struct cce_graph *h);

/* Simulating the instrumented program.  */

int replay (const struct cce_graph *g, const uint32_t *p, size_t n,
            uint64_t logsite, uint64_t id,
            const struct cce_stack_entry *stack, size_t nstack);
uint32_t *decode_all (const struct cce_graph *g, uint64_t site, uint64_t id,
                      const struct cce_stack_entry *st, size_t ns, size_t *n,
                      enum cce_decode_status *r, const char **reason);
void print_path (const char *what, const uint32_t *p, size_t n);
void check_frames (const struct model *m, const struct cce_graph *g,
                   const uint32_t *p, size_t n);

struct run
{
  struct cce_graph *g, *h;
  struct cce_encode_stats st;
  size_t checks, big_ids, fuzzed, folded, mixed;
};

void run_encode (struct model *m, struct run *R);
void run_sim (struct model *m, struct run *R, int depth, long budget,
              int extra_roots, int walks, int walk_depth);
void run_free (struct run *R);
void run_all (struct model *m, struct run *R);

/* Graph generators.  */

void gen_random (struct model *m);
void gen_layered (struct model *m, int extras);
void gen_chain (struct model *m, uint32_t levels);

/* Decode and expect exactly PATH.  */
void expect_ok (const struct cce_graph *g, const char *what, uint64_t site,
                uint64_t id, const struct cce_stack_entry *st, size_t nst,
                const uint32_t *path, size_t npath);

/* A hang (an endless loop in the core) fails the run instead of blocking
   it: each test program's main sets it as the handler of SIGALRM.  */
void on_alarm (int sig);

#endif /* CCE_CORE_TESTS_H */
