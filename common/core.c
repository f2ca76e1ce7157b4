/* core.c -- the GCC-free encoding core of cce: call graph, numCC,
   addition values, ccStack edges, dictionary text and decoding.

   Encoding follows Sumner et al., "Precise Calling Context Encoding"
   (ICSE 2010), with DACCE's ccStack for what one number cannot carry:

     1. Back edges of recursion move to the ccStack (site kind 'b'): the
        edges against a node order chosen in each strongly connected
        component so that the hot edges of a cycle stay direct.
     2. In topological order, numCC (N) = [N has a root] + the sum of the
        widths of N's callers over its incoming direct edges; the width of
        a node is its numCC, plus the ids of recursion folded into it (the
        back edges into it, each with a fold index J of K, enter it with
        NUMCC + id * K + J while the caller's id is below the fold limit).
        Where the sum would exceed UINT64_MAX, the incoming edges with the
        most contexts move to the ccStack too ('b', reason 'o').  The
        largest fold limit that cuts no more edges than no folding is
        taken.
     3. Each node's incoming edges, its root edge included, are laid end to
        end: the hottest edge first, so that it gets addition value 0 and
        needs no code, then the others narrowest first, so that their
        addition values stay small.  An entry node's root edge comes
        first, so that "segment start" is id 0 for every function that can
        be entered through a pointer or from outside.

   Example: main calls a and b, both call c, a's call is the hotter one.
        numCC: main 1 (root), a 1, b 1, c 2
        edge a->c: av 0 (no code), edge b->c: av 1
   In c, id 0 decodes to main;a;c and id 1 to main;b;c.  */

#include "cce-core.h"
#include "cce-abi.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small helpers.                                                     */

/* Make room for NEED elements of ELSIZE bytes in *PTR, which has room for
   *ALLOC.  Returns 0, or -1 when out of memory.  */
static int
grow (void **ptr, size_t *alloc, size_t need, size_t elsize)
{
  size_t n;
  void *p;

  if (need <= *alloc)
    return 0;
  n = *alloc ? *alloc : 16;
  while (n < need)
    n *= 2;
  p = realloc (*ptr, n * elsize);
  if (!p)
    return -1;
  *ptr = p;
  *alloc = n;
  return 0;
}

#define GROW(arr, alloc, need) \
  grow ((void **) &(arr), &(alloc), (need), sizeof *(arr))

static void
set_err (char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;

  if (!err || !errlen)
    return;
  va_start (ap, fmt);
  vsnprintf (err, errlen, fmt, ap);
  va_end (ap);
}

/* ------------------------------------------------------------------ */
/* Building.                                                          */

/* String interning: an open-addressing table of string numbers + 1.  */
struct intern
{
  uint32_t *slots;
  size_t nslots;
};

static uint64_t
hash_str (const char *s)
{
  return cce_fnv1a64 (s, strlen (s));
}

static int
intern_rehash (struct cce_graph *g, size_t nslots)
{
  struct intern *t = g->intern;
  uint32_t *slots = calloc (nslots, sizeof *slots);
  size_t i;

  if (!slots)
    return -1;
  for (i = 0; i < g->nstrings; i++)
    {
      size_t h = hash_str (g->strings[i]) & (nslots - 1);
      while (slots[h])
        h = (h + 1) & (nslots - 1);
      slots[h] = (uint32_t) i + 1;
    }
  free (t->slots);
  t->slots = slots;
  t->nslots = nslots;
  return 0;
}

struct cce_graph *
cce_graph_new (void)
{
  struct cce_graph *g = calloc (1, sizeof *g);

  if (!g)
    return NULL;
  g->intern = calloc (1, sizeof (struct intern));
  if (!g->intern || intern_rehash (g, 64) < 0)
    {
      cce_graph_free (g);
      return NULL;
    }
  return g;
}

void
cce_graph_free (struct cce_graph *g)
{
  size_t i;

  if (!g)
    return;
  for (i = 0; i < g->nstrings; i++)
    free (g->strings[i]);
  free (g->strings);
  free (g->funcs);
  free (g->nodes);
  free (g->sites);
  free (g->frames);
  free (g->edges);
  free (g->folds);
  free (g->modules);
  if (g->intern)
    free (((struct intern *) g->intern)->slots);
  free (g->intern);
  free (g);
}

/* Append S to G's strings without interning.  */
static uint32_t
add_string (struct cce_graph *g, const char *s)
{
  char *copy;

  if (GROW (g->strings, g->astrings, g->nstrings + 1) < 0
      || !(copy = strdup (s)))
    return CCE_NONE;
  g->strings[g->nstrings] = copy;
  return (uint32_t) g->nstrings++;
}

uint32_t
cce_graph_string (struct cce_graph *g, const char *s)
{
  struct intern *t = g->intern;
  size_t h;
  uint32_t n;

  if (!s)
    s = "";
  h = hash_str (s) & (t->nslots - 1);
  while (t->slots[h])
    {
      if (strcmp (g->strings[t->slots[h] - 1], s) == 0)
        return t->slots[h] - 1;
      h = (h + 1) & (t->nslots - 1);
    }
  n = add_string (g, s);
  if (n == CCE_NONE)
    return CCE_NONE;
  t->slots[h] = n + 1;
  if (2 * g->nstrings > t->nslots && intern_rehash (g, 2 * t->nslots) < 0)
    return CCE_NONE;
  return n;
}

uint32_t
cce_graph_func (struct cce_graph *g, const char *name, const char *file,
                uint32_t line)
{
  struct cce_func *f;
  uint32_t sname = cce_graph_string (g, name);
  uint32_t sfile = cce_graph_string (g, file);

  if (sname == CCE_NONE || sfile == CCE_NONE
      || GROW (g->funcs, g->afuncs, g->nfuncs + 1) < 0)
    return CCE_NONE;
  f = &g->funcs[g->nfuncs];
  f->name = sname;
  f->file = sfile;
  f->line = line;
  return (uint32_t) g->nfuncs++;
}

uint32_t
cce_graph_node (struct cce_graph *g, uint32_t func, uint32_t flags)
{
  struct cce_node *n;

  if (GROW (g->nodes, g->anodes, g->nnodes + 1) < 0)
    return CCE_NONE;
  n = &g->nodes[g->nnodes];
  memset (n, 0, sizeof *n);
  n->func = func;
  n->flags = flags;
  return (uint32_t) g->nnodes++;
}

uint32_t
cce_graph_site (struct cce_graph *g, uint32_t node, char kind,
                uint32_t target, double freq)
{
  struct cce_site *s;

  if (GROW (g->sites, g->asites, g->nsites + 1) < 0)
    return CCE_NONE;
  s = &g->sites[g->nsites];
  memset (s, 0, sizeof *s);
  s->node = node;
  s->kind = kind;
  s->target = target;
  s->first_frame = (uint32_t) g->nframes;
  s->freq = freq;
  s->fold = CCE_NONE;
  return (uint32_t) g->nsites++;
}

int
cce_graph_frame (struct cce_graph *g, uint32_t site, uint32_t func,
                 const char *file, uint32_t line, uint32_t col)
{
  struct cce_frame *f;
  uint32_t sfile = file ? cce_graph_string (g, file) : CCE_NONE;

  if ((file && sfile == CCE_NONE)
      || GROW (g->frames, g->aframes, g->nframes + 1) < 0)
    return -1;
  /* Frames of a site are contiguous: they are added right after it.  */
  if (g->sites[site].first_frame + g->sites[site].nframes != g->nframes)
    return -1;
  f = &g->frames[g->nframes++];
  f->func = func;
  f->file = sfile;
  f->line = line;
  f->col = col;
  g->sites[site].nframes++;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Encoding.                                                          */

static int
is_edge (const struct cce_graph *g, const struct cce_site *s)
{
  return s->kind == CCE_SITE_DIRECT && s->target < g->nnodes && !s->dead;
}

/* Step 0: which nodes are observed -- can reach a log site through direct
   calls, or through an indirect or external call while some entry node
   other than main is observed (such a call may enter any of them), or
   make a call that may enter another module built with cce (may_log) --
   and which sites are dead: direct calls of unobserved nodes, and
   indirect and external calls when no entry node is observed and they
   cannot enter another module.  Their code could change no record.  */
static int
mark_observed (struct cce_graph *g)
{
  size_t nn = g->nnodes, ns = g->nsites, i;
  uint32_t *callers = NULL, *cindex = NULL, *work = NULL, *fill = NULL;
  size_t top = 0;
  int entry_observed = 0, rc = -1;

  cindex = calloc (nn + 1, sizeof *cindex);
  callers = malloc ((ns + 1) * sizeof *callers);
  work = malloc ((nn + 1) * sizeof *work);
  fill = calloc (nn + 1, sizeof *fill);
  if (!cindex || !callers || !work || !fill)
    goto out;
  /* Direct callers of each node.  */
  for (i = 0; i < ns; i++)
    if (g->sites[i].kind == CCE_SITE_DIRECT && g->sites[i].target < nn)
      cindex[g->sites[i].target + 1]++;
  for (i = 0; i < nn; i++)
    cindex[i + 1] += cindex[i];
  for (i = 0; i < ns; i++)
    if (g->sites[i].kind == CCE_SITE_DIRECT && g->sites[i].target < nn)
      {
        uint32_t t = g->sites[i].target;
        callers[cindex[t] + fill[t]++] = g->sites[i].node;
      }
  for (i = 0; i < nn; i++)
    g->nodes[i].observed = 0;
#define OBSERVE(n) do { if (!g->nodes[n].observed) { \
    g->nodes[n].observed = 1; work[top++] = (n); } } while (0)
  for (i = 0; i < ns; i++)
    if (g->sites[i].kind == CCE_SITE_LOG || g->sites[i].kind == CCE_SITE_TRACE
        || g->sites[i].may_log)
      OBSERVE (g->sites[i].node);
  if (g->observe_all)
    for (i = 0; i < nn; i++)
      {
        OBSERVE ((uint32_t) i);
        entry_observed = 1;
      }
  for (;;)
    {
      while (top)
        {
          uint32_t n = work[--top];
          if ((g->nodes[n].flags & (CCE_NODE_ENTRY | CCE_NODE_MAIN))
              == CCE_NODE_ENTRY)
            entry_observed = 1;
          for (uint32_t k = cindex[n]; k < cindex[n + 1]; k++)
            OBSERVE (callers[k]);
        }
      if (!entry_observed)
        break;
      /* Every node with an indirect or external call is observed too.  */
      for (i = 0; i < ns; i++)
        if (g->sites[i].kind == CCE_SITE_INDIRECT
            || g->sites[i].kind == CCE_SITE_EXTERNAL)
          OBSERVE (g->sites[i].node);
      if (!top)
        break;
    }
