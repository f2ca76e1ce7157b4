/* test-core.c -- cmocka unit tests of cce's GCC-free encoding core
   (common/core.c, API in common/cce-core.h).

   Hand-made graphs check single rules of the encoding; the property tests
   build random call graphs, encode them, simulate the instrumented program
   exactly as cce-abi.h describes (id arithmetic on direct sites, ccStack
   pushes on back, indirect and external sites) and check that every log
   record decodes to exactly the path that was taken.

   Random tests print their seed when they fail; set CCE_TEST_SEED to
   replay a run, and CCE_TEST_GRAPH=N to run only graph N of it.  */

#define _GNU_SOURCE 1     /* MAP_ANONYMOUS */
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
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

/* ------------------------------------------------------------------ */
/* Failure reporting.                                                 */

static char ctx[256];                 /* what is being tested */
static struct model *cur_model;       /* dumped on failure */
static struct cce_graph *cur_graph;   /* encoded graph of cur_model */
static void dump_model (void);
static void expect_ok (const struct cce_graph *g, const char *what,
                       uint64_t site, uint64_t id,
                       const struct cce_stack_entry *st, size_t nst,
                       const uint32_t *path, size_t npath);

static void
check_failed (const char *file, int line, const char *expr)
{
  fprintf (stderr, "\n*** check failed at %s:%d: %s\n*** context: %s\n",
           file, line, expr, ctx);
  if (cur_model)
    dump_model ();
}

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

/* ------------------------------------------------------------------ */
/* Seeded PRNG (splitmix64).                                          */

static uint64_t rng_state;

