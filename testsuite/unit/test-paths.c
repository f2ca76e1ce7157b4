/* test-paths.c -- cmocka unit tests of decoding in cce's core
   (common/paths.c, common/pcmap.c): ids, ccStacks and graphs that no run
   can give decode to an incomplete path with a reason, never a crash;
   records of interrupted instructions decode by the state of their PC
   map range, and the reader of PC maps refuses malformed ones.  */

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

/* ------------------------------------------------------------------ */
/* Interrupted instructions: PC words and PC maps.                    */

/* The test program of the PC words, read back from its dictionary:

     main (entry) --mp d--> parse --pe d--> expr     (expr inlines helper)
          |   \--me d (hot)--> expr        |    \--pi i--> cb (entry)
          |    \--mr d--> rec --rr d--> rec (folded recursion)
           \--mi i--> cb
     on_tick (entry, a signal handler) --tn d--> note

   Every node logs (elog in expr with helper's frame inlined, as the
   first range of the PC map).  */
enum { PN_MAIN, PN_PARSE, PN_EXPR, PN_TICK, PN_NOTE, PN_REC, PN_CB,
       PN_COUNT };

struct pc_world
{
  struct cce_graph *g;       /* read from the dictionary: one module */
  uint32_t key;
  uint32_t mp, me, mr, mi, pe, pi, plog, elog, tn, nlog, rr, rlog, cblog,
           mlog;
  uint64_t parse_id, expr_id;   /* main -> parse, main -> parse -> expr */
  unsigned char *map;        /* its PC map */
  size_t maplen;
};

/* Addresses of the ranges of the PC map.  */
#define PC_EXPR_INL 0x1000   /* expr, OWN, helper inlined */
#define PC_EXPR_NOLOC 0x1010 /* expr, OWN, no location */
#define PC_PARSE_OWN 0x2000
#define PC_PARSE_CALLEE 0x2008
#define PC_PARSE_PUSHING 0x2010
#define PC_PARSE_PUSHED 0x2018
#define PC_PARSE_POPPING 0x2020
#define PC_PARSE_UNKNOWN 0x2028
#define PC_PARSE_COLD 0x9000 /* parse's cold part, OWN */
#define PC_REC_CALLEE 0x3000 /* rec calling itself, folded */
#define PC_MAIN_CALLEE 0x4000 /* main calling expr */
#define PC_MAIN_REC 0x4008   /* main after its call of rec */
#define PC_NO_NODE 0x5000    /* a body without a node */
#define PC_GAP 0x6000        /* in no range */

/* A range of a PC map to write.  */
struct pm_range
{
  uint64_t start;
  uint32_t len, state, callee;
  const char *loc;           /* NULL: none */
};

/* A PC map being written, in this machine's byte order or the other
   one (SWAP).  */
struct pm
{
  unsigned char *p;
  size_t len, cap;
  int swap;
};

static void
pm_put (struct pm *w, size_t off, const void *data, size_t n)
{
  if (off + n > w->cap)
    {
      w->cap = (off + n) * 2 + 256;
      w->p = realloc (w->p, w->cap);
      assert_non_null (w->p);
    }
  if (off > w->len)
    memset (w->p + w->len, 0, off - w->len);
  memcpy (w->p + off, data, n);
  if (off + n > w->len)
    w->len = off + n;
}

static void
pm_put32 (struct pm *w, size_t off, uint32_t v)
{
  if (w->swap)
    v = __builtin_bswap32 (v);
  pm_put (w, off, &v, sizeof v);
}

static void
pm_put16 (struct pm *w, size_t off, uint16_t v)
{
  if (w->swap)
    v = __builtin_bswap16 (v);
  pm_put (w, off, &v, sizeof v);
}

static void
pm_put64 (struct pm *w, size_t off, uint64_t v)
{
  if (w->swap)
    v = __builtin_bswap64 (v);
  pm_put (w, off, &v, sizeof v);
}

/* Append a block of KEY, NODE and FLAGS with the N ranges R: its
   offset.  */
static size_t
pm_block (struct pm *w, uint32_t key, uint32_t node, uint16_t flags,
          const struct pm_range *r, size_t n)
{
  size_t b = w->len, str = sizeof (struct cce_pcmap_block)
                           + n * sizeof (struct cce_pcmap_range);
  size_t i, size;

  for (i = 0; i < n; i++)
    {
      size_t q = b + sizeof (struct cce_pcmap_block)
                 + i * sizeof (struct cce_pcmap_range);
      uint32_t loc = 0;
      if (r[i].loc)
        {
          loc = (uint32_t) str;
          pm_put (w, b + str, r[i].loc, strlen (r[i].loc) + 1);
          str += strlen (r[i].loc) + 1;
        }
      pm_put64 (w, q + offsetof (struct cce_pcmap_range, start),
                r[i].start);
      pm_put32 (w, q + offsetof (struct cce_pcmap_range, len), r[i].len);
      pm_put32 (w, q + offsetof (struct cce_pcmap_range, state),
                r[i].state);
      pm_put32 (w, q + offsetof (struct cce_pcmap_range, callee),
                r[i].callee);
      pm_put32 (w, q + offsetof (struct cce_pcmap_range, loc), loc);
    }
  size = (str + 7) / 8 * 8;
  if (b + size > w->len)
    pm_put (w, b + size - 1, "", 1);
  pm_put32 (w, b + offsetof (struct cce_pcmap_block, mark), CCE_PCMAP_MARK);
  pm_put16 (w, b + offsetof (struct cce_pcmap_block, version),
            CCE_PCMAP_VERSION);
  pm_put16 (w, b + offsetof (struct cce_pcmap_block, flags), flags);
  pm_put32 (w, b + offsetof (struct cce_pcmap_block, size),
            (uint32_t) size);
  pm_put32 (w, b + offsetof (struct cce_pcmap_block, key), key);
  pm_put32 (w, b + offsetof (struct cce_pcmap_block, node), node);
  pm_put32 (w, b + offsetof (struct cce_pcmap_block, nranges),
            (uint32_t) n);
  return b;
}

#define NO CCE_PCMAP_NO_NODE

