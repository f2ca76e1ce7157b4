/* graph.c -- building cce's call graph: interned strings, source
   functions, nodes, call sites and their frames, and the index of the
   graph's edges by callee that encoding, reading a dictionary and
   decoding use.  */

#include "core-internal.h"

#include <stdlib.h>
#include <string.h>

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

int
cce__intern_rehash (struct cce_graph *g, size_t nslots)
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
  if (!g->intern || cce__intern_rehash (g, 64) < 0)
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
  cce__pc_free (g->pc);
  if (g->intern)
    free (((struct intern *) g->intern)->slots);
  free (g->intern);
  free (g);
}

/* Append S to G's strings without interning.  */
uint32_t
cce__add_string (struct cce_graph *g, const char *s)
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
  n = cce__add_string (g, s);
  if (n == CCE_NONE)
    return CCE_NONE;
  t->slots[h] = n + 1;
  if (2 * g->nstrings > t->nslots
      && cce__intern_rehash (g, 2 * t->nslots) < 0)
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
/* Edges by callee.                                                   */

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

/* Rebuild G's edges[] and each node's first_in/n_in from the nodes' root
   values and the direct sites' addition values.  */
int
cce__index_edges (struct cce_graph *g)
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