#undef OBSERVE
  for (i = 0; i < ns; i++)
    {
      struct cce_site *s = &g->sites[i];
      switch (s->kind)
        {
        case CCE_SITE_DIRECT:
          s->dead = s->target < nn && !g->nodes[s->target].observed;
          break;
        case CCE_SITE_INDIRECT:
        case CCE_SITE_EXTERNAL:
          s->dead = !entry_observed && !s->may_log;
          break;
        default:
          s->dead = 0;
        }
    }
  rc = 0;
out:
  free (cindex);
  free (callers);
  free (work);
  free (fill);
  return rc;
}

/* Incoming-edge lists used while encoding: INDEX[n] .. INDEX[n+1] in SITES
   are the direct sites calling node n; OUT likewise for outgoing.  */
struct adj
{
  uint32_t *in_index, *in_sites;
  uint32_t *out_index, *out_sites;
};

static void
adj_free (struct adj *a)
{
  free (a->in_index);
  free (a->in_sites);
  free (a->out_index);
  free (a->out_sites);
}

/* Build the incoming and outgoing lists of G's current edges into A.  */
static int
adj_build (const struct cce_graph *g, struct adj *a)
{
  size_t i, nn = g->nnodes;
  uint32_t *fill_in = NULL, *fill_out = NULL;

  memset (a, 0, sizeof *a);
  a->in_index = calloc (nn + 1, sizeof (uint32_t));
  a->out_index = calloc (nn + 1, sizeof (uint32_t));
  a->in_sites = malloc ((g->nsites + 1) * sizeof (uint32_t));
  a->out_sites = malloc ((g->nsites + 1) * sizeof (uint32_t));
  fill_in = calloc (nn + 1, sizeof (uint32_t));
  fill_out = calloc (nn + 1, sizeof (uint32_t));
  if (!a->in_index || !a->out_index || !a->in_sites || !a->out_sites
      || !fill_in || !fill_out)
    goto fail;
  for (i = 0; i < g->nsites; i++)
    if (is_edge (g, &g->sites[i]))
      {
        a->in_index[g->sites[i].target + 1]++;
        a->out_index[g->sites[i].node + 1]++;
      }
  for (i = 0; i < nn; i++)
    {
      a->in_index[i + 1] += a->in_index[i];
      a->out_index[i + 1] += a->out_index[i];
    }
  for (i = 0; i < g->nsites; i++)
    if (is_edge (g, &g->sites[i]))
      {
        uint32_t t = g->sites[i].target, c = g->sites[i].node;
        a->in_sites[a->in_index[t] + fill_in[t]++] = (uint32_t) i;
        a->out_sites[a->out_index[c] + fill_out[c]++] = (uint32_t) i;
      }
  free (fill_in);
  free (fill_out);
  return 0;

fail:
  free (fill_in);
  free (fill_out);
  adj_free (a);
  return -1;
}

/* Step 1: choose the back edges of recursion: a set of direct edges
   whose removal leaves the call graph acyclic.  Each becomes a ccStack
   site, which costs a push at every execution, so the set should be
   cheap: within each strongly connected component, the nodes are put in
   an order that the hot edges follow (Eades, Lin and Smyth's greedy
   heuristic for a small feedback arc set, with the sites' estimated
   frequencies as weights), and the edges that go against the order are
   the back edges.  In a cycle f -> g (rarely) and g -> f (in a loop),
   that makes f -> g the back edge, not g -> f.  Self calls are always
   back edges.  */

/* Tarjan's strongly connected components of G's edges, iteratively:
   COMP[v] = the component of node v; components are numbered from 0.
   Returns the number of components, or -1 when out of memory.  */
static long
find_components (const struct cce_graph *g, const struct adj *a,
                 uint32_t *comp)
{
  size_t nn = g->nnodes;
  uint32_t *index = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  uint32_t *low = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  uint32_t *next = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  uint32_t *call = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  uint32_t *stack = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  unsigned char *on = calloc (nn ? nn : 1, 1);
  long ncomp = 0;
  uint32_t counter = 0;
  size_t sp = 0;

  if (!index || !low || !next || !call || !stack || !on)
    {
      ncomp = -1;
      goto out;
    }
  for (size_t i = 0; i < nn; i++)
    index[i] = UINT32_MAX;
  for (size_t r = 0; r < nn; r++)
    {
      size_t csp = 0;
      if (index[r] != UINT32_MAX)
        continue;
      call[csp++] = (uint32_t) r;
      index[r] = low[r] = counter++;
      next[r] = a->out_index[r];
      stack[sp++] = (uint32_t) r;
      on[r] = 1;
      while (csp)
        {
          uint32_t u = call[csp - 1];
          if (next[u] < a->out_index[u + 1])
            {
              uint32_t v = g->sites[a->out_sites[next[u]++]].target;
              if (index[v] == UINT32_MAX)
                {
                  index[v] = low[v] = counter++;
                  next[v] = a->out_index[v];
                  stack[sp++] = v;
                  on[v] = 1;
                  call[csp++] = v;
                }
              else if (on[v] && index[v] < low[u])
                low[u] = index[v];
              continue;
            }
          csp--;
          if (csp && low[u] < low[call[csp - 1]])
            low[call[csp - 1]] = low[u];
          if (low[u] == index[u])
            {
              uint32_t w;
              do
                {
                  w = stack[--sp];
                  on[w] = 0;
                  comp[w] = (uint32_t) ncomp;
                }
              while (w != u);
              ncomp++;
            }
        }
    }
out:
  free (index);
  free (low);
  free (next);
  free (call);
  free (stack);
  free (on);
  return ncomp;
}

/* The weight of site S in the ordering: its estimated executions per
   entry of its node, never 0, so that edges still count.  */
static double
back_weight (const struct cce_site *s)
{
  return s->freq > 1e-9 ? s->freq : 1e-9;
}

/* Does node FROM reach node TO over direct (not back) edges within
   FROM's component?  SEEN and QUEUE have room for every node; SEEN is
   all 0 on entry and on return.  */
static int
reaches (const struct cce_graph *g, const struct adj *a,
         const uint32_t *comp, uint32_t from, uint32_t to,
         unsigned char *seen, uint32_t *queue)
{
  size_t head = 0, tail = 0;
  int found = from == to;
  queue[tail++] = from;
  seen[from] = 1;
  while (head < tail && !found)
    {
      uint32_t u = queue[head++];
      for (uint32_t k = a->out_index[u]; k < a->out_index[u + 1]; k++)
        {
          const struct cce_site *s = &g->sites[a->out_sites[k]];
          uint32_t v = s->target;
          if (s->kind != CCE_SITE_DIRECT || seen[v] || comp[v] != comp[from])
            continue;
          if (v == to)
            {
              found = 1;
              break;
            }
          seen[v] = 1;
          queue[tail++] = v;
        }
    }
  for (size_t k = 0; k < tail; k++)
    seen[queue[k]] = 0;
  return found;
}

/* A back edge to give back, heaviest first.  */
struct back_item
{
  double weight;
  uint32_t site;
};

static int
back_item_cmp (const void *x, const void *y)
{
  const struct back_item *a = x, *b = y;
  if (a->weight != b->weight)
    return a->weight > b->weight ? -1 : 1;
  return a->site < b->site ? -1 : a->site > b->site;
}

/* The order leaves back edges that no cycle needs: one whose target does
   not reach its caller over the direct edges can be direct again without
   closing a cycle.  Give those back, heaviest first; afterwards every
   back edge closes a cycle of direct edges.  NBACK = the back edges.  */
static int
keep_needed_back_edges (struct cce_graph *g, const struct adj *a,
                        const uint32_t *comp, size_t nback)
{
  size_t nn = g->nnodes, n = 0;
  struct back_item *list = malloc ((nback ? nback : 1) * sizeof *list);
  uint32_t *queue = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  unsigned char *seen = calloc (nn ? nn : 1, 1);
  int ret = -1;
  if (!list || !queue || !seen)
    goto out;
  for (size_t i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_BACK && g->sites[i].reason == 'r'
        && g->sites[i].node != g->sites[i].target)
      {
        list[n].weight = back_weight (&g->sites[i]);
        list[n++].site = (uint32_t) i;
      }
  qsort (list, n, sizeof *list, back_item_cmp);
  for (size_t k = 0; k < n; k++)
    {
      struct cce_site *s = &g->sites[list[k].site];
      if (!reaches (g, a, comp, s->target, s->node, seen, queue))
        {
          s->kind = CCE_SITE_DIRECT;
          s->reason = 0;
        }
    }
  ret = 0;
out:
  free (list);
  free (queue);
  free (seen);
  return ret;
}