/* The PC map of the test program with key KEY.  */
static void
pc_world_map (struct pm *w, uint32_t key)
{
  static const struct pm_range expr[] = {
    { PC_EXPR_INL, 16, CCE_PC_OWN, NO, "expr\te.c\t30\t3\nhelper\th.h\t40\t5" },
    { PC_EXPR_NOLOC, 8, CCE_PC_OWN, NO, NULL },
  };
  static const struct pm_range parse[] = {
    { PC_PARSE_OWN, 8, CCE_PC_OWN, NO, "parse\tp.c\t12\t1" },
    { PC_PARSE_CALLEE, 8, CCE_PC_CALLEE, PN_EXPR, "parse\tp.c\t13\t1" },
    { PC_PARSE_PUSHING, 8, CCE_PC_PUSHING, NO, "parse\tp.c\t14\t1" },
    { PC_PARSE_PUSHED, 8, CCE_PC_PUSHED, NO, "parse\tp.c\t14\t1" },
    { PC_PARSE_POPPING, 8, CCE_PC_POPPING, NO, "parse\tp.c\t14\t1" },
    { PC_PARSE_UNKNOWN, 8, CCE_PC_UNKNOWN, NO, "parse\tp.c\t15\t1" },
    { PC_PARSE_COLD, 4, CCE_PC_OWN, NO, "parse\tp.c\t16\t1" },
  };
  static const struct pm_range rec[] = {
    { PC_REC_CALLEE, 8, CCE_PC_CALLEE, PN_REC, "rec\tr.c\t5\t1" },
  };
  static const struct pm_range main_[] = {
    { PC_MAIN_CALLEE, 8, CCE_PC_CALLEE, PN_EXPR, "main\tm.c\t3\t1" },
    { PC_MAIN_REC, 8, CCE_PC_CALLEE, PN_REC, "main\tm.c\t4\t1" },
  };
  static const struct pm_range stub[] = {
    { PC_NO_NODE, 8, CCE_PC_OWN, NO, "stub\ts.S\t1\t1" },
  };

  memset (w, 0, sizeof *w);
  pm_block (w, key, PN_EXPR, CCE_PCMAP_ASYNC, expr, 2);
  /* parse was not built with -fplugin-arg-cce-async.  */
  pm_block (w, key, PN_PARSE, 0, parse, 7);
  pm_block (w, key, PN_REC, CCE_PCMAP_ASYNC, rec, 1);
  pm_block (w, key, PN_MAIN, CCE_PCMAP_ASYNC, main_, 2);
  pm_block (w, key, NO, CCE_PCMAP_ASYNC, stub, 1);
}

/* A graph read back from the dictionary of G (encoded).  */
static struct cce_graph *
reread (struct cce_graph *g)
{
  char *text, err[256] = "";
  size_t len;
  struct cce_graph *h;

  CHECK (cce_graph_write_dict (g, &text, &len) == 0, "write_dict");
  h = cce_graph_read_dict (text, len, err, sizeof err);
  CHECK (h != NULL, "read_dict: %s", err);
  free (text);
  return h;
}

static uint32_t
pw_site (struct cce_graph *g, uint32_t node, char kind, uint32_t target,
         double freq, uint32_t func, const char *file, uint32_t line)
{
  uint32_t s = cce_graph_site (g, node, kind, target, freq);
  CHECK (s != CCE_NONE && cce_graph_frame (g, s, func, file, line, 1) == 0,
         "site");
  return s;
}

static void
pc_world (struct pc_world *P, int with_map)
{
  struct cce_graph *g = cce_graph_new ();
  uint32_t fm, fp, fe, fh, ft, fn, fr, fc;
  char err[256] = "";
  struct pm w;

  memset (P, 0, sizeof *P);
  set_ctx ("PC world");
  fm = cce_graph_func (g, "main", "m.c", 1);
  fp = cce_graph_func (g, "parse", "p.c", 10);
  fe = cce_graph_func (g, "expr", "e.c", 20);
  fh = cce_graph_func (g, "helper", "h.h", 35);
  ft = cce_graph_func (g, "on_tick", "t.c", 1);
  fn = cce_graph_func (g, "note", "t.c", 10);
  fr = cce_graph_func (g, "rec", "r.c", 1);
  fc = cce_graph_func (g, "cb", "c.c", 1);
  CHECK (cce_graph_node (g, fm, CCE_NODE_ENTRY) == PN_MAIN
         && cce_graph_node (g, fp, 0) == PN_PARSE
         && cce_graph_node (g, fe, 0) == PN_EXPR
         && cce_graph_node (g, ft, CCE_NODE_ENTRY) == PN_TICK
         && cce_graph_node (g, fn, 0) == PN_NOTE
         && cce_graph_node (g, fr, 0) == PN_REC
         && cce_graph_node (g, fc, CCE_NODE_ENTRY) == PN_CB, "nodes");
  P->mp = pw_site (g, PN_MAIN, CCE_SITE_DIRECT, PN_PARSE, 1, fm, "m.c", 2);
  P->me = pw_site (g, PN_MAIN, CCE_SITE_DIRECT, PN_EXPR, 10, fm, "m.c", 3);
  P->mr = pw_site (g, PN_MAIN, CCE_SITE_DIRECT, PN_REC, 1, fm, "m.c", 4);
  P->mi = pw_site (g, PN_MAIN, CCE_SITE_INDIRECT, CCE_NONE, 1, fm, "m.c", 5);
  P->mlog = pw_site (g, PN_MAIN, CCE_SITE_LOG, CCE_NONE, 1, fm, "m.c", 6);
  P->pe = pw_site (g, PN_PARSE, CCE_SITE_DIRECT, PN_EXPR, 1, fp, "p.c", 13);
  P->pi = pw_site (g, PN_PARSE, CCE_SITE_INDIRECT, CCE_NONE, 1, fp, "p.c",
                   14);
  P->plog = pw_site (g, PN_PARSE, CCE_SITE_LOG, CCE_NONE, 1, fp, "p.c", 15);
  P->elog = pw_site (g, PN_EXPR, CCE_SITE_LOG, CCE_NONE, 1, fe, "e.c", 30);
  /* elog's frames: expr (e.c:30:3) then helper inlined (h.h:40:5), as
     the location of the range PC_EXPR_INL.  */
  g->frames[g->sites[P->elog].first_frame].col = 3;
  CHECK (cce_graph_frame (g, P->elog, fh, "h.h", 40, 5) == 0, "frame");
  P->tn = pw_site (g, PN_TICK, CCE_SITE_DIRECT, PN_NOTE, 1, ft, "t.c", 2);
  P->nlog = pw_site (g, PN_NOTE, CCE_SITE_LOG, CCE_NONE, 1, fn, "t.c", 11);
  P->rr = pw_site (g, PN_REC, CCE_SITE_DIRECT, PN_REC, 1, fr, "r.c", 5);
  P->rlog = pw_site (g, PN_REC, CCE_SITE_LOG, CCE_NONE, 1, fr, "r.c", 6);
  P->cblog = pw_site (g, PN_CB, CCE_SITE_LOG, CCE_NONE, 1, fc, "c.c", 2);
  CHECK (cce_graph_encode (g, NULL, err, sizeof err) == 0, "encode: %s",
         err);
  P->g = reread (g);
  cce_graph_free (g);
  g = P->g;
  P->key = g->modules[0].key;
  CHECK (g->sites[P->rr].kind == CCE_SITE_BACK && g->sites[P->rr].fold == 0,
         "rec's self call is not folded");
  P->parse_id = g->sites[P->mp].av;
  P->expr_id = P->parse_id + g->sites[P->pe].av;
  CHECK (g->sites[P->pe].av != 0, "parse -> expr has no addition value");
  pc_world_map (&w, P->key);
  P->map = w.p;
  P->maplen = w.len;
  if (with_map)
    CHECK (cce_graph_read_pcmap (g, 0, P->map, P->maplen, 0, err,
                                 sizeof err) == 0, "read_pcmap: %s", err);
}

static void
pc_world_free (struct pc_world *P)
{
  cce_graph_free (P->g);
  free (P->map);
}

static uint64_t
pcw (const struct pc_world *P, uint32_t addr)
{
  return CCE_PC_WORD (P->key, addr);
}

/* Decode the record (SITE, ID, STACK) of P's graph after making its PC
   sites: the status, the sites in OUT (room for 64) and their count in
   *N, and the reason.  */
