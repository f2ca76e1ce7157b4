/* test-dict.c -- unit tests of the dictionary and log readers of the
   decoder (libccedecode) on good and broken input.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include "cce-abi.h"
#include "cce-core.h"
#include "cce-format.h"
#include "decode.h"

/* ===================================================================
   The test program.

     main  (entry)  --S0 d--> work --S2 d (from inlined helper)--> leaf
       |   \--S1 d--> leaf                                          S3 log
       |    \--S6 i--> (pointer) cb (entry)                         S5 log
       |     \--S7 d--> rec --S8 d--> rec (recursion: becomes 'b') S9 log
     work --S4 x qsort--> cb  */

enum { S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, NSITES };
enum { N_MAIN, N_WORK, N_LEAF, N_CB, N_REC, NNODES };

struct world
{
  struct cce_graph *g;     /* built and encoded */
  char *text;              /* its dictionary */
  size_t len;
  struct cced_program *prog;
  char tmpdir[64];
};

static struct world W;

static struct cce_graph *
build_graph (void)
{
  struct cce_graph *g = cce_graph_new ();
  uint32_t f_main, f_work, f_helper, f_leaf, f_cb, f_rec, s;
  char err[256];

  assert_non_null (g);
  f_main = cce_graph_func (g, "main", "hello.c", 10);
  f_work = cce_graph_func (g, "work", "hello.c", 20);
  f_helper = cce_graph_func (g, "helper", "hello.c", 30);
  f_leaf = cce_graph_func (g, "leaf", "hello.c", 40);
  f_cb = cce_graph_func (g, "cb", "cb.c", 50);
  f_rec = cce_graph_func (g, "rec", "hello.c", 60);
  assert_int_equal (cce_graph_node (g, f_main, CCE_NODE_ENTRY), N_MAIN);
  assert_int_equal (cce_graph_node (g, f_work, 0), N_WORK);
  assert_int_equal (cce_graph_node (g, f_leaf, 0), N_LEAF);
  assert_int_equal (cce_graph_node (g, f_cb, CCE_NODE_ENTRY), N_CB);
  assert_int_equal (cce_graph_node (g, f_rec, 0), N_REC);

  s = cce_graph_site (g, N_MAIN, CCE_SITE_DIRECT, N_WORK, 1);
  assert_int_equal (s, S0);
  assert_int_equal (cce_graph_frame (g, s, f_main, "hello.c", 12, 3), 0);
  s = cce_graph_site (g, N_MAIN, CCE_SITE_DIRECT, N_LEAF, 1);
  assert_int_equal (s, S1);
  assert_int_equal (cce_graph_frame (g, s, f_main, "hello.c", 13, 3), 0);
  s = cce_graph_site (g, N_WORK, CCE_SITE_DIRECT, N_LEAF, 5);
  assert_int_equal (s, S2);
  assert_int_equal (cce_graph_frame (g, s, f_work, "hello.c", 22, 5), 0);
  assert_int_equal (cce_graph_frame (g, s, f_helper, "hello.c", 32, 7), 0);
  s = cce_graph_site (g, N_LEAF, CCE_SITE_LOG, CCE_NONE, 1);
  assert_int_equal (s, S3);
  assert_int_equal (cce_graph_frame (g, s, f_leaf, "hello.c", 42, 3), 0);
  s = cce_graph_site (g, N_WORK, CCE_SITE_EXTERNAL,
                      cce_graph_string (g, "qsort"), 1);
  assert_int_equal (s, S4);
  assert_int_equal (cce_graph_frame (g, s, f_work, "hello.c", 24, 3), 0);
  s = cce_graph_site (g, N_CB, CCE_SITE_LOG, CCE_NONE, 1);
  assert_int_equal (s, S5);
  assert_int_equal (cce_graph_frame (g, s, f_cb, "cb.c", 52, 3), 0);
  s = cce_graph_site (g, N_MAIN, CCE_SITE_INDIRECT, CCE_NONE, 1);
  assert_int_equal (s, S6);
  assert_int_equal (cce_graph_frame (g, s, f_main, "hello.c", 14, 3), 0);
  s = cce_graph_site (g, N_MAIN, CCE_SITE_DIRECT, N_REC, 1);
  assert_int_equal (s, S7);
  assert_int_equal (cce_graph_frame (g, s, f_main, "hello.c", 15, 3), 0);
  s = cce_graph_site (g, N_REC, CCE_SITE_DIRECT, N_REC, 10);
  assert_int_equal (s, S8);
  assert_int_equal (cce_graph_frame (g, s, f_rec, "hello.c", 62, 5), 0);
  s = cce_graph_site (g, N_REC, CCE_SITE_LOG, CCE_NONE, 1);
  assert_int_equal (s, S9);
  /* A frame with no known file.  */
  assert_int_equal (cce_graph_frame (g, s, f_rec, NULL, 0, 0), 0);

  err[0] = 0;
  if (cce_graph_encode (g, NULL, err, sizeof err) != 0)
    fail_msg ("encode: %s", err);
  assert_int_equal (g->sites[S8].kind, CCE_SITE_BACK);
  assert_true (g->nodes[N_REC].has_root);
  return g;
}

static int
setup (void **state)
{
  struct cced_error e;
  (void) state;

  memset (&W, 0, sizeof W);
  W.g = build_graph ();
  assert_int_equal (cce_graph_write_dict (W.g, &W.text, &W.len), 0);
  W.prog = cced_program_from_dict ("./hello", W.text, W.len, &e);
  if (!W.prog)
    fail_msg ("%s", e.msg);
  snprintf (W.tmpdir, sizeof W.tmpdir, "/tmp/test-dict-XXXXXX");
  assert_non_null (mkdtemp (W.tmpdir));
  return 0;
}

static int
teardown (void **state)
{
  char cmd[128];
  (void) state;
  cced_program_close (W.prog);
  cce_graph_free (W.g);
  free (W.text);
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", W.tmpdir);
  if (system (cmd) != 0)
    return -1;
  return 0;
}

/* ===================================================================
   Dictionary.  */

static void
assert_graphs_equal (const struct cce_graph *a, const struct cce_graph *b)
{
  size_t i;

  assert_int_equal (a->stamp, b->stamp);
  assert_int_equal (a->nstrings, b->nstrings);
  for (i = 0; i < a->nstrings; i++)
    assert_string_equal (a->strings[i], b->strings[i]);
  assert_int_equal (a->nfuncs, b->nfuncs);
  for (i = 0; i < a->nfuncs; i++)
    {
      assert_int_equal (a->funcs[i].name, b->funcs[i].name);
      assert_int_equal (a->funcs[i].file, b->funcs[i].file);
      assert_int_equal (a->funcs[i].line, b->funcs[i].line);
    }
  assert_int_equal (a->nnodes, b->nnodes);
  for (i = 0; i < a->nnodes; i++)
    {
      assert_int_equal (a->nodes[i].func, b->nodes[i].func);
      assert_int_equal (a->nodes[i].flags, b->nodes[i].flags);
      assert_int_equal (a->nodes[i].numcc, b->nodes[i].numcc);
      assert_int_equal (!!a->nodes[i].has_root, !!b->nodes[i].has_root);
      if (a->nodes[i].has_root)
        assert_int_equal (a->nodes[i].root, b->nodes[i].root);
      assert_int_equal (a->nodes[i].n_in, b->nodes[i].n_in);
    }
  assert_int_equal (a->nsites, b->nsites);
  for (i = 0; i < a->nsites; i++)
    {
      const struct cce_site *x = &a->sites[i], *y = &b->sites[i];
      assert_int_equal (x->node, y->node);
      assert_int_equal (x->kind, y->kind);
      assert_int_equal (x->target, y->target);
      assert_int_equal (x->nframes, y->nframes);
      if (x->kind == CCE_SITE_DIRECT)
        assert_int_equal (x->av, y->av);
      for (uint32_t j = 0; j < x->nframes; j++)
        {
          const struct cce_frame *fx = &a->frames[x->first_frame + j];
          const struct cce_frame *fy = &b->frames[y->first_frame + j];
          assert_int_equal (fx->func, fy->func);
          assert_int_equal (fx->file, fy->file);
          assert_int_equal (fx->line, fy->line);
          assert_int_equal (fx->col, fy->col);
        }
    }
  assert_int_equal (a->nedges, b->nedges);
  for (i = 0; i < a->nedges; i++)
    {
      assert_int_equal (a->edges[i].node, b->edges[i].node);
      assert_int_equal (a->edges[i].site, b->edges[i].site);
      assert_int_equal (a->edges[i].av, b->edges[i].av);
    }
}

