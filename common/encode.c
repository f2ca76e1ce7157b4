/* encode.c -- the encoding of cce's call graph: numCC, addition values
   and ccStack edges.

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
        Where the sum would exceed UINT64_MAX, edges move to the ccStack
        too ('b', reason 'o'): first those that a plan over the whole
        graph picks, the least frequent calls that take enough contexts
        off (often far above the node, on a cold path), then, where a sum
        still overflows, the node's incoming edges with the most contexts.
        The largest fold limit that cuts no more edges than no folding is
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

#include "core-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Encoding.                                                          */

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
  int entry_observed = g->entry_observed != 0, rc = -1;

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
  for (;;)
    {
      while (top)
        {
          uint32_t n = work[--top];
          if ((g->nodes[n].flags
               & (CCE_NODE_ENTRY | CCE_NODE_MAIN | CCE_NODE_ACROSS))
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
  for (i = 0; i < nn; i++)
    g->nodes[i].logs = g->nodes[i].observed;
  if (g->observe_all)
    {
      for (i = 0; i < nn; i++)
        g->nodes[i].observed = 1;
      entry_observed = 1;
    }
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
   site or a fold, which costs more at every execution than a direct
   edge, so the set should be cheap: within each strongly connected
   component, the nodes are put in an order that the hot edges follow
   (Eades, Lin and Smyth's greedy heuristic for a small feedback arc
   set), and the edges that go against the order are the back edges.
   Self calls are always back edges.

   An edge's weight is how often it runs when the recursion is entered
   from outside the component and does not recur (entry_weights): the
   executions of its caller that come from outside, times the site's
   estimated frequency.  An edge that only the recursion itself reaches
   weighs nearly nothing.  In a cycle f -> g (in a branch) and g -> f (in
   a loop), with f called from outside and g only by f, g -> f is the
   back edge: it runs only where the recursion really recurs, while f ->
   g runs at every such call of f (and, g's one caller, needs no code).
   The compiler's estimate of g's loop says nothing of how often the
   recursion goes deeper: jq's jv_free calls jvp_array_free for every
   array it lets go, which frees the elements in a loop only when the
   last reference goes, 43,000 of 4.6 million times.  */

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

/* The weights W of G's sites for the ordering (above): COMP[v] = v's
   component, its members MEMBERS[FIRST[c] .. FIRST[c + 1]); Tarjan's
   numbering puts a component's callers after it, so the components are
   taken from the last.  OUTSIDE[v] = v's executions from outside its
   component (an entry node once, plus its callers' over the edges that
   come in); ALL[v] = those plus one round of its component's edges from
   them, at most once per execution of the caller, for the components
   below.  A small part of the frequency keeps every edge's weight
   positive, and orders the edges that no outside execution reaches.
   Returns 0, or -1 when out of memory.  */
static int
entry_weights (const struct cce_graph *g, const struct adj *a,
               const uint32_t *comp, long ncomp, const uint32_t *first,
               const uint32_t *members, double *w)
{
  size_t nn = g->nnodes;
  double *outside = calloc (nn ? nn : 1, sizeof (double));
  double *all = calloc (nn ? nn : 1, sizeof (double));
  if (!outside || !all)
    {
      free (outside);
      free (all);
      return -1;
    }
  for (long c = ncomp - 1; c >= 0; c--)
    {
      for (uint32_t k = first[c]; k < first[c + 1]; k++)
        {
          uint32_t v = members[k];
          outside[v] = (g->nodes[v].flags & CCE_NODE_ENTRY) ? 1.0 : 0.0;
          for (uint32_t j = a->in_index[v]; j < a->in_index[v + 1]; j++)
            {
              const struct cce_site *s = &g->sites[a->in_sites[j]];
              if (is_edge (g, s) && comp[s->node] != (uint32_t) c)
                outside[v] += all[s->node] * s->freq;
            }
          /* Estimates multiply along call chains: keep them finite.  */
          if (!(outside[v] < 1e250))
            outside[v] = 1e250;
        }
      for (uint32_t k = first[c]; k < first[c + 1]; k++)
        {
          uint32_t v = members[k];
          all[v] = outside[v];
          for (uint32_t j = a->in_index[v]; j < a->in_index[v + 1]; j++)
            {
              const struct cce_site *s = &g->sites[a->in_sites[j]];
              if (is_edge (g, s) && comp[s->node] == (uint32_t) c
                  && s->node != v)
                all[v] += outside[s->node] * (s->freq < 1 ? s->freq : 1);
            }
        }
    }
  for (size_t i = 0; i < g->nsites; i++)
    w[i] = outside[g->sites[i].node] * g->sites[i].freq
           + 1e-6 * back_weight (&g->sites[i]);
  free (outside);
  free (all);
  return 0;
}

static int
mark_back_edges (struct cce_graph *g, const struct adj *a)
{
  size_t nn = g->nnodes;
  uint32_t *comp = malloc ((nn ? nn : 1) * sizeof (uint32_t));
  uint32_t *first = NULL, *members = NULL, *pos = NULL;
  uint32_t *indeg = NULL, *outdeg = NULL;
  double *inw = NULL, *outw = NULL, *w = NULL;
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
  w = calloc (g->nsites ? g->nsites : 1, sizeof (double));
  if (!first || !members || !pos || !indeg || !outdeg || !inw || !outw
      || !gone || !w)
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

  if (entry_weights (g, a, comp, ncomp, first, members, w) < 0)
    goto out;

  /* Degrees and weights inside the components, self calls left out.  */
  for (size_t i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      if (!is_edge (g, s) || s->node == s->target
          || comp[s->node] != comp[s->target])
        continue;
      outdeg[s->node]++;
      indeg[s->target]++;
      outw[s->node] += w[i];
      inw[s->target] += w[i];
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
                  inw[s->target] -= w[a->out_sites[k]];
                }
            }
          for (uint32_t k = a->in_index[pick]; k < a->in_index[pick + 1];
               k++)
            {
              const struct cce_site *s = &g->sites[a->in_sites[k]];
              if (s->node != pick && comp[s->node] == (uint32_t) c)
                {
                  outdeg[s->node]--;
                  outw[s->node] -= w[a->in_sites[k]];
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
  free (w);
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

/* Does site I make its node clobber the id: a ccStack site, even when
   dead, since a setjmp keeps its push; a direct site with an addition
   value; a free call of a node that clobbers.  Under preserve_all only a
   folded self call that may become a jump (tail_jump): its callers
   restore the id after every call.  */
static int
site_clobbers_node (const struct cce_graph *g, size_t i)
{
  const struct cce_site *s = &g->sites[i];

  if (g->preserve_all)
    return s->tail_jump && s->kind == CCE_SITE_BACK && s->target == s->node
           && s->fold != CCE_NONE && !s->dead;
  return cce_kind_on_stack (s->kind)
         || (s->kind == CCE_SITE_DIRECT && !s->dead && s->av != 0)
         || cce_site_clobbers (g, (uint32_t) i);
}

/* Which nodes clobber the id (cce_node's clobbers): a least fixed point,
   from none, over site_clobbers_node; assuming too many is only slower,
   never wrong.  */
static void
mark_clobbers (struct cce_graph *g)
{
  size_t i;
  int changed = 1;

  for (i = 0; i < g->nnodes; i++)
    g->nodes[i].clobbers = 0;
  while (changed)
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
          if (site_clobbers_node (g, i))
            n->clobbers = changed = 1;
        }
    }
}

/* How often each node of G runs, estimated in topological order ORDER
   over the direct edges of A into CALLS: an entry node once, plus each
   incoming site's frequency (relative to its caller's entry) times its
   caller's count, so that edges from different callers compare.  */
static void
estimate_calls (const struct cce_graph *g, const struct adj *a,
                const uint32_t *order, double *calls)
{
  size_t head, j;

  for (head = 0; head < g->nnodes; head++)
    {
      uint32_t n = order[head];
      calls[n] = (g->nodes[n].flags & CCE_NODE_ENTRY) ? 1.0 : 0.0;
      for (j = a->in_index[n]; j < a->in_index[n + 1]; j++)
        {
          const struct cce_site *s = &g->sites[a->in_sites[j]];
          calls[n] += calls[s->node] * s->freq;
        }
    }
}

/* Is a cut that takes R contexts off, runs C times and takes off ENOUGH
   alone better than the best so far (BEST_*)?  */
static int
better_cut (double r, double c, int enough, double best_r, double best_c,
            int best_enough)
{
  if (enough != best_enough)
    return enough;
  if (enough)
    return c < best_c || (c == best_c && r > best_r);
  if (c == 0 || best_c == 0)
    return best_c != 0 || (c == 0 && r > best_r);
  return r / c > best_r / best_c;
}

/* Each planned cut costs a pass over the graph; past this many the cuts
   are made at the nodes that overflow.  */
#define PLAN_CUTS_MAX 1024

/* Overflow cuts planned over the whole graph, before the numbering.
   Where a node would have more than UINT64_MAX contexts, the cheapest cut
   is often not at that node: a hot little function called from
   everywhere (an allocator, a reference count) is wide because of a cold
   call far above it, such as an error path that reaches half the program.
   Cutting that call narrows everything below it at once.

   So, in topological order: at the first node N that overflows, every
   direct edge A->B of the nodes from which N can be reached would take
   (width (A) - 1) * paths (B, N) off N's contexts (width (A) where B has
   a root already).  Of the edges that alone take off enough, cut the one
   that runs least often (estimate_calls: a site's frequency times its
   caller's count); if none does, the one that takes off most per run.
   Repeat until no node overflows, at most PLAN_CUTS_MAX times.
   Guessed targets stay (a cut one is not used, and its indirect call
   pushes).  What the plan leaves, number_nodes cuts at the node that
   overflows.  PLANNED gets a 1 for each site to cut.  Returns the
   number of cuts planned, -1 when out of memory.  */
static long
plan_overflow_cuts (const struct cce_graph *g, const struct adj *a,
                    const uint32_t *order, unsigned char *planned)
{
  size_t nn = g->nnodes, i, j, head;
  uint64_t *w = malloc ((nn ? nn : 1) * sizeof *w);
  double *calls = malloc ((nn ? nn : 1) * sizeof *calls);
  double *paths = malloc ((nn ? nn : 1) * sizeof *paths);
  unsigned char *root = calloc (nn ? nn : 1, 1);
  long cuts = -1;

  if (!w || !calls || !paths || !root)
    goto out;
  for (i = 0; i < nn; i++)
    root[i] = (g->nodes[i].flags & CCE_NODE_ENTRY) != 0;
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_BACK)
      root[g->sites[i].target] = 1;
  estimate_calls (g, a, order, calls);
  for (cuts = 0; cuts < PLAN_CUTS_MAX; cuts++)
    {
      size_t over = nn, best = CCE_NONE;
      double excess = 0, best_r = 0, best_c = 0;
      int best_enough = 0;

      for (head = 0; head < nn && over == nn; head++)
        {
          uint32_t n = order[head];
          w[n] = root[n];
          excess = root[n];
          for (j = a->in_index[n]; j < a->in_index[n + 1]; j++)
            if (!planned[a->in_sites[j]])
              {
                uint64_t cw = w[g->sites[a->in_sites[j]].node];
                excess += (double) cw;
                if (__builtin_add_overflow (w[n], cw, &w[n]))
                  over = head;
              }
        }
      if (over == nn)
        break;
      excess -= (double) UINT64_MAX;
      /* The paths from each node to N, over the nodes before it.  */
      for (i = 0; i < nn; i++)
        paths[i] = 0;
      paths[order[over]] = 1;
      for (head = over; head-- > 0;)
        {
          uint32_t v = order[head];
          for (j = a->out_index[v]; j < a->out_index[v + 1]; j++)
            if (!planned[a->out_sites[j]])
              paths[v] += paths[g->sites[a->out_sites[j]].target];
        }
      for (head = 0; head <= over; head++)
        {
          uint32_t v = order[head];
          if (paths[v] == 0)
            continue;
          for (j = a->in_index[v]; j < a->in_index[v + 1]; j++)
            {
              uint32_t si = a->in_sites[j];
              const struct cce_site *s = &g->sites[si];
              /* The cut gives B a root, if it has none: one context.  */
              double r = ((double) w[s->node] - !root[v]) * paths[v];
              double c = calls[s->node] * s->freq;
              int enough = r >= excess;
              if (planned[si] || s->guess || r <= 0
                  || (best != CCE_NONE
                      && !better_cut (r, c, enough, best_r, best_c,
                                      best_enough)))
                continue;
              best = si;
              best_r = r;
              best_c = c;
              best_enough = enough;
            }
        }
      if (best == CCE_NONE)
        break;
      planned[best] = 1;
      root[g->sites[best].target] = 1;
    }
out:
  free (w);
  free (calls);
  free (paths);
  free (root);
  return cuts;
}

/* The largest fold limit that a compare takes as an immediate (GCC
   compares ID >= 2^31 with the constant in a register).  */
#define FOLD_IMM_LIM ((UINT64_C (1) << 31) - 1)

/* Move direct site S, which runs FREQ times, to the ccStack for
   overflow; BACKFREQ is its callee's count of such calls.  */
static void
cut_overflow (struct cce_graph *g, uint32_t s, double *backfreq, double freq)
{
  g->sites[s].kind = CCE_SITE_BACK;
  g->sites[s].reason = 'o';
  *backfreq += freq;
}

/* Steps 2 and 3 for fold limits of BASE[n] * 2^FOLD_BITS (0: no folding): the
   contexts of each node in topological order ORDER, overflow cuts (the
   PLANNED ones, then the widest edges into a node that still overflows),
   root values and addition values.  Starts over from the back edges of
   step 1 (the cuts of an earlier run are undone).  Returns the number of
   overflow cuts, or -1 when out of memory.  */
static long
number_nodes (struct cce_graph *g, const struct adj *a, const uint32_t *order,
              const unsigned char *planned, const uint64_t *base,
              unsigned fold_bits, uint64_t *max_numcc)
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
  estimate_calls (g, a, order, calls);

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
      for (j = a->in_index[n]; j < a->in_index[n + 1]; j++)
        {
          uint32_t s = a->in_sites[j];
          slots[nslots].site = s;
          slots[nslots].freq = calls[g->sites[s].node] * g->sites[s].freq;
          if (planned[s])
            {
              cut_overflow (g, s, &backfreq[n], slots[nslots].freq);
              node->has_root = 1;
              cuts++;
              continue;
            }
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
              cut_overflow (g, slots[0].site, &backfreq[n], slots[0].freq);
              node->has_root = 1;
              cuts++;
              memmove (slots, slots + 1, --nslots * sizeof *slots);
            }
        }
      while (overflow);
      node->numcc = sum;
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
          /* A limit below 2^31 is an immediate operand of the
             sites' compare (x86-64 sign-extends 32 bits); a 64-bit one
             is a constant in a register, which GCC keeps in a
             callee-saved one where a loop holds the site, or a copy of
             the id and a shift.  Two bits fewer are worth that.  */
          if (lim > FOLD_IMM_LIM && lim <= (FOLD_IMM_LIM + 1) << 2)
            lim = FOLD_IMM_LIM;
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

/* Check G's sites and clear what an earlier encoding left in G (a graph
   read back is encoded again from scratch).  -1 with the error set if a
   site is in, or calls, a node that does not exist.  */
static int
reset_encoding (struct cce_graph *g, char *err, size_t errlen)
{
  size_t nn = g->nnodes, i;

  for (i = 0; i < g->nsites; i++)
    {
      struct cce_site *s = &g->sites[i];
      if (s->node >= nn)
        {
          set_err (err, errlen, "site %zu is in node %" PRIu32
                   " of %zu", i, s->node, nn);
          return -1;
        }
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
  return 0;
}

/* Step 2: Kahn's topological order of G's nodes over the direct edges of
   A into ORDER (room for every node); INDEG is scratch of the same size.
   -1 if the edges still make a cycle.  */
static int
topo_order (const struct cce_graph *g, const struct adj *a, uint32_t *order,
            uint32_t *indeg)
{
  size_t nn = g->nnodes, i, j, head = 0, tail = 0;

  for (i = 0; i < nn; i++)
    indeg[i] = a->in_index[i + 1] - a->in_index[i];
  for (i = 0; i < nn; i++)
    if (!indeg[i])
      order[tail++] = (uint32_t) i;
  while (head < tail)
    {
      uint32_t u = order[head++];
      for (j = a->out_index[u]; j < a->out_index[u + 1]; j++)
        if (--indeg[g->sites[a->out_sites[j]].target] == 0)
          order[tail++] = g->sites[a->out_sites[j]].target;
    }
  return tail == nn ? 0 : -1;
}

/* Number G's nodes in ORDER over the edges of A, with recursion folded
   into the id: every back edge of recursion gets its index among those
   into its callee, and the largest fold limit that cuts no more edges for
   overflow than no folding at all is taken (its exponent in ST's
   fold_bits, 0 if none).  BASE is scratch for every node.  -1 if out of
   memory.  */
static int
number_with_folds (struct cce_graph *g, const struct adj *a,
                   const uint32_t *order, uint64_t *base,
                   struct cce_encode_stats *st)
{
  /* Fold limits tried, largest first, from BASE * 2^FOLD_MAX down
     (number_nodes): 2^32 lets a recursion with two calls of itself go
     about 30 levels deep before it pushes.  */
  static const unsigned fold_bits[] = { 48, 40, 32, 24, 16, 8, 4 };
  unsigned fold_max = g->fold_max > 0 && g->fold_max < 64
                      ? (unsigned) g->fold_max : 32;
  size_t i, nfolded = 0;
  long cuts0, cuts;
  unsigned char *planned = calloc (g->nsites ? g->nsites : 1, 1);
  int ret = -1;

  if (!planned)
    return -1;
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_BACK)
      {
        g->sites[i].fold = g->nodes[g->sites[i].target].nfold++;
        nfolded++;
      }
  if (g->fold_max < 0)
    nfolded = 0;
  if (plan_overflow_cuts (g, a, order, planned) < 0)
    goto out;
  cuts0 = number_nodes (g, a, order, planned, base, 0, &st->max_numcc);
  if (cuts0 < 0)
    goto out;
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
      cuts = number_nodes (g, a, order, planned, base, bits, &st->max_numcc);
      if (cuts < 0)
        goto out;
      if (cuts <= cuts0)
        {
          st->fold_bits = bits;
          break;
        }
    }
  if (nfolded && !st->fold_bits
      && number_nodes (g, a, order, planned, base, 0, &st->max_numcc) < 0)
    goto out;
  for (i = 0; i < g->nsites; i++)
    {
      struct cce_site *s = &g->sites[i];
      if (s->fold != CCE_NONE && !g->nodes[s->target].fold_lim)
        {
          s->fold = CCE_NONE;
          g->nodes[s->target].nfold = 0;
        }
    }
  ret = 0;
out:
  free (planned);
  return ret;
}

/* Count G's encoded sites and clobbering nodes by kind into ST.  */
static void
count_sites (const struct cce_graph *g, struct cce_encode_stats *st)
{
  size_t i;

  for (i = 0; i < g->nnodes; i++)
    st->clobber_nodes += g->nodes[i].clobbers != 0;
  for (i = 0; i < g->nsites; i++)
    st->clobber_sites += cce_site_clobbers (g, (uint32_t) i);
  for (i = 0; i < g->nsites; i++)
    st->dead_sites += g->sites[i].dead;
  for (i = 0; i < g->nsites; i++)
    switch (g->sites[i].kind)
      {
      case CCE_SITE_DIRECT:
        st->direct_sites++;
        st->zero_sites += !g->sites[i].dead && g->sites[i].av == 0;
        break;
      case CCE_SITE_BACK:
        if (g->sites[i].reason == 'o')
          st->overflow_sites++;
        else
          st->back_sites++;
        st->folded_sites += g->sites[i].fold != CCE_NONE;
        break;
      case CCE_SITE_INDIRECT:
        st->indirect_sites++;
        break;
      case CCE_SITE_EXTERNAL:
        st->external_sites++;
        break;
      case CCE_SITE_LOG:
      case CCE_SITE_TRACE:
        st->log_sites++;
        break;
      }
}

int
cce_graph_encode (struct cce_graph *g, struct cce_encode_stats *stats,
                  char *err, size_t errlen)
{
  struct adj a;
  size_t nn = g->nnodes;
  uint32_t *order = NULL, *indeg = NULL;
  uint64_t *base = NULL;
  struct cce_encode_stats st;

  memset (&st, 0, sizeof st);
  memset (&a, 0, sizeof a);
  if (reset_encoding (g, err, errlen) < 0)
    return -1;

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
  base = calloc (nn ? nn : 1, sizeof *base);
  if (!order || !indeg || !base)
    goto oom;
  if (topo_order (g, &a, order, indeg) < 0)
    {
      set_err (err, errlen, "call graph still cyclic after removing "
               "back edges");
      goto fail;
    }
  /* Step 3, with recursion folded into the id.  */
  if (number_with_folds (g, &a, order, base, &st) < 0)
    goto oom;

  if (cce__index_edges (g) < 0)
    goto oom;
  mark_clobbers (g);
  count_sites (g, &st);
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