static enum cce_decode_status
pc_decode (struct pc_world *P, uint64_t site, uint64_t id,
           const struct cce_stack_entry *st, size_t nst, uint32_t *out,
           size_t *n, const char **reason)
{
  enum cce_decode_status r;

  CHECK (cce_graph_pc_sites (P->g, site, st, nst) == 0, "pc_sites");
  *reason = NULL;
  r = cce_decode (P->g, site, id, st, nst, out, 64, n, reason);
  CHECK (*n <= 64, "%zu sites", *n);
  return r;
}

/* The site of the range at ADDR (made by now).  */
static uint32_t
pc_site_at (struct pc_world *P, uint32_t addr)
{
  struct cce_pc_loc loc;
  const char *why;

  CHECK (cce_graph_pc_sites (P->g, pcw (P, addr), NULL, 0) == 0,
         "pc_sites");
  CHECK (cce_pc_find (P->g, pcw (P, addr), &loc, &why) == 0,
         "no range at %#x: %s", addr, why);
  CHECK (loc.site != CCE_NONE && P->g->sites[loc.site].kind == CCE_SITE_PC
         && P->g->sites[loc.site].node == loc.node, "no PC site at %#x",
         addr);
  return loc.site;
}

/* The PC word of ADDR, with ID and the ccStack ST, decodes completely to
   what the log site LOGSITE of the same function does with the
   function's own id FID and ccStack FST, the log site replaced by the
   PC's site.  */
static void
expect_pc_like_log (struct pc_world *P, const char *what, uint32_t addr,
                    uint64_t id, const struct cce_stack_entry *st,
                    size_t nst, uint32_t logsite, uint64_t fid,
                    const struct cce_stack_entry *fst, size_t nfst)
{
  uint32_t out[64], want[64];
  size_t n = 0, nw = 0;
  const char *why, *wwhy = NULL;

  snprintf (ctx, sizeof ctx, "PC decode: %s", what);
  CHECK (pc_decode (P, pcw (P, addr), id, st, nst, out, &n, &why)
         == CCE_DECODE_OK, "%s: incomplete: %s", what, why);
  CHECK (cce_decode (P->g, logsite, fid, fst, nfst, want, 64, &nw, &wwhy)
         == CCE_DECODE_OK, "%s: the log site does not decode: %s", what,
         wwhy);
  want[nw - 1] = pc_site_at (P, addr);
  CHECK (n == nw && memcmp (out, want, n * sizeof *out) == 0,
         "%s: wrong path", what);
}

/* The PC word WORD with ID and ST decodes to an incomplete path with a
   reason containing WHY, and the sites INNER (N of them).  */
static void
expect_pc_incomplete (struct pc_world *P, const char *what, uint64_t word,
                      uint64_t id, const struct cce_stack_entry *st,
                      size_t nst, const char *why, const uint32_t *inner,
                      size_t ninner)
{
  uint32_t out[64];
  size_t n = 0;
  const char *reason;

  snprintf (ctx, sizeof ctx, "PC decode: %s", what);
  CHECK (pc_decode (P, word, id, st, nst, out, &n, &reason)
         == CCE_DECODE_INCOMPLETE, "%s: decoded", what);
  CHECK (reason && strstr (reason, why), "%s: reason '%s', not '%s'", what,
         reason ? reason : "(none)", why);
  CHECK (n == ninner && memcmp (out, inner, n * sizeof *out) == 0,
         "%s: %zu sites, expected %zu", what, n, ninner);
}

/* The name of path frame F of G.  */
static const char *
frame_name (const struct cce_graph *g, const struct cce_path_frame *f)
{
  if (f->func != CCE_NONE)
    return g->strings[g->funcs[f->func].name];
  if (f->ext_name == CCE_SIGNAL_MARK)
    return "[signal]";
  if (f->ext_name == CCE_THREAD_MARK)
    return "[thread]";
  return g->strings[f->ext_name];
}

/* The frames of the path SITES (N) joined by ';'.  */
static void
frames_text (const struct cce_graph *g, const uint32_t *sites, size_t n,
             char *buf, size_t size)
{
  struct cce_path_frame fr[64];
  size_t nf = 0, i, k = 0;

  cce_path_frames (g, sites, n, fr, 64, &nf);
  CHECK (nf <= 64, "frames");
  buf[0] = 0;
  for (i = 0; i < nf; i++)
    k += (size_t) snprintf (buf + k, size - k, "%s%s", i ? ";" : "",
                            frame_name (g, &fr[i]));
}

static void
test_pc_states_own_and_locations (void **state)
{
  struct pc_world P;
  struct cce_path_frame a[16], b[16];
  uint32_t out[64], want[64];
  size_t n, nw, na, nb, i;
  const char *why;
  char text[256];

  (void) state;
  pc_world (&P, 1);
  expect_pc_like_log (&P, "OWN in expr", PC_EXPR_INL + 4, P.expr_id, NULL, 0,
                      P.elog, P.expr_id, NULL, 0);
  expect_pc_like_log (&P, "OWN in expr, reached from main",
                      PC_EXPR_INL + 15, P.g->sites[P.me].av, NULL, 0, P.elog,
                      P.g->sites[P.me].av, NULL, 0);
  expect_pc_like_log (&P, "OWN in parse", PC_PARSE_OWN, P.parse_id, NULL, 0,
                      P.plog, P.parse_id, NULL, 0);
  expect_pc_like_log (&P, "OWN in parse's cold part", PC_PARSE_COLD + 3,
                      P.parse_id, NULL, 0, P.plog, P.parse_id, NULL, 0);

  /* The location gives the frames a 'c' line with them gives.  */
  pc_decode (&P, pcw (&P, PC_EXPR_INL), P.expr_id, NULL, 0, out, &n, &why);
  cce_decode (P.g, P.elog, P.expr_id, NULL, 0, want, 64, &nw, &why);
  cce_path_frames (P.g, out, n, a, 16, &na);
  cce_path_frames (P.g, want, nw, b, 16, &nb);
  CHECK (na == nb && na == 4, "%zu and %zu frames", na, nb);
  for (i = 0; i < na; i++)
    CHECK (strcmp (frame_name (P.g, &a[i]), frame_name (P.g, &b[i])) == 0
           && a[i].file == b[i].file && a[i].line == b[i].line
           && a[i].col == b[i].col && a[i].inlined == b[i].inlined,
           "frame %zu differs from the log site's", i);
  CHECK (a[3].inlined && !a[2].inlined && a[3].line == 40 && a[3].col == 5,
         "helper's frame");
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "main;parse;expr;helper") == 0, "path %s", text);

  /* No location: the function alone, without a line.  */
  CHECK (pc_decode (&P, pcw (&P, PC_EXPR_NOLOC), P.expr_id, NULL, 0, out, &n,
                    &why) == CCE_DECODE_OK, "no location: %s", why);
  cce_path_frames (P.g, out, n, a, 16, &na);
  CHECK (na == 3 && a[2].func == P.g->nodes[PN_EXPR].func
         && a[2].file == CCE_NONE && a[2].line == 0 && !a[2].inlined,
         "frame of a range without a location");

  /* A site per range, made once.  */
  {
    size_t before = P.g->nsites;
    CHECK (cce_graph_pc_sites (P.g, pcw (&P, PC_EXPR_INL + 1), NULL, 0) == 0
           && P.g->nsites == before, "a second site for a range");
    CHECK (cce_graph_pc_sites (P.g, pcw (&P, PC_PARSE_UNKNOWN), NULL, 0) == 0
           && P.g->nsites == before + 1, "no site for a new range");
  }
  /* The key 0 names the main program, as in site words.  */
  CHECK (pc_decode (&P, CCE_PC_WORD (0, PC_PARSE_OWN), P.parse_id, NULL, 0,
                    out, &n, &why) == CCE_DECODE_OK, "key 0: %s", why);
  pc_world_free (&P);
}