static void
test_dict_roundtrip (void **state)
{
  char err[256], *text2;
  size_t len2;
  struct cce_graph *g;
  (void) state;

  /* The header line.  */
  {
    char head[64];
    snprintf (head, sizeof head, "cce-dict %d %016" PRIx64 "\n",
              CCE_DICT_VERSION, W.g->stamp);
    assert_true (W.len > strlen (head));
    assert_memory_equal (W.text, head, strlen (head));
    assert_int_equal (W.g->stamp,
                      cce_fnv1a64 (W.text + strlen (head),
                                   W.len - strlen (head)));
  }
  err[0] = 0;
  g = cce_graph_read_dict (W.text, W.len, err, sizeof err);
  if (!g)
    fail_msg ("read_dict: %s", err);
  assert_graphs_equal (W.g, g);
  /* Written again: the same bytes.  */
  assert_int_equal (cce_graph_write_dict (g, &text2, &len2), 0);
  assert_int_equal (len2, W.len);
  assert_memory_equal (text2, W.text, W.len);
  free (text2);
  cce_graph_free (g);

  /* The decoder library reads the same graph.  */
  assert_graphs_equal (W.g, cced_program_graph (W.prog));
  assert_string_equal (cced_program_name (W.prog), "./hello");
}

static void
test_dict_strings_escaped (void **state)
{
  struct cce_graph *g = cce_graph_new (), *g2;
  char err[256], *text;
  size_t len;
  uint32_t f, n, s;
  (void) state;

  f = cce_graph_func (g, "odd\\name\nwith newline", "dir\\file.c", 1);
  n = cce_graph_node (g, f, CCE_NODE_ENTRY);
  s = cce_graph_site (g, n, CCE_SITE_LOG, CCE_NONE, 1);
  assert_int_equal (cce_graph_frame (g, s, f, "dir\\file.c", 2, 1), 0);
  assert_int_equal (cce_graph_encode (g, NULL, err, sizeof err), 0);
  assert_int_equal (cce_graph_write_dict (g, &text, &len), 0);
  /* One line per entry: the newline is escaped.  */
  assert_non_null (strstr (text, "s odd\\\\name\\nwith newline\n"));
  g2 = cce_graph_read_dict (text, len, err, sizeof err);
  assert_non_null (g2);
  assert_graphs_equal (g, g2);
  cce_graph_free (g2);
  cce_graph_free (g);
  free (text);
}

/* TEXT with its body (after the header line) replaced by BODY and a
   correct stamp.  */
static char *
restamp (const char *body, size_t *len)
{
  uint64_t st = cce_fnv1a64 (body, strlen (body));
  char *t;
  if (asprintf (&t, "cce-dict %d %016" PRIx64 "\n%s", CCE_DICT_VERSION, st,
                body) < 0)
    fail ();
  *len = strlen (t);
  return t;
}

static const char *
body_of (const char *text)
{
  return strchr (text, '\n') + 1;
}

/* Replace the first occurrence of OLD in the body of the dictionary by
   NEW, restamp, and expect the reader to fail.  */
static void
expect_bad_edit (const char *old, const char *new_, const char *what)
{
  const char *body = body_of (W.text);
  const char *at = strstr (body, old);
  char *edited, *t, err[256];
  size_t len;
  struct cce_graph *g;
  struct cced_error e;
  struct cced_program *p;

  if (!at)
    fail_msg ("'%s' not in the dictionary", old);
  if (asprintf (&edited, "%.*s%s%s", (int) (at - body), body, new_,
                at + strlen (old)) < 0)
    fail ();
  t = restamp (edited, &len);
  err[0] = 0;
  g = cce_graph_read_dict (t, len, err, sizeof err);
  if (g)
    fail_msg ("%s: accepted", what);
  if (!err[0])
    fail_msg ("%s: no message", what);
  p = cced_program_from_dict ("prog", t, len, &e);
  assert_null (p);
  assert_int_equal (e.code, CCED_E_BAD_DICT);
  assert_non_null (strstr (e.msg, err));
  free (t);
  free (edited);
}

static void
expect_bad_text (const char *t, size_t len, const char *what,
                 const char *expect)
{
  char err[256];
  struct cced_error e;
  struct cced_program *p;
  struct cce_graph *g;

  err[0] = 0;
  g = cce_graph_read_dict (t, len, err, sizeof err);
  if (g)
    fail_msg ("%s: accepted", what);
  if (!err[0])
    fail_msg ("%s: no message", what);
  if (expect && !strstr (err, expect))
    fail_msg ("%s: message '%s' lacks '%s'", what, err, expect);
  p = cced_program_from_dict ("prog", t, len, &e);
  assert_null (p);
  assert_int_equal (e.code, CCED_E_BAD_DICT);
  assert_non_null (strstr (e.msg, "malformed cce dictionary"));
}

static void
test_dict_bad_magic (void **state)
{
  char *t = strdup (W.text);
  (void) state;
  t[7] = 'X';                          /* cce-dicX */
  expect_bad_text (t, W.len, "bad magic", NULL);
  memcpy (t, "CCE-LOG", 7);
  expect_bad_text (t, W.len, "log magic", NULL);
  expect_bad_text ("", 0, "empty", NULL);
  expect_bad_text ("cce-dict\n", 9, "header only", NULL);
  free (t);
}

static void
test_dict_bad_version (void **state)
{
  char *t = strdup (W.text);
  (void) state;
  t[9] = '1';                          /* cce-dict 1: before traces */
  expect_bad_text (t, W.len, "version 1", "version");
  t[9] = '2';                          /* cce-dict 2: before folding */
  expect_bad_text (t, W.len, "version 2", "version");
  t[9] = '4';                          /* cce-dict 4 */
  expect_bad_text (t, W.len, "version 4", "version");
  t[9] = 'x';
  expect_bad_text (t, W.len, "version x", NULL);
  free (t);
}

static void
test_dict_bad_stamp (void **state)
{
  size_t hl = strchr (W.text, '\n') - W.text + 1;
  (void) state;

  /* Altered bytes of the body, one at a time.  */
  for (size_t i = hl; i < W.len; i += 7)
    {
      char *t = strdup (W.text);
      t[i] = t[i] == '1' ? '2' : '1';
      expect_bad_text (t, W.len, "altered body", NULL);
      free (t);
    }
  /* An altered stamp.  */
  {
    char *t = strdup (W.text);
    t[hl - 2] = t[hl - 2] == '0' ? '1' : '0';
    expect_bad_text (t, W.len, "altered stamp", "stamp");
    free (t);
  }
  /* A short stamp, or garbage after it.  */
  {
    size_t len;
    char *t = restamp (body_of (W.text), &len);
    char *u;
    if (asprintf (&u, "cce-dict 1 %.15s\n%s", t + 11, body_of (W.text)) < 0)
      fail ();
    expect_bad_text (u, strlen (u), "short stamp", NULL);
    free (u);
    if (asprintf (&u, "cce-dict 1 %.16s x\n%s", t + 11, body_of (W.text))
        < 0)
      fail ();
    expect_bad_text (u, strlen (u), "junk after stamp", NULL);
    free (u);
    free (t);
  }
}

