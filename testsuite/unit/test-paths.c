/* test-paths.c -- cmocka unit tests of decoding in cce's core
   (common/paths.c): ids, ccStacks and graphs that no run can give
   decode to an incomplete path with a reason, never a crash.  */

#include "core-tests.h"

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

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_decode_of_id_beyond_width_is_incomplete),
    cmocka_unit_test (test_decode_with_bad_stack_site_is_incomplete),
    cmocka_unit_test (test_decode_with_back_entry_for_other_callee_is_incomplete),
    cmocka_unit_test (test_decode_controls_of_garbage_graph_are_ok),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
