/* test-dict-text.c -- cmocka unit tests of the dictionary text of cce's
   core (common/dict.c): the round trip, broken and damaged text, and
   graphs merged from the dictionaries of several modules.  The
   decoder's readers of dictionaries in ELF files are test-dict.c's.  */

#define _GNU_SOURCE 1     /* MAP_ANONYMOUS */
#include <sys/mman.h>

#include "core-tests.h"

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
/* Modules.                                                           */

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

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_dict_round_trip_keeps_graph_and_decoding),
    cmocka_unit_test (test_read_dict_rejects_garbage_without_crashing),
    cmocka_unit_test (test_read_dict_reads_no_byte_past_len),
    cmocka_unit_test (test_read_dict_refuses_entry_node_with_nonzero_root),
    cmocka_unit_test (test_damaged_dictionary_with_good_stamp_is_refused_or_safe),
    cmocka_unit_test (test_merged_modules_decode_across_the_boundary),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