static void
test_dict_truncated (void **state)
{
  const char *body = body_of (W.text);
  size_t blen = strlen (body);
  (void) state;

  /* Every proper prefix is refused (the stamp covers the body).  The
     prefix is copied, NUL-terminated, so that a reader looking past LEN
     would see a different text.  */
  for (size_t n = 0; n < W.len; n++)
    {
      char *t = malloc (n + 1);
      memcpy (t, W.text, n);
      t[n] = 0;
      expect_bad_text (t, n, "prefix", NULL);
      free (t);
    }
  /* Cut inside a line, restamped: the parser must notice.  */
  for (size_t n = 1; n < blen; n++)
    {
      char *b, *t;
      size_t len;
      if (body[n - 1] == '\n')
        continue;                 /* a cut at a line end may be valid */
      b = strndup (body, n);
      t = restamp (b, &len);
      expect_bad_text (t, len, "cut line", NULL);
      free (t);
      free (b);
    }
}

static void
test_dict_out_of_range (void **state)
{
  (void) state;
  /* Functions are "f NAME FILE LINE"; the first is main.  */
  expect_bad_edit ("\nf 0 1 10\n", "\nf 99 1 10\n", "func name");
  expect_bad_edit ("\nf 0 1 10\n", "\nf 0 99 10\n", "func file");
  /* Nodes "n FUNC FLAGS NUMCC ROOT".  */
  expect_bad_edit ("\nn 0 1 ", "\nn 99 1 ", "node func");
  /* Sites "c NODE KIND TARGET N ...".  */
  expect_bad_edit ("\nc 0 d 1 1 ", "\nc 99 d 1 1 ", "site node");
  expect_bad_edit ("\nc 0 d 1 1 ", "\nc 0 d 99 1 ", "site target");
  expect_bad_edit ("\nc 0 d 1 1 0 ", "\nc 0 d 1 1 99 ", "frame func");
  expect_bad_edit ("\nc 0 d 1 1 0 1 ", "\nc 0 d 1 1 0 99 ", "frame file");
  expect_bad_edit (" x 8 ", " x 99 ", "external name");
  expect_bad_edit ("\nc 0 d 1 1 ", "\nc 0 z 1 1 ", "site kind");
  expect_bad_edit ("\nc 0 d 1 1 ", "\nc 0 d 1 0 ", "no frames");
  expect_bad_edit ("\nc 0 d 1 1 ", "\nc 0 d 1 7 ", "too many frames");
  /* Edges "e NODE SITE AV".  */
  expect_bad_edit ("\ne 1 0 ", "\ne 1 99 ", "edge site");
  expect_bad_edit ("\ne 1 0 ", "\ne 2 0 ", "edge node");
  expect_bad_edit ("\ne 1 0 ", "\ne 1 3 ", "edge of a log site");
  expect_bad_edit ("\ne 1 0 0\n", "\ne 1 0 5\n", "av out of numcc");
  expect_bad_edit ("\ne 1 0 0\n", "\ne 1 0 99999999999999999999\n",
                   "av overflows");
  expect_bad_edit ("\nn 0 1 1 0\n", "\nn 0 1 1 99999999999999999999\n",
                   "root overflows");
  expect_bad_edit ("\nf 0 1 10\n", "\nf 0 1 4294967295\n",
                   "line out of range");
}

/* Folded recursion "r NODE LIM K SITE...": rec's self call.  Every kind
   of damage is refused with a message.  */
static void
test_dict_bad_folds (void **state)
{
  const char *body = body_of (W.text), *r = strstr (body, "\nr ");
  unsigned node, k, site;
  unsigned long long lim;
  char old[128], new_[256];
  int n = 0;

  (void) state;
  assert_non_null (r);
  assert_int_equal (sscanf (r, "\nr %u %llu %u %u%n", &node, &lim, &k, &site,
                            &n), 4);
  assert_int_equal (node, N_REC);
  assert_int_equal (k, 1);
  assert_true (lim > 0);
  snprintf (old, sizeof old, "%.*s\n", n, r);
#define BAD_FOLD(what, ...) do { snprintf (new_, sizeof new_, __VA_ARGS__); \
    expect_bad_edit (old, new_, what); } while (0)
  BAD_FOLD ("fold site missing", "\nr %u %llu 1 99999\n", node, lim);
  BAD_FOLD ("fold limit 0", "\nr %u 0 1 %u\n", node, site);
  BAD_FOLD ("no folded sites", "\nr %u %llu 0\n", node, lim);
  BAD_FOLD ("fold site twice", "\nr %u %llu 2 %u %u\n", node, lim, site,
            site);
  BAD_FOLD ("fold into another node", "\nr %u %llu 1 %u\n", N_WORK, lim,
            site);
  BAD_FOLD ("fold of a direct site", "\nr %u %llu 1 0\n", node, lim);
  BAD_FOLD ("fold limit overflows", "\nr %u 18446744073709551615 1 %u\n",
            node, site);
  BAD_FOLD ("fold node missing", "\nr 99 %llu 1 %u\n", lim, site);
  BAD_FOLD ("second r line", "%s%s", old, old + 1);
  BAD_FOLD ("fewer sites than K", "\nr %u %llu 2 %u\n", node, lim, site);
#undef BAD_FOLD
}

static void
test_dict_non_numeric (void **state)
{
  (void) state;
  expect_bad_edit ("\nf 0 1 10\n", "\nf x 1 10\n", "name");
  expect_bad_edit ("\nf 0 1 10\n", "\nf 0 1 1x\n", "junk after line");
  expect_bad_edit ("\nf 0 1 10\n", "\nf 0 1\n", "missing field");
  expect_bad_edit ("\nf 0 1 10\n", "\nf 0 1 10 \n", "trailing space");
  expect_bad_edit ("\nf 0 1 10\n", "\nf 0  1 10\n", "double space");
  expect_bad_edit ("\nf 0 1 10\n", "\nf -1 1 10\n", "negative");
  expect_bad_edit ("\nn 0 1 ", "\nn 0 g ", "flags");
  expect_bad_edit ("\nn 0 1 1 0\n", "\nn 0 1 one 0\n", "numcc");
  expect_bad_edit ("\nn 0 1 1 0\n", "\nn 0 1 1 z\n", "root");
  expect_bad_edit ("\nc 0 d 1 1 0 1 12 3", "\nc 0 d 1 1 0 1 1a 3",
                   "frame line");
  expect_bad_edit ("\ne 1 0 ", "\ne 1 zero ", "edge site");
  expect_bad_edit ("\ne 1 0 ", "\nq 1 0 ", "unknown entry");
  expect_bad_edit ("s main\n", "smain\n", "string without space");
}

/* ===================================================================
   Programs (ELF).  */

/* Write an ELF relocatable file PATH holding section SECNAME with SIZE
   bytes of DATA (NOBITS: no data).  */
