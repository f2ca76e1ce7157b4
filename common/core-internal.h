/* core-internal.h -- what the files of cce's encoding core
   (libccecore: graph.c, encode.c, dict.c, paths.c, flow.c, pcmap.c)
   share, and nothing outside the core uses.  The API is cce-core.h.  */

#ifndef CCE_CORE_INTERNAL_H
#define CCE_CORE_INTERNAL_H

#include "cce-core.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Small helpers.                                                     */

/* Make room for NEED elements of ELSIZE bytes in *PTR, which has room for
   *ALLOC.  Returns 0, or -1 when out of memory.  */
static inline int
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

static inline void
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
/* The graph.                                                         */

static inline int
is_edge (const struct cce_graph *g, const struct cce_site *s)
{
  return s->kind == CCE_SITE_DIRECT && s->target < g->nnodes && !s->dead;
}

/* The number of contexts an edge through SITE carries in G: every id its
   caller can have.  */
static inline uint64_t
site_width (const struct cce_graph *g, uint32_t site)
{
  return site == CCE_NONE ? 1 : cce_node_width (&g->nodes[g->sites[site].node]);
}

/* In graph.c.  */

/* Make G's interning table NSLOTS slots (a power of 2) and enter every
   string of G in it: 0, or -1 when out of memory.  */
int cce__intern_rehash (struct cce_graph *g, size_t nslots);

/* Append S to G's strings without interning: its number, or CCE_NONE
   when out of memory.  */
uint32_t cce__add_string (struct cce_graph *g, const char *s);

/* Rebuild G's edges[] and each node's first_in/n_in (and the folded
   sites of each node) from the nodes' root values and the direct sites'
   addition values: 0, or -1 when out of memory.  */
int cce__index_edges (struct cce_graph *g);

/* In pcmap.c.  */

/* Free the PC maps PC of a graph (NULL: none).  */
void cce__pc_free (struct cce_pc *pc);

#endif /* CCE_CORE_INTERNAL_H */