static int
mark_back_edges (struct cce_graph *g, const struct adj *a)
{
  size_t nn = g->nnodes;
  uint32_t *comp = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  uint32_t *first = NULL, *members = NULL, *pos = NULL;
  uint32_t *indeg = NULL, *outdeg = NULL;
  double *inw = NULL, *outw = NULL;
  unsigned char *gone = NULL;
  int ret = -1;
  long ncomp;

  if (!comp)
    return -1;
  ncomp = find_components (g, a, comp);
  if (ncomp < 0)
    goto out;
  first = calloc ((size_t) ncomp + 1, sizeof (uint32_t));
  members = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  pos = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  indeg = calloc (nn ? nn : 1, sizeof (uint32_t));
  outdeg = calloc (nn ? nn : 1, sizeof (uint32_t));
  inw = calloc (nn ? nn : 1, sizeof (double));
  outw = calloc (nn ? nn : 1, sizeof (double));
  gone = calloc (nn ? nn : 1, 1);
  if (!first || !members || !pos || !indeg || !outdeg || !inw || !outw
      || !gone)
    goto out;

  /* The members of each component, together.  */
  for (size_t v = 0; v < nn; v++)
    first[comp[v] + 1]++;
  for (long c = 0; c < ncomp; c++)
    first[c + 1] += first[c];
  {
    uint32_t *fill = calloc ((size_t) ncomp + 1, sizeof (uint32_t));
    if (!fill)
      goto out;
    for (size_t v = 0; v < nn; v++)
      members[first[comp[v]] + fill[comp[v]]++] = (uint32_t) v;
    free (fill);
  }

  /* Degrees and weights inside the components, self calls left out.  */
  for (size_t i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      if (!is_edge (g, s) || s->node == s->target
          || comp[s->node] != comp[s->target])
        continue;
      outdeg[s->node]++;
      indeg[s->target]++;
      outw[s->node] += back_weight (s);
      inw[s->target] += back_weight (s);
    }

  /* Order each component: sinks go to the end, sources to the front, and
     otherwise the node whose outgoing weight most exceeds its incoming
     weight comes next.  POS[v] = v's place within its component.  */
  for (long c = 0; c < ncomp; c++)
    {
      uint32_t lo = first[c], hi = first[c + 1], n = hi - lo;
      uint32_t front = 0, back = n, left = n;
      if (n < 2)
        continue;               /* only self calls, always back edges */
      while (left)
        {
          uint32_t pick = UINT32_MAX;
          int to_back = 0;
          double best = 0;
          for (uint32_t k = lo; k < hi; k++)
            {
              uint32_t v = members[k];
              if (gone[v])
                continue;
              if (outdeg[v] == 0)
                {
                  pick = v;
                  to_back = 1;
                  break;
                }
              if (indeg[v] == 0)
                {
                  pick = v;
                  break;
                }
              if (pick == UINT32_MAX || outw[v] - inw[v] > best)
                {
                  pick = v;
                  best = outw[v] - inw[v];
                }
            }
          gone[pick] = 1;
          left--;
          pos[pick] = to_back ? --back : front++;
          /* Take PICK's edges out of its neighbours' degrees.  */
          for (uint32_t k = a->out_index[pick]; k < a->out_index[pick + 1];
               k++)
            {
              const struct cce_site *s = &g->sites[a->out_sites[k]];
              if (s->target != pick && comp[s->target] == (uint32_t) c)
                {
                  indeg[s->target]--;
                  inw[s->target] -= back_weight (s);
                }
            }
          for (uint32_t k = a->in_index[pick]; k < a->in_index[pick + 1];
               k++)
            {
              const struct cce_site *s = &g->sites[a->in_sites[k]];
              if (s->node != pick && comp[s->node] == (uint32_t) c)
                {
                  outdeg[s->node]--;
                  outw[s->node] -= back_weight (s);
                }
            }
        }
    }

  /* Edges against the order, and self calls, are the back edges.  */
  size_t nback = 0;
  for (size_t i = 0; i < g->nsites; i++)
    {
      struct cce_site *s = &g->sites[i];
      if (!is_edge (g, s) || comp[s->node] != comp[s->target])
        continue;
      if (s->node == s->target || pos[s->target] < pos[s->node])
        {
          s->kind = CCE_SITE_BACK;
          s->reason = 'r';
          nback++;
        }
    }
  if (keep_needed_back_edges (g, a, comp, nback) < 0)
    goto out;
  ret = 0;
out:
  free (comp);
  free (first);
  free (members);
  free (pos);
  free (indeg);
  free (outdeg);
  free (inw);
  free (outw);
  free (gone);
  return ret;
}

/* Order of incoming edges when laying out addition values: decreasing
   frequency, then site number.  */
struct slot
{
  uint32_t site;     /* CCE_NONE for the root edge */
  double freq;
  uint64_t width;
};

static int
slot_cmp (const void *pa, const void *pb)
{
  const struct slot *a = pa, *b = pb;

  /* Edges from callers with no contexts go last: they can never occur.  */
  if ((a->width == 0) != (b->width == 0))
    return a->width == 0 ? 1 : -1;
  if (a->freq != b->freq)
    return a->freq > b->freq ? -1 : 1;
  if (a->site != b->site)
    return a->site < b->site ? -1 : 1;
  return 0;
}

/* After the first edge, which gets addition value 0: narrowest first, so
   that as many addition values as possible stay small (an x86-64 add of a
   32-bit immediate, not a 64-bit constant).  */
static int
slot_narrow_cmp (const void *pa, const void *pb)
{
  const struct slot *a = pa, *b = pb;

  if ((a->width == 0) != (b->width == 0))
    return a->width == 0 ? 1 : -1;
  if (a->width != b->width)
    return a->width < b->width ? -1 : 1;
  return slot_cmp (pa, pb);
}

static int
slot_width_cmp (const void *pa, const void *pb)
{
  const struct slot *a = pa, *b = pb;

  if (a->width != b->width)
    return a->width > b->width ? -1 : 1;
  return a->site < b->site ? -1 : a->site > b->site;
}

static int
edge_cmp (const void *pa, const void *pb)
{
  const struct cce_edge *a = pa, *b = pb;

  if (a->node != b->node)
    return a->node < b->node ? -1 : 1;
  if (a->av != b->av)
    return a->av < b->av ? -1 : 1;
  /* Equal av only with empty ranges: put those first, so that the last
     edge at or below an id is the one whose range can hold it.  */
  return (a->site != CCE_NONE) - (b->site != CCE_NONE);
}

/* The number of contexts an edge through SITE carries in G: every id its
   caller can have.  */
static uint64_t
site_width (const struct cce_graph *g, uint32_t site)
{
  return site == CCE_NONE ? 1 : cce_node_width (&g->nodes[g->sites[site].node]);
}

/* Rebuild G's edges[] and each node's first_in/n_in from the nodes' root
   values and the direct sites' addition values.  */
static int
index_edges (struct cce_graph *g)
{
  size_t i, n = 0, k;

  free (g->edges);
  g->edges = NULL;
  g->nedges = 0;
  for (i = 0; i < g->nnodes; i++)
    n += g->nodes[i].has_root;
  for (i = 0; i < g->nsites; i++)
    n += is_edge (g, &g->sites[i]);
  g->edges = malloc ((n ? n : 1) * sizeof *g->edges);
  if (!g->edges)
    return -1;
  for (i = 0; i < g->nnodes; i++)
    if (g->nodes[i].has_root)
      {
        g->edges[g->nedges].node = (uint32_t) i;
        g->edges[g->nedges].site = CCE_NONE;
        g->edges[g->nedges++].av = g->nodes[i].root;
      }
  for (i = 0; i < g->nsites; i++)
    if (is_edge (g, &g->sites[i]))
      {
        g->edges[g->nedges].node = g->sites[i].target;
        g->edges[g->nedges].site = (uint32_t) i;
        g->edges[g->nedges++].av = g->sites[i].av;
      }
  qsort (g->edges, g->nedges, sizeof *g->edges, edge_cmp);
  for (i = 0; i < g->nnodes; i++)
    g->nodes[i].n_in = 0;
  /* The folded sites, by callee and fold index; a slot no site fills
     (only in a broken dictionary) stays CCE_NONE, for validate.  */
  free (g->folds);
  g->nfolds = 0;
  for (i = 0; i < g->nnodes; i++)
    g->nodes[i].nfold = 0;
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].fold != CCE_NONE && g->sites[i].target < g->nnodes)
      {
        g->nodes[g->sites[i].target].nfold++;
        g->nfolds++;
      }
  g->folds = malloc ((g->nfolds ? g->nfolds : 1) * sizeof *g->folds);
  if (!g->folds)
    {
      g->nfolds = 0;
      for (i = 0; i < g->nnodes; i++)
        g->nodes[i].nfold = 0;
      return -1;
    }
  for (i = 0, n = 0; i < g->nnodes; i++)
    {
      g->nodes[i].first_fold = (uint32_t) n;
      n += g->nodes[i].nfold;
    }
  for (i = 0; i < g->nfolds; i++)
    g->folds[i] = CCE_NONE;
  for (i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      if (s->fold != CCE_NONE && s->target < g->nnodes
          && s->fold < g->nodes[s->target].nfold)
        g->folds[g->nodes[s->target].first_fold + s->fold] = (uint32_t) i;
    }
  for (i = 0; i < g->nedges; i = k)
    {
      uint32_t node = g->edges[i].node;
      for (k = i; k < g->nedges && g->edges[k].node == node; k++)
        ;
      g->nodes[node].first_in = (uint32_t) i;
      g->nodes[node].n_in = (uint32_t) (k - i);
    }
  return 0;
}

