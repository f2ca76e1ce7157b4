/* core-tests.c -- what the unit tests of cce's encoding core share:
   failure reporting, a seeded PRNG, models of call graphs, building and
   checking graphs from them, a simulation of the instrumented program,
   graph generators and the timeout.  Declared in core-tests.h.  */

#include "core-tests.h"

#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Failure reporting.                                                 */

char ctx[256];                        /* what is being tested */
struct model *cur_model;              /* dumped on failure */
static struct cce_graph *cur_graph;   /* encoded graph of cur_model */
static void dump_model (void);

void
check_failed (const char *file, int line, const char *expr)
{
  fprintf (stderr, "\n*** check failed at %s:%d: %s\n*** context: %s\n",
           file, line, expr, ctx);
  if (cur_model)
    dump_model ();
}

/* ------------------------------------------------------------------ */
/* Seeded PRNG (splitmix64).                                          */

uint64_t rng_state;

uint64_t
rnd (void)
{
  uint64_t z = (rng_state += UINT64_C (0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

uint32_t
rnd_below (uint32_t n)
{
  return n ? (uint32_t) (rnd () % n) : 0;
}

int
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

uint64_t
base_seed (void)
{
  const char *s = getenv ("CCE_TEST_SEED");
  return s ? strtoull (s, NULL, 0) : UINT64_C (20240601);
}

/* -1: all graphs; else only that one.  */
long
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

void
model_free (struct model *m)
{
  free (m->nodes);
  free (m->sites);
  free (m->first);
  free (m->count);
  free (m->list);
  memset (m, 0, sizeof *m);
}

uint32_t
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
uint32_t
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

void
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

uint32_t
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
      g->sites[id].guess = (unsigned char) s->guess;
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

/* Sites of an encoded graph, by kind (cce_encode_stats).  */
struct site_counts
{
  size_t d, zero, r, o, i, x, l, f;
};

/* Only direct sites of model M may move to the ccStack in G; count G's
   sites by kind into N.  */
static void
check_sites (const struct model *m, const struct cce_graph *g,
             struct site_counts *n)
{
  size_t i;

  for (i = 0; i < g->nsites; i++)
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
              n->d++;
              n->zero += !gs->dead && gs->av == 0;
            }
          else
            {
              CHECK (gs->reason == 'r' || gs->reason == 'o',
                     "back site %zu has reason %d", i, gs->reason);
              n->r += gs->reason == 'r';
              n->o += gs->reason == 'o';
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
                  n->f++;
                }
            }
        }
      else
        {
          CHECK (gs->kind == s->kind && gs->reason == 0,
                 "encode changed kind of non-direct site %zu", i);
          n->i += gs->kind == CCE_SITE_INDIRECT;
          n->x += gs->kind == CCE_SITE_EXTERNAL;
          n->l += gs->kind == CCE_SITE_LOG;
          if (gs->kind != CCE_SITE_LOG)
            CHECK (cce_site_entry (g, (uint32_t) i) == 0,
                   "cce_site_entry of %c site %zu is not 0", gs->kind, i);
        }
    }
}

/* The nodes of G and their incoming edges: every edge belongs to one
   node, the ranges of a node's edges are contiguous from 0 to its numCC,
   every live direct site is one edge, and NF folded sites are in their
   callees' folds.  Returns the largest numCC.  */
static uint64_t
check_nodes (const struct cce_graph *g, size_t nf)
{
  size_t nn = g->nnodes, ns = g->nsites, i, k;
  size_t nfold_sum = 0, nedges_sum = 0;
  unsigned char *covered;
  uint32_t *seen;
  uint64_t maxcc = 0;

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
  CHECK (nfold_sum == nf && g->nfolds == nf, "%zu folded sites, nodes "
         "count %zu, folds[] holds %zu", nf, nfold_sum, g->nfolds);
  for (k = 0; k < g->nedges; k++)
    CHECK (covered[k], "edge %zu belongs to no node", k);
  for (i = 0; i < ns; i++)
    CHECK (seen[i] == (g->sites[i].kind == CCE_SITE_DIRECT
                       && !g->sites[i].dead),
           "site %zu appears in %u edges", i, seen[i]);
  free (covered);
  free (seen);
  return maxcc;
}

/* Dead sites of G: exactly the calls through which no log is reached.  */
static void
check_dead (const struct cce_graph *g)
{
  size_t i;
  int entry_obs = 0;

  for (i = 0; i < g->nnodes; i++)
    entry_obs |= g->nodes[i].observed
                 && (g->nodes[i].flags & (CCE_NODE_ENTRY | CCE_NODE_MAIN))
                    == CCE_NODE_ENTRY;
  for (i = 0; i < g->nsites; i++)
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

/* The direct edges G keeps are acyclic, and every recursion back edge
   U -> V closes a cycle: V reaches U over the edges left after the
   depth-first search (direct or cut later for overflow).  The edges out
   of a node are model M's.  */
static void
check_back_edges (const struct model *m, const struct cce_graph *g)
{
  size_t nn = g->nnodes, ns = g->nsites, i, k, head = 0, tail = 0;
  uint32_t *indeg, *queue, *mark;

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
}

/* Everything cce_graph_encode promises, checked against the model.  */
static void
check_encoding (const struct model *m, const struct cce_graph *g,
                const struct cce_encode_stats *st)
{
  struct site_counts n;
  uint64_t maxcc;

  CHECK (g->nnodes == m->nnodes && g->nsites == m->nsites,
         "encode changed graph sizes");
  memset (&n, 0, sizeof n);
  check_sites (m, g, &n);
  maxcc = check_nodes (g, n.f);
  check_dead (g);
  check_back_edges (m, g);
  if (st)
    {
      CHECK (st->direct_sites == n.d && st->zero_sites == n.zero
             && st->back_sites == n.r && st->overflow_sites == n.o
             && st->indirect_sites == n.i && st->external_sites == n.x
             && st->log_sites == n.l && st->max_numcc == maxcc
             && st->folded_sites == n.f,
             "encode stats do not match the graph");
    }
}

/* Graphs G and H are the same (all a dictionary carries).  */
void
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
int
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
uint32_t *
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

void
print_path (const char *what, const uint32_t *p, size_t n)
{
  size_t i;
  fprintf (stderr, "*** %s (%zu):", what, n);
  for (i = 0; i < n && i < 4 * MAXPATH; i++)
    fprintf (stderr, " %u", p[i]);
  fputc ('\n', stderr);
}

/* cce_path_frames of path P (decoded with G) is what the model says.  */
void
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
void
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
void
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

void
run_free (struct run *R)
{
  cce_graph_free (R->g);
  cce_graph_free (R->h);
  R->g = R->h = NULL;
  cur_graph = NULL;
  cur_model = NULL;
}

/* Build, encode, check and simulate M with default bounds.  */
void
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
void
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
void
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
void
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
/* Shared by the tests.                                               */

void
set_ctx (const char *s)
{
  snprintf (ctx, sizeof ctx, "%s", s);
}

void
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

/* A hang (an endless loop in the core) fails the run instead of
   blocking it.  */
void
on_alarm (int sig)
{
  static const char msg[] = "\n*** timed out (endless loop?)\n";
  ssize_t r;
  (void) sig;
  r = write (2, msg, sizeof msg - 1);
  r = write (2, ctx, strlen (ctx));
  (void) r;
  _exit (1);
}