static void
write_elf (const char *path, const char *secname, void *data,
           size_t size, int nobits)
{
  char shstr[256];
  size_t nlen = strlen (secname);
  int fd = open (path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  Elf *e;
  Elf64_Ehdr *eh;
  Elf_Scn *scn, *sscn;
  Elf_Data *d;
  Elf64_Shdr *sh;

  assert_true (fd >= 0);
  assert_true (elf_version (EV_CURRENT) != EV_NONE);
  e = elf_begin (fd, ELF_C_WRITE, NULL);
  assert_non_null (e);
  eh = elf64_newehdr (e);
  assert_non_null (eh);
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_machine = EM_X86_64;
  eh->e_type = ET_REL;
  eh->e_version = EV_CURRENT;

  /* "\0SECNAME\0.shstrtab\0" */
  shstr[0] = 0;
  memcpy (shstr + 1, secname, nlen + 1);
  memcpy (shstr + 2 + nlen, ".shstrtab", 10);

  scn = elf_newscn (e);
  d = elf_newdata (scn);
  d->d_align = 1;
  d->d_buf = nobits ? NULL : data;
  d->d_size = size;
  d->d_type = ELF_T_BYTE;
  d->d_version = EV_CURRENT;
  sh = elf64_getshdr (scn);
  sh->sh_name = 1;
  sh->sh_type = nobits ? SHT_NOBITS : SHT_PROGBITS;
  sh->sh_flags = SHF_ALLOC;

  sscn = elf_newscn (e);
  d = elf_newdata (sscn);
  d->d_align = 1;
  d->d_buf = shstr;
  d->d_size = nlen + 12;
  d->d_type = ELF_T_BYTE;
  d->d_version = EV_CURRENT;
  sh = elf64_getshdr (sscn);
  sh->sh_name = nlen + 2;
  sh->sh_type = SHT_STRTAB;
  eh->e_shstrndx = elf_ndxscn (sscn);

  if (elf_update (e, ELF_C_WRITE) < 0)
    fail_msg ("elf_update: %s", elf_errmsg (-1));
  elf_end (e);
  close (fd);
}

static char *
tmpname (const char *base)
{
  char *p;
  if (asprintf (&p, "%s/%s", W.tmpdir, base) < 0)
    fail ();
  return p;
}

static void
expect_program_error (const char *path, enum cced_errcode code,
                      const char *msg)
{
  struct cced_error e;
  struct cced_program *p = cced_program_open (path, &e);
  if (p)
    fail_msg ("%s: accepted", path);
  if (e.code != code)
    fail_msg ("%s: error %d (%s), expected %d", path, e.code, e.msg, code);
  if (msg && !strstr (e.msg, msg))
    fail_msg ("%s: message '%s' lacks '%s'", path, e.msg, msg);
  assert_null (strchr (e.msg, '\n'));
}

static void
test_program_elf (void **state)
{
  char *path = tmpname ("prog");
  struct cced_error e;
  struct cced_program *p;
  (void) state;

  /* The dictionary as the plugin emits it: a C string, NUL included, in
     an aligned (padded) section.  */
  {
    char *padded = calloc (1, W.len + 16);
    memcpy (padded, W.text, W.len);
    write_elf (path, CCE_DICT_SECTION, padded, W.len + 16, 0);
    free (padded);
  }
  p = cced_program_open (path, &e);
  if (!p)
    fail_msg ("%s", e.msg);
  assert_graphs_equal (W.g, cced_program_graph (p));
  assert_string_equal (cced_program_name (p), path);
  cced_program_close (p);

  /* Exactly the text, no NUL at all.  */
  write_elf (path, CCE_DICT_SECTION, W.text, W.len, 0);
  p = cced_program_open (path, &e);
  if (!p)
    fail_msg ("%s", e.msg);
  assert_int_equal (cced_program_graph (p)->stamp, W.g->stamp);
  cced_program_close (p);

  /* A damaged dictionary.  */
  {
    char *t = strdup (W.text);
    t[W.len - 3] ^= 1;
    write_elf (path, CCE_DICT_SECTION, t, W.len + 1, 0);
    expect_program_error (path, CCED_E_BAD_DICT, "malformed cce dictionary");
    free (t);
  }
  /* An empty section.  */
  write_elf (path, CCE_DICT_SECTION, NULL, 64, 1);
  expect_program_error (path, CCED_E_BAD_DICT, NULL);
  /* Another section name only.  */
  write_elf (path, "cce_dic", W.text, W.len + 1, 0);
  expect_program_error (path, CCED_E_NO_DICT,
                        "not built with cce (no dictionary)");
  free (path);

  /* A real program without a dictionary.  */
  expect_program_error ("/bin/true", CCED_E_NO_DICT,
                        "not built with cce (no dictionary)");

  /* Not ELF.  */
  path = tmpname ("text");
  {
    FILE *f = fopen (path, "w");
    fputs ("int main (void) { return 0; }\n", f);
    fclose (f);
  }
  expect_program_error (path, CCED_E_NOT_ELF, "not an ELF file");
  {
    FILE *f = fopen (path, "w");
    fclose (f);
  }
  expect_program_error (path, CCED_E_NOT_ELF, "not an ELF file");
  free (path);

  /* Not there, not a file.  */
  path = tmpname ("missing");
  expect_program_error (path, CCED_E_OPEN, strerror (ENOENT));
  free (path);
  expect_program_error (W.tmpdir, CCED_E_OPEN, strerror (EISDIR));
}

/* ===================================================================
   Logs.  */

struct lw
{
  FILE *f;
  int swap;
};

static void
lw_put (struct lw *w, const void *p, size_t n)
{
  assert_int_equal (fwrite (p, 1, n, w->f), n);
}

static uint32_t
sw32 (struct lw *w, uint32_t x)
{
  return w->swap ? __builtin_bswap32 (x) : x;
}

static uint64_t
sw64 (struct lw *w, uint64_t x)
{
  return w->swap ? __builtin_bswap64 (x) : x;
}

/* A header with HSIZE bytes (padding after the struct if bigger).  */
static void
lw_header_full (struct lw *w, const char *magic, uint32_t version,
                uint32_t hsize, uint64_t stamp)
{
  struct cce_log_header h;
  memset (&h, 0, sizeof h);
  memcpy (h.magic, magic, sizeof h.magic);
  h.version = sw32 (w, version);
  h.header_size = sw32 (w, hsize);
  h.stamp = sw64 (w, stamp);
  h.pid = sw64 (w, 4242);
  lw_put (w, &h, sizeof h);
  for (uint32_t i = sizeof h; i < hsize; i++)
    lw_put (w, "", 1);
}

static void
lw_header (struct lw *w)
{
  lw_header_full (w, CCE_LOG_MAGIC, CCE_LOG_VERSION,
                  sizeof (struct cce_log_header), W.g->stamp);
}

static void
lw_record (struct lw *w, uint32_t thread, uint32_t tag, uint64_t site,
           uint64_t id, size_t nstack, const struct cce_stack_entry *stack)
{
  struct cce_log_record r;
  memset (&r, 0, sizeof r);
  r.thread = sw32 (w, thread);
  r.tag = sw32 (w, tag);
  r.site = sw64 (w, site);
  r.id = sw64 (w, id);
  r.nstack = sw32 (w, (uint32_t) nstack);
  r.module = 0;
  lw_put (w, &r, sizeof r);
  for (size_t i = 0; i < nstack; i++)
    {
      struct cce_log_frame f;
      f.id = sw64 (w, stack[i].id);
      f.site = sw64 (w, stack[i].site);
      lw_put (w, &f, sizeof f);
    }
}

static struct lw
lw_open (void)
{
  struct lw w = { tmpfile (), 0 };
  assert_non_null (w.f);
  return w;
}

static FILE *
lw_done (struct lw *w)
{
  assert_int_equal (fflush (w->f), 0);
  rewind (w->f);
  return w->f;
}

/* The contexts of the test program.  */
struct ctx
{
  uint64_t site, id;
  size_t nstack;
  struct cce_stack_entry stack[4];
  const char *path;          /* records PATH */
};

static void
contexts (struct ctx c[5])
{
  const struct cce_graph *g = W.g;
  uint64_t av0 = g->sites[S0].av, root_rec = g->nodes[N_REC].root;

  memset (c, 0, 5 * sizeof *c);
  assert_int_equal (g->nodes[N_MAIN].root, 0);
  assert_int_equal (g->nodes[N_CB].root, 0);
  /* main -> leaf */
  c[0].site = S3;
  c[0].id = g->sites[S1].av;
  c[0].path = "main;leaf";
  /* main -> work -> helper (inlined) -> leaf */
  c[1].site = S3;
  c[1].id = av0 + g->sites[S2].av;
  c[1].path = "main;work;helper;leaf";
  /* main -> work -> qsort -> cb */
  c[2].site = S5;
  c[2].id = 0;
  c[2].nstack = 1;
  c[2].stack[0].id = av0;
  c[2].stack[0].site = S4;
  c[2].path = "main;work;qsort;cb";
  /* main -> rec -> rec -> rec */
  c[3].site = S9;
  c[3].id = root_rec;
  c[3].nstack = 2;
  c[3].stack[0].id = g->sites[S7].av;
  c[3].stack[0].site = S8;
  c[3].stack[1].id = root_rec;
  c[3].stack[1].site = S8;
  c[3].path = "main;rec;rec;rec";
  /* main -> (pointer) cb */
  c[4].site = S5;
  c[4].id = 0;
  c[4].nstack = 1;
  c[4].stack[0].id = 0;
  c[4].stack[0].site = S6;
  c[4].path = "main;cb";
}

static void
lw_ctx (struct lw *w, uint32_t thread, uint32_t tag, const struct ctx *c)
{
  lw_record (w, thread, tag, c->site, c->id, c->nstack, c->stack);
}

/* Decode all of LOG in FMT; returns the output (malloc'd) and the status
   of the reader in *CODE (CCED_OK at a clean end).  */
static char *
run (FILE *logf, enum cced_format fmt, enum cced_errcode *code,
     char *msg, struct cced_output_stats *stats)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *of = open_memstream (&buf, &size);
  struct cced_error e;
  struct cced_log *log;
  struct cced_output *out;
  struct cced_record rec;
  int r;

  assert_non_null (of);
  log = cced_log_fopen (logf, "test.log", W.prog, &e);
  if (!log)
    fail_msg ("log: %s", e.msg);
  out = cced_output_new (W.prog, fmt, of, &e);
  assert_non_null (out);
  while ((r = cced_log_next (log, &rec, &e)) > 0)
    assert_int_equal (cced_output_record (out, &rec, NULL), 0);
  *code = r < 0 ? e.code : CCED_OK;
  if (msg)
    strcpy (msg, r < 0 ? e.msg : "");
  assert_int_equal (cced_output_finish (out, NULL), 0);
  if (stats)
    cced_output_stats (out, stats);
  cced_output_free (out);
  cced_log_close (log);
  fclose (of);
  return buf;
}