static void
test_pc_state_callee (void **state)
{
  struct pc_world P;
  const struct cce_graph *g;
  uint64_t rec1, rec2, rec3;
  uint32_t inner[1];
  struct cce_stack_entry st[1];

  (void) state;
  pc_world (&P, 1);
  g = P.g;
  /* parse stored the id of its call of expr.  */
  expect_pc_like_log (&P, "CALLEE, parse's edge", PC_PARSE_CALLEE,
                      P.expr_id, NULL, 0, P.plog, P.parse_id, NULL, 0);
  /* main stored the id of its call of expr (hot: addition value 0).  */
  expect_pc_like_log (&P, "CALLEE, main's edge", PC_MAIN_CALLEE,
                      g->sites[P.me].av, NULL, 0, P.mlog, 0, NULL, 0);
  /* An id of expr through main's edge is no call of parse.  */
  inner[0] = pc_site_at (&P, PC_PARSE_CALLEE);
  expect_pc_incomplete (&P, "CALLEE, edge of another node",
                        pcw (&P, PC_PARSE_CALLEE), g->sites[P.me].av, NULL,
                        0, "not one of the function's calls", inner, 1);
  expect_pc_incomplete (&P, "CALLEE, id beyond expr's",
                        pcw (&P, PC_PARSE_CALLEE),
                        cce_node_width (&g->nodes[PN_EXPR]), NULL, 0,
                        "not one of the function's calls", inner, 1);

  /* rec calling itself, folded: the id is rec's at the next level.  */
  rec1 = g->sites[P.mr].av;
  CHECK (cce_site_fold (g, P.rr, rec1, &rec2) == 1
         && cce_site_fold (g, P.rr, rec2, &rec3) == 1, "fold");
  expect_pc_like_log (&P, "CALLEE, folded, level 1", PC_REC_CALLEE, rec2,
                      NULL, 0, P.rlog, rec1, NULL, 0);
  expect_pc_like_log (&P, "CALLEE, folded, level 2", PC_REC_CALLEE, rec3,
                      NULL, 0, P.rlog, rec2, NULL, 0);
  inner[0] = pc_site_at (&P, PC_REC_CALLEE);
  expect_pc_incomplete (&P, "CALLEE, folded beyond the limit",
                        pcw (&P, PC_REC_CALLEE),
                        cce_node_width (&g->nodes[PN_REC]), NULL, 0,
                        "not one of the function's calls", inner, 1);
  /* rec's id from main is no folded id of a call in rec.  */
  expect_pc_incomplete (&P, "CALLEE, rec's own id", pcw (&P, PC_REC_CALLEE),
                        rec1, NULL, 0, "not one of the function's calls",
                        inner, 1);
  /* main after its call of rec, whose self tail calls became jumps to
     its top: the id of rec's deepest level, its levels undone first.  */
  expect_pc_like_log (&P, "CALLEE, after the callee's loop", PC_MAIN_REC,
                      rec3, NULL, 0, P.mlog, 0, NULL, 0);
  expect_pc_like_log (&P, "CALLEE, after the callee, no loop", PC_MAIN_REC,
                      rec1, NULL, 0, P.mlog, 0, NULL, 0);
  inner[0] = pc_site_at (&P, PC_MAIN_REC);
  expect_pc_incomplete (&P, "CALLEE, after the callee, beyond its limit",
                        pcw (&P, PC_MAIN_REC),
                        cce_node_width (&g->nodes[PN_REC]), NULL, 0,
                        "not one of the function's calls", inner, 1);
  /* The ccStack is the function's.  */
  st[0].id = rec1;
  st[0].site = P.rr;
  expect_pc_like_log (&P, "CALLEE, with a ccStack", PC_REC_CALLEE,
                      g->sites[P.rr].fold + g->nodes[PN_REC].numcc
                      + g->nodes[PN_REC].root
                        * g->nodes[PN_REC].nfold,
                      st, 1, P.rlog, g->nodes[PN_REC].root, st, 1);
  pc_world_free (&P);
}

/* cce_pc_callee_fn of the tests: qsort at PC_PARSE_PUSHED + 1.  */
static const char *
callee_of_test (void *arg, size_t module, uint64_t ret)
{
  (void) arg;
  return module == 0 && ret == PC_PARSE_PUSHED + 1 ? "qsort" : NULL;
}

/* Records of a thread stopped outside the program, placed by the call
   that led there (CCE_PC_CALLER): the call's state and location, then a
   frame of the function it called.  */
static void
test_pc_caller_words (void **state)
{
  struct pc_world P;
  struct cce_stack_entry st[1];
  uint32_t out[64];
  size_t n = 0;
  const char *why;
  char text[256];
  uint64_t w;

  (void) state;
  pc_world (&P, 1);
  set_ctx ("caller words");
  /* A call in parse (OWN) into the C library, no name known.  */
  w = pcw (&P, PC_PARSE_OWN + 1) | CCE_PC_CALLER;
  CHECK (pc_decode (&P, w, P.parse_id, NULL, 0, out, &n, &why)
         == CCE_DECODE_OK, "OWN call: %s", why);
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "main;parse;??") == 0, "OWN call: %s", text);
  /* The call is the instruction before the return address: the last
     byte of PUSHED's range holds it, not PUSHING's.  */
  cce_graph_set_pc_callee (P.g, callee_of_test, NULL);
  st[0].id = P.parse_id;
  st[0].site = P.pi;
  w = pcw (&P, PC_PARSE_PUSHED + 1) | CCE_PC_CALLER;
  CHECK (pc_decode (&P, w, 0, st, 1, out, &n, &why) == CCE_DECODE_OK,
         "PUSHED call: %s", why);
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "main;parse;qsort") == 0, "PUSHED call: %s", text);
  /* The same word again: the same site.  */
  {
    uint32_t again[64];
    size_t m = 0;
    CHECK (pc_decode (&P, w, 0, st, 1, again, &m, &why) == CCE_DECODE_OK
           && m == n && again[n - 1] == out[n - 1], "site made twice");
  }
  /* A return address at the start of a range: the call is in the range
     before, PUSHING, whose top entry is not written: not this one.  */
  w = pcw (&P, PC_PARSE_PUSHED) | CCE_PC_CALLER;
  CHECK (pc_decode (&P, w, P.parse_id, st, 1, out, &n, &why)
         == CCE_DECODE_OK, "PUSHING call: %s", why);
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "main;parse;??") == 0, "PUSHING call: %s", text);
  /* Address 0 has no instruction before it.  */
  CHECK (pc_decode (&P, pcw (&P, 0) | CCE_PC_CALLER, 0, NULL, 0, out, &n,
                    &why) == CCE_DECODE_INCOMPLETE, "address 0");
  pc_world_free (&P);
}