/* Which nodes clobber the id (cce_node's clobbers): a least fixed point,
   from none.  A ccStack site counts even when dead, since a setjmp keeps
   its push; assuming too many is only slower, never wrong.  */
static void
mark_clobbers (struct cce_graph *g)
{
  size_t i;
  int changed = 1;

  for (i = 0; i < g->nnodes; i++)
    g->nodes[i].clobbers = 0;
  while (changed && !g->preserve_all)
    {
      changed = 0;
      for (i = 0; i < g->nsites; i++)
        {
          const struct cce_site *s = &g->sites[i];
          struct cce_node *n;
          if (s->node >= g->nnodes)
            continue;
          n = &g->nodes[s->node];
          if (n->clobbers || (n->flags & CCE_NODE_ENTRY) || n->keeps_id
              || !n->observed)
            continue;
          if (cce_kind_on_stack (s->kind)
              || (s->kind == CCE_SITE_DIRECT && !s->dead && s->av != 0)
              || cce_site_clobbers (g, (uint32_t) i))
            n->clobbers = changed = 1;
        }
    }
}

/* Steps 2 and 3 for fold limits of BASE[n] * 2^FOLD_BITS (0: no folding): the
   contexts of each node in topological order ORDER, overflow cuts, root
   values and addition values.  Starts over from the back edges of step 1
   (the cuts of an earlier run are undone).  Returns the number of overflow
   cuts, or -1 when out of memory.  */
static long
number_nodes (struct cce_graph *g, const struct adj *a, const uint32_t *order,
              const uint64_t *base, unsigned fold_bits, uint64_t *max_numcc)
{
  size_t nn = g->nnodes, i, j, head, aslots = 0;
  struct slot *slots = NULL;
  double *backfreq = calloc (nn ? nn : 1, sizeof *backfreq);
  double *calls = calloc (nn ? nn : 1, sizeof *calls);
  long cuts = 0;

  if (!backfreq || !calls)
    {
      cuts = -1;
      goto out;
    }
  *max_numcc = 0;
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_BACK && g->sites[i].reason == 'o')
      {
        g->sites[i].kind = CCE_SITE_DIRECT;
        g->sites[i].reason = 0;
      }
  for (i = 0; i < nn; i++)
    {
      g->nodes[i].numcc = 0;
      g->nodes[i].has_root = (g->nodes[i].flags & CCE_NODE_ENTRY) != 0;
      g->nodes[i].root = 0;
      g->nodes[i].fold_lim = 0;
    }
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_BACK)
      {
        g->nodes[g->sites[i].target].has_root = 1;
        backfreq[g->sites[i].target] += g->sites[i].freq;
      }

  for (head = 0; head < nn; head++)
    {
      uint32_t n = order[head];
      struct cce_node *node = &g->nodes[n];
      size_t nslots = 0, k;
      uint64_t sum;
      int overflow;

      if (GROW (slots, aslots, a->in_index[n + 1] - a->in_index[n] + 1) < 0)
        {
          cuts = -1;
          goto out;
        }
      /* A site's freq is relative to its caller's entry; estimate how
         often each node runs (entry nodes once) to compare edges from
         different callers.  */
      calls[n] = (node->flags & CCE_NODE_ENTRY) ? 1.0 : 0.0;
      for (j = a->in_index[n]; j < a->in_index[n + 1]; j++)
        {
          uint32_t s = a->in_sites[j];
          slots[nslots].site = s;
          slots[nslots].freq = calls[g->sites[s].node] * g->sites[s].freq;
          calls[n] += slots[nslots].freq;
          slots[nslots++].width = cce_node_width (&g->nodes[g->sites[s].node]);
        }

      /* Overflow: cut the widest edges to the ccStack until it fits.  */
      do
        {
          overflow = 0;
          sum = node->has_root ? 1 : 0;
          for (k = 0; k < nslots && !overflow; k++)
            overflow = __builtin_add_overflow (sum, slots[k].width, &sum);
          if (overflow)
            {
              qsort (slots, nslots, sizeof *slots, slot_width_cmp);
              g->sites[slots[0].site].kind = CCE_SITE_BACK;
              g->sites[slots[0].site].reason = 'o';
              backfreq[n] += slots[0].freq;
              node->has_root = 1;
              cuts++;
              memmove (slots, slots + 1, --nslots * sizeof *slots);
            }
        }
      while (overflow);
      node->numcc = sum;
      /* Folded recursion: the ids above the contexts, as many as fit.  */
      /* Folded recursion: the ids above the contexts.  The limit is
         relative to the ids the callers of the folded sites have without
         folding (BASE, at least 1), so that a recursion folds about
         FOLD_BITS / log2 (K + 1) levels deep before it pushes; with one
         folded site the id grows by a sum, not a factor: 2^12 levels
         between two pushes make the push's cost vanish, and bound what a
         corrupted id makes the decoder walk.  As many as fit.  */
      if (node->nfold && fold_bits)
        {
          unsigned bits = node->nfold == 1 && fold_bits > 12 ? 12 : fold_bits;
          uint64_t b = base[n] > sum ? base[n] : sum;
          uint64_t room = (UINT64_MAX - sum) / node->nfold;
          uint64_t lim = b ? b : 1;
          if (lim > room >> bits)
            lim = room;
          else
            lim <<= bits;
          node->fold_lim = lim;
        }

      /* Step 3: lay the edges out, the root edge of an entry node first,
         else the hottest; then the others narrowest first.  */
      if (node->has_root)
        {
          slots[nslots].site = CCE_NONE;
          slots[nslots].freq = backfreq[n];
          slots[nslots++].width = 1;
        }
      qsort (slots, nslots, sizeof *slots, slot_cmp);
      if ((node->flags & CCE_NODE_ENTRY) && nslots > 1)
        for (k = 0; k < nslots; k++)
          if (slots[k].site == CCE_NONE)
            {
              struct slot root = slots[k];
              memmove (slots + 1, slots, k * sizeof *slots);
              slots[0] = root;
              break;
            }
      if (nslots > 2)
        qsort (slots + 1, nslots - 1, sizeof *slots, slot_narrow_cmp);
      sum = 0;
      for (k = 0; k < nslots; k++)
        {
          if (slots[k].site == CCE_NONE)
            node->root = sum;
          else
            g->sites[slots[k].site].av = sum;
          sum += slots[k].width;
        }
      if (node->numcc > *max_numcc)
        *max_numcc = node->numcc;
    }
out:
  free (slots);
  free (backfreq);
  free (calls);
  return cuts;
}