static void
test_log_good (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  struct cced_error e;
  struct cced_log *log;
  struct cced_record rec;
  enum cced_errcode code;
  char *out, expect[4096];
  size_t n = 0;
  (void) state;

  contexts (c);
  lw_header (&w);
  for (int i = 0; i < 5; i++)
    lw_ctx (&w, 1 + i % 2, 10 + i, &c[i]);
  lw_ctx (&w, 3, 7, &c[0]);
  lw_done (&w);

  /* The iterator.  */
  log = cced_log_fopen (w.f, "test.log", W.prog, &e);
  if (!log)
    fail_msg ("%s", e.msg);
  assert_int_equal (cced_log_stamp (log), W.g->stamp);
  assert_int_equal (cced_log_pid (log), 4242);
  assert_false (cced_log_swapped (log));
  {
    uint64_t off = sizeof (struct cce_log_header);
    for (int i = 0; i < 6; i++)
      {
        const struct ctx *x = &c[i < 5 ? i : 0];
        assert_int_equal (cced_log_next (log, &rec, &e), 1);
        assert_int_equal (rec.index, i + 1);
        assert_int_equal (rec.offset, off);
        assert_int_equal (rec.thread, i < 5 ? 1 + i % 2 : 3);
        assert_int_equal (rec.tag, i < 5 ? 10 + i : 7);
        assert_int_equal (rec.site, x->site);
        assert_int_equal (rec.id, x->id);
        assert_int_equal (rec.nstack, x->nstack);
        assert_int_equal (rec.module, 0);
        for (size_t k = 0; k < x->nstack; k++)
          {
            assert_int_equal (rec.stack[k].id, x->stack[k].id);
            assert_int_equal (rec.stack[k].site, x->stack[k].site);
          }
        off += sizeof (struct cce_log_record)
               + x->nstack * sizeof (struct cce_log_frame);
      }
  }
  assert_int_equal (cced_log_next (log, &rec, &e), 0);
  assert_int_equal (cced_log_next (log, &rec, &e), 0);
  cced_log_close (log);

  /* records */
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  for (int i = 0; i < 5; i++)
    n += sprintf (expect + n, "%d\t%d\t%s\n", 1 + i % 2, 10 + i, c[i].path);
  n += sprintf (expect + n, "3\t7\t%s\n", c[0].path);
  assert_string_equal (out, expect);
  free (out);

  /* folded */
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_FOLDED, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  assert_string_equal (out, "main;cb 1\n"
                            "main;leaf 2\n"
                            "main;rec;rec;rec 1\n"
                            "main;work;helper;leaf 1\n"
                            "main;work;qsort;cb 1\n");
  free (out);

  /* text */
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_TEXT, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  assert_string_equal (out,
                       "record 1: thread 1 tag 10\n"
                       "  #0  leaf (hello.c:42:3)\n"
                       "  #1  main (hello.c:13:3)\n"
                       "\n"
                       "record 2: thread 2 tag 11\n"
                       "  #0  leaf (hello.c:42:3)\n"
                       "  #1  helper (hello.c:32:7) [inlined]\n"
                       "  #2  work (hello.c:22:5)\n"
                       "  #3  main (hello.c:12:3)\n"
                       "\n"
                       "record 3: thread 1 tag 12\n"
                       "  #0  cb (cb.c:52:3)\n"
                       "  #1  qsort [external]\n"
                       "  #2  work (hello.c:24:3)\n"
                       "  #3  main (hello.c:12:3)\n"
                       "\n"
                       "record 4: thread 2 tag 13\n"
                       "  #0  rec\n"
                       "  #1  rec (hello.c:62:5)\n"
                       "  #2  rec (hello.c:62:5)\n"
                       "  #3  main (hello.c:15:3)\n"
                       "\n"
                       "record 5: thread 1 tag 14\n"
                       "  #0  cb (cb.c:52:3)\n"
                       "  #1  main (hello.c:14:3)\n"
                       "\n"
                       "record 6: thread 3 tag 7\n"
                       "  #0  leaf (hello.c:42:3)\n"
                       "  #1  main (hello.c:13:3)\n");
  free (out);
  fclose (w.f);
}