static void
test_pc_states_of_the_ccstack (void **state)
{
  struct pc_world P;
  struct cce_stack_entry st[3], fst[1];
  uint32_t inner[1];

  (void) state;
  pc_world (&P, 1);
  /* PUSHING: the top entry is not written yet.  */
  st[0].id = 12345;
  st[0].site = UINT64_C (0xdeadbeef);
  expect_pc_like_log (&P, "PUSHING", PC_PARSE_PUSHING, P.parse_id, st, 1,
                      P.plog, P.parse_id, NULL, 0);
  inner[0] = pc_site_at (&P, PC_PARSE_PUSHING);
  expect_pc_incomplete (&P, "PUSHING, empty ccStack",
                        pcw (&P, PC_PARSE_PUSHING), P.parse_id, NULL, 0,
                        "no ccStack entry", inner, 1);

  /* PUSHED: parse's indirect call, the id the callee's.  */
  st[0].id = P.parse_id;
  st[0].site = P.pi;
  expect_pc_like_log (&P, "PUSHED", PC_PARSE_PUSHED, 0, st, 1, P.plog,
                      P.parse_id, NULL, 0);
  expect_pc_like_log (&P, "PUSHED, callee's id", PC_PARSE_PUSHED, 987654,
                      st, 1, P.plog, P.parse_id, NULL, 0);
  /* ... below an entry of its caller's.  */
  st[0].id = 0;
  st[0].site = P.mi;
  st[1].id = P.parse_id;
  st[1].site = P.pi;
  fst[0] = st[0];
  expect_pc_like_log (&P, "PUSHED, on a ccStack", PC_PARSE_PUSHED, 0, st, 2,
                      P.plog, P.parse_id, fst, 1);
  inner[0] = pc_site_at (&P, PC_PARSE_PUSHED);
  st[0].id = 0;
  st[0].site = P.mi;
  expect_pc_incomplete (&P, "PUSHED, main's entry on top",
                        pcw (&P, PC_PARSE_PUSHED), 0, st, 1,
                        "not a call of the function", inner, 1);
  st[0].site = P.plog;
  expect_pc_incomplete (&P, "PUSHED, a log site on top",
                        pcw (&P, PC_PARSE_PUSHED), 0, st, 1,
                        "not a call of the function", inner, 1);
  st[0].site = CCE_SITE_THREAD;
  expect_pc_incomplete (&P, "PUSHED, a thread entry on top",
                        pcw (&P, PC_PARSE_PUSHED), 0, st, 1,
                        "not a call of the function", inner, 1);
  expect_pc_incomplete (&P, "PUSHED, empty ccStack",
                        pcw (&P, PC_PARSE_PUSHED), 0, NULL, 0,
                        "no ccStack entry", inner, 1);

  /* POPPING: the id is the function's again, the entry still there.  */
  st[0].id = P.parse_id;
  st[0].site = P.pi;
  expect_pc_like_log (&P, "POPPING", PC_PARSE_POPPING, P.parse_id, st, 1,
                      P.plog, P.parse_id, NULL, 0);
  inner[0] = pc_site_at (&P, PC_PARSE_POPPING);
  expect_pc_incomplete (&P, "POPPING, another id",
                        pcw (&P, PC_PARSE_POPPING), P.parse_id + 1, st, 1,
                        "entry being popped", inner, 1);
  st[0].site = P.mi;
  expect_pc_incomplete (&P, "POPPING, main's entry on top",
                        pcw (&P, PC_PARSE_POPPING), P.parse_id, st, 1,
                        "not a call of the function", inner, 1);

  /* UNKNOWN: the function's frames, then nothing.  */
  inner[0] = pc_site_at (&P, PC_PARSE_UNKNOWN);
  expect_pc_incomplete (&P, "UNKNOWN", pcw (&P, PC_PARSE_UNKNOWN),
                        P.parse_id, NULL, 0,
                        "built without -fplugin-arg-cce-async", inner, 1);
  pc_world_free (&P);
}

static void
test_pc_words_without_a_place (void **state)
{
  struct pc_world P, Q;
  uint32_t out[64];
  size_t n;
  const char *why;

  (void) state;
  pc_world (&P, 1);
  expect_pc_incomplete (&P, "CCE_PC_EXTERNAL", CCE_PC_EXTERNAL, 0, NULL, 0,
                        "interrupted outside the program's code", NULL, 0);
  expect_pc_incomplete (&P, "in no range", pcw (&P, PC_GAP), 0, NULL, 0,
                        "interrupted outside the program's code", NULL, 0);
  expect_pc_incomplete (&P, "past a range", pcw (&P, PC_EXPR_NOLOC + 8), 0,
                        NULL, 0, "interrupted outside the program's code",
                        NULL, 0);
  expect_pc_incomplete (&P, "below every range", pcw (&P, 0x10), 0, NULL,
                        0, "interrupted outside the program's code", NULL,
                        0);
  expect_pc_incomplete (&P, "unknown module",
                        CCE_PC_WORD (P.key ^ 0x100, PC_EXPR_INL), 0, NULL,
                        0, "module whose dictionary was not given", NULL,
                        0);
  expect_pc_incomplete (&P, "a body without a node", pcw (&P, PC_NO_NODE),
                        0, NULL, 0, "no node in the dictionary", NULL, 0);
  /* A PC word's site is made before decoding.  */
  CHECK (cce_decode (P.g, pcw (&P, PC_PARSE_COLD + 1), P.parse_id, NULL, 0,
                     out, 64, &n, &why) == CCE_DECODE_INCOMPLETE
         && n == 0 && strstr (why, "cce_graph_pc_sites"),
         "PC word without its site");
  pc_world_free (&P);

  pc_world (&Q, 0);
  expect_pc_incomplete (&Q, "no PC map", pcw (&Q, PC_EXPR_INL), Q.expr_id,
                        NULL, 0, "no PC map: the program was built by a "
                        "cce without one", NULL, 0);
  pc_world_free (&Q);
}