int
cce_graph_encode (struct cce_graph *g, struct cce_encode_stats *stats,
                  char *err, size_t errlen)
{
  /* Fold limits tried, largest first, from BASE * 2^FOLD_MAX down
     (number_nodes): 2^32 lets a recursion with two calls of itself go
     about 30 levels deep before it pushes.  */
  static const unsigned fold_bits[] = { 48, 40, 32, 24, 16, 8, 4 };
  unsigned fold_max = g->fold_max > 0 && g->fold_max < 64
                      ? (unsigned) g->fold_max : 32;
  struct adj a;
  size_t nn = g->nnodes, i, j, head = 0, tail = 0, nfolded = 0;
  uint32_t *order = NULL, *indeg = NULL;
  uint64_t *base = NULL;
  struct cce_encode_stats st;
  long cuts0, cuts;

  memset (&st, 0, sizeof st);
  memset (&a, 0, sizeof a);
  for (i = 0; i < g->nsites; i++)
    {
      struct cce_site *s = &g->sites[i];
      if (s->node >= nn)
        {
          set_err (err, errlen, "site %zu is in node %" PRIu32
                   " of %zu", i, s->node, nn);
          return -1;
        }
      /* Encoding may be run again on a graph read back: start over.  */
      if (s->kind == CCE_SITE_BACK)
        s->kind = CCE_SITE_DIRECT;
      s->reason = 0;
      s->av = 0;
      s->fold = CCE_NONE;
      if ((s->kind == CCE_SITE_DIRECT) && s->target >= nn)
        {
          set_err (err, errlen, "direct site %zu calls node %" PRIu32
                   " of %zu", i, s->target, nn);
          return -1;
        }
    }
  for (i = 0; i < nn; i++)
    {
      g->nodes[i].nfold = 0;
      g->nodes[i].fold_lim = 0;
    }

  /* Step 0, then step 1 over the live edges.  */
  if (mark_observed (g) < 0)
    goto oom;
  if (adj_build (g, &a) < 0 || mark_back_edges (g, &a) < 0)
    goto oom;
  adj_free (&a);
  if (adj_build (g, &a) < 0)
    goto oom;

  order = malloc ((nn ? nn : 1) * sizeof *order);
  indeg = calloc (nn ? nn : 1, sizeof *indeg);
  if (!order || !indeg)
    goto oom;

  /* Step 2: Kahn's topological order over the remaining direct edges.  */
  for (i = 0; i < nn; i++)
    indeg[i] = a.in_index[i + 1] - a.in_index[i];
  for (i = 0; i < nn; i++)
    if (!indeg[i])
      order[tail++] = (uint32_t) i;
  while (head < tail)
    {
      uint32_t u = order[head++];
      for (j = a.out_index[u]; j < a.out_index[u + 1]; j++)
        if (--indeg[g->sites[a.out_sites[j]].target] == 0)
          order[tail++] = g->sites[a.out_sites[j]].target;
    }
  if (tail != nn)
    {
      set_err (err, errlen, "call graph still cyclic after removing "
               "back edges");
      goto fail;
    }

  /* Recursion folded into the id: every back edge of recursion gets its
     index among those into its callee.  The largest fold limit that cuts
     no more edges for overflow than no folding at all is taken.  */
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_BACK)
      {
        g->sites[i].fold = g->nodes[g->sites[i].target].nfold++;
        nfolded++;
      }
  if (g->fold_max < 0)
    nfolded = 0;
  base = calloc (nn ? nn : 1, sizeof *base);
  if (!base)
    goto oom;
  cuts0 = number_nodes (g, &a, order, base, 0, &st.max_numcc);
  if (cuts0 < 0)
    goto oom;
  /* BASE of a folded node: the most contexts it or a caller of a folded
     site into it has without folding.  */
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].fold != CCE_NONE)
      {
        uint32_t t = g->sites[i].target, c = g->sites[i].node;
        if (g->nodes[t].numcc > base[t])
          base[t] = g->nodes[t].numcc;
        if (g->nodes[c].numcc > base[t])
          base[t] = g->nodes[c].numcc;
      }
  for (i = 0; nfolded && i <= sizeof fold_bits / sizeof *fold_bits; i++)
    {
      /* 2^FOLD_MAX itself, then the listed limits below it.  */
      unsigned bits = i == 0 ? fold_max : fold_bits[i - 1];
      if (i > 0 && bits >= fold_max)
        continue;
      cuts = number_nodes (g, &a, order, base, bits, &st.max_numcc);
      if (cuts < 0)
        goto oom;
      if (cuts <= cuts0)
        {
          st.fold_bits = bits;
          break;
        }
    }
  if (nfolded && !st.fold_bits
      && number_nodes (g, &a, order, base, 0, &st.max_numcc) < 0)
    goto oom;
  for (i = 0; i < g->nsites; i++)
    {
      struct cce_site *s = &g->sites[i];
      if (s->fold != CCE_NONE && !g->nodes[s->target].fold_lim)
        {
          s->fold = CCE_NONE;
          g->nodes[s->target].nfold = 0;
        }
    }

  if (index_edges (g) < 0)
    goto oom;
  mark_clobbers (g);
  for (i = 0; i < g->nnodes; i++)
    st.clobber_nodes += g->nodes[i].clobbers != 0;
  for (i = 0; i < g->nsites; i++)
    st.clobber_sites += cce_site_clobbers (g, (uint32_t) i);

  for (i = 0; i < g->nsites; i++)
    st.dead_sites += g->sites[i].dead;
  for (i = 0; i < g->nsites; i++)
    switch (g->sites[i].kind)
      {
      case CCE_SITE_DIRECT:
        st.direct_sites++;
        st.zero_sites += !g->sites[i].dead && g->sites[i].av == 0;
        break;
      case CCE_SITE_BACK:
        if (g->sites[i].reason == 'o')
          st.overflow_sites++;
        else
          st.back_sites++;
        st.folded_sites += g->sites[i].fold != CCE_NONE;
        break;
      case CCE_SITE_INDIRECT:
        st.indirect_sites++;
        break;
      case CCE_SITE_EXTERNAL:
        st.external_sites++;
        break;
      case CCE_SITE_LOG:
      case CCE_SITE_TRACE:
        st.log_sites++;
        break;
      }
  if (stats)
    *stats = st;
  adj_free (&a);
  free (order);
  free (indeg);
  free (base);
  return 0;

oom:
  set_err (err, errlen, "%s", strerror (ENOMEM));
fail:
  adj_free (&a);
  free (order);
  free (indeg);
  free (base);
  return -1;
}

int
cce_site_fold (const struct cce_graph *g, uint32_t site, uint64_t id,
               uint64_t *callee_id)
{
  const struct cce_site *s = &g->sites[site];
  const struct cce_node *t;

  if (s->kind != CCE_SITE_BACK || s->fold == CCE_NONE
      || s->target >= g->nnodes)
    return 0;
  t = &g->nodes[s->target];
  if (id >= t->fold_lim)
    return 0;
  *callee_id = t->numcc + id * t->nfold + s->fold;
  return 1;
}