/* Records that cannot be decoded are incomplete, not errors.  */
static void
test_log_incomplete (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  struct cced_output_stats st;
  enum cced_errcode code;
  char *out, *line, *save = NULL;
  struct cce_stack_entry bad[2];
  int nlines = 0;
  static const char *const expect[] = {
    "1\t1\t[incomplete]",                 /* CCE_SITE_NONE */
    "1\t2\t[incomplete]",                 /* site out of range */
    "1\t3\t[incomplete]",                 /* not a log site */
    "1\t4\t[incomplete];leaf",            /* id out of range */
    "1\t5\t[incomplete];rec",             /* rec is not an entry */
    "1\t6\t[incomplete];cb",              /* stack site out of range */
    "1\t7\t[incomplete];cb",              /* stack site is a log site */
    "1\t8\t[incomplete];rec;rec",         /* back site into the wrong node */
    "1\t9\tcb",                           /* a thread starting at cb */
    "1\t10\t[incomplete];rec;rec;rec",    /* deep, wrong at the bottom */
  };
  (void) state;

  contexts (c);
  lw_header (&w);
  lw_record (&w, 1, 1, CCE_SITE_NONE, 0, 0, NULL);
  lw_record (&w, 1, 2, NSITES + 5, 0, 0, NULL);
  lw_record (&w, 1, 3, S0, 0, 0, NULL);
  lw_record (&w, 1, 4, S3, 99, 0, NULL);
  lw_record (&w, 1, 5, S9, W.g->nodes[N_REC].root, 0, NULL);
  bad[0].id = 0;
  bad[0].site = 1000;
  lw_record (&w, 1, 6, S5, 0, 1, bad);
  bad[0].site = S3;
  lw_record (&w, 1, 7, S5, 0, 1, bad);
  bad[0].id = 0;
  bad[0].site = S8;          /* calls rec, but the segment starts at cb */
  bad[1].id = W.g->nodes[N_REC].root;
  bad[1].site = S8;
  lw_record (&w, 1, 8, S9, W.g->nodes[N_REC].root, 1, bad + 1);
  lw_record (&w, 1, 9, S5, 0, 0, NULL);
  /* main -> rec -> rec -> rec with a wrong id at the bottom.  */
  {
    struct cce_stack_entry s[2] = { c[3].stack[0], c[3].stack[1] };
    /* Below rec's width: a recursion folded that deep would decode.  */
    s[0].id = cce_node_width (&W.g->nodes[N_REC]) + 77;
    lw_record (&w, 1, 10, S9, c[3].id, 2, s);
  }
  lw_done (&w);

  out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, &st);
  assert_int_equal (code, CCED_OK);
  for (line = strtok_r (out, "\n", &save); line;
       line = strtok_r (NULL, "\n", &save), nlines++)
    {
      assert_true (nlines < 10);
      if (strcmp (line, expect[nlines]) != 0)
        fail_msg ("record %d: '%s', expected '%s'", nlines + 1, line,
                  expect[nlines]);
    }
  assert_int_equal (nlines, 10);
  assert_int_equal (st.records, 10);
  assert_int_equal (st.incomplete, 9);
  free (out);

  /* The text format ends the incomplete paths with a ?? frame.  */
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_TEXT, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  assert_non_null (strstr (out, "record 1: thread 1 tag 1\n"
                                "  #0  ?? (incomplete: "));
  assert_non_null (strstr (out, "record 4: thread 1 tag 4\n"
                                "  #0  leaf (hello.c:42:3)\n"
                                "  #1  ?? (incomplete: "));
  assert_non_null (strstr (out, "record 9: thread 1 tag 9\n"
                                "  #0  cb (cb.c:52:3)\n\n"));
  free (out);

  /* And the decoder says why.  */
  {
    struct cced_error e;
    struct cced_decoder *d = cced_decoder_new (W.prog, &e);
    struct cced_record r;
    struct cced_path p;
    memset (&r, 0, sizeof r);
    r.site = CCE_SITE_NONE;
    assert_int_equal (cced_decode (d, &r, &p, &e), 0);
    assert_int_equal (p.status, CCE_DECODE_INCOMPLETE);
    assert_non_null (p.reason);
    assert_int_equal (p.nframes, 0);
    r.site = S3;
    r.id = c[0].id;
    /* A log site in a module whose dictionary was not given.  */
    r.site = CCE_SITE_WORD (0x1234567, CCE_SITE_INDEX (S3));
    assert_int_equal (cced_decode (d, &r, &p, &e), 0);
    assert_int_equal (p.status, CCE_DECODE_INCOMPLETE);
    assert_non_null (p.reason);
    /* Its own key, and key 0 (the main program's plain site number).  */
    r.site = CCE_SITE_WORD (cce_module_key (W.g->stamp), CCE_SITE_INDEX (S3));
    assert_int_equal (cced_decode (d, &r, &p, &e), 0);
    assert_int_equal (p.status, CCE_DECODE_OK);
    r.site = S3;
    assert_int_equal (cced_decode (d, &r, &p, &e), 0);
    assert_int_equal (p.status, CCE_DECODE_OK);
    assert_int_equal (p.nframes, 2);
    assert_string_equal (cced_frame_name (W.g, &p.frames[0]), "main");
    assert_string_equal (cced_frame_name (W.g, &p.frames[1]), "leaf");
    cced_decoder_free (d);
  }
  fclose (w.f);
}

static void
expect_log_error (FILE *f, enum cced_errcode code, const char *msg)
{
  struct cced_error e;
  struct cced_log *log = cced_log_fopen (f, "test.log", W.prog, &e);
  if (log)
    fail_msg ("log accepted, expected: %s", msg ? msg : "an error");
  if (e.code != code)
    fail_msg ("error %d (%s), expected %d", e.code, e.msg, code);
  if (msg && !strstr (e.msg, msg))
    fail_msg ("message '%s' lacks '%s'", e.msg, msg);
  fclose (f);
}

static void
test_log_bad_header (void **state)
{
  struct lw w;
  struct cce_log_header h;
  (void) state;

  w = lw_open ();
  lw_header_full (&w, "CCE-LOX", CCE_LOG_VERSION, sizeof h, W.g->stamp);
  expect_log_error (lw_done (&w), CCED_E_LOG_MAGIC, "not a cce log");

  w = lw_open ();
  lw_put (&w, "cce-dict 1 0123\n", 16);
  expect_log_error (lw_done (&w), CCED_E_LOG_MAGIC, "not a cce log");

  w = lw_open ();
  lw_put (&w, "hi", 2);
  expect_log_error (lw_done (&w), CCED_E_LOG_MAGIC, "not a cce log");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, 1, sizeof h, W.g->stamp);
  expect_log_error (lw_done (&w), CCED_E_LOG_VERSION, "version 1");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, 3, sizeof h, W.g->stamp);
  expect_log_error (lw_done (&w), CCED_E_LOG_VERSION, "version 3");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, 0, sizeof h, W.g->stamp);
  expect_log_error (lw_done (&w), CCED_E_LOG_VERSION, "version 0");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 16, W.g->stamp);
  expect_log_error (lw_done (&w), CCED_E_LOG_HEADER, "header size 16");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 1u << 30, W.g->stamp);
  expect_log_error (lw_done (&w), CCED_E_LOG_HEADER, "header size");

  /* Empty, and truncated headers.  */
  w = lw_open ();
  expect_log_error (lw_done (&w), CCED_E_LOG_HEADER, "empty log");
  for (size_t n = 1; n < sizeof h; n++)
    {
      char *buf;
      size_t size;
      FILE *m = open_memstream (&buf, &size);
      struct lw mw = { m, 0 };
      lw_header (&mw);
      fclose (m);
      w = lw_open ();
      lw_put (&w, buf, n);
      expect_log_error (lw_done (&w), CCED_E_LOG_HEADER, "truncated");
      free (buf);
    }
  /* A bigger header, cut in its padding.  */
  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 56, W.g->stamp);
  assert_int_equal (fflush (w.f), 0);
  assert_int_equal (ftruncate (fileno (w.f), 48), 0);
  expect_log_error (lw_done (&w), CCED_E_LOG_HEADER, "truncated");
}

