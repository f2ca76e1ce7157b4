/* layout.c -- the order in which the functions of a program go to LTO
   partitions: hot calls inside a cluster, clusters one after the other,
   so that GCC's balanced partitioner, which cuts the sequence where few
   calls cross, keeps them in one partition (a call into another
   partition goes through the ccStack).  */

#include "cce-core.h"

#include <stdlib.h>

static int
edge_cmp (const void *pa, const void *pb)
{
  const struct cce_layout_edge *a = *(const struct cce_layout_edge *const *) pa;
  const struct cce_layout_edge *b = *(const struct cce_layout_edge *const *) pb;
  if (a->weight != b->weight)
    return a->weight > b->weight ? -1 : 1;
  if (a->from != b->from)
    return a->from < b->from ? -1 : 1;
  return a->to < b->to ? -1 : a->to > b->to;
}

static uint32_t
find (uint32_t *parent, uint32_t x)
{
  while (parent[x] != x)
    {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
  return x;
}

int
cce_layout_order (size_t n, const uint64_t *size,
                  const struct cce_layout_edge *edges, size_t nedges,
                  uint64_t max_size, uint32_t *order)
{
  uint32_t *parent = NULL, *head = NULL, *tail = NULL, *next = NULL;
  uint64_t *csize = NULL;
  const struct cce_layout_edge **sorted = NULL;
  size_t i, k;
  int rc = -1;

  if (n == 0)
    return 0;
  parent = malloc (n * sizeof *parent);
  head = malloc (n * sizeof *head);
  tail = malloc (n * sizeof *tail);
  next = malloc (n * sizeof *next);
  csize = malloc (n * sizeof *csize);
  sorted = malloc ((nedges ? nedges : 1) * sizeof *sorted);
  if (!parent || !head || !tail || !next || !csize || !sorted)
    goto out;

  /* Each function a cluster of its own: the list HEAD .. TAIL through
     NEXT, of size CSIZE, named by its first function.  */
  for (i = 0; i < n; i++)
    {
      parent[i] = head[i] = tail[i] = (uint32_t) i;
      next[i] = CCE_NONE;
      csize[i] = size[i];
    }
  /* Join the clusters of the hottest calls first, while the two fit in
     MAX_SIZE together: the caller's cluster, then the callee's.  */
  for (i = 0; i < nedges; i++)
    sorted[i] = &edges[i];
  qsort (sorted, nedges, sizeof *sorted, edge_cmp);
  for (i = 0; i < nedges; i++)
    {
      const struct cce_layout_edge *e = sorted[i];
      uint32_t a, b;
      if (e->from >= n || e->to >= n || !(e->weight > 0))
        continue;
      a = find (parent, e->from);
      b = find (parent, e->to);
      if (a == b || csize[a] + csize[b] > max_size)
        continue;
      next[tail[a]] = head[b];
      tail[a] = tail[b];
      csize[a] += csize[b];
      parent[b] = a;
    }
  /* The clusters in the order of the functions they are named by.  */
  k = 0;
  for (i = 0; i < n; i++)
    if (find (parent, (uint32_t) i) == i)
      for (uint32_t j = head[i]; j != CCE_NONE; j = next[j])
        order[k++] = j;
  rc = k == n ? 0 : -1;

out:
  free (parent);
  free (head);
  free (tail);
  free (next);
  free (csize);
  free (sorted);
  return rc;
}