static uint64_t
rnd (void)
{
  uint64_t z = (rng_state += UINT64_C (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

static uint32_t
rnd_below (uint32_t n)
{
  return n ? (uint32_t) (rnd () % n) : 0;
}

static int
chance (unsigned pct)
{
  return rnd_below (100) < pct;
}

static double
rnd_freq (void)
{
  switch (rnd_below (4))
    {
    case 0: return 0;
    case 1: return rnd_below (10);
    case 2: return rnd_below (100000);
    default: return rnd_below (1000) / 7.0;
    }
}

static uint64_t
base_seed (void)
{
  const char *s = getenv ("CCE_TEST_SEED");
  return s ? strtoull (s, NULL, 0) : UINT64_C (20240601);
}

/* -1: all graphs; else only that one.  */
static long
only_graph (void)
{
  const char *s = getenv ("CCE_TEST_GRAPH");
  return s ? strtol (s, NULL, 0) : -1;
}

/* ------------------------------------------------------------------ */
/* Models: what the test means to build, independent of the library.  */

static const char *const files[] = {
  "main.c", "lib/util.c", "a b.c", "back\\slash.c", "new\nline.c",
  "/abs/dir/x.h"
};
#define NFILES (sizeof files / sizeof files[0])

static const char *const ext_names[] = {
  "qsort", "pthread_create", "atexit", "bsearch", "printf",
  "__libc_start_main"
};
#define NEXT (sizeof ext_names / sizeof ext_names[0])

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

static void
model_free (struct model *m)
{
  free (m->nodes);
  free (m->sites);
  free (m->first);
  free (m->count);
  free (m->list);
  memset (m, 0, sizeof *m);
}

static uint32_t
m_node (struct model *m, uint32_t func, uint32_t flags)
{
  if (m->nnodes == m->anodes)
    {
      m->anodes = m->anodes ? 2 * m->anodes : 16;
      m->nodes = realloc (m->nodes, m->anodes * sizeof *m->nodes);
      assert_non_null (m->nodes);
    }
  m->nodes[m->nnodes].func = func;
  m->nodes[m->nnodes].flags = flags;
  if (func >= m->nfuncs)
    m->nfuncs = func + 1;
  return (uint32_t) m->nnodes++;
}

/* A site with one frame (the node's function).  */
static uint32_t
m_site (struct model *m, uint32_t node, char kind, uint32_t target,
        double freq)
{
  struct msite *s;
  uint32_t i = (uint32_t) m->nsites;

  if (m->nsites == m->asites)
    {
      m->asites = m->asites ? 2 * m->asites : 32;
      m->sites = realloc (m->sites, m->asites * sizeof *m->sites);
      assert_non_null (m->sites);
    }
  s = &m->sites[m->nsites++];
  memset (s, 0, sizeof *s);
  s->node = node;
  s->kind = kind;
  s->target = kind == CCE_SITE_DIRECT ? target : CCE_NONE;
  s->freq = freq;
  s->nfr = 1;
  s->fr[0].func = m->nodes[node].func;
  s->fr[0].file = files[i % NFILES];
  s->fr[0].line = 100 + i % 1000;
  s->fr[0].col = 1 + i % 70;
  s->weight = 1;
  return i;
}

static void
m_ent (struct model *m, uint32_t site, uint32_t node)
{
  struct msite *s = &m->sites[site];
  int k;
  for (k = 0; k < s->nent; k++)
    if (s->ent[k] == node)
      return;
  if (s->nent < MAXENT)
    s->ent[s->nent++] = node;
}

static uint32_t
m_ext (struct model *m, uint32_t node, const char *name, double freq)
{
  uint32_t s = m_site (m, node, CCE_SITE_EXTERNAL, CCE_NONE, freq);
  m->sites[s].ext = name;
  return s;
}

/* Random frames for site S: the node's function first, then inlined
   frames; when COLLAPSE is a function, sometimes end in it.  */
static void
random_frames (struct model *m, uint32_t site, uint32_t collapse)
{
  struct msite *s = &m->sites[site];
  int k;

  s->nfr = 1 + (int) rnd_below (MAXFR);
  for (k = 0; k < s->nfr; k++)
    {
      s->fr[k].func = k == 0 ? m->nodes[s->node].func : rnd_below (m->nfuncs);
      s->fr[k].file = files[rnd_below (NFILES)];
      s->fr[k].line = rnd_below (5000);
      s->fr[k].col = rnd_below (80);
    }
  if (collapse != CCE_NONE && s->nfr > 1 && chance (50))
    s->fr[s->nfr - 1].func = collapse;
}

static void
model_index (struct model *m)
{
  size_t i;

  free (m->first);
  free (m->count);
  free (m->list);
  m->first = calloc (m->nnodes + 1, sizeof (uint32_t));
  m->count = calloc (m->nnodes + 1, sizeof (uint32_t));
  m->list = calloc (m->nsites + 1, sizeof (uint32_t));
  assert_true (m->first && m->count && m->list);
  for (i = 0; i < m->nsites; i++)
    m->count[m->sites[i].node]++;
  for (i = 1; i < m->nnodes; i++)
    m->first[i] = m->first[i - 1] + m->count[i - 1];
  memset (m->count, 0, (m->nnodes + 1) * sizeof (uint32_t));
  for (i = 0; i < m->nsites; i++)
    {
      uint32_t n = m->sites[i].node;
      m->list[m->first[n] + m->count[n]++] = (uint32_t) i;
    }
}

static void
func_name (uint32_t f, char *buf, size_t len)
{
  if (f % 5 == 3)
    snprintf (buf, len, "ns::fn%u(int, char const*)", f);
  else
    snprintf (buf, len, "fn%u", f);
}

static void
dump_model (void)
{
  const struct model *m = cur_model;
  const struct cce_graph *g = cur_graph;
  size_t i;
  int k;

  fprintf (stderr, "*** model: %zu nodes, %zu sites\n", m->nnodes, m->nsites);
  for (i = 0; i < m->nnodes; i++)
    {
      fprintf (stderr, "  node %zu: func %u flags %x", i, m->nodes[i].func,
               m->nodes[i].flags);
      if (g && i < g->nnodes)
        fprintf (stderr, "  -> numcc %" PRIu64 " has_root %d root %" PRIu64,
                 g->nodes[i].numcc, g->nodes[i].has_root, g->nodes[i].root);
      fputc ('\n', stderr);
    }
  for (i = 0; i < m->nsites; i++)
    {
      const struct msite *s = &m->sites[i];
      fprintf (stderr, "  site %zu: node %u kind %c", i, s->node, s->kind);
      if (s->kind == CCE_SITE_DIRECT)
        fprintf (stderr, " -> %u", s->target);
      if (s->kind == CCE_SITE_EXTERNAL)
        fprintf (stderr, " ext %s", s->ext);
      if (s->nent)
        {
          fprintf (stderr, " enters");
          for (k = 0; k < s->nent; k++)
            fprintf (stderr, " %u", s->ent[k]);
        }
      fprintf (stderr, " freq %g frames", s->freq);
      for (k = 0; k < s->nfr; k++)
        fprintf (stderr, " %u", s->fr[k].func);
      if (g && i < g->nsites)
        fprintf (stderr, "  -> kind %c reason %c av %" PRIu64,
                 g->sites[i].kind,
                 g->sites[i].reason ? g->sites[i].reason : '-',
                 g->sites[i].av);
      fputc ('\n', stderr);
    }
}

/* ------------------------------------------------------------------ */
/* Building and checking a graph.                                     */

static struct cce_graph *
model_build (struct model *m)
{
  struct cce_graph *g = cce_graph_new ();
  uint32_t i;
  int k;

  CHECK (g != NULL, "cce_graph_new failed");
  g->fold_max = m->fold_max;
  for (i = 0; i < m->nfuncs; i++)
    {
      char name[64];
      uint32_t f;
      func_name (i, name, sizeof name);
      f = cce_graph_func (g, name, files[i % NFILES], i + 1);
      CHECK (f == i, "cce_graph_func returned %u, expected %u", f, i);
    }
  for (i = 0; i < m->nnodes; i++)
    {
      uint32_t n = cce_graph_node (g, m->nodes[i].func, m->nodes[i].flags);
      CHECK (n == i, "cce_graph_node returned %u, expected %u", n, i);
    }
  for (i = 0; i < m->nsites; i++)
    {
      struct msite *s = &m->sites[i];
      uint32_t id;
      if (s->kind == CCE_SITE_DIRECT)
        s->gtarget = s->target;
      else if (s->kind == CCE_SITE_EXTERNAL)
        s->gtarget = cce_graph_string (g, s->ext);
      else
        s->gtarget = CCE_NONE;
      id = cce_graph_site (g, s->node, s->kind, s->gtarget, s->freq);
      CHECK (id == i, "cce_graph_site returned %u, expected %u", id, i);
      g->sites[id].may_log = (unsigned char) s->may_log;
      for (k = 0; k < s->nfr; k++)
        {
          int r = cce_graph_frame (g, i, s->fr[k].func, s->fr[k].file,
                                   s->fr[k].line, s->fr[k].col);
          CHECK (r >= 0, "cce_graph_frame failed");
        }
    }
  return g;
}

/* G holds what M says.  */
static void
check_build (const struct model *m, const struct cce_graph *g)
{
  size_t i;
  int k;

  CHECK (g->nfuncs == m->nfuncs && g->nnodes == m->nnodes
         && g->nsites == m->nsites, "graph sizes differ from the model");
  for (i = 0; i < m->nfuncs; i++)
    {
      char name[64];
      func_name ((uint32_t) i, name, sizeof name);
      CHECK (g->funcs[i].name < g->nstrings
             && strcmp (g->strings[g->funcs[i].name], name) == 0
             && g->funcs[i].file < g->nstrings
             && strcmp (g->strings[g->funcs[i].file], files[i % NFILES]) == 0
             && g->funcs[i].line == i + 1, "func %zu stored wrong", i);
    }
  for (i = 0; i < m->nnodes; i++)
    CHECK (g->nodes[i].func == m->nodes[i].func
           && g->nodes[i].flags == m->nodes[i].flags,
           "node %zu stored wrong", i);
  for (i = 0; i < m->nsites; i++)
    {
      const struct msite *s = &m->sites[i];
      const struct cce_site *gs = &g->sites[i];
      CHECK (gs->node == s->node && gs->kind == s->kind
             && gs->target == s->gtarget && gs->freq == s->freq
             && gs->nframes == (uint32_t) s->nfr
             && gs->first_frame + (size_t) gs->nframes <= g->nframes,
             "site %zu stored wrong", i);
      if (s->kind == CCE_SITE_EXTERNAL)
        CHECK (strcmp (g->strings[gs->target], s->ext) == 0,
               "external name of site %zu", i);
      for (k = 0; k < s->nfr; k++)
        {
          const struct cce_frame *f = &g->frames[gs->first_frame + k];
          CHECK (f->func == s->fr[k].func && f->file < g->nstrings
                 && strcmp (g->strings[f->file], s->fr[k].file) == 0
                 && f->line == s->fr[k].line && f->col == s->fr[k].col,
                 "frame %d of site %zu stored wrong", k, i);
        }
    }
}

static uint64_t
edge_width (const struct cce_graph *g, const struct cce_edge *e)
{
  return e->site == CCE_NONE ? 1
                            : cce_node_width (&g->nodes[g->sites[e->site].node]);
}

/* Everything cce_graph_encode promises, checked against the model.  */
static void
check_encoding (const struct model *m, const struct cce_graph *g,
                const struct cce_encode_stats *st)
{
  size_t nn = g->nnodes, ns = g->nsites, i, k;
  size_t n_d = 0, n_zero = 0, n_r = 0, n_o = 0, n_i = 0, n_x = 0, n_l = 0;
  size_t n_f = 0, nfold_sum = 0;
  unsigned char *covered;
  uint32_t *seen, *indeg, *queue, *mark;
  size_t head = 0, tail = 0, nedges_sum = 0;
  uint64_t maxcc = 0;

  CHECK (nn == m->nnodes && ns == m->nsites, "encode changed graph sizes");

  /* Sites: only direct ones may move to the ccStack.  */
  for (i = 0; i < ns; i++)
    {
      const struct msite *s = &m->sites[i];
      const struct cce_site *gs = &g->sites[i];
      CHECK (gs->node == s->node && gs->target == s->gtarget,
             "encode changed site %zu", i);
      if (s->kind == CCE_SITE_DIRECT)
        {
          CHECK (gs->kind == CCE_SITE_DIRECT || gs->kind == CCE_SITE_BACK,
                 "direct site %zu became kind %c", i, gs->kind);
          if (gs->kind == CCE_SITE_DIRECT)
            {
              CHECK (gs->reason == 0 && gs->fold == CCE_NONE,
                     "direct site %zu has a reason or a fold", i);
              n_d++;
              n_zero += !gs->dead && gs->av == 0;
            }
          else
            {
              CHECK (gs->reason == 'r' || gs->reason == 'o',
                     "back site %zu has reason %d", i, gs->reason);
              n_r += gs->reason == 'r';
              n_o += gs->reason == 'o';
              CHECK (g->nodes[gs->target].has_root,
                     "callee of back site %zu has no root", i);
              CHECK (cce_site_entry (g, (uint32_t) i)
                     == g->nodes[gs->target].root,
                     "cce_site_entry of back site %zu is not the root", i);
              if (gs->fold != CCE_NONE)
                {
                  const struct cce_node *t = &g->nodes[gs->target];
                  CHECK (gs->reason == 'r', "overflow cut %zu is folded", i);
                  CHECK (t->fold_lim > 0 && gs->fold < t->nfold
                         && t->first_fold + gs->fold < g->nfolds
                         && g->folds[t->first_fold + gs->fold] == i,
                         "folded site %zu is not in its callee's folds", i);
                  n_f++;
                }
            }
        }
      else
        {
          CHECK (gs->kind == s->kind && gs->reason == 0,
                 "encode changed kind of non-direct site %zu", i);
          n_i += gs->kind == CCE_SITE_INDIRECT;
          n_x += gs->kind == CCE_SITE_EXTERNAL;
          n_l += gs->kind == CCE_SITE_LOG;
          if (gs->kind != CCE_SITE_LOG)
            CHECK (cce_site_entry (g, (uint32_t) i) == 0,
                   "cce_site_entry of %c site %zu is not 0", gs->kind, i);
        }
    }

  /* Nodes and their incoming edges.  */
  covered = calloc (g->nedges + 1, 1);
  seen = calloc (ns + 1, sizeof *seen);
  assert_true (covered && seen);
  for (i = 0; i < nn; i++)
    {
      const struct cce_node *nd = &g->nodes[i];
      uint64_t next = 0;
      int roots = 0;

      if (nd->flags & CCE_NODE_ENTRY)
        CHECK (nd->has_root && nd->root == 0,
               "ENTRY node %zu has no root 0", i);
      CHECK ((nd->nfold == 0) == (nd->fold_lim == 0),
             "node %zu: %u folded sites, fold limit %" PRIu64, i, nd->nfold,
             nd->fold_lim);
      if (nd->nfold)
        {
          uint64_t w;
          CHECK (!__builtin_mul_overflow (nd->fold_lim, (uint64_t) nd->nfold,
                                          &w)
                 && !__builtin_add_overflow (w, nd->numcc, &w),
                 "ids of node %zu overflow with its folds", i);
          CHECK (nd->has_root, "folded node %zu has no root", i);
        }
      nfold_sum += nd->nfold;
      if (nd->numcc > maxcc)
        maxcc = nd->numcc;
      nedges_sum += nd->n_in;
      if (!nd->n_in)
        {
          CHECK (nd->numcc == 0 && !nd->has_root,
                 "node %zu has contexts but no incoming edges", i);
          continue;
        }
      CHECK (nd->first_in < g->nedges
             && nd->n_in <= g->nedges - nd->first_in,
             "edges of node %zu out of range", i);
      for (k = nd->first_in; k < (size_t) nd->first_in + nd->n_in; k++)
        {
          const struct cce_edge *e = &g->edges[k];
          uint64_t w;
          CHECK (!covered[k], "edge %zu belongs to two nodes", k);
          covered[k] = 1;
          CHECK (e->node == i, "edge %zu of node %zu names node %u", k, i,
                 e->node);
          if (k > nd->first_in)
            CHECK (e->av >= e[-1].av, "edges of node %zu not sorted", i);
          if (e->site == CCE_NONE)
            {
              roots++;
              CHECK (nd->has_root && e->av == nd->root,
                     "root edge of node %zu does not match its root", i);
            }
          else
            {
              const struct cce_site *s;
              CHECK (e->site < ns, "edge %zu names site %u", k, e->site);
              s = &g->sites[e->site];
              CHECK (s->kind == CCE_SITE_DIRECT && s->target == i
                     && s->av == e->av,
                     "edge %zu does not match its direct site %u", k,
                     e->site);
              seen[e->site]++;
              if (nd->flags & CCE_NODE_ENTRY)
                CHECK (e->av >= 1, "direct edge of ENTRY node %zu has av 0",
                       i);
            }
          w = edge_width (g, e);
          if (!w)
            continue;   /* a caller with no contexts: never taken */
          CHECK (e->av == next, "ranges of node %zu not contiguous at edge "
                 "%zu (av %" PRIu64 ", expected %" PRIu64 ")", i, k, e->av,
                 next);
          CHECK (w <= UINT64_MAX - next, "contexts of node %zu overflow", i);
          next += w;
        }
      CHECK (roots == (nd->has_root ? 1 : 0),
             "node %zu: %d root edges, has_root %d", i, roots, nd->has_root);
      CHECK (next == nd->numcc, "node %zu: numcc %" PRIu64 " but its edges "
             "hold %" PRIu64, i, nd->numcc, next);
      /* Which edge is hottest is a heuristic (site freq weighted by an
         estimate of the caller's calls); the hand-made graphs check it
         where every reading agrees.  */
    }
  CHECK (nedges_sum == g->nedges, "nodes hold %zu edges of %zu", nedges_sum,
         g->nedges);
  CHECK (nfold_sum == n_f && g->nfolds == n_f, "%zu folded sites, nodes "
         "count %zu, folds[] holds %zu", n_f, nfold_sum, g->nfolds);
  for (k = 0; k < g->nedges; k++)
    CHECK (covered[k], "edge %zu belongs to no node", k);
  for (i = 0; i < ns; i++)
    CHECK (seen[i] == (g->sites[i].kind == CCE_SITE_DIRECT
                       && !g->sites[i].dead),
           "site %zu appears in %u edges", i, seen[i]);
  /* Dead sites: exactly the calls through which no log is reached.  */
  {
    int entry_obs = 0;
    for (i = 0; i < nn; i++)
      entry_obs |= g->nodes[i].observed
                   && (g->nodes[i].flags & (CCE_NODE_ENTRY | CCE_NODE_MAIN))
                      == CCE_NODE_ENTRY;
    for (i = 0; i < ns; i++)
      {
        const struct cce_site *s = &g->sites[i];
        switch (s->kind)
          {
          case CCE_SITE_LOG:
          case CCE_SITE_TRACE:
            CHECK (g->nodes[s->node].observed && !s->dead,
                   "log site %zu: node unobserved or dead", i);
            break;
          case CCE_SITE_DIRECT:
          case CCE_SITE_BACK:
            CHECK (s->dead == !g->nodes[s->target].observed,
                   "site %zu: dead %d, callee observed %d", i, s->dead,
                   g->nodes[s->target].observed);
            CHECK (s->dead || g->nodes[s->node].observed,
                   "live site %zu in an unobserved node", i);
            break;
          case CCE_SITE_INDIRECT:
          case CCE_SITE_EXTERNAL:
            CHECK (s->dead == (!entry_obs && !s->may_log), "site %zu: "
                   "dead %d, an entry observed %d, may log %d", i, s->dead,
                   entry_obs, s->may_log);
            CHECK (s->dead || g->nodes[s->node].observed,
                   "live site %zu in an unobserved node", i);
            break;
          }
      }
  }
  free (covered);
  free (seen);

  /* The direct edges left are acyclic.  */
  indeg = calloc (nn + 1, sizeof *indeg);
  queue = calloc (nn + 1, sizeof *queue);
  mark = calloc (nn + 1, sizeof *mark);
  assert_true (indeg && queue && mark);
  for (i = 0; i < ns; i++)
    if (g->sites[i].kind == CCE_SITE_DIRECT && !g->sites[i].dead)
      indeg[g->sites[i].target]++;
  for (i = 0; i < nn; i++)
    if (!indeg[i])
      queue[tail++] = (uint32_t) i;
  while (head < tail)
    {
      uint32_t u = queue[head++];
      for (k = m->first[u]; k < (size_t) m->first[u] + m->count[u]; k++)
        {
          const struct cce_site *s = &g->sites[m->list[k]];
          if (s->kind == CCE_SITE_DIRECT && !s->dead
              && --indeg[s->target] == 0)
            queue[tail++] = s->target;
        }
    }
  CHECK (tail == nn, "direct edges still form a cycle");

  /* A recursion back edge U -> V closes a cycle: V reaches U over the
     edges left after the depth-first search (direct or cut later for
     overflow).  */
  for (i = 0; i < ns; i++)
    {
      const struct cce_site *b = &g->sites[i];
      int found;
      if (b->kind != CCE_SITE_BACK || b->reason != 'r')
        continue;
      found = b->node == b->target;
      memset (mark, 0, (nn + 1) * sizeof *mark);
      head = tail = 0;
      queue[tail++] = b->target;
      mark[b->target] = 1;
      while (head < tail && !found)
        {
          uint32_t u = queue[head++];
          for (k = m->first[u]; k < (size_t) m->first[u] + m->count[u]; k++)
            {
              const struct cce_site *s = &g->sites[m->list[k]];
              if (!(s->kind == CCE_SITE_DIRECT
                    || (s->kind == CCE_SITE_BACK && s->reason == 'o'))
                  || mark[s->target])
                continue;
              if (s->target == b->node)
                found = 1;
              mark[s->target] = 1;
              queue[tail++] = s->target;
            }
        }
      CHECK (found, "recursion back site %zu closes no cycle", i);
    }
  free (indeg);
  free (queue);
  free (mark);

  if (st)
    {
      CHECK (st->direct_sites == n_d && st->zero_sites == n_zero
             && st->back_sites == n_r && st->overflow_sites == n_o
             && st->indirect_sites == n_i && st->external_sites == n_x
             && st->log_sites == n_l && st->max_numcc == maxcc
             && st->folded_sites == n_f,
             "encode stats do not match the graph");
    }
}

/* Graphs G and H are the same (all a dictionary carries).  */
static void
compare_graphs (const struct cce_graph *g, const struct cce_graph *h)
{
  size_t i;

  CHECK (g->nstrings == h->nstrings && g->nfuncs == h->nfuncs
         && g->nnodes == h->nnodes && g->nsites == h->nsites
         && g->nframes == h->nframes && g->nedges == h->nedges,
         "re-read dictionary has other sizes");
  CHECK (g->stamp == h->stamp, "re-read dictionary has another stamp");
  for (i = 0; i < g->nstrings; i++)
    CHECK (strcmp (g->strings[i], h->strings[i]) == 0,
           "string %zu differs after re-read", i);
  for (i = 0; i < g->nfuncs; i++)
    CHECK (g->funcs[i].name == h->funcs[i].name
           && g->funcs[i].file == h->funcs[i].file
           && g->funcs[i].line == h->funcs[i].line,
           "func %zu differs after re-read", i);
  for (i = 0; i < g->nnodes; i++)
    {
      const struct cce_node *a = &g->nodes[i], *b = &h->nodes[i];
      CHECK (a->func == b->func && a->flags == b->flags
             && a->numcc == b->numcc && a->has_root == b->has_root
             && (!a->has_root || a->root == b->root) && a->n_in == b->n_in
             && (!a->n_in || a->first_in == b->first_in)
             && a->nfold == b->nfold && a->fold_lim == b->fold_lim
             && (!a->nfold || a->first_fold == b->first_fold),
             "node %zu differs after re-read", i);
    }
  for (i = 0; i < g->nsites; i++)
    {
      const struct cce_site *a = &g->sites[i], *b = &h->sites[i];
      CHECK (a->node == b->node && a->kind == b->kind
             && a->target == b->target && a->first_frame == b->first_frame
             && a->nframes == b->nframes
             && (a->kind != CCE_SITE_DIRECT || a->av == b->av)
             && a->fold == b->fold,
             "site %zu differs after re-read", i);
    }
  for (i = 0; i < g->nframes; i++)
    CHECK (g->frames[i].func == h->frames[i].func
           && g->frames[i].file == h->frames[i].file
           && g->frames[i].line == h->frames[i].line
           && g->frames[i].col == h->frames[i].col,
           "frame %zu differs after re-read", i);
  for (i = 0; i < g->nedges; i++)
    CHECK (g->edges[i].node == h->edges[i].node
           && g->edges[i].site == h->edges[i].site
           && g->edges[i].av == h->edges[i].av,
           "edge %zu differs after re-read", i);
}

/* Write G's dictionary, check its header, stamp and layout, read it back
   and check it is the same graph.  Returns the re-read graph.  */
static struct cce_graph *
dict_round_trip (struct cce_graph *g)
{
  char *text = NULL, *text2 = NULL, *exact, head[64], err[256] = "";
  size_t len = 0, len2 = 0, hl, counts[6] = { 0 }, roots = 0, folded = 0, i;
  const char *p, *end;
  int group = 0;
  struct cce_graph *h;

  CHECK (cce_graph_write_dict (g, &text, &len) == 0, "write_dict failed");
  CHECK (text != NULL && len > 0 && text[len - 1] == '\n',
         "dictionary text does not end in a newline");
  snprintf (head, sizeof head, "%s %d %016" PRIx64 "\n", CCE_DICT_MAGIC,
            CCE_DICT_VERSION, g->stamp);
  hl = strlen (head);
  CHECK (len >= hl && memcmp (text, head, hl) == 0,
         "dictionary header is not \"%s\"", head);
  CHECK (g->stamp == cce_fnv1a64 (text + hl, len - hl),
         "stamp is not the FNV-1a of the body");
  /* Groups s f n c e r in that order, one line per item (r: per node with
     folded sites).  */
  for (p = text + hl, end = text + len; p < end;
       p = (const char *) memchr (p, '\n', (size_t) (end - p)) + 1)
    {
      const char *letters = "sfncer", *l = strchr (letters, *p);
      CHECK (*p && l && p[1] == ' ', "dictionary line starts with %c", *p);
      CHECK (l - letters >= group, "dictionary groups out of order");
      group = (int) (l - letters);
      counts[group]++;
    }
  for (i = 0; i < g->nnodes; i++)
    {
      roots += g->nodes[i].has_root ? 1 : 0;
      folded += g->nodes[i].nfold ? 1 : 0;
    }
  CHECK (counts[0] == g->nstrings && counts[1] == g->nfuncs
         && counts[2] == g->nnodes && counts[3] == g->nsites
         && counts[4] == g->nedges - roots && counts[5] == folded,
         "dictionary has the wrong number of lines in some group");

  /* Read from a copy of exactly LEN bytes: no NUL after it.  */
  exact = malloc (len);
  assert_non_null (exact);
  memcpy (exact, text, len);
  h = cce_graph_read_dict (exact, len, err, sizeof err);
  free (exact);
  CHECK (h != NULL, "read_dict of a written dictionary failed: %s", err);
  compare_graphs (g, h);
  CHECK (cce_graph_write_dict (h, &text2, &len2) == 0, "write_dict failed");
  CHECK (len2 == len && memcmp (text, text2, len) == 0,
         "re-read dictionary writes another text");
  free (text);
  free (text2);
  return h;
}

/* ------------------------------------------------------------------ */
/* Simulating the instrumented program.                               */

struct sim
{
  struct model *m;
  struct cce_graph *g, *h;    /* encoded graph and its re-read copy */
  uint32_t path[MAXPATH + 1];
  size_t npath;
  struct cce_stack_entry stack[MAXPATH + 1];
  size_t nstack;
  long budget;
  int maxdepth;
  size_t checks, big_ids, fuzzed, folded, mixed;
};

/* The path P (root first, the log site LOGSITE last) is a possible
   execution that ends with id ID and ccStack STACK: starts at an ENTRY
   node with id 0 and an empty ccStack, and follows the encoding.  */
static int
replay (const struct cce_graph *g, const uint32_t *p, size_t n,
        uint64_t logsite, uint64_t id, const struct cce_stack_entry *stack,
        size_t nstack)
{
  struct cce_stack_entry *st;
  size_t nst = 0, i;
  uint32_t cur;
  uint64_t cid = 0;
  int ok = 0;

  if (n == 0 || p[n - 1] != logsite)
    return 0;
  for (i = 0; i < n; i++)
    if (p[i] >= g->nsites)
      return 0;
  cur = g->sites[p[0]].node;
  if (!(g->nodes[cur].flags & CCE_NODE_ENTRY))
    return 0;
  st = malloc (n * sizeof *st);
  assert_non_null (st);
  for (i = 0; i + 1 < n; i++)
    {
      const struct cce_site *s = &g->sites[p[i]];
      if (s->node != cur || cid >= cce_node_width (&g->nodes[cur]))
        goto out;
      switch (s->kind)
        {
        case CCE_SITE_DIRECT:
          cid += s->av;
          cur = s->target;
          break;
        case CCE_SITE_BACK:
          /* A folded site pushes above its limit, and where the plugin
             gives it the plain push (a noreturn call).  */
          if (nst < nstack && stack[nst].site == p[i] && stack[nst].id == cid)
            {
              st[nst].id = cid;
              st[nst++].site = p[i];
              cid = cce_site_entry (g, p[i]);
            }
          else if (!cce_site_fold (g, p[i], cid, &cid))
            goto out;
          cur = s->target;
          break;
        case CCE_SITE_INDIRECT:
        case CCE_SITE_EXTERNAL:
          st[nst].id = cid;
          st[nst++].site = p[i];
          cur = g->sites[p[i + 1]].node;
          if (!(g->nodes[cur].flags & CCE_NODE_ENTRY))
            goto out;
          cid = 0;
          break;
        default:
          goto out;
        }
    }
  if (g->sites[p[n - 1]].kind != CCE_SITE_LOG || g->sites[p[n - 1]].node != cur
      || cid != id || cid >= cce_node_width (&g->nodes[cur])
      || nst != nstack)
    goto out;
  for (i = 0; i < nst; i++)
    if (st[i].id != stack[i].id || st[i].site != stack[i].site)
      goto out;
  ok = 1;
out:
  free (st);
  return ok;
}

/* Decode the record (SITE, ID, STACK) into a malloc'd path of *N sites,
   however long: a corrupted id may name a real context of a recursion
   folded deeper than any simulated one.  */
static uint32_t *
decode_all (const struct cce_graph *g, uint64_t site, uint64_t id,
            const struct cce_stack_entry *st, size_t ns, size_t *n,
            enum cce_decode_status *r, const char **reason)
{
  size_t room = 64, got = 0;
  uint32_t *p = NULL;

  for (;;)
    {
      free (p);
      p = malloc (room * sizeof *p);
      assert_non_null (p);
      *r = cce_decode (g, site, id, st, ns, p, room, &got, reason);
      if (got <= room)
        break;
      room = got;
    }
  *n = got;
  return p;
}

static void
print_path (const char *what, const uint32_t *p, size_t n)
{
  size_t i;
  fprintf (stderr, "*** %s (%zu):", what, n);
  for (i = 0; i < n && i < 4 * MAXPATH; i++)
    fprintf (stderr, " %u", p[i]);
  fputc ('\n', stderr);
}

/* cce_path_frames of path P (decoded with G) is what the model says.  */
static void
check_frames (const struct model *m, const struct cce_graph *g,
              const uint32_t *p, size_t n)
{
  struct xf
  {
    uint32_t func;
    const char *file;
    uint32_t line, col;
    int inl;
    const char *ext;
  } *x;
  struct cce_path_frame *out;
  size_t cap = n * (MAXFR + 1) + 4, nx = 0, nf = 0, i;
  int k;

  x = malloc (cap * sizeof *x);
  out = malloc (cap * sizeof *out);
  assert_true (x && out);
  for (i = 0; i < n; i++)
    {
      const struct msite *s = &m->sites[p[i]];
      const struct mnode *nd = &m->nodes[s->node];
      int inherit = 0;
      if (i > 0 && (nd->flags & CCE_NODE_SPLIT_PART))
        {
          const struct msite *ps = &m->sites[p[i - 1]];
          if (ps->fr[ps->nfr - 1].func == nd->func)
            {
              CHECK (nx > 0 && x[nx - 1].ext == NULL, "model: bad split");
              nx--;
              inherit = x[nx].inl;
            }
        }
      for (k = 0; k < s->nfr; k++)
        {
          x[nx].func = s->fr[k].func;
          x[nx].file = s->fr[k].file;
          x[nx].line = s->fr[k].line;
          x[nx].col = s->fr[k].col;
          x[nx].inl = k > 0 || inherit;
          x[nx++].ext = NULL;
        }
      if (s->kind == CCE_SITE_EXTERNAL)
        {
          memset (&x[nx], 0, sizeof x[nx]);
          x[nx].func = CCE_NONE;
          x[nx++].ext = s->ext;
        }
    }
  cce_path_frames (g, p, n, out, cap, &nf);
  if (nf != nx)
    print_path ("path", p, n);
  CHECK (nf == nx, "cce_path_frames gave %zu frames, expected %zu", nf, nx);
  for (i = 0; i < nx; i++)
    {
      if (x[i].ext)
        CHECK (out[i].func == CCE_NONE && out[i].ext_name < g->nstrings
               && strcmp (g->strings[out[i].ext_name], x[i].ext) == 0
               && out[i].inlined == 0,
               "path frame %zu is not the external frame %s", i, x[i].ext);
      else
        CHECK (out[i].func == x[i].func && out[i].ext_name == CCE_NONE
               && out[i].file < g->nstrings
               && strcmp (g->strings[out[i].file], x[i].file) == 0
               && out[i].line == x[i].line && out[i].col == x[i].col
               && out[i].inlined == x[i].inl,
               "path frame %zu differs from the model", i);
    }
  /* Short of room: the full count comes back.  */
  if (nx > 1)
    {
      nf = 0;
      cce_path_frames (g, p, n, out, nx - 1, &nf);
      CHECK (nf == nx, "cce_path_frames with little room counts %zu", nf);
    }
  free (x);
  free (out);
}

/* Decode a corrupted version of the record (LOGSITE, ID, the current
   ccStack): either INCOMPLETE with a reason, or OK with a path that
   really produces the corrupted record.  */
static void
fuzz_record (struct sim *S, uint32_t logsite, uint64_t id)
{
  static struct cce_stack_entry st[MAXPATH + 2];
  static uint32_t out[8 * MAXPATH];
  size_t ns = S->nstack, n = 0, k;
  uint64_t id2 = id, site2 = logsite;
  const char *reason = NULL;
  enum cce_decode_status r;
  uint32_t nsites = (uint32_t) S->g->nsites;

  memcpy (st, S->stack, ns * sizeof *st);
  switch (rnd_below (9))
    {
    case 0: id2 = rnd (); break;
    case 1: id2 ^= UINT64_C (1) << rnd_below (64); break;
    case 2: id2 = id + 1 + rnd_below (3); break;
    case 3: id2 = id - 1 - rnd_below (3); break;
    case 4:
      if (ns)
        st[rnd_below ((uint32_t) ns)].site = rnd_below (nsites + 3);
      else
        id2 = rnd_below (1000);
      break;
    case 5:
      if (ns)
        {
          k = rnd_below ((uint32_t) ns);
          st[k].id = chance (50) ? rnd () : st[k].id ^ (UINT64_C (1) << rnd_below (64));
        }
      else
        site2 = rnd_below (nsites + 2);
      break;
    case 6:
      if (ns)
        {
          memmove (st, st + 1, --ns * sizeof *st);
          break;
        }
      /* fall through */
    case 7:
      memmove (st + 1, st, ns * sizeof *st);
      st[0].id = chance (50) ? 0 : rnd_below (100);
      st[0].site = rnd_below (nsites + 2);
      ns++;
      break;
    default:
      st[ns].id = rnd_below (100);
      st[ns].site = rnd_below (nsites + 2);
      ns++;
      break;
    }
  r = cce_decode (S->g, site2, id2, st, ns, out, 8 * MAXPATH, &n, &reason);
  S->fuzzed++;
  if (r == CCE_DECODE_OK)
    {
      uint32_t *p = out, *big = NULL;
      if (n > 8 * MAXPATH)
        {
          size_t n2 = 0;
          big = decode_all (S->g, site2, id2, st, ns, &n2, &r, &reason);
          CHECK (r == CCE_DECODE_OK && n2 == n, "second decode differs");
          p = big;
        }
      if (!replay (S->g, p, n, site2, id2, st, ns))
        print_path ("decoded", p, n < 8 * MAXPATH ? n : 8 * MAXPATH);
      CHECK (replay (S->g, p, n, site2, id2, st, ns),
             "corrupted record decoded OK to a path that does not produce "
             "it");
      free (big);
    }
  else
    {
      CHECK (r == CCE_DECODE_INCOMPLETE, "cce_decode returned %d", (int) r);
      CHECK (reason != NULL, "INCOMPLETE without a reason");
      if (n >= 1 && n <= 8 * MAXPATH && site2 == logsite)
        CHECK (out[n - 1] == logsite, "INCOMPLETE path does not end in the "
               "log site");
    }
}

/* A log record at LOGSITE with id ID and the current ccStack decodes to
   exactly the current path plus LOGSITE.  */
static void
check_log (struct sim *S, uint32_t logsite, uint64_t id)
{
  uint32_t out[MAXPATH + 2], out2[MAXPATH + 2];
  size_t n = 0, n2 = 0;
  const char *reason = NULL, *reason2 = NULL;
  enum cce_decode_status r, r2;

  r = cce_decode (S->g, logsite, id, S->stack, S->nstack, out, MAXPATH + 2,
                  &n, &reason);
  if (r != CCE_DECODE_OK || n != S->npath + 1
      || memcmp (out, S->path, S->npath * sizeof *out) != 0
      || out[S->npath] != logsite)
    {
      size_t i;
      S->path[S->npath] = logsite;
      print_path ("simulated path", S->path, S->npath + 1);
      print_path ("decoded path", out, n < MAXPATH + 2 ? n : MAXPATH + 2);
      fprintf (stderr, "*** id %" PRIu64 ", ccStack:", id);
      for (i = 0; i < S->nstack; i++)
        fprintf (stderr, " (%" PRIu64 ", %" PRIu64 ")", S->stack[i].id,
                 S->stack[i].site);
      fprintf (stderr, "\n*** status %d reason %s\n", (int) r,
               reason ? reason : "(none)");
    }
  CHECK (r == CCE_DECODE_OK, "decode of a simulated record not OK: %s",
         reason ? reason : "(no reason)");
  CHECK (n == S->npath + 1, "decoded %zu sites, path has %zu", n,
         S->npath + 1);
  CHECK (memcmp (out, S->path, S->npath * sizeof *out) == 0
         && out[S->npath] == logsite, "decoded path differs");
  S->checks++;
  if (id >= TOP63)
    S->big_ids++;
  /* Records whose path went through a folded back site (more back sites in
     the path than on the ccStack).  */
  {
    size_t i, backs = 0, pushed = 0;
    for (i = 0; i < S->npath; i++)
      backs += S->g->sites[S->path[i]].kind == CCE_SITE_BACK;
    for (i = 0; i < S->nstack; i++)
      pushed += S->g->sites[S->stack[i].site].kind == CCE_SITE_BACK;
    S->folded += backs > pushed;
    S->mixed += backs > pushed && pushed > 0;
  }
  check_frames (S->m, S->g, out, n);

  if (S->h)
    {
      r2 = cce_decode (S->h, logsite, id, S->stack, S->nstack, out2,
                       MAXPATH + 2, &n2, &reason2);
      CHECK (r2 == r && n2 == n && memcmp (out, out2, n * sizeof *out) == 0,
             "re-read dictionary decodes differently");
      check_frames (S->m, S->h, out2, n2);
    }
  if (n > 1 && chance (10))
    {
      /* Short of room: the full count and status come back.  */
      n2 = 0;
      r2 = cce_decode (S->g, logsite, id, S->stack, S->nstack, out2, n - 1,
                       &n2, NULL);
      CHECK (r2 == r && n2 == n, "decode with little room counts %zu, "
             "expected %zu", n2, n);
    }
  if (chance (30))
    fuzz_record (S, logsite, id);
}

static void
check_logs_at (struct sim *S, uint32_t node, uint64_t id)
{
  const struct model *m = S->m;
  uint32_t k;

  /* Below an unobserved node no id is ever read.  */
  if (!S->g->nodes[node].observed)
    return;
  CHECK (id < cce_node_width (&S->g->nodes[node]), "id %" PRIu64 " in node "
         "%u is not below its width %" PRIu64, id, node,
         cce_node_width (&S->g->nodes[node]));
  for (k = m->first[node]; k < m->first[node] + m->count[node]; k++)
    if (m->sites[m->list[k]].kind == CCE_SITE_LOG)
      check_log (S, m->list[k], id);
}

static void sim_enter (struct sim *S, uint32_t node, uint64_t id, int depth);

/* Take site S (not a log site) from the current node with id ID.  */
static void
sim_call (struct sim *S, uint32_t site, uint64_t id, int depth)
{
  const struct cce_site *s = &S->g->sites[site];
  const struct msite *ms = &S->m->sites[site];
  int k;

  S->path[S->npath++] = site;
  switch (s->kind)
    {
    case CCE_SITE_DIRECT:
      sim_enter (S, s->target, id + s->av, depth + 1);
      break;
    case CCE_SITE_BACK:
      {
        uint64_t fid;
        if (cce_site_fold (S->g, site, id, &fid))
          {
            sim_enter (S, s->target, fid, depth + 1);
            break;
          }
      }
      S->stack[S->nstack].id = id;
      S->stack[S->nstack++].site = site;
      sim_enter (S, s->target, cce_site_entry (S->g, site), depth + 1);
      S->nstack--;
      break;
    case CCE_SITE_INDIRECT:
    case CCE_SITE_EXTERNAL:
      if (s->dead)
        {
          /* No code: the callee runs with the caller's id.  */
          for (k = 0; k < ms->nent; k++)
            sim_enter (S, ms->ent[k], id, depth + 1);
          break;
        }
      S->stack[S->nstack].id = id;
      S->stack[S->nstack++].site = site;
      for (k = 0; k < ms->nent; k++)
        sim_enter (S, ms->ent[k], cce_site_entry (S->g, site), depth + 1);
      S->nstack--;
      break;
    default:
      CHECK (0, "simulation took site %u of kind %c", site, s->kind);
    }
  S->npath--;
}

/* Depth-first over all paths, sites in random order, within a budget.  */
static void
sim_enter (struct sim *S, uint32_t node, uint64_t id, int depth)
{
  const struct model *m = S->m;
  uint32_t order[64], n = 0, k;

  if (S->budget <= 0)
    return;
  S->budget--;
  check_logs_at (S, node, id);
  if (depth >= S->maxdepth)
    return;
  for (k = m->first[node]; k < m->first[node] + m->count[node] && n < 64; k++)
    if (m->sites[m->list[k]].kind != CCE_SITE_LOG)
      order[n++] = m->list[k];
  for (k = n; k > 1; k--)
    {
      uint32_t j = rnd_below (k), t = order[j];
      order[j] = order[k - 1];
      order[k - 1] = t;
    }
  for (k = 0; k < n && S->budget > 0; k++)
    sim_call (S, order[k], id, depth);
}

/* One random walk from START (a thread start) down to MAXDEPTH calls,
   sites picked by weight.  */
static void
sim_walk (struct sim *S, uint32_t start, int maxdepth)
{
  const struct model *m = S->m;
  const struct cce_graph *g = S->g;
  uint32_t node = start, k;
  uint64_t id = 0;
  int d;

  S->npath = S->nstack = 0;
  for (d = 0;; d++)
    {
      double total = 0, pick;
      uint32_t site = CCE_NONE;
      const struct cce_site *s;
      const struct msite *ms;

      check_logs_at (S, node, id);
      if (d >= maxdepth || S->npath >= MAXPATH)
        break;
      for (k = m->first[node]; k < m->first[node] + m->count[node]; k++)
        if (m->sites[m->list[k]].kind != CCE_SITE_LOG)
          total += m->sites[m->list[k]].weight;
      if (total > 0)
        {
          pick = (double) (rnd () >> 11) / 9007199254740992.0 * total;
          for (k = m->first[node]; k < m->first[node] + m->count[node]; k++)
            {
              uint32_t i = m->list[k];
              if (m->sites[i].kind == CCE_SITE_LOG)
                continue;
              site = i;
              if (pick < m->sites[i].weight)
                break;
              pick -= m->sites[i].weight;
            }
        }
      if (site == CCE_NONE)
        break;
      s = &g->sites[site];
      ms = &m->sites[site];
      S->path[S->npath++] = site;
      switch (s->kind)
        {
        case CCE_SITE_DIRECT:
          id += s->av;
          node = s->target;
          break;
        case CCE_SITE_BACK:
          if (!cce_site_fold (g, site, id, &id))
            {
              S->stack[S->nstack].id = id;
              S->stack[S->nstack++].site = site;
              id = cce_site_entry (g, site);
            }
          node = s->target;
          break;
        default:
          if (!ms->nent)
            return;
          if (s->dead)
            {
              node = ms->ent[rnd_below ((uint32_t) ms->nent)];
              break;
            }
          S->stack[S->nstack].id = id;
          S->stack[S->nstack++].site = site;
          id = cce_site_entry (g, site);
          node = ms->ent[rnd_below ((uint32_t) ms->nent)];
          break;
        }
    }
}

struct run
{
  struct cce_graph *g, *h;
  struct cce_encode_stats st;
  size_t checks, big_ids, fuzzed, folded, mixed;
};

/* Encoding an encoded graph again gives the same encoding.  */
static void
check_reencode (struct cce_graph *g)
{
  size_t nn = g->nnodes, ns = g->nsites, ne = g->nedges, i;
  struct cce_node *nodes = malloc ((nn + 1) * sizeof *nodes);
  struct cce_site *sites = malloc ((ns + 1) * sizeof *sites);
  struct cce_edge *edges = malloc ((ne + 1) * sizeof *edges);
  char err[256] = "";

  assert_true (nodes && sites && edges);
  if (nn)
    memcpy (nodes, g->nodes, nn * sizeof *nodes);
  if (ns)
    memcpy (sites, g->sites, ns * sizeof *sites);
  if (ne)
    memcpy (edges, g->edges, ne * sizeof *edges);
  CHECK (cce_graph_encode (g, NULL, err, sizeof err) == 0,
         "second cce_graph_encode failed: %s", err);
  CHECK (g->nedges == ne, "re-encoding changed the number of edges");
  for (i = 0; i < nn; i++)
    CHECK (g->nodes[i].numcc == nodes[i].numcc
           && g->nodes[i].has_root == nodes[i].has_root
           && g->nodes[i].root == nodes[i].root
           && g->nodes[i].n_in == nodes[i].n_in
           && (!nodes[i].n_in || g->nodes[i].first_in == nodes[i].first_in)
           && g->nodes[i].nfold == nodes[i].nfold
           && g->nodes[i].fold_lim == nodes[i].fold_lim,
           "re-encoding changed node %zu", i);
  for (i = 0; i < ns; i++)
    CHECK (g->sites[i].kind == sites[i].kind
           && g->sites[i].reason == sites[i].reason
           && g->sites[i].av == sites[i].av
           && g->sites[i].fold == sites[i].fold,
           "re-encoding changed site %zu", i);
  for (i = 0; i < ne; i++)
    CHECK (g->edges[i].node == edges[i].node
           && g->edges[i].site == edges[i].site
           && g->edges[i].av == edges[i].av,
           "re-encoding changed edge %zu", i);
  free (nodes);
  free (sites);
  free (edges);
}

/* Build M, check it, encode, check the encoding, round-trip the
   dictionary.  */
static void
run_encode (struct model *m, struct run *R)
{
  char err[256] = "";
  int r;

  memset (R, 0, sizeof *R);
  cur_model = m;
  cur_graph = NULL;
  model_index (m);
  R->g = model_build (m);
  check_build (m, R->g);
  memset (&R->st, 0xa5, sizeof R->st);
  r = cce_graph_encode (R->g, &R->st, err, sizeof err);
  CHECK (r == 0, "cce_graph_encode failed: %s", err);
  cur_graph = R->g;
  check_encoding (m, R->g, &R->st);
  check_reencode (R->g);
  R->h = dict_round_trip (R->g);
}

/* Simulate: a bounded depth-first search from node 0 and from up to
   EXTRA_ROOTS other ENTRY nodes (thread starts), then WALKS random walks
   from node 0.  */
static void
run_sim (struct model *m, struct run *R, int depth, long budget,
         int extra_roots, int walks, int walk_depth)
{
  struct sim *S = calloc (1, sizeof *S);
  int w;
  uint32_t n;

  assert_non_null (S);
  S->m = m;
  S->g = R->g;
  S->h = R->h;
  S->maxdepth = depth;
  if (budget > 0)
    {
      S->budget = budget;
      sim_enter (S, 0, 0, 0);
      for (w = 0; w < extra_roots; w++)
        {
          n = rnd_below ((uint32_t) m->nnodes);
          if (!(m->nodes[n].flags & CCE_NODE_ENTRY))
            continue;
          S->budget = budget / 2;
          sim_enter (S, n, 0, 0);
        }
    }
  for (w = 0; w < walks; w++)
    sim_walk (S, 0, walk_depth);
  R->checks += S->checks;
  R->big_ids += S->big_ids;
  R->fuzzed += S->fuzzed;
  R->folded += S->folded;
  R->mixed += S->mixed;
  free (S);
}

static void
run_free (struct run *R)
{
  cce_graph_free (R->g);
  cce_graph_free (R->h);
  R->g = R->h = NULL;
  cur_graph = NULL;
  cur_model = NULL;
}

/* Build, encode, check and simulate M with default bounds.  */
static void
run_all (struct model *m, struct run *R)
{
  run_encode (m, R);
  run_sim (m, R, 7, 2000, 2, 50, 40);
}

/* ------------------------------------------------------------------ */
/* Graph generators.                                                  */

static uint32_t
pick_entry (const struct model *m)
{
  uint32_t e[256], n = 0, i;
  for (i = 0; i < m->nnodes && n < 256; i++)
    if (m->nodes[i].flags & CCE_NODE_ENTRY)
      e[n++] = i;
  return e[rnd_below (n)];
}

/* A direct callee for a site in N among nodes [LO, HI): any node that is
   not a split part, or a split part of N's own function.  */
static uint32_t
pick_callee (const struct model *m, uint32_t n, uint32_t lo, uint32_t hi)
{
  uint32_t same[64], nsame = 0, i, t;
  int tries;

  for (i = lo; i < hi && nsame < 64; i++)
    if ((m->nodes[i].flags & CCE_NODE_SPLIT_PART)
        && m->nodes[i].func == m->nodes[n].func)
      same[nsame++] = i;
  if (chance (12))
    return n;
  if (nsame && chance (35))
    return same[rnd_below (nsame)];
  for (tries = 0; tries < 20; tries++)
    {
      t = lo + rnd_below (hi - lo);
      if (!(m->nodes[t].flags & CCE_NODE_SPLIT_PART)
          || m->nodes[t].func == m->nodes[n].func)
        return t;
    }
  return n;
}

/* Random sites in node N calling among nodes [LO, HI).  */
static void
random_sites (struct model *m, uint32_t n, uint32_t lo, uint32_t hi,
              int nsites)
{
  int j, k, ne;

  if (chance (50))
    random_frames (m, m_site (m, n, CCE_SITE_LOG, CCE_NONE, rnd_freq ()),
                   CCE_NONE);
  for (j = 0; j < nsites; j++)
    {
      uint32_t r = rnd_below (100), s, t;
      if (r < 60)
        {
          t = pick_callee (m, n, lo, hi);
          s = m_site (m, n, CCE_SITE_DIRECT, t, rnd_freq ());
          random_frames (m, s, (m->nodes[t].flags & CCE_NODE_SPLIT_PART)
                         ? m->nodes[t].func : CCE_NONE);
        }
      else if (r < 72)
        {
          s = m_site (m, n, CCE_SITE_INDIRECT, CCE_NONE, rnd_freq ());
          random_frames (m, s, CCE_NONE);
          ne = 1 + (int) rnd_below (3);
          for (k = 0; k < ne; k++)
            m_ent (m, s, pick_entry (m));
        }
      else if (r < 82)
        {
          s = m_ext (m, n, ext_names[rnd_below (NEXT)], rnd_freq ());
          random_frames (m, s, CCE_NONE);
          ne = (int) rnd_below (3);
          for (k = 0; k < ne; k++)
            m_ent (m, s, pick_entry (m));
        }
      else
        random_frames (m, m_site (m, n, CCE_SITE_LOG, CCE_NONE, rnd_freq ()),
                       CCE_NONE);
    }
}

/* 1-40 nodes, node 0 the ENTRY main, random ENTRY nodes and split parts,
   random direct (self loops and cycles included), indirect, external and
   log sites.  */
static void
gen_random (struct model *m)
{
  uint32_t nn = 1 + rnd_below (40), i;

  model_free (m);
  for (i = 0; i < nn; i++)
    {
      uint32_t flags = (i == 0 || chance (30)) ? CCE_NODE_ENTRY : 0, func = i;
      if (i > 0 && chance (15))
        {
          flags = CCE_NODE_SPLIT_PART;
          func = m->nodes[rnd_below (i)].func;
        }
      m_node (m, func, flags);
    }
  m->nfuncs = nn + 4;
  for (i = 0; i < nn; i++)
    random_sites (m, i, 0, nn, (int) rnd_below (7));
}

/* A doubling chain L0 (ENTRY) .. L62, three sites L62 -> L63 (3 * 2^62
   contexts), log sites along it; with EXTRAS, random extra nodes fed from
   the chain (and sometimes calling back into it).  */
static void
gen_layered (struct model *m, int extras)
{
  uint32_t i, ne = extras ? 4 + rnd_below (12) : 0, s, e;
  int k;

  model_free (m);
  for (i = 0; i < 64; i++)
    m_node (m, i, i == 0 ? CCE_NODE_ENTRY : 0);
  for (e = 0; e < ne; e++)
    m_node (m, 64 + e, chance (30) ? CCE_NODE_ENTRY : 0);
  m->nfuncs = 64 + ne + 4;
  for (i = 0; i < 63; i++)
    for (k = 0; k < (i == 62 ? 3 : 2); k++)
      {
        s = m_site (m, i, CCE_SITE_DIRECT, i + 1, rnd_freq ());
        random_frames (m, s, CCE_NONE);
        m->sites[s].weight = 40;
      }
  random_frames (m, m_site (m, 63, CCE_SITE_LOG, CCE_NONE, 1), CCE_NONE);
  m_site (m, 63, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (m, 62, CCE_SITE_LOG, CCE_NONE, 1);
  for (k = 0; k < 8; k++)
    m_site (m, rnd_below (62), CCE_SITE_LOG, CCE_NONE, 1);
  if (!ne)
    return;
  for (k = 0; k < 12; k++)
    {
      s = m_site (m, rnd_below (64), CCE_SITE_DIRECT, 64 + rnd_below (ne),
                  rnd_freq ());
      random_frames (m, s, CCE_NONE);
    }
  for (e = 64; e < 64 + ne; e++)
    {
      random_sites (m, e, 64, 64 + ne, (int) rnd_below (5));
      if (chance (10))
        {
          s = m_site (m, e, CCE_SITE_DIRECT, rnd_below (64), rnd_freq ());
          random_frames (m, s, CCE_NONE);
        }
    }
}

/* Chain L0 (ENTRY) .. L{N}, each level calling the next from two sites,
   log sites at some levels.  */
static void
gen_chain (struct model *m, uint32_t levels)
{
  uint32_t i;

  model_free (m);
  for (i = 0; i <= levels; i++)
    m_node (m, i, i == 0 ? CCE_NODE_ENTRY : 0);
  for (i = 0; i < levels; i++)
    {
      m_site (m, i, CCE_SITE_DIRECT, i + 1, 10 + i % 3);
      m_site (m, i, CCE_SITE_DIRECT, i + 1, 10 + (i + 1) % 3);
    }
  m_site (m, levels, CCE_SITE_LOG, CCE_NONE, 1);
  for (i = 10; i < levels; i += 9)
    m_site (m, i, CCE_SITE_LOG, CCE_NONE, 1);
  for (i = 60; i < levels && i < 68; i++)
    m_site (m, i, CCE_SITE_LOG, CCE_NONE, 1);
}

/* ------------------------------------------------------------------ */
/* Hand-made graphs.                                                  */

static void
set_ctx (const char *s)
{
  snprintf (ctx, sizeof ctx, "%s", s);
}

static void
test_diamond_gives_two_contexts_and_hotter_edge_av_zero (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, a, b, c, ma, mb, ac, bc;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("diamond");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  a = m_node (&m, 1, 0);
  b = m_node (&m, 2, 0);
  c = m_node (&m, 3, 0);
  ma = m_site (&m, main_, CCE_SITE_DIRECT, a, 5);
  mb = m_site (&m, main_, CCE_SITE_DIRECT, b, 5);
  ac = m_site (&m, a, CCE_SITE_DIRECT, c, 3);
  bc = m_site (&m, b, CCE_SITE_DIRECT, c, 9);
  m_site (&m, c, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (&m, &R);
  g = R.g;
  CHECK (g->nodes[c].numcc == 2, "numCC(c) is %" PRIu64, g->nodes[c].numcc);
  CHECK (!g->nodes[c].has_root && g->nodes[c].n_in == 2, "c: root or edges");
  CHECK (g->sites[ac].av != g->sites[bc].av, "edges into c share an av");
  CHECK (g->sites[bc].av == 0 && g->sites[ac].av == 1,
         "hotter edge b->c has av %" PRIu64, g->sites[bc].av);
  CHECK (g->sites[ma].av == 0 && g->sites[mb].av == 0,
         "single-caller edges need code");
  CHECK (R.st.direct_sites == 4 && R.st.zero_sites == 3 && R.st.log_sites == 1
         && R.st.max_numcc == 2, "stats");
  CHECK (R.checks >= 2, "simulation decoded %zu records", R.checks);
  run_free (&R);
  model_free (&m);
}

/* Calls through which no log site can be reached get no code: here main
   logs through a, while c (reached from main), its callee d and its
   qsort call lead to no log -- until the comparator logs.  */
static void
test_calls_that_reach_no_log_are_dead (void **state)
{
  for (int cmp_logs = 0; cmp_logs < 2; cmp_logs++)
    {
      struct model m = { 0 };
      struct run R;
      uint32_t main_, a, c, d, cmp, ma, mc, cd, cq, lg;
      const struct cce_graph *g;

      (void) state;
      set_ctx (cmp_logs ? "dead calls (comparator logs)" : "dead calls");
      main_ = m_node (&m, 0, CCE_NODE_ENTRY | CCE_NODE_MAIN);
      a = m_node (&m, 1, 0);
      c = m_node (&m, 2, 0);
      d = m_node (&m, 3, 0);
      cmp = m_node (&m, 4, CCE_NODE_ENTRY);
      ma = m_site (&m, main_, CCE_SITE_DIRECT, a, 1);
      mc = m_site (&m, main_, CCE_SITE_DIRECT, c, 1);
      m_site (&m, main_, CCE_SITE_DIRECT, c, 1);
      cd = m_site (&m, c, CCE_SITE_DIRECT, d, 1);
      m_site (&m, d, CCE_SITE_DIRECT, d, 1);      /* unobserved recursion */
      cq = m_ext (&m, c, "qsort", 1);
      m_ent (&m, cq, cmp);
      m_site (&m, a, CCE_SITE_LOG, CCE_NONE, 1);
      lg = cmp_logs ? m_site (&m, cmp, CCE_SITE_LOG, CCE_NONE, 1) : 0;
      (void) lg;
      run_all (&m, &R);
      g = R.g;
      CHECK (!g->sites[ma].dead && g->nodes[a].observed, "main -> a");
      CHECK (g->sites[cd].dead && !g->nodes[d].observed, "c -> d is live");
      CHECK (R.st.back_sites == 0, "unobserved recursion on the ccStack");
      if (!cmp_logs)
        {
          CHECK (g->sites[mc].dead && g->sites[cq].dead
                 && !g->nodes[c].observed, "c's calls are live");
          CHECK (R.st.dead_sites == 5, "%zu dead sites", R.st.dead_sites);
        }
      else
        {
          CHECK (!g->sites[mc].dead && !g->sites[cq].dead
                 && g->nodes[c].observed && g->nodes[cmp].observed,
                 "c's qsort call is dead though cmp logs");
          CHECK (R.st.dead_sites == 2, "%zu dead sites", R.st.dead_sites);
        }
      CHECK (R.checks >= 1, "simulation decoded %zu records", R.checks);
      run_free (&R);
      model_free (&m);
    }
}

/* A call that may enter another module built with cce (may_log) is
   observed as if it logged, with its callers, though nothing in this
   module logs.  */
static void
test_calls_into_other_modules_are_observed (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, a, b, ma, mb, ax, bx;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("calls into other modules");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY | CCE_NODE_MAIN);
  a = m_node (&m, 1, 0);
  b = m_node (&m, 2, 0);
  ma = m_site (&m, main_, CCE_SITE_DIRECT, a, 1);
  mb = m_site (&m, main_, CCE_SITE_DIRECT, b, 1);
  ax = m_ext (&m, a, "lib_work", 1);
  m.sites[ax].may_log = 1;
  bx = m_ext (&m, b, "printf", 1);
  run_all (&m, &R);
  g = R.g;
  CHECK (g->nodes[a].observed && !g->sites[ma].dead && !g->sites[ax].dead,
         "the call into the other module is dead");
  CHECK (!g->nodes[b].observed && g->sites[mb].dead && g->sites[bx].dead,
         "a call into the C library is live");
  run_free (&R);
  model_free (&m);
}

/* Which functions may return without restoring the id (cce_node's
   clobbers): a node that stores it (a site with an addition value, a
   ccStack site) or makes a free call of one that clobbers -- never an
   ENTRY node (code outside the program relies on nothing), never one
   that keeps the id (const or pure to GCC), never an unobserved one (it
   has no code), never a leaf.  */
static void
test_clobbers_only_non_entry_nodes_that_store_or_call_one (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, a, b, c, d, gg, h, e, u, v, s1, s2, s9, s4, s10, se;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("clobbers");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY | CCE_NODE_MAIN);
  a = m_node (&m, 1, 0);
  b = m_node (&m, 2, 0);
  c = m_node (&m, 3, 0);
  d = m_node (&m, 4, 0);
  gg = m_node (&m, 5, 0);
  h = m_node (&m, 6, 0);
  e = m_node (&m, 7, CCE_NODE_ENTRY);
  u = m_node (&m, 8, 0);
  v = m_node (&m, 9, 0);
  s1 = m_site (&m, main_, CCE_SITE_DIRECT, a, 1);
  s2 = m_site (&m, a, CCE_SITE_DIRECT, b, 10);   /* b's free edge */
  m_site (&m, a, CCE_SITE_DIRECT, b, 1);          /* pays: a clobbers */
  m_site (&m, b, CCE_SITE_LOG, CCE_NONE, 1);
  s4 = m_site (&m, main_, CCE_SITE_DIRECT, c, 1);
  m_site (&m, c, CCE_SITE_DIRECT, d, 1);          /* free call of a leaf */
  m_site (&m, d, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, main_, CCE_SITE_DIRECT, gg, 1);
  s9 = m_site (&m, gg, CCE_SITE_DIRECT, h, 1);    /* h's only caller: free */
  s10 = m_site (&m, h, CCE_SITE_DIRECT, b, 1);    /* pays: h clobbers */
  se = m_site (&m, e, CCE_SITE_DIRECT, b, 1);     /* pays, but e is ENTRY */
  m_site (&m, main_, CCE_SITE_DIRECT, u, 1);
  m_site (&m, u, CCE_SITE_DIRECT, v, 1);          /* no log: unobserved */
  m_site (&m, u, CCE_SITE_DIRECT, v, 1);
  run_all (&m, &R);
  g = R.g;
  CHECK (g->sites[s2].av == 0 && g->sites[s10].av != 0
         && g->sites[se].av != 0 && g->sites[s9].av == 0,
         "edge layout: b's free edge is a -> b");
  CHECK (g->nodes[a].clobbers && g->nodes[h].clobbers, "a, h store the id");
  CHECK (g->nodes[gg].clobbers, "g calls h for free: it clobbers too");
  CHECK (cce_site_clobbers (g, s9), "g -> h needs a restore where read");
  CHECK (!g->nodes[main_].clobbers && !g->nodes[e].clobbers,
         "an ENTRY node clobbers");
  CHECK (!g->nodes[b].clobbers && !g->nodes[d].clobbers, "a leaf clobbers");
  CHECK (!g->nodes[c].clobbers && !cce_site_clobbers (g, s4),
         "c calls only a leaf, for free");
  CHECK (!g->nodes[u].observed && !g->nodes[u].clobbers,
         "an unobserved node clobbers");
  CHECK (cce_site_clobbers (g, s1) == (g->sites[s1].av == 0),
         "main -> a");
  CHECK (R.st.clobber_nodes == 3, "%zu clobbering nodes",
         R.st.clobber_nodes);
  CHECK (R.checks >= 1, "simulation decoded %zu records", R.checks);

  /* keeps_id (GCC takes h for pure): h restores, and so g, whose only
     store was its free call of h.  */
  {
    struct cce_encode_stats st;
    char err[256];
    R.g->nodes[h].keeps_id = 1;
    CHECK (cce_graph_encode (R.g, &st, err, sizeof err) == 0, "%s", err);
    CHECK (!g->nodes[h].clobbers && !g->nodes[gg].clobbers
           && !cce_site_clobbers (g, s9) && g->nodes[a].clobbers,
           "a node that keeps the id clobbers");
    CHECK (st.clobber_nodes == 1, "%zu clobbering nodes", st.clobber_nodes);
    R.g->nodes[h].keeps_id = 0;
  }

  /* preserve_all: every node restores; the encoding is the same.  */
  {
    struct cce_encode_stats st;
    char err[256];
    uint64_t av10 = g->sites[s10].av;
    R.g->preserve_all = 1;
    CHECK (cce_graph_encode (R.g, &st, err, sizeof err) == 0, "%s", err);
    for (size_t i = 0; i < g->nnodes; i++)
      CHECK (!g->nodes[i].clobbers, "node %zu clobbers", i);
    CHECK (st.clobber_nodes == 0 && st.clobber_sites == 0,
           "%zu clobbering nodes", st.clobber_nodes);
    CHECK (g->sites[s10].av == av10, "the encoding changed");
  }
  run_free (&R);
  model_free (&m);
}

static void
test_single_caller_edge_has_av_zero (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, a, b, s1, s2;

  (void) state;
  set_ctx ("single caller");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  a = m_node (&m, 1, 0);
  b = m_node (&m, 2, 0);
  s1 = m_site (&m, main_, CCE_SITE_DIRECT, a, 0);
  s2 = m_site (&m, a, CCE_SITE_DIRECT, b, 7);
  m_site (&m, b, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (&m, &R);
  CHECK (R.g->sites[s1].av == 0 && R.g->sites[s2].av == 0,
         "single-caller edge has an av");
  CHECK (R.g->nodes[b].numcc == 1 && R.g->nodes[a].numcc == 1,
         "chain nodes have more than one context");
  CHECK (R.st.zero_sites == 2, "stats.zero_sites %zu", R.st.zero_sites);
  run_free (&R);
  model_free (&m);
}

static void
test_entry_node_has_root_zero_and_direct_edges_from_one (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, cold, hot, ind;
  const struct cce_graph *g;
  const struct cce_edge *e;

  (void) state;
  set_ctx ("entry node");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  f = m_node (&m, 1, CCE_NODE_ENTRY);
  cold = m_site (&m, main_, CCE_SITE_DIRECT, f, 5);
  hot = m_site (&m, main_, CCE_SITE_DIRECT, f, 50);
  ind = m_site (&m, main_, CCE_SITE_INDIRECT, CCE_NONE, 1);
  m_ent (&m, ind, f);
  m_site (&m, f, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (&m, &R);
  g = R.g;
  CHECK (g->nodes[f].has_root && g->nodes[f].root == 0, "f: root");
  CHECK (g->nodes[main_].has_root && g->nodes[main_].root == 0, "main: root");
  CHECK (g->nodes[f].numcc == 3, "numCC(f) %" PRIu64, g->nodes[f].numcc);
  CHECK (g->nodes[f].n_in == 3, "f: %u incoming edges", g->nodes[f].n_in);
  e = &g->edges[g->nodes[f].first_in];
  CHECK (e[0].site == CCE_NONE && e[0].av == 0, "root edge of f not first");
  CHECK (e[1].site == hot && e[1].av == 1 && e[2].site == cold
         && e[2].av == 2, "direct edges of f not at 1 (hot) and 2 (cold)");
  CHECK (cce_site_entry (g, ind) == 0, "indirect entry not 0");
  CHECK (R.checks >= 4, "simulation decoded %zu records", R.checks);
  run_free (&R);
  model_free (&m);
}

static void
test_self_recursion_becomes_back_site_with_reason_r (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, mf, ff;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("self recursion");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  f = m_node (&m, 1, 0);
  mf = m_site (&m, main_, CCE_SITE_DIRECT, f, 1);
  ff = m_site (&m, f, CCE_SITE_DIRECT, f, 100);
  m_site (&m, f, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (&m, &R);
  g = R.g;
  CHECK (g->sites[ff].kind == CCE_SITE_BACK && g->sites[ff].reason == 'r',
         "f->f is %c/%d", g->sites[ff].kind, g->sites[ff].reason);
  CHECK (g->sites[mf].kind == CCE_SITE_DIRECT, "main->f not direct");
  CHECK (g->nodes[f].has_root, "f has no root");
  CHECK (cce_site_entry (g, ff) == g->nodes[f].root, "entry of f->f");
  CHECK (g->nodes[f].numcc == 2, "numCC(f) %" PRIu64, g->nodes[f].numcc);
  CHECK (R.st.back_sites == 1 && R.st.overflow_sites == 0, "stats");
  CHECK (R.checks > 5, "simulation decoded %zu records", R.checks);
  run_free (&R);
  model_free (&m);
}

/* fib's shape: two calls of itself.  Both are folded into the id, and a
   recursion deeper than the fold limit allows pushes the rest.  */
static void
test_self_recursion_folds_into_the_id_then_pushes (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, f1, f2;
  const struct cce_graph *g;
  uint64_t id, fid;
  int level;

  (void) state;
  set_ctx ("folded self recursion");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  f = m_node (&m, 1, 0);
  m_site (&m, main_, CCE_SITE_DIRECT, f, 1);
  f1 = m_site (&m, f, CCE_SITE_DIRECT, f, 1);
  f2 = m_site (&m, f, CCE_SITE_DIRECT, f, 1);
  m_site (&m, f, CCE_SITE_LOG, CCE_NONE, 1);
  run_encode (&m, &R);
  g = R.g;
  CHECK (g->sites[f1].kind == CCE_SITE_BACK && g->sites[f2].kind
         == CCE_SITE_BACK, "self calls are not back sites");
  CHECK (g->sites[f1].fold != CCE_NONE && g->sites[f2].fold != CCE_NONE
         && g->sites[f1].fold != g->sites[f2].fold, "self calls not folded");
  CHECK (g->nodes[f].nfold == 2 && g->nodes[f].fold_lim
         == g->nodes[f].numcc << 32 && R.st.fold_bits == 32
         && R.st.folded_sites == 2, "fold limit %" PRIu64 ", %u folds",
         g->nodes[f].fold_lim, g->nodes[f].nfold);
  /* The id doubles with each level: about 31 levels fold, then the call
     pushes and its callee starts again at its root.  */
  for (id = 0, level = 0; cce_site_fold (g, f2, id, &fid); level++)
    id = fid;
  CHECK (level >= 30 && level <= 32, "%d levels folded", level);
  CHECK (!cce_site_fold (g, f1, id, &fid), "folded above the limit");
  run_sim (&m, &R, 0, 0, 0, 200, 120);
  CHECK (R.checks > 5000, "simulation decoded %zu records", R.checks);
  CHECK (R.folded > 1000 && R.mixed > 100, "records through folds: %zu, "
         "through folds and pushes: %zu", R.folded, R.mixed);
  run_free (&R);

  /* fold=16 (-fplugin-arg-cce-fold): a lower limit; fold=0: none.  */
  m.fold_max = 16;
  run_encode (&m, &R);
  CHECK (R.g->nodes[f].fold_lim == R.g->nodes[f].numcc << 16
         && R.st.fold_bits == 16 && R.st.folded_sites == 2,
         "fold=16: limit %" PRIu64, R.g->nodes[f].fold_lim);
  run_sim (&m, &R, 0, 0, 0, 100, 60);
  CHECK (R.folded > 100 && R.mixed > 10, "fold=16: records through folds: "
         "%zu, through folds and pushes: %zu", R.folded, R.mixed);
  run_free (&R);
  m.fold_max = -1;
  run_encode (&m, &R);
  CHECK (R.st.folded_sites == 0 && R.st.fold_bits == 0
         && R.g->sites[f1].fold == CCE_NONE && R.g->nodes[f].nfold == 0
         && R.g->nodes[f].fold_lim == 0, "fold=0 folded %zu sites",
         R.st.folded_sites);
  run_sim (&m, &R, 0, 0, 0, 100, 60);
  CHECK (R.checks > 1000 && R.folded == 0, "fold=0: %zu records, %zu "
         "through folds", R.checks, R.folded);
  run_free (&R);
  model_free (&m);
}

static void
test_mutual_recursion_of_equal_weights_makes_one_back_edge (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, g_, mf, fg, gf, mg;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("mutual recursion");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  f = m_node (&m, 1, 0);
  g_ = m_node (&m, 2, 0);
  mf = m_site (&m, main_, CCE_SITE_DIRECT, f, 1);
  fg = m_site (&m, f, CCE_SITE_DIRECT, g_, 1);
  gf = m_site (&m, g_, CCE_SITE_DIRECT, f, 1);
  mg = m_site (&m, f, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, g_, CCE_SITE_LOG, CCE_NONE, 1);
  (void) mg;
  run_all (&m, &R);
  g = R.g;
  CHECK (g->sites[gf].kind == CCE_SITE_BACK && g->sites[gf].reason == 'r',
         "g->f is not a recursion back site");
  CHECK (g->sites[mf].kind == CCE_SITE_DIRECT
         && g->sites[fg].kind == CCE_SITE_DIRECT, "tree edges not direct");
  CHECK (g->nodes[f].has_root && !g->nodes[g_].has_root,
         "only f, the callee of the back edge, has a root");
  CHECK (R.st.back_sites == 1, "stats.back_sites %zu", R.st.back_sites);
  run_free (&R);
  model_free (&m);
}

/* The back edge of a cycle is its cold edge: f calls g rarely, g calls f
   in a loop (a list free that recurses through its elements), so g -> f
   stays direct and f -> g carries the push.  */
static void
test_mutual_recursion_puts_the_push_on_the_cold_edge (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, g_, mf, fg, gf;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("mutual recursion, one hot edge");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  f = m_node (&m, 1, 0);
  g_ = m_node (&m, 2, 0);
  mf = m_site (&m, main_, CCE_SITE_DIRECT, f, 1);
  fg = m_site (&m, f, CCE_SITE_DIRECT, g_, 0.1);
  gf = m_site (&m, g_, CCE_SITE_DIRECT, f, 10);
  m_site (&m, f, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, g_, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (&m, &R);
  g = R.g;
  CHECK (g->sites[fg].kind == CCE_SITE_BACK && g->sites[fg].reason == 'r',
         "f->g (cold) is %c, not a recursion back site", g->sites[fg].kind);
  CHECK (g->sites[gf].kind == CCE_SITE_DIRECT
         && g->sites[mf].kind == CCE_SITE_DIRECT,
         "g->f (hot) or main->f not direct");
  CHECK (g->nodes[g_].has_root, "g, the callee of the back edge, has no root");
  CHECK (R.st.back_sites == 1, "stats.back_sites %zu", R.st.back_sites);
  CHECK (R.checks > 5, "simulation decoded %zu records", R.checks);
  run_free (&R);
  model_free (&m);
}

static void
test_three_cycle_makes_only_closing_edge_back (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, a, b, c, ma, ab, bc, ca, mc;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("three-cycle");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  a = m_node (&m, 1, 0);
  b = m_node (&m, 2, 0);
  c = m_node (&m, 3, 0);
  ma = m_site (&m, main_, CCE_SITE_DIRECT, a, 1);
  ab = m_site (&m, a, CCE_SITE_DIRECT, b, 1);
  bc = m_site (&m, b, CCE_SITE_DIRECT, c, 1);
  ca = m_site (&m, c, CCE_SITE_DIRECT, a, 1);
  mc = m_site (&m, main_, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, a, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, c, CCE_SITE_LOG, CCE_NONE, 1);
  (void) mc;
  run_all (&m, &R);
  g = R.g;
  CHECK (g->sites[ca].kind == CCE_SITE_BACK && g->sites[ca].reason == 'r',
         "c->a is not a recursion back site");
  CHECK (g->sites[ma].kind == CCE_SITE_DIRECT
         && g->sites[ab].kind == CCE_SITE_DIRECT
         && g->sites[bc].kind == CCE_SITE_DIRECT, "tree edges not direct");
  CHECK (g->nodes[a].has_root && !g->nodes[b].has_root
         && !g->nodes[c].has_root, "roots");
  CHECK (R.st.back_sites == 1, "stats.back_sites %zu", R.st.back_sites);
  run_free (&R);
  model_free (&m);
}

static void
test_cycle_entered_twice_gets_exactly_one_back_edge (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, a, b, ma, mb, ab, ba;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("cycle with two entries");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  a = m_node (&m, 1, 0);
  b = m_node (&m, 2, 0);
  ma = m_site (&m, main_, CCE_SITE_DIRECT, a, 1);
  mb = m_site (&m, main_, CCE_SITE_DIRECT, b, 1);
  ab = m_site (&m, a, CCE_SITE_DIRECT, b, 1);
  ba = m_site (&m, b, CCE_SITE_DIRECT, a, 1);
  m_site (&m, a, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, b, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (&m, &R);
  g = R.g;
  CHECK (g->sites[ma].kind == CCE_SITE_DIRECT
         && g->sites[mb].kind == CCE_SITE_DIRECT, "entry edges not direct");
  CHECK ((g->sites[ab].kind == CCE_SITE_BACK)
         + (g->sites[ba].kind == CCE_SITE_BACK) == 1,
         "not exactly one of a->b, b->a is back");
  run_free (&R);
  model_free (&m);
}

static void
test_cycle_unreachable_from_entries_is_still_broken (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, x, y, xy, yx;

  (void) state;
  set_ctx ("unreachable cycle");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  x = m_node (&m, 1, 0);
  y = m_node (&m, 2, 0);
  m_site (&m, main_, CCE_SITE_LOG, CCE_NONE, 1);
  xy = m_site (&m, x, CCE_SITE_DIRECT, y, 1);
  yx = m_site (&m, y, CCE_SITE_DIRECT, x, 1);
  m_site (&m, y, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (&m, &R);
  CHECK ((R.g->sites[xy].kind == CCE_SITE_BACK)
         + (R.g->sites[yx].kind == CCE_SITE_BACK) == 1,
         "not exactly one of x->y, y->x is back");
  run_free (&R);
  model_free (&m);
}

/* ------------------------------------------------------------------ */
/* Overflow.                                                          */

static size_t
count_kind (const struct cce_graph *g, char kind, char reason)
{
  size_t i, n = 0;
  for (i = 0; i < g->nsites; i++)
    n += g->sites[i].kind == kind && g->sites[i].reason == reason;
  return n;
}

static void
test_chain_of_80_doublings_cuts_overflow_to_ccstack (void **state)
{
  struct model m = { 0 };
  struct run R;
  size_t i;

  (void) state;
  set_ctx ("80-level chain, 2^80 paths");
  rng_state = base_seed ();
  gen_chain (&m, 80);
  run_encode (&m, &R);
  CHECK (R.st.overflow_sites > 0, "no overflow cuts");
  CHECK (count_kind (R.g, CCE_SITE_BACK, 'o') == R.st.overflow_sites,
         "stats.overflow_sites");
  CHECK (count_kind (R.g, CCE_SITE_BACK, 'r') == 0, "recursion cut");
  for (i = 0; i < 64; i++)
    CHECK (R.g->nodes[i].numcc == UINT64_C (1) << i,
           "level %zu below 64 has %" PRIu64 " contexts", i,
           R.g->nodes[i].numcc);
  run_sim (&m, &R, 0, 0, 0, 300, 90);
  CHECK (R.checks > 300, "simulation decoded %zu records", R.checks);
  CHECK (R.big_ids > 0, "no id above 2^63 decoded");
  run_free (&R);
  model_free (&m);
}

static void
test_chain_that_fits_has_no_overflow_cut (void **state)
{
  struct model m = { 0 };
  struct run R;

  (void) state;
  set_ctx ("60-level chain");
  rng_state = base_seed ();
  gen_chain (&m, 60);
  run_encode (&m, &R);
  CHECK (R.st.overflow_sites == 0 && R.st.back_sites == 0,
         "a graph that fits got cuts");
  CHECK (R.g->nodes[60].numcc == UINT64_C (1) << 60, "numCC(L60)");
  run_sim (&m, &R, 0, 0, 0, 100, 70);
  run_free (&R);
  model_free (&m);
}

/* Two sites from a node with 2^63 contexts: 2^64 > UINT64_MAX, one cut.  */
static void
test_two_calls_from_2pow63_contexts_cut_exactly_one (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t z, s1, s2;
  const struct cce_graph *g;

  (void) state;
  set_ctx ("2 * 2^63");
  rng_state = base_seed ();
  gen_chain (&m, 63);
  z = m_node (&m, 64, 0);
  s1 = m_site (&m, 63, CCE_SITE_DIRECT, z, 3);
  s2 = m_site (&m, 63, CCE_SITE_DIRECT, z, 4);
  m_site (&m, z, CCE_SITE_LOG, CCE_NONE, 1);
  run_encode (&m, &R);
  g = R.g;
  CHECK (R.st.overflow_sites == 1, "%zu overflow cuts", R.st.overflow_sites);
  CHECK ((g->sites[s1].reason == 'o') + (g->sites[s2].reason == 'o') == 1,
         "the cut is not one of the two sites into z");
  CHECK (g->nodes[z].has_root && g->nodes[z].numcc == TOP63 + 1,
         "numCC(z) %" PRIu64, g->nodes[z].numcc);
  run_sim (&m, &R, 0, 0, 0, 200, 70);
  run_free (&R);
  model_free (&m);
}

/* Z called once from each of L0..L63 (2^i contexts each): exactly
   UINT64_MAX contexts, which must fit without a cut.  */
static void
test_numcc_of_exactly_uint64_max_fits_and_decodes_top_ids (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t i, k, z, logz, chain[64][2], zsite[64], path[80], n = 0;
  uint64_t id = 0;
  const struct cce_graph *g;
  const struct cce_edge *e;

  (void) state;
  set_ctx ("numCC == UINT64_MAX");
  rng_state = base_seed ();
  for (i = 0; i < 64; i++)
    m_node (&m, i, i == 0 ? CCE_NODE_ENTRY : 0);
  z = m_node (&m, 64, 0);
  for (i = 0; i < 64; i++)
    {
      if (i < 63)
        {
          chain[i][0] = m_site (&m, i, CCE_SITE_DIRECT, i + 1, 10);
          m.sites[chain[i][0]].weight = 80;
          chain[i][1] = m_site (&m, i, CCE_SITE_DIRECT, i + 1, 10);
          m.sites[chain[i][1]].weight = 80;
        }
      zsite[i] = m_site (&m, i, CCE_SITE_DIRECT, z, 1000 - i);
    }
  logz = m_site (&m, z, CCE_SITE_LOG, CCE_NONE, 1);
  run_encode (&m, &R);
  g = R.g;
  CHECK (R.st.overflow_sites == 0, "%zu overflow cuts", R.st.overflow_sites);
  CHECK (g->nodes[z].numcc == UINT64_MAX && !g->nodes[z].has_root,
         "numCC(z) %" PRIu64, g->nodes[z].numcc);
  CHECK (R.st.max_numcc == UINT64_MAX, "stats.max_numcc");

  /* The top range of z comes from some L_k; reaching L_k by the chain
     sites with the higher av gives the highest id, UINT64_MAX - 1.  */
  e = &g->edges[g->nodes[z].first_in + g->nodes[z].n_in - 1];
  k = g->sites[e->site].node;
  CHECK (e->site == zsite[k], "top edge of z is not a site into z");
  for (i = 0; i < k; i++)
    {
      uint32_t s = g->sites[chain[i][0]].av > g->sites[chain[i][1]].av
        ? chain[i][0] : chain[i][1];
      path[n++] = s;
      id += g->sites[s].av;
    }
  path[n++] = e->site;
  id += e->av;
  path[n++] = logz;
  CHECK (id == UINT64_MAX - 1, "highest path id %" PRIu64, id);
  expect_ok (g, "highest id of z", logz, id, NULL, 0, path, n);
  check_frames (&m, g, path, n);
  set_ctx ("numCC == UINT64_MAX");
  run_sim (&m, &R, 0, 0, 0, 300, 70);
  CHECK (R.big_ids > 0, "no id above 2^63 decoded");
  run_free (&R);
  model_free (&m);
}

/* ------------------------------------------------------------------ */
/* Property tests.                                                    */

static void
test_random_graphs_decode_every_simulated_path_exactly (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint64_t base = base_seed ();
  long only = only_graph ();
  size_t checks = 0, fuzzed = 0, splits = 0, backs = 0;
  int i;

  (void) state;
  for (i = 0; i < 300; i++)
    {
      size_t k;
      if (only >= 0 && i != only)
        continue;
      rng_state = base ^ (UINT64_C (0x51ed270b27a8b3c1) * (uint64_t) (i + 1));
      snprintf (ctx, sizeof ctx, "random graph %d of CCE_TEST_SEED=%" PRIu64
                " (rerun with CCE_TEST_SEED=%" PRIu64 " CCE_TEST_GRAPH=%d)",
                i, base, base, i);
      gen_random (&m);
      for (k = 0; k < m.nnodes; k++)
        splits += (m.nodes[k].flags & CCE_NODE_SPLIT_PART) != 0;
      run_encode (&m, &R);
      backs += R.st.back_sites;
      run_sim (&m, &R, 7, 4000, 2, 200, 40);
      checks += R.checks;
      fuzzed += R.fuzzed;
      run_free (&R);
    }
  model_free (&m);
  print_message ("  %zu records decoded, %zu corrupted records, %zu split "
                 "parts, %zu back sites\n", checks, fuzzed, splits, backs);
  if (only < 0)
    CHECK (checks > 10000 && fuzzed > 1000 && splits > 50 && backs > 100,
           "the random graphs exercise too little");
}

static void
test_random_layered_graphs_decode_ids_above_2pow63 (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint64_t base = base_seed ();
  long only = only_graph ();
  size_t big = 0, checks = 0, over = 0;
  int i;

  (void) state;
  for (i = 0; i < 60; i++)
    {
      if (only >= 0 && i != only)
        continue;
      rng_state = base ^ (UINT64_C (0x2545f4914f6cdd1d) * (uint64_t) (i + 1));
      snprintf (ctx, sizeof ctx, "layered graph %d of CCE_TEST_SEED=%" PRIu64
                " (rerun with CCE_TEST_SEED=%" PRIu64 " CCE_TEST_GRAPH=%d)",
                i, base, base, i);
      gen_layered (&m, i % 5 != 0);
      run_encode (&m, &R);
      if (i % 5 == 0)
        CHECK (R.st.overflow_sites == 0 && R.g->nodes[63].numcc
               == 3 * (UINT64_C (1) << 62), "pure layered graph cut");
      over += R.st.overflow_sites;
      run_sim (&m, &R, 5, 300, 1, 150, 100);
      big += R.big_ids;
      checks += R.checks;
      run_free (&R);
    }
  model_free (&m);
  print_message ("  %zu records decoded, %zu with ids >= 2^63, %zu overflow "
                 "cuts\n", checks, big, over);
  if (only < 0)
    CHECK (big > 100, "only %zu records with ids above 2^63", big);
}

/* ------------------------------------------------------------------ */
/* Dictionary.                                                        */

static void
test_dict_round_trip_keeps_graph_and_decoding (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, p, q, s;

  (void) state;
  set_ctx ("dictionary round trip");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  f = m_node (&m, 1, CCE_NODE_ENTRY);
  p = m_node (&m, 0, CCE_NODE_SPLIT_PART);
  q = m_node (&m, 4, 0);
  m.nfuncs = 6;
  s = m_site (&m, main_, CCE_SITE_DIRECT, p, 3);
  m.sites[s].fr[0].file = "we\\ird\nfile name.c";
  s = m_ext (&m, main_, "qsort", 2);
  m_ent (&m, s, f);
  s = m_site (&m, p, CCE_SITE_DIRECT, q, 1);
  m.sites[s].nfr = 3;
  m.sites[s].fr[1] = (struct mframe) { 5, "inl.h", 7, 0 };
  m.sites[s].fr[2] = (struct mframe) { 2, "", 0, 9 };
  m_site (&m, q, CCE_SITE_DIRECT, q, 1);
  m_site (&m, f, CCE_SITE_DIRECT, q, 1);
  m_site (&m, q, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, p, CCE_SITE_LOG, CCE_NONE, 1);
  /* run_encode round-trips the dictionary and compares the graphs; the
     simulation decodes every record with both.  */
  run_all (&m, &R);
  CHECK (R.h->stamp == R.g->stamp && R.g->stamp != 0, "stamps");
  CHECK (R.checks > 5, "simulation decoded %zu records", R.checks);
  run_free (&R);
  model_free (&m);
}

static void
test_read_dict_rejects_garbage_without_crashing (void **state)
{
  struct model m = { 0 };
  struct run R;
  char *text = NULL, *bad, err[256];
  size_t len = 0, i, hl;
  struct cce_graph *h;
  static const char *const garbage[] = {
    "", "\n", "cce-dict\n", "cce-dict 1\n", "cce-dict 99 0000000000000000\n",
    "not-a-dict 1 0000000000000000\n",
    "cce-dict 1 zzzzzzzzzzzzzzzz\n",
    "cce-dict 1 0000000000000000\nn 0 1 1 0\n",
  };

  (void) state;
  set_ctx ("read_dict garbage");
  for (i = 0; i < sizeof garbage / sizeof garbage[0]; i++)
    {
      err[0] = 0;
      h = cce_graph_read_dict (garbage[i], strlen (garbage[i]), err,
                               sizeof err);
      CHECK (h == NULL && err[0] != 0, "garbage dictionary %zu accepted", i);
    }

  rng_state = base_seed ();
  gen_random (&m);
  while (m.nsites < 10)
    gen_random (&m);
  run_encode (&m, &R);
  CHECK (cce_graph_write_dict (R.g, &text, &len) == 0, "write_dict");
  hl = (size_t) ((char *) memchr (text, '\n', len) - text) + 1;
  /* Truncated text and flipped bytes, each in a buffer of exactly its
     length (no NUL after it): no crash, no read past the end; a truncated
     or changed body no longer matches the stamp.  */
  for (i = 0; i < 400; i++)
    {
      size_t l = i % 2 ? rnd_below ((uint32_t) len) : len, pos = len;
      char was = 0;
      bad = malloc (l ? l : 1);
      assert_non_null (bad);
      memcpy (bad, text, l);
      if (i % 2 == 0)
        {
          /* In the body: the stamp must catch it.  */
          char x = (char) (1 + rnd_below (255));
          pos = hl + rnd_below ((uint32_t) (len - hl));
          was = bad[pos];
          bad[pos] ^= x;
        }
      err[0] = 0;
      h = cce_graph_read_dict (bad, l, err, sizeof err);
      if (h)
        fprintf (stderr, "*** accepted: %zu of %zu bytes, byte %zu "
                 "changed from 0x%02x to 0x%02x; header \"%.*s\"\n", l, len,
                 pos, (unsigned char) was,
                 pos < len ? (unsigned char) bad[pos] : 0, 28, bad);
      free (bad);
      cce_graph_free (h);
      CHECK (h == NULL, "damaged dictionary accepted");
      CHECK (err[0] != 0, "read_dict failed without a message");
    }
  free (text);
  run_free (&R);
  model_free (&m);
}

/* A copy of LEN bytes at TEXT that ends right before an inaccessible
   page: reading one byte past the end faults.  Free with guarded_free.  */
struct guarded
{
  char *text;
  void *map;
  size_t maplen;
};

static void
guarded_copy (struct guarded *gd, const char *text, size_t len)
{
  size_t page = 4096, body = (len + page - 1) / page * page;

  gd->maplen = body + page;
  gd->map = mmap (NULL, gd->maplen, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true (gd->map != MAP_FAILED);
  assert_int_equal (mprotect ((char *) gd->map + body, page, PROT_NONE), 0);
  gd->text = (char *) gd->map + body - len;
  memcpy (gd->text, text, len);
}

static void
guarded_free (struct guarded *gd)
{
  munmap (gd->map, gd->maplen);
}

static struct cce_graph *
read_guarded (const char *text, size_t len, char *err, size_t errlen)
{
  struct guarded gd;
  struct cce_graph *h;

  guarded_copy (&gd, text, len);
  h = cce_graph_read_dict (gd.text, len, err, errlen);
  guarded_free (&gd);
  return h;
}

/* TEXT with its header's stamp recomputed over its body.  */
static void
restamp (char *text, size_t len)
{
  char head[64];
  const char *nl = memchr (text, '\n', len);
  size_t hl = (size_t) (nl - text) + 1;

  snprintf (head, sizeof head, "%s %d %016" PRIx64 "\n", CCE_DICT_MAGIC,
            CCE_DICT_VERSION, cce_fnv1a64 (nl + 1, len - hl));
  assert_int_equal (strlen (head), hl);
  memcpy (text, head, hl);
}

static void
test_read_dict_reads_no_byte_past_len (void **state)
{
  struct model m = { 0 };
  struct run R;
  char *text = NULL, err[256];
  size_t len = 0, i;
  struct cce_graph *h;
  char empty[64];
  static const char *const garbage[] = {
    "\n", "\n\n\n", " ", "cce-dict", "cce-dict 1 ", "cce-dict 1 0",
    "cce-dict 1 cbf29ce484222325", "x\n   "
  };

  (void) state;
  set_ctx ("read_dict in a guarded buffer");
  rng_state = base_seed ();
  gen_random (&m);
  run_encode (&m, &R);
  CHECK (cce_graph_write_dict (R.g, &text, &len) == 0, "write_dict");
  h = read_guarded (text, len, err, sizeof err);
  CHECK (h != NULL, "read_dict failed: %s", err);
  compare_graphs (R.g, h);
  cce_graph_free (h);
  /* Without its last newline the text is damaged, but must not be read
     past its end either.  */
  h = read_guarded (text, len - 1, err, sizeof err);
  CHECK (h == NULL, "dictionary without its last newline accepted");
  snprintf (empty, sizeof empty, "%s %d %016" PRIx64 "\n", CCE_DICT_MAGIC,
            CCE_DICT_VERSION, cce_fnv1a64 ("", 0));
  h = read_guarded (empty, strlen (empty), err, sizeof err);
  cce_graph_free (h);
  for (i = 0; i < sizeof garbage / sizeof garbage[0]; i++)
    {
      err[0] = 0;
      h = read_guarded (garbage[i], strlen (garbage[i]), err, sizeof err);
      CHECK (h == NULL && err[0], "garbage %zu accepted", i);
    }
  free (text);
  run_free (&R);
  model_free (&m);
}

/* A dictionary whose ENTRY node has a root other than 0 contradicts the
   format (an ENTRY node's ROOT is 0): refused, or at least no record at
   that root decodes as a complete path.  */
static void
test_read_dict_refuses_entry_node_with_nonzero_root (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, logf, k;
  char *text = NULL, *p, err[256] = "";
  size_t len = 0;
  struct cce_graph *h;

  (void) state;
  set_ctx ("ENTRY node with root != 0");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY);
  f = m_node (&m, 1, 0);
  m_site (&m, main_, CCE_SITE_DIRECT, f, 10);
  m_site (&m, main_, CCE_SITE_DIRECT, f, 10);
  m_site (&m, f, CCE_SITE_DIRECT, f, 0.5);
  logf = m_site (&m, f, CCE_SITE_LOG, CCE_NONE, 1);
  run_encode (&m, &R);
  CHECK (R.g->nodes[f].has_root && R.g->nodes[f].root != 0,
         "f should get a root after its two direct edges");
  CHECK (cce_graph_write_dict (R.g, &text, &len) == 0, "write_dict");
  /* Turn node f's "n FUNC 0 ..." into "n FUNC 1 ...".  */
  for (p = text, k = 0; p && p < text + len; p = strchr (p, '\n'), p = p ? p + 1 : p)
    if (p[0] == 'n' && p[1] == ' ' && k++ == f)
      break;
  CHECK (p && p < text + len, "no n line for f");
  p = strchr (p + 2, ' ');
  CHECK (p && p[1] == '0' && p[2] == ' ', "flags of f are not 0");
  p[1] = '1';
  restamp (text, len);
  h = read_guarded (text, len, err, sizeof err);
  if (h)
    {
      uint32_t out[8];
      size_t n = 0;
      const char *reason = NULL;
      enum cce_decode_status r
        = cce_decode (h, logf, h->nodes[f].root, NULL, 0, out, 8, &n, &reason);
      cce_graph_free (h);
      CHECK (r != CCE_DECODE_OK, "dictionary with ENTRY node f at root "
             "%" PRIu64 " accepted, and (log, id %" PRIu64 ", empty "
             "ccStack) decodes OK", R.g->nodes[f].root, R.g->nodes[f].root);
    }
  free (text);
  run_free (&R);
  model_free (&m);
}

/* Damage the body of dictionary TEXT (LEN bytes, room for 2 * LEN + 64):
   flip a byte, change a number, drop or repeat a line.  Returns the new
   length.  */
static size_t
damage (char *text, size_t len)
{
  static const char pool[] = " 0123456789abcdef-\n\\sfnce";
  const char *nl = memchr (text, '\n', len);
  size_t hl = (size_t) (nl - text) + 1, pos, a, b;

  if (len <= hl + 2)
    return len;
  pos = hl + rnd_below ((uint32_t) (len - hl));
  switch (rnd_below (4))
    {
    case 0:
      text[pos] = pool[rnd_below (sizeof pool - 1)];
      break;
    case 1:
      {
        char num[32];
        size_t nlen;
        while (pos < len && !(text[pos] >= '0' && text[pos] <= '9'))
          pos++;
        for (a = pos; a < len && text[a] >= '0' && text[a] <= '9'; a++)
          ;
        switch (rnd_below (4))
          {
          case 0: snprintf (num, sizeof num, "0"); break;
          case 1: snprintf (num, sizeof num, "%" PRIu64, UINT64_MAX); break;
          case 2: snprintf (num, sizeof num, "%u", rnd_below (5)); break;
          default: snprintf (num, sizeof num, "%" PRIu64, rnd () >> rnd_below (64));
          }
        nlen = strlen (num);
        memmove (text + pos + nlen, text + a, len - a);
        memcpy (text + pos, num, nlen);
        len = len - (a - pos) + nlen;
      }
      break;
    default:
      /* The line holding POS: [a, b].  */
      for (a = pos; a > hl && text[a - 1] != '\n'; a--)
        ;
      for (b = pos; b < len - 1 && text[b] != '\n'; b++)
        ;
      if (rnd_below (2))
        {
          memmove (text + a, text + b + 1, len - b - 1);
          len -= b + 1 - a;
        }
      else
        {
          memmove (text + b + 1 + (b + 1 - a), text + b + 1, len - b - 1);
          memcpy (text + b + 1, text + a, b + 1 - a);
          len += b + 1 - a;
        }
      break;
    }
  restamp (text, len);
  return len;
}

/* A dictionary damaged but with a correct stamp is either refused, or
   gives a graph on which decoding never crashes and never returns OK for
   a path that does not produce the record.  */
static void
test_damaged_dictionary_with_good_stamp_is_refused_or_safe (void **state)
{
  struct model m = { 0 };
  struct run R;
  char *text = NULL, *bad, err[256];
  size_t len = 0, i, accepted = 0, refused = 0;
  int round;

  (void) state;
  rng_state = base_seed () ^ 0xdada;
  for (round = 0; round < 40; round++)
    {
      snprintf (ctx, sizeof ctx, "damaged dictionary, round %d, "
                "CCE_TEST_SEED=%" PRIu64, round, base_seed ());
      do
        gen_random (&m);
      while (m.nsites < 6);
      run_encode (&m, &R);
      CHECK (cce_graph_write_dict (R.g, &text, &len) == 0, "write_dict");
      bad = malloc (2 * len + 256);
      assert_non_null (bad);
      for (i = 0; i < 60; i++)
        {
          size_t l = len, k, n = 0;
          int d, nd = 1 + (int) rnd_below (3);
          struct cce_graph *h;
          memcpy (bad, text, len);
          for (d = 0; d < nd && l < len + 64; d++)
            l = damage (bad, l);
          err[0] = 0;
          h = read_guarded (bad, l, err, sizeof err);
          if (!h)
            {
              CHECK (err[0] != 0, "refused without a message");
              refused++;
              continue;
            }
          accepted++;
          for (k = 0; k < h->nsites; k++)
            {
              struct cce_stack_entry st[3];
              uint32_t out[512];
              struct cce_path_frame fr[64];
              const char *reason = NULL;
              size_t ns = rnd_below (4), j, nf;
              uint64_t id = chance (50) ? rnd_below (8) : rnd ();
              enum cce_decode_status r;
              for (j = 0; j < ns; j++)
                {
                  st[j].id = rnd_below (8);
                  st[j].site = rnd_below ((uint32_t) h->nsites + 1);
                }
              uint32_t *all = NULL;
              r = cce_decode (h, k, id, st, ns, out, 512, &n, &reason);
              if (r == CCE_DECODE_OK && n > 512)
                all = decode_all (h, k, id, st, ns, &n, &r, &reason);
              if (r == CCE_DECODE_OK
                  && !replay (h, all ? all : out, n, k, id, st, ns))
                {
                  fprintf (stderr, "*** damaged dictionary:\n%.*s",
                           (int) l, bad);
                  fprintf (stderr, "*** record: site %zu id %" PRIu64
                           ", ccStack", k, id);
                  for (j = 0; j < ns; j++)
                    fprintf (stderr, " (%" PRIu64 ", %" PRIu64 ")", st[j].id,
                             st[j].site);
                  fputc ('\n', stderr);
                  print_path ("decoded OK", all ? all : out, n);
                  cur_model = NULL;
                  CHECK (0, "damaged dictionary decodes OK to a wrong path");
                }
              free (all);
              if (r != CCE_DECODE_OK)
                CHECK (reason != NULL, "INCOMPLETE without a reason");
              if (n <= 512)
                cce_path_frames (h, out, n, fr, 64, &nf);
            }
          cce_graph_free (h);
        }
      free (bad);
      free (text);
      text = NULL;
      run_free (&R);
    }
  model_free (&m);
  print_message ("  %zu damaged dictionaries refused, %zu accepted\n",
                 refused, accepted);
}

/* ------------------------------------------------------------------ */
/* Decoding garbage.                                                  */

struct garbage_graph
{
  struct model m;
  struct run R;
  uint32_t main_, a, b, c, f, h;
  uint32_t ma, mb, ac, bc, cc, logc, ind, logf, mh, hh, logh, ext;
};

static void
garbage_graph (struct garbage_graph *G)
{
  struct model *m = &G->m;

  memset (G, 0, sizeof *G);
  G->main_ = m_node (m, 0, CCE_NODE_ENTRY);
  G->a = m_node (m, 1, 0);
  G->b = m_node (m, 2, 0);
  G->c = m_node (m, 3, 0);
  G->f = m_node (m, 4, CCE_NODE_ENTRY);
  G->h = m_node (m, 5, 0);
  G->ma = m_site (m, G->main_, CCE_SITE_DIRECT, G->a, 10);
  G->mb = m_site (m, G->main_, CCE_SITE_DIRECT, G->b, 5);
  G->ac = m_site (m, G->a, CCE_SITE_DIRECT, G->c, 10);
  G->bc = m_site (m, G->b, CCE_SITE_DIRECT, G->c, 1);
  G->cc = m_site (m, G->c, CCE_SITE_DIRECT, G->c, 1);
  G->logc = m_site (m, G->c, CCE_SITE_LOG, CCE_NONE, 1);
  G->ind = m_site (m, G->main_, CCE_SITE_INDIRECT, CCE_NONE, 1);
  m_ent (m, G->ind, G->f);
  G->logf = m_site (m, G->f, CCE_SITE_LOG, CCE_NONE, 1);
  G->mh = m_site (m, G->main_, CCE_SITE_DIRECT, G->h, 1);
  G->hh = m_site (m, G->h, CCE_SITE_DIRECT, G->h, 1);
  G->logh = m_site (m, G->h, CCE_SITE_LOG, CCE_NONE, 1);
  G->ext = m_ext (m, G->main_, "qsort", 1);
  m_ent (m, G->ext, G->f);
  run_all (m, &G->R);
  CHECK (G->R.g->sites[G->cc].kind == CCE_SITE_BACK
         && G->R.g->sites[G->hh].kind == CCE_SITE_BACK, "self loops not back");
}

static void
garbage_free (struct garbage_graph *G)
{
  run_free (&G->R);
  model_free (&G->m);
}

/* Decode; expect INCOMPLETE with a reason and, if any site comes back,
   the log site last.  */
static void
expect_incomplete (const struct cce_graph *g, const char *what,
                   uint64_t site, uint64_t id,
                   const struct cce_stack_entry *st, size_t nst)
{
  uint32_t out[64];
  size_t n = 999;
  const char *reason = NULL;
  enum cce_decode_status r;

  snprintf (ctx, sizeof ctx, "decode garbage: %s", what);
  r = cce_decode (g, site, id, st, nst, out, 64, &n, &reason);
  CHECK (r == CCE_DECODE_INCOMPLETE, "%s: decoded OK", what);
  CHECK (reason != NULL && reason[0], "%s: no reason", what);
  CHECK (n <= 64, "%s: %zu sites", what, n);
  if (n && site < g->nsites && g->sites[site].kind == CCE_SITE_LOG)
    CHECK (out[n - 1] == site, "%s: innermost site is not the log site",
           what);
}

static void
expect_ok (const struct cce_graph *g, const char *what, uint64_t site,
           uint64_t id, const struct cce_stack_entry *st, size_t nst,
           const uint32_t *path, size_t npath)
{
  uint32_t out[128];
  size_t n = 999;
  const char *reason = NULL;
  enum cce_decode_status r;

  snprintf (ctx, sizeof ctx, "decode control: %s", what);
  r = cce_decode (g, site, id, st, nst, out, 128, &n, &reason);
  CHECK (r == CCE_DECODE_OK, "%s: %s", what, reason ? reason : "?");
  CHECK (n == npath && memcmp (out, path, n * sizeof *out) == 0,
         "%s: wrong path", what);
}

static void
test_decode_of_id_beyond_width_is_incomplete (void **state)
{
  struct garbage_graph G;
  const struct cce_graph *g;
  uint64_t cc;
  uint32_t k, out[8];
  size_t n = 0;
  const char *why = NULL;

  (void) state;
  set_ctx ("garbage graph");
  rng_state = base_seed ();
  garbage_graph (&G);
  g = G.R.g;
  /* c's ids from numCC up are its self call, folded: numCC itself is
     one level of it, entered from c's first context.  */
  CHECK (g->sites[G.cc].fold == 0 && g->nodes[G.c].nfold == 1,
         "c's self call is not folded");
  CHECK (cce_decode (g, G.logc, g->nodes[G.c].numcc, NULL, 0, out, 8, &n,
                     &why) == CCE_DECODE_OK
         && n >= 3 && n <= 8 && out[n - 1] == G.logc && out[n - 2] == G.cc,
         "id numCC does not decode as one folded level (%s)",
         why ? why : "ok");
  cc = cce_node_width (&g->nodes[G.c]);
  expect_incomplete (g, "id == width", G.logc, cc, NULL, 0);
  expect_incomplete (g, "id == UINT64_MAX", G.logc, UINT64_MAX, NULL, 0);
  expect_incomplete (g, "id 2^63", G.logc, TOP63, NULL, 0);
  for (k = 0; k < 64; k++)
    {
      uint64_t id = cc + (rnd () >> k);
      if (id >= cc)
        expect_incomplete (g, "random id >= width", G.logc, id, NULL, 0);
    }
  expect_incomplete (g, "id 1 at ENTRY f with numCC 1", G.logf, 1, NULL, 0);
  garbage_free (&G);
}

static void
test_decode_with_bad_stack_site_is_incomplete (void **state)
{
  struct garbage_graph G;
  const struct cce_graph *g;
  struct cce_stack_entry st[2];
  uint64_t rc;

  (void) state;
  set_ctx ("garbage graph");
  garbage_graph (&G);
  g = G.R.g;
  rc = g->nodes[G.c].root;
  st[0].id = 0;
  st[0].site = g->nsites + 7;
  expect_incomplete (g, "stack site beyond the graph", G.logc, rc, st, 1);
  st[0].site = CCE_SITE_NONE;
  expect_incomplete (g, "stack site CCE_SITE_NONE", G.logc, rc, st, 1);
  st[0].site = UINT64_C (1) << 32 | G.cc;
  expect_incomplete (g, "stack site above 2^32", G.logc, rc, st, 1);
  st[0].site = G.ac;
  expect_incomplete (g, "stack site is a direct site", G.logc, rc, st, 1);
  st[0].site = G.logc;
  expect_incomplete (g, "stack site is a log site", G.logc, rc, st, 1);
  st[0].site = G.ind;
  expect_incomplete (g, "indirect site enters non-ENTRY c", G.logc, rc, st, 1);
  st[0].site = G.ext;
  expect_incomplete (g, "external site enters non-ENTRY c", G.logc, rc, st, 1);
  expect_incomplete (g, "segment start at non-ENTRY c, empty stack",
                     G.logc, rc, NULL, 0);
  /* Garbage below a valid top entry.  */
  st[0].id = 5;
  st[0].site = 999999;
  st[1].id = 0;
  st[1].site = G.ind;
  expect_incomplete (g, "garbage under a valid entry", G.logf, 0, st, 2);
  st[1].id = g->nodes[G.main_].numcc + 3;
  expect_incomplete (g, "popped id beyond numCC of main", G.logf, 0, st + 1,
                     1);
  expect_incomplete (g, "log site beyond the graph", g->nsites + 1, 0, NULL, 0);
  expect_incomplete (g, "log site CCE_SITE_NONE", CCE_SITE_NONE, 0, NULL, 0);
  expect_incomplete (g, "log site is a direct site", G.ac, 0, NULL, 0);
  garbage_free (&G);
}

static void
test_decode_with_back_entry_for_other_callee_is_incomplete (void **state)
{
  struct garbage_graph G;
  const struct cce_graph *g;
  struct cce_stack_entry st[1];

  (void) state;
  set_ctx ("garbage graph");
  garbage_graph (&G);
  g = G.R.g;
  st[0].id = 0;
  st[0].site = G.cc;   /* back site into c */
  expect_incomplete (g, "back entry into c, segment at ENTRY f", G.logf, 0,
                     st, 1);
  expect_incomplete (g, "back entry into c, segment at h", G.logh,
                     g->nodes[G.h].root, st, 1);
  st[0].site = G.hh;   /* back site into h */
  expect_incomplete (g, "back entry into h, segment at c", G.logc,
                     g->nodes[G.c].root, st, 1);
  garbage_free (&G);
}

static void
test_decode_controls_of_garbage_graph_are_ok (void **state)
{
  struct garbage_graph G;
  const struct cce_graph *g;
  struct cce_stack_entry st[1];
  uint32_t path[4];
  uint64_t idc;

  (void) state;
  set_ctx ("garbage graph");
  garbage_graph (&G);
  g = G.R.g;
  path[0] = G.logf;
  expect_ok (g, "thread start at f", G.logf, 0, NULL, 0, path, 1);
  st[0].id = 0;
  st[0].site = G.ind;
  path[0] = G.ind;
  path[1] = G.logf;
  expect_ok (g, "main -i-> f", G.logf, 0, st, 1, path, 2);
  st[0].site = G.ext;
  path[0] = G.ext;
  expect_ok (g, "main -x-> qsort -> f", G.logf, 0, st, 1, path, 2);
  /* main -> b -> c -b-> c: log.  */
  idc = g->sites[G.mb].av + g->sites[G.bc].av;
  st[0].id = idc;
  st[0].site = G.cc;
  path[0] = G.mb;
  path[1] = G.bc;
  path[2] = G.cc;
  path[3] = G.logc;
  expect_ok (g, "main -> b -> c -b-> c", G.logc, g->nodes[G.c].root, st, 1,
             path, 4);
  garbage_free (&G);
}

static void
test_encode_refuses_sites_naming_missing_nodes (void **state)
{
  struct cce_graph *g;
  uint32_t f, n;
  char err[256];

  (void) state;
  set_ctx ("encode of a broken graph");
  g = cce_graph_new ();
  assert_non_null (g);
  f = cce_graph_func (g, "main", "main.c", 1);
  n = cce_graph_node (g, f, CCE_NODE_ENTRY);
  cce_graph_site (g, n, CCE_SITE_DIRECT, n + 5, 1);
  cce_graph_frame (g, 0, f, "main.c", 2, 3);
  err[0] = 0;
  CHECK (cce_graph_encode (g, NULL, err, sizeof err) == -1 && err[0],
         "direct site to a missing node encoded");
  cce_graph_free (g);

  g = cce_graph_new ();
  assert_non_null (g);
  f = cce_graph_func (g, "main", "main.c", 1);
  n = cce_graph_node (g, f, CCE_NODE_ENTRY);
  cce_graph_site (g, n + 3, CCE_SITE_LOG, CCE_NONE, 1);
  cce_graph_frame (g, 0, f, "main.c", 2, 3);
  err[0] = 0;
  CHECK (cce_graph_encode (g, NULL, err, sizeof err) == -1 && err[0],
         "site in a missing node encoded");
  cce_graph_free (g);
}

static void
test_empty_graph_encodes_and_round_trips (void **state)
{
  struct model m = { 0 };
  struct run R;

  (void) state;
  set_ctx ("empty graph");
  run_encode (&m, &R);
  CHECK (R.g->nnodes == 0 && R.g->nedges == 0 && R.st.max_numcc == 0,
         "empty graph");
  run_free (&R);
  model_free (&m);
}

static void
test_string_interning_returns_one_number_per_string (void **state)
{
  struct cce_graph *g = cce_graph_new ();
  uint32_t a, b, c, d;

  (void) state;
  assert_non_null (g);
  a = cce_graph_string (g, "qsort");
  b = cce_graph_string (g, "printf");
  c = cce_graph_string (g, "qsort");
  d = cce_graph_string (g, "");
  assert_int_equal (a, c);
  assert_int_not_equal (a, b);
  assert_int_not_equal (d, a);
  assert_int_equal (g->nstrings, 3);
  assert_string_equal (g->strings[b], "printf");
  cce_graph_free (g);
}

/* A hang (an endless loop in the core) fails the run instead of
   blocking it.  */
static void
on_alarm (int sig)
{
  static const char msg[] = "\n*** test-core: timed out (endless loop?)\n";
  ssize_t r;
  (void) sig;
  r = write (2, msg, sizeof msg - 1);
  r = write (2, ctx, strlen (ctx));
  (void) r;
  _exit (1);
}

/* Encode G, write its dictionary and read it back: a graph as the
   decoder has it, with one module.  */
static struct cce_graph *
via_dict (struct cce_graph *g)
{
  char err[256], *text;
  size_t len;
  struct cce_graph *r;
  assert_int_equal (cce_graph_encode (g, NULL, err, sizeof err), 0);
  assert_int_equal (cce_graph_write_dict (g, &text, &len), 0);
  r = cce_graph_read_dict (text, len, err, sizeof err);
  if (!r)
    fail_msg ("read back: %s", err);
  free (text);
  cce_graph_free (g);
  assert_int_equal (r->nmodules, 1);
  return r;
}

static const char *
frame_fn (const struct cce_graph *g, const struct cce_path_frame *f)
{
  if (f->func == CCE_NONE)
    return f->ext_name < g->nstrings ? g->strings[f->ext_name] : "?";
  return g->strings[g->funcs[f->func].name];
}

/* An executable calls lib_f of a shared library (an external site in its
   dictionary); lib_f calls g from two sites, and g logs.  Merged, the two
   dictionaries decode site words of both modules, and the path shows
   lib_f once (not as an external frame too).  */
static void
test_merged_modules_decode_across_the_boundary (void **state)
{
  struct cce_graph *e = cce_graph_new (), *l = cce_graph_new (), *e2;
  uint32_t fm, nm, xs, qs, fq, nq, lq, fl, fg, nf, ng, s1, s2, lg, ls;
  uint32_t path[16];
  struct cce_path_frame fr[16];
  size_t n, nf_;
  const char *why;
  char err[256];
  (void) state;

  fm = cce_graph_func (e, "main", "m.c", 1);
  nm = cce_graph_node (e, fm, CCE_NODE_ENTRY);
  xs = cce_graph_site (e, nm, CCE_SITE_EXTERNAL,
                       cce_graph_string (e, "lib_f"), 1);
  assert_int_equal (cce_graph_frame (e, xs, fm, "m.c", 5, 3), 0);
  qs = cce_graph_site (e, nm, CCE_SITE_EXTERNAL,
                       cce_graph_string (e, "qsort"), 1);
  assert_int_equal (cce_graph_frame (e, qs, fm, "m.c", 6, 3), 0);
  fq = cce_graph_func (e, "cmp", "m.c", 9);
  nq = cce_graph_node (e, fq, CCE_NODE_ENTRY);
  lq = cce_graph_site (e, nq, CCE_SITE_LOG, CCE_NONE, 1);
  assert_int_equal (cce_graph_frame (e, lq, fq, "m.c", 10, 3), 0);

  fl = cce_graph_func (l, "lib_f", "l.c", 1);
  fg = cce_graph_func (l, "g", "l.c", 9);
  nf = cce_graph_node (l, fl, CCE_NODE_ENTRY);
  ng = cce_graph_node (l, fg, 0);
  s1 = cce_graph_site (l, nf, CCE_SITE_DIRECT, ng, 1);
  assert_int_equal (cce_graph_frame (l, s1, fl, "l.c", 3, 3), 0);
  s2 = cce_graph_site (l, nf, CCE_SITE_DIRECT, ng, 5);
  assert_int_equal (cce_graph_frame (l, s2, fl, "l.c", 4, 3), 0);
  ls = cce_graph_site (l, nf, CCE_SITE_EXTERNAL,
                       cce_graph_string (l, "cmp"), 1);
  assert_int_equal (cce_graph_frame (l, ls, fl, "l.c", 5, 3), 0);
  lg = cce_graph_site (l, ng, CCE_SITE_LOG, CCE_NONE, 1);
  assert_int_equal (cce_graph_frame (l, lg, fg, "l.c", 10, 3), 0);

  e = via_dict (e);
  l = via_dict (l);
  uint32_t ke = e->modules[0].key, kl = l->modules[0].key;
  uint64_t av1 = l->sites[s1].av, av2 = l->sites[s2].av;
  assert_true (ke != kl && ke != 0 && kl != 0);
  assert_true (av1 != av2);

  /* Before the merge, the library's log site is unknown.  */
  struct cce_stack_entry st[2] = { { 0, CCE_SITE_WORD (ke, xs) },
                                   { 0, 0 } };
  assert_int_equal (cce_decode (e, CCE_SITE_WORD (kl, lg), av1, st, 1, path,
                                16, &n, &why), CCE_DECODE_INCOMPLETE);
  assert_non_null (strstr (why, "module"));

  assert_int_equal (cce_graph_merge (e, l, err, sizeof err), 0);
  assert_int_equal (e->nmodules, 2);
  /* The same module twice is refused.  */
  assert_int_equal (cce_graph_merge (e, l, err, sizeof err), -1);

  for (int k = 0; k < 2; k++)
    {
      uint64_t id = k ? av2 : av1;
      assert_int_equal (cce_decode (e, CCE_SITE_WORD (kl, lg), id, st, 1,
                                    path, 16, &n, &why), CCE_DECODE_OK);
      cce_path_frames (e, path, n, fr, 16, &nf_);
      assert_int_equal (nf_, 3);
      assert_string_equal (frame_fn (e, &fr[0]), "main");
      assert_string_equal (frame_fn (e, &fr[1]), "lib_f");
      assert_string_equal (frame_fn (e, &fr[2]), "g");
      assert_int_equal (fr[1].line, k ? 4 : 3);
    }
  /* The library calls back into the executable through its own external
     site: cmp's frame follows the library's "cmp" call, and the
     executable's qsort stays an external frame.  */
  st[1].id = 0;
  st[1].site = CCE_SITE_WORD (kl, ls);
  assert_int_equal (cce_decode (e, CCE_SITE_WORD (ke, lq), 0, st, 2, path,
                                16, &n, &why), CCE_DECODE_OK);
  cce_path_frames (e, path, n, fr, 16, &nf_);
  assert_int_equal (nf_, 3);
  assert_string_equal (frame_fn (e, &fr[2]), "cmp");
  st[0].site = CCE_SITE_WORD (ke, qs);
  st[1].site = CCE_SITE_WORD (kl, lg);   /* a log site is no call site */
  assert_int_equal (cce_decode (e, CCE_SITE_WORD (ke, lq), 0, st, 1, path,
                                16, &n, &why), CCE_DECODE_OK);
  cce_path_frames (e, path, n, fr, 16, &nf_);
  assert_int_equal (nf_, 3);
  assert_string_equal (frame_fn (e, &fr[1]), "qsort");
  assert_int_equal (fr[1].func, CCE_NONE);
  assert_int_equal (cce_decode (e, CCE_SITE_WORD (ke, lq), 0, st, 2, path,
                                16, &n, &why), CCE_DECODE_INCOMPLETE);
  /* Key 0: a plain site number of the main module; a bad index in a known
     module is unknown.  */
  assert_int_equal (cce_site_of_word (e, CCE_SITE_WORD (0, lq)), lq);
  assert_int_equal (cce_site_of_word (e, CCE_SITE_WORD (kl, 99)), CCE_NONE);
  assert_int_equal (cce_site_of_word (e, CCE_SITE_WORD (kl, lg)),
                    e->modules[1].first_site + lg);

  e2 = e;
  cce_graph_free (e2);
  cce_graph_free (l);
}

/* Restores (cce_flow_live_after).  Events: D = a direct site with an
   addition value (stores the id; its callee reads the top), P = an inline
   push (stores both), U = a use of both (a free call, a log, the load).  */
#define EV_D (CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP)
#define EV_P (CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP)
#define EV_U (CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP)
#define LIVE_BOTH (CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP)

/* Straight line: D D P D, then return.  The id is dead after each site but
   the last; the top is read by each direct site's callee, and dead after
   the first site only when the next one pushes.  */
static void
test_restore_needed_only_before_a_reader_in_a_block (void **state)
{
  (void) state;
  const uint32_t ev_start[] = { 0, 4 };
  const uint8_t ev[] = { EV_D, EV_P, EV_D, EV_D };
  const uint32_t succ_start[] = { 0, 1 };
  const uint32_t succ[] = { CCE_NONE };
  struct cce_flow f = { 1, ev_start, ev, succ_start, succ };
  uint8_t live[4];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], 0);                   /* P writes both */
  assert_int_equal (live[1], CCE_FLOW_USE_TOP);    /* D's callee reads top */
  assert_int_equal (live[2], CCE_FLOW_USE_TOP);
  assert_int_equal (live[3], LIVE_BOTH);           /* the return */
}

/* Across blocks: after D in block 0, one branch (1) stores both before any
   read, the other (2) makes a free call: both must be restored.  After the
   push in 1, block 3 only returns: both live.  An empty block passes
   liveness through.  */
static void
test_restore_needed_when_any_path_reads_first (void **state)
{
  (void) state;
  /* 0: D -> 1, 2;  1: P -> 3;  2: U -> 4;  4: (empty) -> 3;  3: -> exit */
  const uint32_t ev_start[] = { 0, 1, 2, 3, 3, 3 };
  const uint8_t ev[] = { EV_D, EV_P, EV_U };
  const uint32_t succ_start[] = { 0, 2, 3, 4, 5, 6 };
  const uint32_t succ[] = { 1, 2, 3, 4, CCE_NONE, 3 };
  struct cce_flow f = { 5, ev_start, ev, succ_start, succ };
  uint8_t live[3];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);
  assert_int_equal (live[1], LIVE_BOTH);
  assert_int_equal (live[2], LIVE_BOTH);

  /* With block 2 pushing too, nothing after D reads before writing.  */
  const uint8_t ev2[] = { EV_D, EV_P, EV_P };
  f.ev = ev2;
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], 0);
}

/* A site whose code takes one of two paths (an indirect call that pushes,
   or calls a guessed target directly) reads the top if either path does:
   after an external call X (a push, P) the top must be restored before
   the guessed call G = either (P, D), though its push path writes it.  */
static void
test_restore_needed_before_a_site_with_a_reading_path (void **state)
{
  (void) state;
  uint8_t g = cce_flow_either (EV_P, EV_D);
  assert_int_equal (g, CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP);
  assert_int_equal (cce_flow_either (EV_P, EV_P), EV_P);
  assert_int_equal (cce_flow_either (EV_D, EV_U), LIVE_BOTH);
  assert_int_equal (cce_flow_either (EV_P, 0), 0);
  const uint32_t ev_start[] = { 0, 2 };
  const uint8_t ev[] = { EV_P, g };
  const uint32_t succ_start[] = { 0, 1 };
  const uint32_t succ[] = { CCE_NONE };
  struct cce_flow f = { 1, ev_start, ev, succ_start, succ };
  uint8_t live[2];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], CCE_FLOW_USE_TOP);
}

/* Loops: block 1 is a loop whose body ends in D and goes back to its head.
   If the head starts with D, the id after it is dead on both ways out; if
   the head starts with a free call, the id after the last D is live
   through the back edge.  A landing pad (a block that starts by storing
   both) and an abnormal edge (CCE_NONE) behave as written.  */
static void
test_restore_needed_through_a_back_edge (void **state)
{
  (void) state;
  /* 0: U (the load) -> 1;  1: x, D -> 1, 2;  2: D -> exit */
  const uint32_t ev_start[] = { 0, 1, 3, 4 };
  uint8_t ev[] = { EV_U, EV_D, EV_D, EV_D };
  const uint32_t succ_start[] = { 0, 1, 3, 4 };
  const uint32_t succ[] = { 1, 1, 2, CCE_NONE };
  struct cce_flow f = { 3, ev_start, ev, succ_start, succ };
  uint8_t live[4];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0] & CCE_FLOW_USE_ID, 0);
  assert_int_equal (live[2] & CCE_FLOW_USE_ID, 0);
  assert_int_equal (live[3], LIVE_BOTH);

  ev[1] = EV_U;
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);
  assert_int_equal (live[2], LIVE_BOTH);

  /* 0: P -> 1 (a landing pad: stores both), CCE_NONE (abnormal) */
  const uint32_t ev_start2[] = { 0, 1, 3 };
  const uint8_t ev2[] = { EV_P, CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP, EV_U };
  const uint32_t succ_start2[] = { 0, 1, 1 };
  const uint32_t succ2[] = { 1 };
  struct cce_flow pad = { 2, ev_start2, ev2, succ_start2, succ2 };
  assert_int_equal (cce_flow_live_after (&pad, live), 0);
  assert_int_equal (live[0], 0);
  const uint32_t succ_start3[] = { 0, 2, 2 };
  const uint32_t succ3[] = { 1, CCE_NONE };
  pad.succ_start = succ_start3;
  pad.succ = succ3;
  assert_int_equal (cce_flow_live_after (&pad, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);
}