static void
test_log_stamp (void **state)
{
  struct lw w;
  (void) state;

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION,
                  sizeof (struct cce_log_header), W.g->stamp ^ 1);
  expect_log_error (lw_done (&w), CCED_E_STAMP,
                    "log was written by a different build of ./hello");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION,
                  sizeof (struct cce_log_header), 0);
  expect_log_error (lw_done (&w), CCED_E_NO_STAMP,
                    "log written by a program without a dictionary");
}

/* Copy the first N bytes of W's file into a new stream.  */
static FILE *
prefix_of (FILE *f, size_t n)
{
  FILE *t = tmpfile ();
  char *buf = malloc (n ? n : 1);
  rewind (f);
  assert_int_equal (fread (buf, 1, n, f), n);
  assert_int_equal (fwrite (buf, 1, n, t), n);
  free (buf);
  rewind (t);
  return t;
}

static void
test_log_truncated (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  long ends[6];
  enum cced_errcode code;
  char msg[CCED_ERRMSG_SIZE];
  (void) state;

  contexts (c);
  lw_header (&w);
  ends[0] = ftell (w.f);
  for (int i = 0; i < 5; i++)
    {
      lw_ctx (&w, 1, i, &c[i]);
      ends[i + 1] = ftell (w.f);
    }
  lw_done (&w);

  /* Cut at every byte after the header: the complete records come out,
     then the truncation, at the offset of the first incomplete one.  */
  for (long n = ends[0]; n <= ends[5]; n++)
    {
      FILE *t = prefix_of (w.f, n);
      int complete = 0;
      char *out, expect[1024], emsg[64];
      size_t len = 0;
      while (complete < 5 && ends[complete + 1] <= n)
        complete++;
      out = run (t, CCED_FORMAT_RECORDS, &code, msg, NULL);
      for (int i = 0; i < complete; i++)
        len += sprintf (expect + len, "1\t%d\t%s\n", i, c[i].path);
      expect[len] = 0;
      assert_string_equal (out, expect);
      free (out);
      if (n == ends[complete])
        assert_int_equal (code, CCED_OK);
      else
        {
          assert_int_equal (code, CCED_E_TRUNCATED);
          sprintf (emsg, "truncated record at offset %ld", ends[complete]);
          assert_string_equal (msg, emsg);
        }
      fclose (t);
    }

  /* The error stays.  */
  {
    FILE *t = prefix_of (w.f, ends[1] + 3);
    struct cced_error e;
    struct cced_record rec;
    struct cced_log *log = cced_log_fopen (t, "t", W.prog, &e);
    assert_non_null (log);
    assert_int_equal (cced_log_next (log, &rec, &e), 1);
    assert_int_equal (cced_log_next (log, &rec, &e), -1);
    assert_int_equal (e.code, CCED_E_TRUNCATED);
    memset (&e, 0, sizeof e);
    assert_int_equal (cced_log_next (log, &rec, &e), -1);
    assert_int_equal (e.code, CCED_E_TRUNCATED);
    cced_log_close (log);
    fclose (t);
  }
  fclose (w.f);
}

static void
test_log_absurd_nstack (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  struct cced_error e;
  struct cced_record rec;
  struct cced_log *log;
  struct cce_log_record r;
  (void) state;

  contexts (c);
  lw_header (&w);
  lw_ctx (&w, 1, 1, &c[0]);
  memset (&r, 0, sizeof r);
  r.thread = 1;
  r.site = S3;
  r.nstack = CCED_MAX_NSTACK + 1;
  lw_put (&w, &r, sizeof r);
  lw_put (&w, &r, sizeof r);
  lw_done (&w);
  log = cced_log_fopen (w.f, "t", W.prog, &e);
  assert_non_null (log);
  assert_int_equal (cced_log_next (log, &rec, &e), 1);
  assert_int_equal (cced_log_next (log, &rec, &e), -1);
  assert_int_equal (e.code, CCED_E_CORRUPT);
  assert_non_null (strstr (e.msg, "corrupt record at offset 72"));
  cced_log_close (log);
  fclose (w.f);

  /* Big but allowed: the file ends long before; no huge allocation.  */
  w = lw_open ();
  lw_header (&w);
  r.nstack = CCED_MAX_NSTACK;
  lw_put (&w, &r, sizeof r);
  lw_put (&w, &r, sizeof r);
  lw_done (&w);
  log = cced_log_fopen (w.f, "t", W.prog, &e);
  assert_non_null (log);
  assert_int_equal (cced_log_next (log, &rec, &e), -1);
  assert_int_equal (e.code, CCED_E_TRUNCATED);
  assert_string_equal (e.msg, "truncated record at offset 40");
  cced_log_close (log);
  fclose (w.f);
}

static void
test_log_swapped (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  enum cced_errcode code;
  char *out, expect[1024];
  size_t n = 0;
  struct cced_error e;
  struct cced_log *log;
  (void) state;

  contexts (c);
  w.swap = 1;
  lw_header (&w);
  for (int i = 0; i < 5; i++)
    lw_ctx (&w, 0x01020304, 0xa0b0c0d0 + i, &c[i]);
  lw_done (&w);
  log = cced_log_fopen (w.f, "t", W.prog, &e);
  assert_non_null (log);
  assert_true (cced_log_swapped (log));
  assert_int_equal (cced_log_pid (log), 4242);
  cced_log_close (log);
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  for (int i = 0; i < 5; i++)
    n += sprintf (expect + n, "%u\t%u\t%s\n", 0x01020304u, 0xa0b0c0d0u + i,
                  c[i].path);
  assert_string_equal (out, expect);
  free (out);
  fclose (w.f);
}

/* Headers longer than the struct: the rest is skipped, and the frames of
   the records may then be unaligned.  */
static void
test_log_header_padding (void **state)
{
  struct ctx c[5];
  (void) state;

  contexts (c);
  for (uint32_t hs = 40; hs <= 52; hs += 4)
    {
      struct lw w = lw_open ();
      enum cced_errcode code;
      char *out, expect[1024];
      size_t n = 0;
      lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, hs, W.g->stamp);
      for (int i = 0; i < 5; i++)
        lw_ctx (&w, 1, i, &c[i]);
      lw_done (&w);
      out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, NULL);
      assert_int_equal (code, CCED_OK);
      for (int i = 0; i < 5; i++)
        n += sprintf (expect + n, "1\t%d\t%s\n", i, c[i].path);
      assert_string_equal (out, expect);
      free (out);
      fclose (w.f);
    }
}

/* Many records across the reader's buffer boundaries, and a record
   bigger than its buffer.  */