static void
test_pc_signal_entries (void **state)
{
  struct pc_world P;
  struct cce_stack_entry st[3];
  uint32_t out[64], want[8];
  size_t n;
  const char *why;
  char text[256];
  uint64_t note_id;

  (void) state;
  pc_world (&P, 1);
  note_id = P.g->sites[P.tn].av;
  /* on_tick interrupted main -> parse -> expr (helper inlined).  */
  st[0].id = P.expr_id;
  st[0].site = pcw (&P, PC_EXPR_INL + 2);
  CHECK (pc_decode (&P, P.nlog, note_id, st, 1, out, &n, &why)
         == CCE_DECODE_OK, "signal entry: %s", why);
  want[0] = P.mp;
  want[1] = P.pe;
  want[2] = pc_site_at (&P, PC_EXPR_INL);
  want[3] = CCE_SIGNAL_MARK;
  want[4] = P.tn;
  want[5] = P.nlog;
  CHECK (n == 6 && memcmp (out, want, n * sizeof *out) == 0,
         "signal entry: wrong path");
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "main;parse;expr;helper;[signal];on_tick;note") == 0,
         "signal entry: %s", text);

  /* ... while parse was pushing: the entry below is dropped.  */
  st[0].id = 777;
  st[0].site = 778;
  st[1].id = P.parse_id;
  st[1].site = pcw (&P, PC_PARSE_PUSHING);
  CHECK (pc_decode (&P, P.nlog, note_id, st, 2, out, &n, &why)
         == CCE_DECODE_OK, "signal while pushing: %s", why);
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "main;parse;[signal];on_tick;note") == 0,
         "signal while pushing: %s", text);

  /* The state applies to the interrupted id: rec's own id is none of
     its calls.  */
  st[0].id = P.g->sites[P.mr].av;
  st[0].site = pcw (&P, PC_REC_CALLEE);
  want[0] = pc_site_at (&P, PC_REC_CALLEE);
  want[1] = CCE_SIGNAL_MARK;
  want[2] = P.tn;
  want[3] = P.nlog;
  expect_pc_incomplete (&P, "signal, rec's own id as a CALLEE id", P.nlog,
                        note_id, st, 1, "not one of the function's calls",
                        want, 4);

  /* The handler's segment starts at an entry: rec's root is none.  */
  st[0].id = P.expr_id;
  st[0].site = pcw (&P, PC_EXPR_INL);
  want[0] = P.rlog;
  expect_pc_incomplete (&P, "handler segment not at an entry", P.rlog,
                        P.g->nodes[PN_REC].root, st, 1,
                        "not start at an entry function", want, 1);
  /* An interrupted instruction outside the program: the handler's part
     and the mark only.  */
  st[0].site = CCE_PC_EXTERNAL;
  want[0] = CCE_SIGNAL_MARK;
  want[1] = P.tn;
  want[2] = P.nlog;
  expect_pc_incomplete (&P, "signal outside the program", P.nlog, note_id,
                        st, 1, "interrupted outside the program's code",
                        want, 3);
  st[0].site = pcw (&P, PC_GAP);
  expect_pc_incomplete (&P, "signal in no range", P.nlog, note_id, st, 1,
                        "interrupted outside the program's code", want, 3);
  /* UNKNOWN there: the interrupted function's frames.  */
  st[0].id = P.parse_id;
  st[0].site = pcw (&P, PC_PARSE_UNKNOWN);
  want[0] = pc_site_at (&P, PC_PARSE_UNKNOWN);
  want[1] = CCE_SIGNAL_MARK;
  want[2] = P.tn;
  want[3] = P.nlog;
  expect_pc_incomplete (&P, "signal where the context is unknown", P.nlog,
                        note_id, st, 1, "not known at this instruction",
                        want, 4);
  /* The entry without a PC stays as it was.  */
  st[0].site = CCE_SITE_SIGNAL_ASYNC;
  expect_pc_incomplete (&P, "CCE_SITE_SIGNAL_ASYNC", P.nlog, note_id, st, 1,
                        "interrupted context is unknown", want + 2, 2);
  /* A sample in a handler (main, as an entry) that interrupted expr: PC
     words on both sides of the mark.  */
  st[0].id = P.expr_id;
  st[0].site = pcw (&P, PC_EXPR_INL);
  CHECK (pc_decode (&P, pcw (&P, PC_PARSE_OWN), P.parse_id, st, 1, out, &n,
                    &why) == CCE_DECODE_OK, "sample in a handler: %s", why);
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "main;parse;expr;helper;[signal];main;parse") == 0,
         "sample in a handler: %s", text);
  pc_world_free (&P);
}

/* The PC map MAP (LEN bytes) of P's module is refused with a message
   containing WHY; then the good one is read.  */
static void
expect_bad_map (struct pc_world *P, const char *what, const void *map,
                size_t len, const char *why)
{
  char err[512] = "";
  struct cce_pc_loc loc;
  const char *r;

  snprintf (ctx, sizeof ctx, "bad PC map: %s", what);
  CHECK (cce_graph_read_pcmap (P->g, 0, map, len, 0, err, sizeof err) < 0,
         "%s: accepted", what);
  CHECK (strstr (err, why) != NULL, "%s: message '%s' lacks '%s'", what, err,
         why);
  CHECK (strchr (err, '\n') == NULL, "%s: message of several lines", what);
  CHECK (cce_pc_find (P->g, pcw (P, PC_EXPR_INL), &loc, &r) < 0
         && strstr (r, "no PC map"), "%s: a map was kept", what);
}

/* A copy of P's map with the 32-bit word at OFF set to V.  */
static unsigned char *
map_with (const struct pc_world *P, size_t off, uint32_t v)
{
  unsigned char *m = malloc (P->maplen);
  assert_non_null (m);
  memcpy (m, P->map, P->maplen);
  memcpy (m + off, &v, sizeof v);
  return m;
}