uint64_t
cce_site_entry (const struct cce_graph *g, uint32_t site)
{
  const struct cce_site *s = &g->sites[site];

  if (s->kind == CCE_SITE_BACK && s->target < g->nnodes)
    return g->nodes[s->target].root;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Dictionary text.                                                   */

struct buf
{
  char *p;
  size_t len, alloc;
  int failed;
};

static void
buf_add (struct buf *b, const char *s, size_t n)
{
  if (b->failed || GROW (b->p, b->alloc, b->len + n + 1) < 0)
    {
      b->failed = 1;
      return;
    }
  memcpy (b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

static void
buf_printf (struct buf *b, const char *fmt, ...)
{
  char tmp[256];
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (tmp, sizeof tmp, fmt, ap);
  va_end (ap);
  if (n < 0 || (size_t) n >= sizeof tmp)
    b->failed = 1;
  else
    buf_add (b, tmp, (size_t) n);
}

static void
buf_num (struct buf *b, uint32_t v)
{
  if (v == CCE_NONE)
    buf_add (b, " -", 2);
  else
    buf_printf (b, " %" PRIu32, v);
}

int
cce_graph_write_dict (struct cce_graph *g, char **text, size_t *len)
{
  struct buf b = { 0 };
  size_t i, j;
  char head[64];
  int hlen;

  for (i = 0; i < g->nstrings; i++)
    {
      const char *s = g->strings[i];
      buf_add (&b, "s ", 2);
      for (; *s; s++)
        if (*s == '\\')
          buf_add (&b, "\\\\", 2);
        else if (*s == '\n')
          buf_add (&b, "\\n", 2);
        else
          buf_add (&b, s, 1);
      buf_add (&b, "\n", 1);
    }
  for (i = 0; i < g->nfuncs; i++)
    buf_printf (&b, "f %" PRIu32 " %" PRIu32 " %" PRIu32 "\n",
                g->funcs[i].name, g->funcs[i].file, g->funcs[i].line);
  for (i = 0; i < g->nnodes; i++)
    {
      const struct cce_node *n = &g->nodes[i];
      buf_printf (&b, "n %" PRIu32 " %" PRIx32 " %" PRIu64, n->func,
                  n->flags, n->numcc);
      if (n->has_root)
        buf_printf (&b, " %" PRIu64 "\n", n->root);
      else
        buf_add (&b, " -\n", 3);
    }
  for (i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      buf_printf (&b, "c %" PRIu32 " %c", s->node, s->kind);
      buf_num (&b, s->target);
      buf_printf (&b, " %" PRIu32, s->nframes);
      for (j = 0; j < s->nframes; j++)
        {
          const struct cce_frame *f = &g->frames[s->first_frame + j];
          buf_num (&b, f->func);
          buf_num (&b, f->file);
          buf_printf (&b, " %" PRIu32 " %" PRIu32, f->line, f->col);
        }
      buf_add (&b, "\n", 1);
    }
  for (i = 0; i < g->nsites; i++)
    if (is_edge (g, &g->sites[i]))
      buf_printf (&b, "e %" PRIu32 " %zu %" PRIu64 "\n", g->sites[i].target,
                  i, g->sites[i].av);
  for (i = 0; i < g->nnodes; i++)
    if (g->nodes[i].nfold)
      {
        const struct cce_node *n = &g->nodes[i];
        buf_printf (&b, "r %zu %" PRIu64 " %" PRIu32, i, n->fold_lim,
                    n->nfold);
        for (j = 0; j < n->nfold; j++)
          buf_printf (&b, " %" PRIu32, g->folds[n->first_fold + j]);
        buf_add (&b, "\n", 1);
      }
  if (b.failed)
    {
      free (b.p);
      return -1;
    }
  g->stamp = cce_fnv1a64 (b.p ? b.p : "", b.len);
  hlen = snprintf (head, sizeof head, "%s %d %016" PRIx64 "\n",
                   CCE_DICT_MAGIC, CCE_DICT_VERSION, g->stamp);
  *text = malloc (hlen + b.len + 1);
  if (!*text)
    {
      free (b.p);
      return -1;
    }
  memcpy (*text, head, hlen);
  if (b.len)
    memcpy (*text + hlen, b.p, b.len);
  (*text)[hlen + b.len] = 0;
  *len = hlen + b.len;
  free (b.p);
  return 0;
}

/* A cursor over dictionary text for the reader.  */
struct reader
{
  const char *p, *end;
  size_t line;
  char *err;
  size_t errlen;
  int failed;
};

static void
rd_fail (struct reader *r, const char *what)
{
  if (!r->failed)
    set_err (r->err, r->errlen, "dictionary line %zu: %s", r->line, what);
  r->failed = 1;
}

/* Read a space and a decimal (HEX: hexadecimal) number, or '-' (CCE_NONE
   / UINT64_MAX) when DASH_OK.  */
static uint64_t
rd_num (struct reader *r, int hex, int dash_ok, int *dash)
{
  uint64_t v = 0;
  int digits = 0;

  if (dash)
    *dash = 0;
  if (r->failed)
    return 0;
  if (r->p >= r->end || *r->p != ' ')
    {
      rd_fail (r, "missing field");
      return 0;
    }
  r->p++;
  if (dash_ok && r->p < r->end && *r->p == '-')
    {
      r->p++;
      if (dash)
        *dash = 1;
      return UINT64_MAX;
    }
  for (; r->p < r->end; r->p++, digits++)
    {
      int d;
      char c = *r->p;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (hex && c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else
        break;
      if (__builtin_mul_overflow (v, hex ? 16 : 10, &v)
          || __builtin_add_overflow (v, (uint64_t) d, &v))
        {
          rd_fail (r, "number out of range");
          return 0;
        }
    }
  if (!digits)
    rd_fail (r, "bad number");
  return v;
}

static uint32_t
rd_u32 (struct reader *r, int dash_ok)
{
  int dash;
  uint64_t v = rd_num (r, 0, dash_ok, &dash);

  if (dash)
    return CCE_NONE;
  if (v >= CCE_NONE)
    {
      rd_fail (r, "number out of range");
      return 0;
    }
  return (uint32_t) v;
}

static void
rd_eol (struct reader *r)
{
  if (r->failed)
    return;
  if (r->p >= r->end || *r->p != '\n')
    rd_fail (r, "junk at end of line");
  else
    r->p++;
  r->line++;
}

/* Check that everything in G refers to things that exist, and that each
   node's incoming ranges are disjoint and inside its numCC.  */
static int
validate (struct cce_graph *g, char *err, size_t errlen)
{
  size_t i, j;

#define BAD(...) do { set_err (err, errlen, __VA_ARGS__); return -1; } while (0)
  for (i = 0; i < g->nfuncs; i++)
    if (g->funcs[i].name >= g->nstrings || g->funcs[i].file >= g->nstrings)
      BAD ("dictionary: function %zu names a missing string", i);
  for (i = 0; i < g->nnodes; i++)
    {
      if (g->nodes[i].func >= g->nfuncs)
        BAD ("dictionary: node %zu names a missing function", i);
      /* Indirect and external calls enter an entry node with id 0.  */
      if ((g->nodes[i].flags & CCE_NODE_ENTRY)
          && (!g->nodes[i].has_root || g->nodes[i].root != 0))
        BAD ("dictionary: entry node %zu does not start at id 0", i);
    }
  for (i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      if (s->node >= g->nnodes)
        BAD ("dictionary: site %zu is in a missing node", i);
      switch (s->kind)
        {
        case CCE_SITE_DIRECT:
        case CCE_SITE_BACK:
          if (s->target >= g->nnodes)
            BAD ("dictionary: site %zu calls a missing node", i);
          if (s->kind == CCE_SITE_BACK && !g->nodes[s->target].has_root)
            BAD ("dictionary: ccStack site %zu calls a node with no root", i);
          break;
        case CCE_SITE_EXTERNAL:
          if (s->target >= g->nstrings)
            BAD ("dictionary: site %zu names a missing string", i);
          break;
        case CCE_SITE_INDIRECT:
        case CCE_SITE_LOG:
        case CCE_SITE_TRACE:
          break;
        default:
          BAD ("dictionary: site %zu has unknown kind '%c'", i, s->kind);
        }
      if (s->nframes == 0)
        BAD ("dictionary: site %zu has no frames", i);
      for (j = 0; j < s->nframes; j++)
        {
          const struct cce_frame *f = &g->frames[s->first_frame + j];
          if (f->func >= g->nfuncs
              || (f->file != CCE_NONE && f->file >= g->nstrings))
            BAD ("dictionary: site %zu has a frame naming nothing", i);
        }
    }
  for (i = 0; i < g->nfolds; i++)
    if (g->folds[i] == CCE_NONE)
      BAD ("dictionary: folded recursion with a missing site");
  for (i = 0; i < g->nnodes; i++)
    if (g->nodes[i].nfold && g->nodes[i].numcc == 0)
      BAD ("dictionary: folded recursion into node %zu without contexts", i);
  for (i = 0; i < g->nnodes; i++)
    {
      const struct cce_node *n = &g->nodes[i];
      uint64_t end = 0;
      for (j = n->first_in; j < (size_t) n->first_in + n->n_in; j++)
        {
          const struct cce_edge *e = &g->edges[j];
          uint64_t w = site_width (g, e->site), last;
          if (w == 0)
            continue;
          if (e->av < end || __builtin_add_overflow (e->av, w - 1, &last)
              || last >= n->numcc)
            BAD ("dictionary: node %zu has overlapping contexts", i);
          end = last + 1;
        }
    }
#undef BAD
  return 0;
}

struct cce_graph *
cce_graph_read_dict (const char *text, size_t len, char *err, size_t errlen)
{
  struct reader r = { text, text + len, 1, err, errlen, 0 };
  struct cce_graph *g;
  const char *nl;
  char magic[16], head[64];
  unsigned version;
  uint64_t stamp;
  size_t i;
  int nread = 0;

  nl = memchr (text, '\n', len);
  /* The header is parsed from a NUL-terminated copy: TEXT may end exactly
     at the end of readable memory.  */
  if (nl && nl - text <= 60)
    {
      memcpy (head, text, (size_t) (nl - text));
      head[nl - text] = 0;
    }
  if (!nl || nl - text > 60
      || sscanf (head, "%15s %u %16" SCNx64 "%n", magic, &version, &stamp,
                 &nread) != 3
      || strcmp (magic, CCE_DICT_MAGIC) != 0 || head + nread != head + (nl - text)
      || nl - text < 17 || strspn (nl - 16, "0123456789abcdef") != 16)
    {
      set_err (err, errlen, "not a cce dictionary");
      return NULL;
    }
  if (version != CCE_DICT_VERSION)
    {
      set_err (err, errlen, "dictionary version %u, this decoder reads %d",
               version, CCE_DICT_VERSION);
      return NULL;
    }
  r.p = nl + 1;
  r.line = 2;
  if (cce_fnv1a64 (r.p, (size_t) (r.end - r.p)) != stamp)
    {
      set_err (err, errlen, "dictionary is damaged (stamp mismatch)");
      return NULL;
    }
  g = cce_graph_new ();
  if (!g)
    {
      set_err (err, errlen, "%s", strerror (ENOMEM));
      return NULL;
    }
  g->stamp = stamp;

  while (r.p < r.end && !r.failed)
    {
      char kind = *r.p++;
      if (kind == 's')
        {
          const char *e = memchr (r.p, '\n', (size_t) (r.end - r.p));
          char *s, *q;
          if (!e || r.p >= e || *r.p != ' ')
            {
              rd_fail (&r, "bad string");
              break;
            }
          s = malloc ((size_t) (e - r.p));
          if (!s)
            goto oom;
          for (q = s, r.p++; r.p < e; r.p++)
            if (*r.p == '\\' && r.p + 1 < e)
              *q++ = *++r.p == 'n' ? '\n' : *r.p;
            else
              *q++ = *r.p;
          *q = 0;
          if (add_string (g, s) == CCE_NONE)
            {
              free (s);
              goto oom;
            }
          free (s);
          r.p = e;
        }
      else if (kind == 'f')
        {
          struct cce_func f;
          f.name = rd_u32 (&r, 0);
          f.file = rd_u32 (&r, 0);
          f.line = rd_u32 (&r, 0);
          if (GROW (g->funcs, g->afuncs, g->nfuncs + 1) < 0)
            goto oom;
          g->funcs[g->nfuncs++] = f;
        }
      else if (kind == 'n')
        {
          struct cce_node n;
          int dash;
          memset (&n, 0, sizeof n);
          n.func = rd_u32 (&r, 0);
          n.flags = (uint32_t) rd_num (&r, 1, 0, NULL);
          n.numcc = rd_num (&r, 0, 0, NULL);
          n.root = rd_num (&r, 0, 1, &dash);
          n.has_root = !dash;
          if (dash)
            n.root = 0;
          if (GROW (g->nodes, g->anodes, g->nnodes + 1) < 0)
            goto oom;
          g->nodes[g->nnodes++] = n;
        }
      else if (kind == 'c')
        {
          uint32_t node, target, nfr, j;
          char k;
          node = rd_u32 (&r, 0);
          if (r.p + 2 > r.end || r.p[0] != ' ')
            {
              rd_fail (&r, "bad site kind");
              break;
            }
          k = r.p[1];
          r.p += 2;
          target = rd_u32 (&r, 1);
          nfr = rd_u32 (&r, 0);
          if (r.failed)
            break;
          if (nfr > (size_t) (r.end - r.p) / 8)
            {
              rd_fail (&r, "too many frames");
              break;
            }
          if (cce_graph_site (g, node, k, target, 0) == CCE_NONE)
            goto oom;
          /* A direct site is an edge only with its 'e' line.  */
          g->sites[g->nsites - 1].dead = k == CCE_SITE_DIRECT;
          for (j = 0; j < nfr && !r.failed; j++)
            {
              struct cce_frame f;
              f.func = rd_u32 (&r, 0);
              f.file = rd_u32 (&r, 1);
              f.line = rd_u32 (&r, 0);
              f.col = rd_u32 (&r, 0);
              if (GROW (g->frames, g->aframes, g->nframes + 1) < 0)
                goto oom;
              g->frames[g->nframes++] = f;
              g->sites[g->nsites - 1].nframes++;
            }
        }
      else if (kind == 'e')
        {
          uint32_t node = rd_u32 (&r, 0);
          uint32_t site = rd_u32 (&r, 0);
          uint64_t av = rd_num (&r, 0, 0, NULL);
          if (r.failed)
            break;
          if (site >= g->nsites || g->sites[site].kind != CCE_SITE_DIRECT
              || g->sites[site].target != node)
            {
              rd_fail (&r, "edge does not match its site");
              break;
            }
          g->sites[site].av = av;
          g->sites[site].dead = 0;
        }
      else if (kind == 'r')
        {
          uint32_t node = rd_u32 (&r, 0), j, k;
          uint64_t lim = rd_num (&r, 0, 0, NULL), w;
          k = rd_u32 (&r, 0);
          if (r.failed)
            break;
          if (node >= g->nnodes || g->nodes[node].fold_lim || lim == 0
              || k == 0 || k > g->nsites
              || __builtin_mul_overflow (lim, (uint64_t) k, &w)
              || __builtin_add_overflow (w, g->nodes[node].numcc, &w))
            {
              rd_fail (&r, "bad folded recursion");
              break;
            }
          g->nodes[node].fold_lim = lim;
          for (j = 0; j < k && !r.failed; j++)
            {
              uint32_t site = rd_u32 (&r, 0);
              if (r.failed)
                break;
              if (site >= g->nsites || g->sites[site].kind != CCE_SITE_BACK
                  || g->sites[site].target != node
                  || g->sites[site].fold != CCE_NONE)
                rd_fail (&r, "folded site does not match its node");
              else
                g->sites[site].fold = j;
            }
        }
      else
        {
          rd_fail (&r, "unknown entry");
          break;
        }
      rd_eol (&r);
    }
  if (r.failed)
    {
      cce_graph_free (g);
      return NULL;
    }
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_DIRECT && g->sites[i].target >= g->nnodes)
      {
        set_err (err, errlen, "dictionary: site %zu calls a missing node", i);
        cce_graph_free (g);
        return NULL;
      }
  if (index_edges (g) < 0)
    goto oom;
  if (validate (g, err, errlen) < 0)
    {
      cce_graph_free (g);
      return NULL;
    }
  /* Rebuild the interning table for lookups by callers.  */
  {
    size_t n = 64;
    while (n < 2 * g->nstrings + 2)
      n *= 2;
    if (intern_rehash (g, n) < 0)
      goto oom;
  }
  g->modules = malloc (sizeof *g->modules);
  if (!g->modules)
    goto oom;
  g->modules[0].key = cce_module_key (g->stamp);
  g->modules[0].first_site = 0;
  g->modules[0].nsites = (uint32_t) g->nsites;
  g->modules[0].stamp = g->stamp;
  g->nmodules = 1;
  return g;

oom:
  set_err (err, errlen, "%s", strerror (ENOMEM));
  cce_graph_free (g);
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Modules.                                                           */

int
cce_graph_merge (struct cce_graph *dst, const struct cce_graph *src,
                 char *err, size_t errlen)
{
  size_t i, sbase, fbase, nbase, frbase;
  uint32_t *smap = NULL;

  if (dst->nmodules == 0 || src->nmodules != 1)
    {
      set_err (err, errlen, "only graphs read from dictionaries merge");
      return -1;
    }
  for (i = 0; i < dst->nmodules; i++)
    if (dst->modules[i].key == src->modules[0].key)
      {
        set_err (err, errlen, "two modules with the key %08" PRIx32
                 " (the same dictionary twice?)", dst->modules[i].key);
        return -1;
      }
  if ((uint64_t) dst->nsites + src->nsites >= CCE_THREAD_MARK
      || (uint64_t) dst->nnodes + src->nnodes >= CCE_NONE
      || (uint64_t) dst->nframes + src->nframes >= CCE_NONE)
    {
      set_err (err, errlen, "merged graph too large");
      return -1;
    }
  smap = malloc ((src->nstrings ? src->nstrings : 1) * sizeof *smap);
  if (!smap)
    goto oom;
  for (i = 0; i < src->nstrings; i++)
    if ((smap[i] = cce_graph_string (dst, src->strings[i])) == CCE_NONE)
      goto oom;
  fbase = dst->nfuncs;
  nbase = dst->nnodes;
  sbase = dst->nsites;
  frbase = dst->nframes;
  if (GROW (dst->funcs, dst->afuncs, fbase + src->nfuncs + 1) < 0
      || GROW (dst->nodes, dst->anodes, nbase + src->nnodes + 1) < 0
      || GROW (dst->sites, dst->asites, sbase + src->nsites + 1) < 0
      || GROW (dst->frames, dst->aframes, frbase + src->nframes + 1) < 0)
    goto oom;
  {
    struct cce_module *m = realloc (dst->modules, (dst->nmodules + 1)
                                                  * sizeof *m);
    if (!m)
      goto oom;
    dst->modules = m;
  }
  for (i = 0; i < src->nfuncs; i++)
    {
      struct cce_func f = src->funcs[i];
      f.name = smap[f.name];
      f.file = smap[f.file];
      dst->funcs[fbase + i] = f;
    }
  for (i = 0; i < src->nnodes; i++)
    {
      struct cce_node n = src->nodes[i];
      n.func += (uint32_t) fbase;
      dst->nodes[nbase + i] = n;
    }
  for (i = 0; i < src->nsites; i++)
    {
      struct cce_site st = src->sites[i];
      st.node += (uint32_t) nbase;
      if (st.kind == CCE_SITE_DIRECT || st.kind == CCE_SITE_BACK)
        st.target += (uint32_t) nbase;
      else if (st.kind == CCE_SITE_EXTERNAL)
        st.target = smap[st.target];
      st.first_frame += (uint32_t) frbase;
      dst->sites[sbase + i] = st;
    }
  for (i = 0; i < src->nframes; i++)
    {
      struct cce_frame f = src->frames[i];
      f.func += (uint32_t) fbase;
      if (f.file != CCE_NONE)
        f.file = smap[f.file];
      dst->frames[frbase + i] = f;
    }
  dst->nfuncs += src->nfuncs;
  dst->nnodes += src->nnodes;
  dst->nsites += src->nsites;
  dst->nframes += src->nframes;
  dst->modules[dst->nmodules] = src->modules[0];
  dst->modules[dst->nmodules].first_site = (uint32_t) sbase;
  dst->nmodules++;
  free (smap);
  if (index_edges (dst) < 0)
    {
      set_err (err, errlen, "%s", strerror (ENOMEM));
      return -1;
    }
  return 0;

oom:
  free (smap);
  set_err (err, errlen, "%s", strerror (ENOMEM));
  return -1;
}

uint32_t
cce_site_of_word (const struct cce_graph *g, uint64_t word)
{
  uint32_t key = CCE_SITE_KEY (word), idx = CCE_SITE_INDEX (word);
  size_t i;

  if (key == 0 || g->nmodules == 0)
    {
      /* A plain site number: of the main dictionary, or of a graph built
         in memory.  */
      size_t n = g->nmodules ? g->modules[0].nsites : g->nsites;
      return key == 0 && idx < n ? idx : CCE_NONE;
    }
  for (i = 0; i < g->nmodules; i++)
    if (g->modules[i].key == key)
      return idx < g->modules[i].nsites ? g->modules[i].first_site + idx
                                        : CCE_NONE;
  return CCE_NONE;
}

/* ------------------------------------------------------------------ */
/* Decoding.                                                          */

/* The incoming edge of node N whose range holds ID, or NULL.  The root
   edge is not returned.  */
static const struct cce_edge *
find_edge (const struct cce_graph *g, uint32_t n, uint64_t id)
{
  const struct cce_node *node = &g->nodes[n];
  size_t lo = node->first_in, hi = (size_t) node->first_in + node->n_in;
  const struct cce_edge *e;

  /* The last edge with av <= id.  */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (g->edges[mid].av <= id)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == node->first_in)
    return NULL;
  e = &g->edges[lo - 1];
  if (e->site == CCE_NONE || id - e->av >= site_width (g, e->site))
    return NULL;
  return e;
}

/* Is S a call out of the program to a function that sends a signal to the
   calling process (and so is where a synchronous signal arrives)?  */
static int
signal_sender (const struct cce_graph *g, const struct cce_site *s)
{
  static const char *const senders[] = {
    "raise", "kill", "abort", "pthread_kill", "tgkill", "killpg",
    "sigqueue", "pthread_sigqueue", "tkill", NULL
  };
  int i;

  if (s->kind != CCE_SITE_EXTERNAL || s->target >= g->nstrings)
    return 0;
  for (i = 0; senders[i]; i++)
    if (strcmp (g->strings[s->target], senders[i]) == 0)
      return 1;
  return 0;
}

/* A path of folded recursion is as long as the recursion was deep; a
   machine stack holds far fewer frames than this.  */
#define CCE_DECODE_MAX_FRAMES (UINT64_C (1) << 20)

enum cce_decode_status
cce_decode (const struct cce_graph *g, uint64_t site, uint64_t id,
            const struct cce_stack_entry *stack, size_t nstack,
            uint32_t *sites, size_t maxsites, size_t *nsites,
            const char **reason)
{
  size_t count = 0, k = nstack, i;
  uint32_t n, ls;
  enum cce_decode_status status = CCE_DECODE_OK;
  const char *why = NULL;

#define EMIT(s) do { if (count < maxsites) sites[count] = (s); count++; } \
  while (0)
#define GIVE_UP(msg) do { status = CCE_DECODE_INCOMPLETE; why = (msg); \
  goto done; } while (0)

  if (site == CCE_SITE_NONE)
    GIVE_UP ("logged from code built without cce");
  ls = cce_site_of_word (g, site);
  if (ls == CCE_NONE)
    GIVE_UP (CCE_SITE_KEY (site) == 0 || g->nmodules == 0
             || cce_site_of_word (g, CCE_SITE_WORD (CCE_SITE_KEY (site), 0))
                != CCE_NONE
             ? "log site unknown to the dictionary"
             : "logged in a module whose dictionary was not given");
  if (g->sites[ls].kind != CCE_SITE_LOG && g->sites[ls].kind != CCE_SITE_TRACE)
    GIVE_UP ("log site unknown to the dictionary");
  EMIT (ls);
  n = g->sites[ls].node;
  for (;;)
    {
      const struct cce_node *node;
      const struct cce_site *s;
      const struct cce_stack_entry *top;
      uint32_t ts;

      /* Walk up through one segment.  Each step goes up an edge of the
         acyclic graph, so it ends within nnodes steps, or up a folded
         back edge, which makes the id smaller.  */
      for (i = 0;; i++)
        {
          const struct cce_edge *e;
          node = &g->nodes[n];
          if (node->has_root && id == node->root)
            break;
          if (i > g->nnodes)
            GIVE_UP ("dictionary is cyclic");
          if (id >= node->numcc && node->nfold)
            {
              uint64_t rel = id - node->numcc;
              uint32_t fs;
              if (rel / node->nfold >= node->fold_lim)
                GIVE_UP ("context id does not fit the call graph");
              if (count > CCE_DECODE_MAX_FRAMES)
                GIVE_UP ("path longer than the decoder follows");
              fs = g->folds[node->first_fold + rel % node->nfold];
              id = rel / node->nfold;
              EMIT (fs);
              n = g->sites[fs].node;
              i = 0;
              continue;
            }
          e = find_edge (g, n, id);
          if (!e)
            GIVE_UP ("context id does not fit the call graph");
          id -= e->av;
          EMIT (e->site);
          n = g->sites[e->site].node;
        }
      if (k == 0)
        {
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("path starts at a function that is not an entry");
          break;
        }
      top = &stack[--k];
      if (top->site == CCE_SITE_SIGNAL_SYNC
          || top->site == CCE_SITE_SIGNAL_ASYNC)
        {
          /* A signal handler's segment.  A signal the process sent itself
             arrived inside the libc call that sent it: if that call is the
             ccStack entry below, with its callee's id 0, the path goes on
             exactly through it.  */
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("signal entry does not start at an entry function");
          if (top->site == CCE_SITE_SIGNAL_SYNC && top->id == 0 && k > 0
              && (ts = cce_site_of_word (g, stack[k - 1].site)) != CCE_NONE
              && signal_sender (g, &g->sites[ts]))
            continue;
          GIVE_UP ("signal handler: the interrupted context is unknown");
        }
      if (top->site == CCE_SITE_THREAD)
        {
          /* The thread's start routine: below is its creator's context at
             pthread_create.  */
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("thread does not start at an entry function");
          if (k == 0)
            GIVE_UP ("thread entry without its creator's context");
          EMIT (CCE_THREAD_MARK);
          id = 0;
          continue;
        }
      ts = cce_site_of_word (g, top->site);
      if (ts == CCE_NONE)
        GIVE_UP ("ccStack entry names an unknown site");
      s = &g->sites[ts];
      if (s->kind == CCE_SITE_BACK)
        {
          if (s->target != n)
            GIVE_UP ("ccStack entry does not call this function");
        }
      else if (s->kind == CCE_SITE_INDIRECT || s->kind == CCE_SITE_EXTERNAL)
        {
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("ccStack entry enters a function that is not an entry");
        }
      else
        GIVE_UP ("ccStack entry is not a ccStack site");
      EMIT (ts);
      n = s->node;
      id = top->id;
    }

done:
  /* Sites were emitted innermost first: reverse what fits.  */
  if (count <= maxsites)
    for (i = 0; i < count / 2; i++)
      {
        uint32_t t = sites[i];
        sites[i] = sites[count - 1 - i];
        sites[count - 1 - i] = t;
      }
  *nsites = count;
  if (reason)
    *reason = why;
  return status;
#undef EMIT
#undef GIVE_UP
}

void
cce_path_frames (const struct cce_graph *g, const uint32_t *sites,
                 size_t nsites, struct cce_path_frame *frames,
                 size_t maxframes, size_t *nframes)
{
  size_t count = 0, i, j;
  struct cce_path_frame last;
  int have_last = 0;

  memset (&last, 0, sizeof last);
  for (i = 0; i < nsites; i++)
    {
      const struct cce_site *s;
      const struct cce_node *node;
      int inherit_inlined = 0;

      if (sites[i] == CCE_THREAD_MARK)
        {
          struct cce_path_frame pf;
          memset (&pf, 0, sizeof pf);
          pf.func = CCE_NONE;
          pf.ext_name = CCE_THREAD_MARK;
          pf.file = CCE_NONE;
          if (count < maxframes)
            frames[count] = pf;
          count++;
          last = pf;
          continue;
        }
      s = &g->sites[sites[i]];
      node = &g->nodes[s->node];

      /* A split part continues the frame of its function: drop the call
         into the part.  */
      if ((node->flags & CCE_NODE_SPLIT_PART) && have_last
          && last.func == node->func && count > 0)
        {
          count--;
          inherit_inlined = last.inlined;
        }
      for (j = 0; j < s->nframes; j++)
        {
          const struct cce_frame *f = &g->frames[s->first_frame + j];
          struct cce_path_frame pf;
          /* A hidden node's own frame is left out; what was inlined into
             it stays, the first of it becoming the root.  */
          if ((node->flags & CCE_NODE_HIDDEN) && j == 0)
            continue;
          pf.func = f->func;
          pf.ext_name = CCE_NONE;
          pf.file = f->file;
          pf.line = f->line;
          pf.col = f->col;
          pf.inlined = (j > 0 && !((node->flags & CCE_NODE_HIDDEN) && j == 1))
                       || inherit_inlined;
          if (count < maxframes)
            frames[count] = pf;
          count++;
          last = pf;
          have_last = 1;
        }
      /* A call out of the module that entered the function it names,
         built with cce (in a shared library, or interposable): the
         callee's own frame follows.  */
      if (s->kind == CCE_SITE_EXTERNAL && i + 1 < nsites
          && sites[i + 1] < g->nsites && s->target < g->nstrings
          && (g->nodes[g->sites[sites[i + 1]].node].flags & CCE_NODE_ENTRY)
          && strcmp (g->strings[s->target],
                     g->strings[g->funcs[g->nodes[g->sites[sites[i + 1]].node]
                                         .func].name]) == 0)
        continue;
      if (s->kind == CCE_SITE_EXTERNAL)
        {
          struct cce_path_frame pf;
          pf.func = CCE_NONE;
          pf.ext_name = s->target;
          pf.file = CCE_NONE;
          pf.line = pf.col = 0;
          pf.inlined = 0;
          if (count < maxframes)
            frames[count] = pf;
          count++;
          last = pf;
        }
    }
  *nframes = count;
}

/* ------------------------------------------------------------------ */
/* Restores: a backward liveness of the id and the top.               */

/* What is live at the start of block B, given LIVE_OUT, and (when LIVE is
   not NULL) what is live after each of its events.  */
static uint8_t
flow_block (const struct cce_flow *f, size_t b, uint8_t live_out,
            uint8_t *live)
{
  uint8_t l = live_out;
  for (uint32_t e = f->ev_start[b + 1]; e-- > f->ev_start[b];)
    {
      if (live)
        live[e] = l;
      l = (uint8_t) ((l & ~(f->ev[e] >> 2)) | (f->ev[e] & 3));
    }
  return l;
}

static uint8_t
flow_out (const struct cce_flow *f, size_t b, const uint8_t *live_in)
{
  uint8_t out = 0;
  for (uint32_t k = f->succ_start[b]; k < f->succ_start[b + 1]; k++)
    out |= f->succ[k] == CCE_NONE ? (CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP)
           : f->succ[k] == CCE_FLOW_EXIT ? f->exit_use
           : live_in[f->succ[k]];
  return out;
}

int
cce_flow_live_after (const struct cce_flow *f, uint8_t *live)
{
  uint8_t *in = calloc (f->nblocks ? f->nblocks : 1, 1);
  if (!in)
    return -1;
  /* Liveness only grows from all-dead, so this ends: at most two bits per
     block can change.  */
  for (int changed = 1; changed;)
    {
      changed = 0;
      for (size_t b = f->nblocks; b-- > 0;)
        {
          uint8_t l = flow_block (f, b, flow_out (f, b, in), NULL);
          if (l != in[b])
            {
              in[b] = l;
              changed = 1;
            }
        }
    }
  for (size_t b = 0; b < f->nblocks; b++)
    flow_block (f, b, flow_out (f, b, in), live);
  free (in);
  return 0;
}