static void
test_log_streaming (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  enum cced_errcode code;
  struct cced_output_stats st;
  struct cce_stack_entry *deep;
  size_t ndeep = 100000, nrec = 0;
  char *out, *expect;
  (void) state;

  contexts (c);
  /* main -> rec -> rec ... : ndeep ccStack entries.  */
  deep = malloc (ndeep * sizeof *deep);
  deep[0] = c[3].stack[0];
  for (size_t i = 1; i < ndeep; i++)
    deep[i] = c[3].stack[1];

  lw_header (&w);
  for (int i = 0; i < 60000; i++, nrec++)
    lw_ctx (&w, 1 + i % 7, i, &c[i % 5]);
  lw_record (&w, 9, 9, S9, c[3].id, ndeep, deep);
  nrec++;
  for (int i = 0; i < 1000; i++, nrec++)
    lw_ctx (&w, 8, i, &c[(i * 3) % 5]);
  lw_done (&w);

  out = run (w.f, CCED_FORMAT_FOLDED, &code, NULL, &st);
  assert_int_equal (code, CCED_OK);
  assert_int_equal (st.records, nrec);
  assert_true (st.cache_hits > nrec - 20);
  assert_int_equal (st.incomplete, 0);
  /* The deep path: main;rec x (ndeep + 1).  */
  expect = malloc (16 * ndeep);
  {
    size_t n = sprintf (expect, "main;cb 12200\nmain;leaf 12200\n"
                        "main;rec;rec;rec 12200\nmain");
    for (size_t i = 0; i <= ndeep; i++)
      n += sprintf (expect + n, ";rec");
    n += sprintf (expect + n, " 1\nmain;work;helper;leaf 12200\n"
                  "main;work;qsort;cb 12200\n");
  }
  assert_string_equal (out, expect);
  free (expect);
  free (out);
  free (deep);

  /* The same in records format, checked line by line.  */
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, &st);
  assert_int_equal (code, CCED_OK);
  {
    char *p = out, *nl;
    for (int i = 0; i < 60000; i++, p = nl + 1)
      {
        char line[128];
        nl = strchr (p, '\n');
        assert_non_null (nl);
        snprintf (line, sizeof line, "%d\t%d\t%s", 1 + i % 7, i,
                  c[i % 5].path);
        assert_int_equal ((size_t) (nl - p), strlen (line));
        assert_memory_equal (p, line, nl - p);
      }
    assert_memory_equal (p, "9\t9\tmain;rec;rec;", 17);
  }
  free (out);
  fclose (w.f);
}

/* Mostly distinct records: the cache gives up for a while; the output
   must not change.  */
static void
test_output_many_contexts (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  enum cced_errcode code;
  struct cced_output_stats st;
  const int nrec = 300000;
  char *out, *p;
  (void) state;

  contexts (c);
  lw_header (&w);
  for (int i = 0; i < nrec; i++)
    if (i % 10 == 0)
      lw_ctx (&w, 1, i, &c[(i / 10) % 5]);
    else
      lw_record (&w, 2, i, S3, 1000 + i, 0, NULL);
  lw_done (&w);

  for (int fmt = 0; fmt < 2; fmt++)
    {
      rewind (w.f);
      out = run (w.f, fmt == 0 ? CCED_FORMAT_RECORDS : CCED_FORMAT_FOLDED,
                 &code, NULL, &st);
      assert_int_equal (code, CCED_OK);
      assert_int_equal (st.records, nrec);
      assert_int_equal (st.incomplete, nrec - nrec / 10);
      /* The cache was paused after its first window.  */
      assert_true (st.cache_hits > 0 && st.cache_hits < nrec / 20);
      if (fmt == 0)
        {
          p = out;
          for (int i = 0; i < nrec; i++)
            {
              char line[128];
              char *nl = strchr (p, '\n');
              assert_non_null (nl);
              if (i % 10 == 0)
                snprintf (line, sizeof line, "1\t%d\t%s", i,
                          c[(i / 10) % 5].path);
              else
                snprintf (line, sizeof line, "2\t%d\t[incomplete];leaf",
                          i);
              if ((size_t) (nl - p) != strlen (line)
                  || memcmp (p, line, nl - p) != 0)
                fail_msg ("record %d: '%.*s', expected '%s'", i + 1,
                          (int) (nl - p), p, line);
              p = nl + 1;
            }
          assert_int_equal (*p, 0);
        }
      else
        {
          char expect[512];
          int k = nrec / 50;
          snprintf (expect, sizeof expect,
                    "[incomplete];leaf %d\nmain;cb %d\nmain;leaf %d\n"
                    "main;rec;rec;rec %d\nmain;work;helper;leaf %d\n"
                    "main;work;qsort;cb %d\n", nrec - nrec / 10, k, k, k, k,
                    k);
          assert_string_equal (out, expect);
        }
      free (out);
    }
  fclose (w.f);
}

static void
test_output_write_error (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open ();
  struct cced_error e;
  struct cced_log *log;
  struct cced_output *out;
  struct cced_record rec;
  FILE *full = fopen ("/dev/full", "w");
  int r = 0, failed = 0;
  (void) state;

  if (!full)
    skip ();
  contexts (c);
  lw_header (&w);
  for (int i = 0; i < 20000; i++)
    lw_ctx (&w, 1, i, &c[i % 5]);
  lw_done (&w);
  log = cced_log_fopen (w.f, "t", W.prog, &e);
  out = cced_output_new (W.prog, CCED_FORMAT_TEXT, full, &e);
  assert_non_null (out);
  while ((r = cced_log_next (log, &rec, &e)) > 0)
    if (cced_output_record (out, &rec, &e) < 0)
      {
        failed = 1;
        break;
      }
  if (!failed)
    assert_int_equal (cced_output_finish (out, &e), -1);
  assert_int_equal (e.code, CCED_E_WRITE);
  assert_int_equal (e.errnum, ENOSPC);
  assert_non_null (strstr (e.msg, "write error"));
  cced_output_free (out);
  cced_log_close (log);
  fclose (w.f);
  fclose (full);
}

static void
test_misc (void **state)
{
  enum cced_format f;
  (void) state;
  assert_int_equal (cced_format_parse ("text", &f), 0);
  assert_int_equal (f, CCED_FORMAT_TEXT);
  assert_int_equal (cced_format_parse ("records", &f), 0);
  assert_int_equal (f, CCED_FORMAT_RECORDS);
  assert_int_equal (cced_format_parse ("folded", &f), 0);
  assert_int_equal (f, CCED_FORMAT_FOLDED);
  assert_int_equal (cced_format_parse ("Text", &f), -1);
  assert_int_equal (cced_format_parse ("", &f), -1);
  for (int i = 0; i < CCED_NERRORS; i++)
    assert_non_null (cced_errstr (i));
  assert_string_equal (cced_errstr (CCED_E_NO_DICT),
                       "not built with cce (no dictionary)");
  assert_string_equal (cced_errstr (CCED_NERRORS + 5), "unknown error");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_dict_roundtrip),
    cmocka_unit_test (test_dict_strings_escaped),
    cmocka_unit_test (test_dict_bad_magic),
    cmocka_unit_test (test_dict_bad_version),
    cmocka_unit_test (test_dict_bad_stamp),
    cmocka_unit_test (test_dict_truncated),
    cmocka_unit_test (test_dict_out_of_range),
    cmocka_unit_test (test_dict_bad_folds),
    cmocka_unit_test (test_dict_non_numeric),
    cmocka_unit_test (test_program_elf),
    cmocka_unit_test (test_log_good),
    cmocka_unit_test (test_log_incomplete),
    cmocka_unit_test (test_log_bad_header),
    cmocka_unit_test (test_log_stamp),
    cmocka_unit_test (test_log_truncated),
    cmocka_unit_test (test_log_absurd_nstack),
    cmocka_unit_test (test_log_swapped),
    cmocka_unit_test (test_log_header_padding),
    cmocka_unit_test (test_log_streaming),
    cmocka_unit_test (test_output_many_contexts),
    cmocka_unit_test (test_output_write_error),
    cmocka_unit_test (test_misc),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