static void
test_pcmap_reader_refuses_malformed_maps (void **state)
{
  struct pc_world P;
  unsigned char *m;
  size_t b0size, r0, i;
  struct pm w;
  char err[256];

  (void) state;
  pc_world (&P, 0);
  {
    uint32_t sz;
    memcpy (&sz, P.map + offsetof (struct cce_pcmap_block, size), 4);
    b0size = sz;
  }
  /* The second block (parse's) and its first range.  */
  r0 = b0size + sizeof (struct cce_pcmap_block);

  expect_bad_map (&P, "cut in a header", P.map, 20, "truncated");
  expect_bad_map (&P, "cut in a block", P.map, b0size - 8, "truncated");
  expect_bad_map (&P, "cut in the second header", P.map, b0size + 8,
                  "truncated");
  m = map_with (&P, b0size + offsetof (struct cce_pcmap_block, mark),
                0x12345678);
  expect_bad_map (&P, "bad mark", m, P.maplen, "bad mark 0x12345678");
  free (m);
  m = map_with (&P, 0, CCE_PCMAP_MARK);
  m[offsetof (struct cce_pcmap_block, version)] = 2;
  expect_bad_map (&P, "version", m, P.maplen, "version 2");
  free (m);
  m = map_with (&P, offsetof (struct cce_pcmap_block, size),
                (uint32_t) b0size + 4);
  expect_bad_map (&P, "size not a multiple of 8", m, P.maplen, "bad size");
  free (m);
  m = map_with (&P, offsetof (struct cce_pcmap_block, size), 16);
  expect_bad_map (&P, "size below a header", m, P.maplen, "bad size");
  free (m);
  m = map_with (&P, offsetof (struct cce_pcmap_block, size),
                (uint32_t) P.maplen + 8);
  expect_bad_map (&P, "size past the section", m, P.maplen, "truncated");
  free (m);
  m = map_with (&P, offsetof (struct cce_pcmap_block, nranges), 1000);
  expect_bad_map (&P, "too many ranges", m, P.maplen, "do not fit");
  free (m);
  m = map_with (&P, b0size + offsetof (struct cce_pcmap_block, key),
                P.key + 1);
  expect_bad_map (&P, "wrong key", m, P.maplen, "the map is stale");
  free (m);
  m = map_with (&P, b0size + offsetof (struct cce_pcmap_block, node),
                PN_COUNT);
  expect_bad_map (&P, "bad node", m, P.maplen, "node 7, the dictionary has 7");
  free (m);
  /* Ranges of parse's block: start (8 bytes), len, state, callee, loc.  */
  m = map_with (&P, r0 + sizeof (struct cce_pcmap_range)
                + offsetof (struct cce_pcmap_range, start), PC_PARSE_OWN);
  expect_bad_map (&P, "ranges at one address", m, P.maplen,
                  "two ranges hold");
  free (m);
  m = map_with (&P, r0 + offsetof (struct cce_pcmap_range, len), 9);
  expect_bad_map (&P, "overlapping ranges", m, P.maplen, "two ranges hold");
  free (m);
  m = map_with (&P, r0 + offsetof (struct cce_pcmap_range, state), 6);
  expect_bad_map (&P, "bad state", m, P.maplen, "unknown state 6");
  free (m);
  m = map_with (&P, r0 + sizeof (struct cce_pcmap_range)
                + offsetof (struct cce_pcmap_range, callee), PN_COUNT);
  expect_bad_map (&P, "bad callee", m, P.maplen, "calls node 7");
  free (m);
  m = map_with (&P, r0 + offsetof (struct cce_pcmap_range, callee), PN_EXPR);
  expect_bad_map (&P, "callee of an OWN range", m, P.maplen, "has a callee");
  free (m);
  {
    uint32_t sz;
    memcpy (&sz, P.map + b0size + offsetof (struct cce_pcmap_block, size), 4);
    m = map_with (&P, r0 + offsetof (struct cce_pcmap_range, loc), sz);
    expect_bad_map (&P, "location past the block", m, P.maplen,
                    "outside the block's strings");
    free (m);
    m = map_with (&P, r0 + offsetof (struct cce_pcmap_range, loc), 8);
    expect_bad_map (&P, "location in the header", m, P.maplen,
                    "outside the block's strings");
    free (m);
    /* The last string of parse's block runs to its end, no NUL.  */
    m = map_with (&P, 0, CCE_PCMAP_MARK);
    for (i = b0size + sz - 1; m[i] == 0; i--)
      m[i] = 'x';
    expect_bad_map (&P, "location without its NUL", m, P.maplen,
                    "not NUL-terminated");
    free (m);
  }
  /* Two blocks holding one address.  */
  {
    static const struct pm_range a[] = {
      { 0x100, 16, CCE_PC_OWN, NO, NULL } };
    static const struct pm_range b[] = {
      { 0x108, 4, CCE_PC_OWN, NO, NULL } };
    memset (&w, 0, sizeof w);
    pm_block (&w, P.key, PN_PARSE, 0, a, 1);
    pm_block (&w, P.key, PN_EXPR, 0, b, 1);
    expect_bad_map (&P, "blocks overlap", w.p, w.len,
                    "two ranges hold the address 0x108");
    free (w.p);
  }
  /* Locations that are not frames of the node's function.  */
  {
    static const char *const bad[] = {
      "parse p.c 12 1", "parse\tp.c\t12", "parse\tp.c\t12\t1\n",
      "parse\tp.c\tx\t1", "parse\tp.c\t12\t99999999999",
      "parse\tp.c\t12\t1\nhelper\th.h", "parse\tp.c\t12\t1 ",
      "parse\tp.c\t\t1", NULL };
    for (i = 0; bad[i]; i++)
      {
        struct pm_range r = { 0x100, 4, CCE_PC_OWN, NO, bad[i] };
        memset (&w, 0, sizeof w);
        pm_block (&w, P.key, PN_PARSE, 0, &r, 1);
        expect_bad_map (&P, bad[i], w.p, w.len, "not a list of frames");
        free (w.p);
      }
    {
      struct pm_range r = { 0x100, 4, CCE_PC_OWN, NO, "expr\te.c\t1\t1" };
      memset (&w, 0, sizeof w);
      pm_block (&w, P.key, PN_PARSE, 0, &r, 1);
      expect_bad_map (&P, "location in another function", w.p, w.len,
                      "does not start in the node's function");
      free (w.p);
    }
  }
  /* Not a module of the graph.  */
  CHECK (cce_graph_read_pcmap (P.g, 1, P.map, P.maplen, 0, err, sizeof err)
         < 0 && strstr (err, "module 1"), "module 1 of 1");

  /* Controls: the good map, an empty one, and none twice.  */
  CHECK (cce_graph_read_pcmap (P.g, 0, P.map, P.maplen, 0, err, sizeof err)
         == 0, "good map refused: %s", err);
  CHECK (cce_graph_read_pcmap (P.g, 0, P.map, P.maplen, 0, err, sizeof err)
         < 0 && strstr (err, "already"), "a second map");
  pc_world_free (&P);
  pc_world (&P, 0);
  CHECK (cce_graph_read_pcmap (P.g, 0, P.map, 0, 0, err, sizeof err) == 0,
         "empty map refused: %s", err);
  expect_pc_incomplete (&P, "empty map", pcw (&P, PC_EXPR_INL), 0, NULL, 0,
                        "interrupted outside the program's code", NULL, 0);
  pc_world_free (&P);
}

static void
test_pcmap_in_the_other_byte_order_and_of_a_library (void **state)
{
  struct pc_world P;
  struct pm w;
  struct cce_graph *lib, *lg;
  uint32_t f, out[64], s;
  size_t n, i;
  const char *why;
  char err[256] = "", text[256];
  static const struct pm_range lr[] = {
    { 0x700, 32, CCE_PC_OWN, NO, "lib_entry\tl.c\t7\t2\ninl\tl.h\t3\t4" },
    { 0x720, 8, CCE_PC_CALLEE, 1, "lib_entry\tl.c\t8\t2" },
  };

  (void) state;
  /* The other byte order.  */
  pc_world (&P, 0);
  memset (&w, 0, sizeof w);
  w.swap = 1;
  {
    static const struct pm_range r[] = {
      { PC_PARSE_OWN, 8, CCE_PC_OWN, NO, "parse\tp.c\t12\t1" },
      { PC_PARSE_CALLEE, 8, CCE_PC_CALLEE, PN_EXPR, "parse\tp.c\t13\t1" },
    };
    pm_block (&w, P.key, PN_PARSE, CCE_PCMAP_ASYNC, r, 2);
  }
  CHECK (cce_graph_read_pcmap (P.g, 0, w.p, w.len, 0, err, sizeof err) < 0,
         "swapped map read unswapped");
  CHECK (cce_graph_read_pcmap (P.g, 0, w.p, w.len, 1, err, sizeof err) == 0,
         "swapped map: %s", err);
  free (w.p);
  expect_pc_like_log (&P, "swapped map, CALLEE", PC_PARSE_CALLEE + 7,
                      P.expr_id, NULL, 0, P.plog, P.parse_id, NULL, 0);

  /* A library merged after the program: its map's nodes are its own.  */
  lib = cce_graph_new ();
  f = cce_graph_func (lib, "lib_entry", "l.c", 1);
  CHECK (cce_graph_node (lib, f, CCE_NODE_ENTRY) == 0, "lib node");
  f = cce_graph_func (lib, "lib_work", "l.c", 20);
  CHECK (cce_graph_node (lib, f, 0) == 1, "lib node");
  pw_site (lib, 0, CCE_SITE_DIRECT, 1, 1, 0, "l.c", 8);
  pw_site (lib, 1, CCE_SITE_LOG, CCE_NONE, 1, 1, "l.c", 21);
  pw_site (lib, 0, CCE_SITE_LOG, CCE_NONE, 1, 0, "l.c", 9);
  CHECK (cce_graph_encode (lib, NULL, err, sizeof err) == 0, "encode lib");
  lg = reread (lib);
  cce_graph_free (lib);
  CHECK (cce_graph_merge (P.g, lg, err, sizeof err) == 0, "merge: %s", err);
  memset (&w, 0, sizeof w);
  pm_block (&w, lg->modules[0].key, 0, CCE_PCMAP_ASYNC, lr, 2);
  /* The program's key is stale for the library.  */
  {
    struct pm bad;
    memset (&bad, 0, sizeof bad);
    pm_block (&bad, P.key, 0, 0, lr, 1);
    CHECK (cce_graph_read_pcmap (P.g, 1, bad.p, bad.len, 0, err, sizeof err)
           < 0 && strstr (err, "the map is stale"),
           "program's key in the library's");
    free (bad.p);
  }
  CHECK (cce_graph_read_pcmap (P.g, 1, w.p, w.len, 0, err, sizeof err) == 0,
         "library map: %s", err);
  free (w.p);
  CHECK (pc_decode (&P, CCE_PC_WORD (lg->modules[0].key, 0x710), 0, NULL, 0,
                    out, &n, &why) == CCE_DECODE_OK, "library PC: %s", why);
  CHECK (n == 1 && P.g->sites[out[0]].node == PN_COUNT, "library node");
  frames_text (P.g, out, n, text, sizeof text);
  CHECK (strcmp (text, "lib_entry;inl") == 0, "library path %s", text);
  /* lib_entry calling lib_work.  */
  s = P.g->modules[1].first_site;
  CHECK (pc_decode (&P, CCE_PC_WORD (lg->modules[0].key, 0x720),
                    P.g->sites[s].av, NULL, 0, out, &n, &why)
         == CCE_DECODE_OK && n == 1, "library CALLEE: %s", why);
  /* The inlined function inl is a function of the graph now, once.  */
  for (i = 0, n = 0; i < P.g->nfuncs; i++)
    n += strcmp (P.g->strings[P.g->funcs[i].name], "inl") == 0;
  CHECK (n == 1, "%zu functions inl", n);
  cce_graph_free (lg);
  pc_world_free (&P);
}