/* A function that clobbers the id: its return reads the top alone
   (CCE_FLOW_EXIT with exit_use), so the id after its last site is dead;
   a free call of another clobbering function (C: reads both, then
   defines the id) needs a restore after it only where something reads
   the id before it is stored again.  An abnormal edge still reads
   both.  */
static void
test_restore_of_a_clobbering_function (void **state)
{
  (void) state;
  /* 0: D C U C D -> exit */
  const uint8_t EV_C = EV_U | CCE_FLOW_DEF_ID;
  const uint32_t ev_start[] = { 0, 5 };
  const uint8_t ev[] = { EV_D, EV_C, EV_U, EV_C, EV_D };
  const uint32_t succ_start[] = { 0, 1 };
  uint32_t succ[] = { CCE_FLOW_EXIT };
  struct cce_flow f = { 1, ev_start, ev, succ_start, succ,
                        CCE_FLOW_USE_TOP };
  uint8_t live[5];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);         /* C reads both */
  assert_int_equal (live[1], LIVE_BOTH);         /* U reads both */
  assert_int_equal (live[2], LIVE_BOTH);         /* the second C */
  assert_int_equal (live[3], CCE_FLOW_USE_TOP);  /* D writes the id */
  assert_int_equal (live[4], CCE_FLOW_USE_TOP);  /* the return */
  f.exit_use = LIVE_BOTH;                        /* one that restores */
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[4], LIVE_BOTH);
  f.exit_use = CCE_FLOW_USE_TOP;
  succ[0] = CCE_NONE;                            /* abnormal: both */
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[4], LIVE_BOTH);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_string_interning_returns_one_number_per_string),
    cmocka_unit_test (test_empty_graph_encodes_and_round_trips),
    cmocka_unit_test (test_encode_refuses_sites_naming_missing_nodes),
    cmocka_unit_test (test_diamond_gives_two_contexts_and_hotter_edge_av_zero),
    cmocka_unit_test (test_single_caller_edge_has_av_zero),
    cmocka_unit_test (test_calls_that_reach_no_log_are_dead),
    cmocka_unit_test (test_calls_into_other_modules_are_observed),
    cmocka_unit_test (test_clobbers_only_non_entry_nodes_that_store_or_call_one),
    cmocka_unit_test (test_entry_node_has_root_zero_and_direct_edges_from_one),
    cmocka_unit_test (test_self_recursion_becomes_back_site_with_reason_r),
    cmocka_unit_test (test_self_recursion_folds_into_the_id_then_pushes),
    cmocka_unit_test (test_mutual_recursion_of_equal_weights_makes_one_back_edge),
    cmocka_unit_test (test_mutual_recursion_puts_the_push_on_the_cold_edge),
    cmocka_unit_test (test_three_cycle_makes_only_closing_edge_back),
    cmocka_unit_test (test_cycle_entered_twice_gets_exactly_one_back_edge),
    cmocka_unit_test (test_cycle_unreachable_from_entries_is_still_broken),
    cmocka_unit_test (test_chain_of_80_doublings_cuts_overflow_to_ccstack),
    cmocka_unit_test (test_chain_that_fits_has_no_overflow_cut),
    cmocka_unit_test (test_two_calls_from_2pow63_contexts_cut_exactly_one),
    cmocka_unit_test (test_numcc_of_exactly_uint64_max_fits_and_decodes_top_ids),
    cmocka_unit_test (test_random_graphs_decode_every_simulated_path_exactly),
    cmocka_unit_test (test_random_layered_graphs_decode_ids_above_2pow63),
    cmocka_unit_test (test_dict_round_trip_keeps_graph_and_decoding),
    cmocka_unit_test (test_read_dict_rejects_garbage_without_crashing),
    cmocka_unit_test (test_read_dict_reads_no_byte_past_len),
    cmocka_unit_test (test_read_dict_refuses_entry_node_with_nonzero_root),
    cmocka_unit_test (test_damaged_dictionary_with_good_stamp_is_refused_or_safe),
    cmocka_unit_test (test_decode_of_id_beyond_width_is_incomplete),
    cmocka_unit_test (test_decode_with_bad_stack_site_is_incomplete),
    cmocka_unit_test (test_decode_with_back_entry_for_other_callee_is_incomplete),
    cmocka_unit_test (test_decode_controls_of_garbage_graph_are_ok),
    cmocka_unit_test (test_merged_modules_decode_across_the_boundary),
    cmocka_unit_test (test_restore_needed_only_before_a_reader_in_a_block),
    cmocka_unit_test (test_restore_needed_when_any_path_reads_first),
    cmocka_unit_test (test_restore_needed_before_a_site_with_a_reading_path),
    cmocka_unit_test (test_restore_needed_through_a_back_edge),
    cmocka_unit_test (test_restore_of_a_clobbering_function),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
