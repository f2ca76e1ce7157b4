/* test-encode.c -- cmocka unit tests of the encoding in cce's core
   (common/encode.c, API in common/cce-core.h).

   Hand-made graphs check single rules of the encoding; the property tests
   build random call graphs, encode them, simulate the instrumented program
   exactly as cce-abi.h describes (id arithmetic on direct sites, ccStack
   pushes on back, indirect and external sites) and check that every log
   record decodes to exactly the path that was taken.

   Random tests print their seed when they fail; set CCE_TEST_SEED to
   replay a run, and CCE_TEST_GRAPH=N to run only graph N of it.  */

#include "core-tests.h"

/* ------------------------------------------------------------------ */
/* Hand-made graphs.                                                  */

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

/* Where every node restores the id (preserve_all, as under async), a
   self call that the compiler may make a jump to the top (tail_jump)
   leaves the id of its deepest level, once folded: its node clobbers, and
   nothing else does.  Not an ENTRY node's, and not one that pushes.  */
static void
test_tail_jump_clobbers_under_preserve_all (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t main_, f, e, c, t1, t2, te, sc;
  struct cce_graph *g;
  struct cce_encode_stats st;
  char err[256];

  (void) state;
  set_ctx ("tail jump");
  main_ = m_node (&m, 0, CCE_NODE_ENTRY | CCE_NODE_MAIN);
  f = m_node (&m, 1, 0);
  e = m_node (&m, 2, CCE_NODE_ENTRY);
  c = m_node (&m, 3, 0);
  m_site (&m, main_, CCE_SITE_DIRECT, f, 1);
  sc = m_site (&m, main_, CCE_SITE_DIRECT, c, 1);
  m_site (&m, c, CCE_SITE_DIRECT, f, 1);          /* c pays for f */
  m_site (&m, main_, CCE_SITE_DIRECT, e, 1);
  t1 = m_site (&m, f, CCE_SITE_DIRECT, f, 1);     /* ack's tail calls */
  t2 = m_site (&m, f, CCE_SITE_DIRECT, f, 1);     /* its inner call */
  te = m_site (&m, e, CCE_SITE_DIRECT, e, 1);
  m_site (&m, f, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (&m, e, CCE_SITE_LOG, CCE_NONE, 1);
  run_encode (&m, &R);
  g = R.g;
  g->preserve_all = 1;
  g->sites[t1].tail_jump = 1;
  g->sites[te].tail_jump = 1;
  CHECK (cce_graph_encode (g, &st, err, sizeof err) == 0, "%s", err);
  CHECK (g->sites[t1].kind == CCE_SITE_BACK && g->sites[t1].fold != CCE_NONE
         && g->sites[t2].fold != CCE_NONE, "self calls not folded");
  CHECK (g->nodes[f].clobbers, "f's folded tail jump leaves a deeper id");
  CHECK (!g->nodes[e].clobbers, "an ENTRY node clobbers");
  CHECK (!g->nodes[c].clobbers && !g->nodes[main_].clobbers,
         "a node with no tail jump clobbers");
  CHECK (st.clobber_nodes == 1, "%zu clobbering nodes", st.clobber_nodes);
  CHECK (!cce_site_clobbers (g, sc), "main -> c restores nothing");

  /* Without it the same graph has no clobbering node.  */
  g->sites[t1].tail_jump = 0;
  CHECK (cce_graph_encode (g, &st, err, sizeof err) == 0, "%s", err);
  CHECK (st.clobber_nodes == 0, "%zu clobbering nodes", st.clobber_nodes);

  /* With folding off the tail call pushes: no jump, no clobbering.  */
  g->sites[t1].tail_jump = 1;
  g->fold_max = -1;
  CHECK (cce_graph_encode (g, &st, err, sizeof err) == 0, "%s", err);
  CHECK (g->sites[t1].fold == CCE_NONE && !g->nodes[f].clobbers,
         "a pushing tail call clobbers");
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
  /* numcc << 32 is 2^33, lowered to the immediate 2^31 - 1.  */
  CHECK (g->nodes[f].nfold == 2 && g->nodes[f].numcc == 2
         && g->nodes[f].fold_lim == (UINT64_C (1) << 31) - 1
         && R.st.fold_bits == 32 && R.st.folded_sites == 2,
         "fold limit %" PRIu64 ", %u folds", g->nodes[f].fold_lim,
         g->nodes[f].nfold);
  /* The id doubles with each level: about 30 levels fold, then the call
     pushes and its callee starts again at its root.  */
  for (id = 0, level = 0; cce_site_fold (g, f2, id, &fid); level++)
    id = fid;
  CHECK (level >= 29 && level <= 31, "%d levels folded", level);
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

/* A cycle of f and g under main, which calls f, and g too where MG is
   not 0 (with that frequency): f calls g with frequency FG, g calls f
   with frequency GF, and both log.  Encoded into R.  */
struct cycle
{
  uint32_t f, g, mf, mg, fg, gf;
};

static struct cycle
cycle_run (struct model *m, struct run *R, double fg, double gf, double mg)
{
  struct cycle c;
  uint32_t main_ = m_node (m, 0, CCE_NODE_ENTRY);
  c.f = m_node (m, 1, 0);
  c.g = m_node (m, 2, 0);
  c.mf = m_site (m, main_, CCE_SITE_DIRECT, c.f, 1);
  c.mg = mg ? m_site (m, main_, CCE_SITE_DIRECT, c.g, mg) : CCE_NONE;
  c.fg = m_site (m, c.f, CCE_SITE_DIRECT, c.g, fg);
  c.gf = m_site (m, c.g, CCE_SITE_DIRECT, c.f, gf);
  m_site (m, c.f, CCE_SITE_LOG, CCE_NONE, 1);
  m_site (m, c.g, CCE_SITE_LOG, CCE_NONE, 1);
  run_all (m, R);
  return c;
}

static void
test_mutual_recursion_of_equal_weights_makes_one_back_edge (void **state)
{
  struct model m = { 0 };
  struct run R;

  (void) state;
  set_ctx ("mutual recursion");
  struct cycle c = cycle_run (&m, &R, 1, 1, 0);
  const struct cce_graph *g = R.g;
  CHECK (g->sites[c.gf].kind == CCE_SITE_BACK && g->sites[c.gf].reason == 'r',
         "g->f is not a recursion back site");
  CHECK (g->sites[c.mf].kind == CCE_SITE_DIRECT
         && g->sites[c.fg].kind == CCE_SITE_DIRECT, "tree edges not direct");
  CHECK (g->nodes[c.f].has_root && !g->nodes[c.g].has_root,
         "only f, the callee of the back edge, has a root");
  CHECK (R.st.back_sites == 1, "stats.back_sites %zu", R.st.back_sites);
  run_free (&R);
  model_free (&m);
}

/* The back edge of a cycle is the edge that runs only when the recursion
   recurs: f, called from main, calls g in a branch, and g, called by f
   alone, calls f in a loop (a free that recurses through the elements
   of a list).  However often the loop is estimated to run, g -> f is
   the back edge, and f -> g, g's one incoming edge, is direct (and has
   addition value 0: no code).  */
static void
test_mutual_recursion_puts_the_push_on_the_recurring_edge (void **state)
{
  struct model m = { 0 };
  struct run R;

  (void) state;
  set_ctx ("mutual recursion, entered at f");
  struct cycle c = cycle_run (&m, &R, 0.1, 10, 0);
  const struct cce_graph *g = R.g;
  CHECK (g->sites[c.gf].kind == CCE_SITE_BACK && g->sites[c.gf].reason == 'r',
         "g->f (recurring) is %c, not a recursion back site",
         g->sites[c.gf].kind);
  CHECK (g->sites[c.fg].kind == CCE_SITE_DIRECT && g->sites[c.fg].av == 0
         && g->sites[c.mf].kind == CCE_SITE_DIRECT,
         "f->g or main->f not direct, or f->g has code");
  CHECK (g->nodes[c.f].has_root, "f, the callee of the back edge, has no root");
  CHECK (R.st.back_sites == 1, "stats.back_sites %zu", R.st.back_sites);
  CHECK (R.checks > 5, "simulation decoded %zu records", R.checks);
  run_free (&R);
  model_free (&m);
}

/* Where both nodes of the cycle are called from outside it, the
   estimated frequencies decide: main calls f and g alike, f calls g
   rarely and g calls f in a loop, so f -> g carries the push.  */
static void
test_mutual_recursion_entered_twice_puts_the_push_on_the_cold_edge
  (void **state)
{
  struct model m = { 0 };
  struct run R;

  (void) state;
  set_ctx ("mutual recursion, entered at f and g");
  struct cycle c = cycle_run (&m, &R, 0.1, 10, 1);
  const struct cce_graph *g = R.g;
  CHECK (g->sites[c.fg].kind == CCE_SITE_BACK && g->sites[c.fg].reason == 'r',
         "f->g (cold) is %c, not a recursion back site", g->sites[c.fg].kind);
  CHECK (g->sites[c.gf].kind == CCE_SITE_DIRECT
         && g->sites[c.mf].kind == CCE_SITE_DIRECT
         && g->sites[c.mg].kind == CCE_SITE_DIRECT,
         "g->f (hot), main->f or main->g not direct");
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
    CHECK (R.g->nodes[i].numcc <= UINT64_C (1) << i,
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

/* Two sites from a node with 2^63 contexts: 2^64 > UINT64_MAX, one cut.
   The chain's calls run more often at each level (10 to 12 times per
   call of their caller), so the cheapest cut that takes off enough is
   near its top: the first level whose cut takes off contexts, L1 -> L2,
   where L1 has 2.  */
static void
test_two_calls_from_2pow63_contexts_cut_exactly_one (void **state)
{
  struct model m = { 0 };
  struct run R;
  uint32_t z, s1, s2;
  size_t i, cut = 0;
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
  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].reason == 'o')
      cut = i;
  CHECK (g->sites[cut].node == 1 && g->sites[cut].target == 2,
         "the cut is site %zu, from node %" PRIu32, cut, g->sites[cut].node);
  CHECK (g->sites[s1].kind == CCE_SITE_DIRECT
         && g->sites[s2].kind == CCE_SITE_DIRECT, "a site into z was cut");
  CHECK (!g->nodes[z].has_root && g->nodes[z].numcc == 3 * (TOP63 >> 1),
         "numCC(z) %" PRIu64, g->nodes[z].numcc);
  run_sim (&m, &R, 0, 0, 0, 200, 70);
  run_free (&R);
  model_free (&m);
}

/* A hot leaf H that a cold path also reaches through 2^64 contexts:
   main calls work often and err almost never; err calls a doubling
   chain C1..C64 whose last level (2^63 contexts) calls H twice, and work
   calls H.  Each level of the chain runs 1.2 times as often as the one
   above it.  The
   cut goes where it runs least, high in the cold chain, and every call
   of H stays direct, the hot one free.  With the chain's first edges
   guessed targets of indirect calls, which a cut would waste, it goes
   one level lower.  */
static void
test_overflow_cut_goes_on_the_cold_path (void **state)
{
  int guessed;

  (void) state;
  for (guessed = 0; guessed < 2; guessed++)
    {
      struct model m = { 0 };
      struct run R;
      uint32_t i, work, err, h, c1 = 3, hot, into_h[2];
      size_t k, cut = 0;
      const struct cce_graph *g;

      set_ctx (guessed ? "cold path, guessed chain top" : "cold path");
      rng_state = base_seed ();
      m_node (&m, 0, CCE_NODE_ENTRY);
      work = m_node (&m, 1, 0);
      err = m_node (&m, 2, 0);
      for (i = 0; i < 64; i++)
        m_node (&m, 3 + i, 0);
      h = m_node (&m, 67, 0);
      m_site (&m, 0, CCE_SITE_DIRECT, work, 1000);
      m_site (&m, 0, CCE_SITE_DIRECT, err, 0.001);
      m_site (&m, err, CCE_SITE_DIRECT, c1, 1);
      for (i = 0; i + 1 < 64; i++)
        {
          uint32_t a = m_site (&m, c1 + i, CCE_SITE_DIRECT, c1 + i + 1, 0.6);
          uint32_t b = m_site (&m, c1 + i, CCE_SITE_DIRECT, c1 + i + 1, 0.6);
          m.sites[a].guess = m.sites[b].guess = guessed && i == 1;
        }
      into_h[0] = m_site (&m, c1 + 63, CCE_SITE_DIRECT, h, 1);
      into_h[1] = m_site (&m, c1 + 63, CCE_SITE_DIRECT, h, 1);
      hot = m_site (&m, work, CCE_SITE_DIRECT, h, 50);
      m_site (&m, h, CCE_SITE_LOG, CCE_NONE, 1);
      run_encode (&m, &R);
      g = R.g;
      CHECK (R.st.overflow_sites == 1, "%zu overflow cuts",
             R.st.overflow_sites);
      for (k = 0; k < g->nsites; k++)
        if (g->sites[k].reason == 'o')
          cut = k;
      /* C1 has one context, so its cut would take none off; C2 has two.  */
      CHECK (g->sites[cut].node == c1 + 1 + guessed,
             "the cut is site %zu, from node %" PRIu32, cut,
             g->sites[cut].node);
      CHECK (g->sites[into_h[0]].kind == CCE_SITE_DIRECT
             && g->sites[into_h[1]].kind == CCE_SITE_DIRECT
             && g->sites[hot].kind == CCE_SITE_DIRECT
             && g->sites[hot].av == 0, "H's calls: the hot one %c av %"
             PRIu64, g->sites[hot].kind, g->sites[hot].av);
      run_sim (&m, &R, 0, 0, 0, 200, 80);
      CHECK (R.big_ids > 0, "no id above 2^63 decoded");
      run_free (&R);
      model_free (&m);
    }
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

int
main (void)
{
  const struct CMUnitTest tests[] = {
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
    cmocka_unit_test (test_tail_jump_clobbers_under_preserve_all),
    cmocka_unit_test (test_mutual_recursion_of_equal_weights_makes_one_back_edge),
    cmocka_unit_test (test_mutual_recursion_puts_the_push_on_the_recurring_edge),
    cmocka_unit_test (test_mutual_recursion_entered_twice_puts_the_push_on_the_cold_edge),
    cmocka_unit_test (test_three_cycle_makes_only_closing_edge_back),
    cmocka_unit_test (test_cycle_entered_twice_gets_exactly_one_back_edge),
    cmocka_unit_test (test_cycle_unreachable_from_entries_is_still_broken),
    cmocka_unit_test (test_chain_of_80_doublings_cuts_overflow_to_ccstack),
    cmocka_unit_test (test_chain_that_fits_has_no_overflow_cut),
    cmocka_unit_test (test_two_calls_from_2pow63_contexts_cut_exactly_one),
    cmocka_unit_test (test_overflow_cut_goes_on_the_cold_path),
    cmocka_unit_test (test_numcc_of_exactly_uint64_max_fits_and_decodes_top_ids),
    cmocka_unit_test (test_random_graphs_decode_every_simulated_path_exactly),
    cmocka_unit_test (test_random_layered_graphs_decode_ids_above_2pow63),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