/* The frames of a PC's site in a split part and in a hidden node are
   those of a log site with the same frames there.  */
static void
test_pc_locations_in_split_and_hidden_nodes (void **state)
{
  struct cce_graph *g0 = cce_graph_new (), *g;
  uint32_t fm, ff, fw, fa, main_, f, part, wrap, logpart, logwrap;
  uint32_t out[16], want[16];
  struct cce_path_frame a[16], b[16];
  size_t n, nw, na, nb, i, k;
  const char *why;
  char err[256] = "";
  struct pm w;
  static const struct pm_range rpart[] = {
    { 0x100, 8, CCE_PC_OWN, NO, "f\tf.c\t20\t3\ninl\ti.h\t7\t1" } };
  static const struct pm_range rwrap[] = {
    { 0x200, 8, CCE_PC_OWN, NO, "__wrap\tx.c\t1\t1\nctor_a\tx.c\t5\t2" } };

  (void) state;
  set_ctx ("split and hidden");
  fm = cce_graph_func (g0, "main", "m.c", 1);
  ff = cce_graph_func (g0, "f", "f.c", 10);
  fw = cce_graph_func (g0, "__wrap", "x.c", 1);
  fa = cce_graph_func (g0, "ctor_a", "x.c", 4);
  main_ = cce_graph_node (g0, fm, CCE_NODE_ENTRY);
  f = cce_graph_node (g0, ff, 0);
  part = cce_graph_node (g0, ff, CCE_NODE_SPLIT_PART);
  wrap = cce_graph_node (g0, fw, CCE_NODE_ENTRY | CCE_NODE_HIDDEN);
  pw_site (g0, main_, CCE_SITE_DIRECT, f, 1, fm, "m.c", 2);
  pw_site (g0, f, CCE_SITE_DIRECT, part, 1, ff, "f.c", 12);
  logpart = pw_site (g0, part, CCE_SITE_LOG, CCE_NONE, 1, ff, "f.c", 20);
  g0->frames[g0->sites[logpart].first_frame].col = 3;
  CHECK (cce_graph_frame (g0, logpart, cce_graph_func (g0, "inl", "i.h", 6),
                          "i.h", 7, 1) == 0, "frame");
  logwrap = pw_site (g0, wrap, CCE_SITE_LOG, CCE_NONE, 1, fw, "x.c", 1);
  CHECK (cce_graph_frame (g0, logwrap, fa, "x.c", 5, 2) == 0, "frame");
  CHECK (cce_graph_encode (g0, NULL, err, sizeof err) == 0, "encode: %s",
         err);
  g = reread (g0);
  cce_graph_free (g0);
  memset (&w, 0, sizeof w);
  pm_block (&w, g->modules[0].key, part, CCE_PCMAP_ASYNC, rpart, 1);
  pm_block (&w, g->modules[0].key, wrap, CCE_PCMAP_ASYNC, rwrap, 1);
  CHECK (cce_graph_read_pcmap (g, 0, w.p, w.len, 0, err, sizeof err) == 0,
         "read_pcmap: %s", err);
  free (w.p);
  for (k = 0; k < 2; k++)
    {
      uint64_t word = CCE_PC_WORD (g->modules[0].key, k ? 0x200 : 0x100);
      uint32_t ls = k ? logwrap : logpart;
      CHECK (cce_graph_pc_sites (g, word, NULL, 0) == 0, "pc_sites");
      CHECK (cce_decode (g, word, 0, NULL, 0, out, 16, &n, &why)
             == CCE_DECODE_OK, "%zu: %s", k, why);
      CHECK (cce_decode (g, ls, 0, NULL, 0, want, 16, &nw, &why)
             == CCE_DECODE_OK, "%zu: log site: %s", k, why);
      cce_path_frames (g, out, n, a, 16, &na);
      cce_path_frames (g, want, nw, b, 16, &nb);
      CHECK (na == nb, "%zu: %zu and %zu frames", k, na, nb);
      for (i = 0; i < na; i++)
        CHECK (strcmp (frame_name (g, &a[i]), frame_name (g, &b[i])) == 0
               && a[i].file == b[i].file && a[i].line == b[i].line
               && a[i].col == b[i].col && a[i].inlined == b[i].inlined,
               "%zu: frame %zu differs from the log site's", k, i);
    }
  frames_text (g, out, n, err, sizeof err);
  CHECK (strcmp (err, "ctor_a") == 0, "hidden: %s", err);
  CHECK (cce_decode (g, CCE_PC_WORD (g->modules[0].key, 0x100), 0, NULL, 0,
                     out, 16, &n, &why) == CCE_DECODE_OK, "part");
  frames_text (g, out, n, err, sizeof err);
  CHECK (strcmp (err, "main;f;inl") == 0, "split part: %s", err);
  cce_path_frames (g, out, n, a, 16, &na);
  CHECK (na == 3 && a[1].line == 20 && !a[1].inlined && a[2].inlined,
         "split part's frames");
  cce_graph_free (g);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_decode_of_id_beyond_width_is_incomplete),
    cmocka_unit_test (test_decode_with_bad_stack_site_is_incomplete),
    cmocka_unit_test (test_decode_with_back_entry_for_other_callee_is_incomplete),
    cmocka_unit_test (test_decode_controls_of_garbage_graph_are_ok),
    cmocka_unit_test (test_pc_states_own_and_locations),
    cmocka_unit_test (test_pc_state_callee),
    cmocka_unit_test (test_pc_states_of_the_ccstack),
    cmocka_unit_test (test_pc_words_without_a_place),
    cmocka_unit_test (test_pc_signal_entries),
    cmocka_unit_test (test_pc_caller_words),
    cmocka_unit_test (test_pcmap_reader_refuses_malformed_maps),
    cmocka_unit_test (test_pcmap_in_the_other_byte_order_and_of_a_library),
    cmocka_unit_test (test_pc_locations_in_split_and_hidden_nodes),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
