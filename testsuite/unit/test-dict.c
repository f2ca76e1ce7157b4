/* test-dict.c -- unit tests of the dictionary, PC map and log readers
   of the decoder (libccedecode) on good and broken input, and of its
   output formats.  */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
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
  t[9] = '3';                          /* cce-dict 3: C++ functions by
                                          their plain names */
  expect_bad_text (t, W.len, "version 3", "version");
  t[9] = '5';                          /* cce-dict 5 */
  expect_bad_text (t, W.len, "version 5", "version");
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

/* A section of an ELF file to write.  */
struct esec
{
  const char *name;
  const void *data;          /* NULL: NOBITS */
  size_t size;
  uint64_t flags;
};

/* Write an ELF relocatable file PATH with the N sections SECS, in the
   byte order DATA (ELFDATA2LSB or ELFDATA2MSB).  */
static void
write_elf_sections (const char *path, const struct esec *secs, size_t n,
                    unsigned char data)
{
  char shstr[512];
  size_t slen = 1, i;
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
  eh->e_ident[EI_DATA] = data;
  eh->e_machine = EM_X86_64;
  eh->e_type = ET_REL;
  eh->e_version = EV_CURRENT;

  /* "\0NAME1\0NAME2\0...\0.shstrtab\0" */
  shstr[0] = 0;
  for (i = 0; i < n; i++)
    {
      size_t nlen = strlen (secs[i].name);
      assert_true (slen + nlen + 12 < sizeof shstr);
      memcpy (shstr + slen, secs[i].name, nlen + 1);
      scn = elf_newscn (e);
      d = elf_newdata (scn);
      d->d_align = 1;
      d->d_buf = (void *) secs[i].data;
      d->d_size = secs[i].size;
      d->d_type = ELF_T_BYTE;
      d->d_version = EV_CURRENT;
      sh = elf64_getshdr (scn);
      sh->sh_name = slen;
      sh->sh_type = secs[i].data ? SHT_PROGBITS : SHT_NOBITS;
      sh->sh_flags = secs[i].flags;
      slen += nlen + 1;
    }
  memcpy (shstr + slen, ".shstrtab", 10);

  sscn = elf_newscn (e);
  d = elf_newdata (sscn);
  d->d_align = 1;
  d->d_buf = shstr;
  d->d_size = slen + 10;
  d->d_type = ELF_T_BYTE;
  d->d_version = EV_CURRENT;
  sh = elf64_getshdr (sscn);
  sh->sh_name = slen;
  sh->sh_type = SHT_STRTAB;
  eh->e_shstrndx = elf_ndxscn (sscn);

  if (elf_update (e, ELF_C_WRITE) < 0)
    fail_msg ("elf_update: %s", elf_errmsg (-1));
  elf_end (e);
  close (fd);
}

/* Write an ELF relocatable file PATH holding section SECNAME with SIZE
   bytes of DATA (NOBITS: no data).  */
static void
write_elf (const char *path, const char *secname, void *data,
           size_t size, int nobits)
{
  struct esec sec = { secname, nobits ? NULL : data, size, SHF_ALLOC };
  write_elf_sections (path, &sec, 1, ELFDATA2LSB);
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
   Logs.

   The writer makes a log in memory the way the runtime does
   (cce-format.h), then hands it over as a temporary file.  With a chunk
   size, each thread (at each level) writes into its open span, and a
   new span is made at the end of the file when a record does not fit:
   records of different threads interleave by span, as in a real log.
   The writer notes where each record went, so that tests know the order
   the reader gives them in.

   With CCE_TEST_DICT_SAVE set to a directory, every log written is also
   saved there (NNNN.log), and the dictionary (prog.dict) and PC map
   (prog.pcmap): the seeds of the fuzzer of the reader
   (testsuite/logfuzz).  */

#define CHUNK 4096

struct lw_span
{
  uint32_t thread, level;
  size_t pos, end;
};

struct lw_rec
{
  size_t off, size;
  uint32_t thread, tag;
  const char *path;          /* records PATH, if known */
};

struct lw
{
  FILE *f;                   /* the log, once lw_done */
  int swap;                  /* write in the other byte order */
  uint32_t chunk;            /* chunk size; 0: records back to back */
  uint32_t span_chunks;      /* chunks of a new span (at least 1) */
  unsigned char *data;       /* the file */
  size_t len, cap;
  struct lw_span spans[16];  /* the open spans */
  size_t nspans;
  size_t spans_made;
  struct lw_rec *recs;       /* the complete records written */
  size_t nrecs, arecs;
};

static int lw_saved;

/* Make room for N bytes at OFF and zero-extend the file to there.  */
static void
lw_room (struct lw *w, size_t off, size_t n)
{
  if (off + n > w->cap)
    {
      size_t c = w->cap ? w->cap : 65536;
      while (c < off + n)
        c *= 2;
      w->data = realloc (w->data, c);
      assert_non_null (w->data);
      w->cap = c;
    }
  if (off + n > w->len)
    {
      memset (w->data + w->len, 0, off + n - w->len);
      w->len = off + n;
    }
}

static void
lw_put_at (struct lw *w, size_t off, const void *p, size_t n)
{
  lw_room (w, off, n);
  memcpy (w->data + off, p, n);
}

static void
lw_put (struct lw *w, const void *p, size_t n)
{
  lw_put_at (w, w->len, p, n);
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

/* A header with HSIZE bytes (NULs after the struct if bigger) and W's
   chunk size.  */
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
  h.chunk_size = sw32 (w, w->chunk);
  lw_put (w, &h, sizeof h);
  if (hsize > sizeof h)
    lw_room (w, w->len, hsize - sizeof h);
}

static void
lw_header (struct lw *w)
{
  lw_header_full (w, CCE_LOG_MAGIC, CCE_LOG_VERSION,
                  w->chunk ? w->chunk : sizeof (struct cce_log_header),
                  W.g->stamp);
}

/* Write a span header MARK, THREAD, CHUNKS, LEVEL at OFF.  */
static void
lw_span_header (struct lw *w, size_t off, uint32_t mark, uint32_t thread,
                uint32_t chunks, uint32_t level)
{
  struct cce_log_span s;
  s.mark = sw32 (w, mark);
  s.thread = sw32 (w, thread);
  s.chunks = sw32 (w, chunks);
  s.level = sw32 (w, level);
  lw_put_at (w, off, &s, sizeof s);
}

/* Make a span of CHUNKS chunks for THREAD at LEVEL at the end of the file
   (after NULs up to a chunk boundary): the open span of THREAD at LEVEL
   from now on.  Returns its offset.  */
static size_t
lw_span (struct lw *w, uint32_t thread, uint32_t chunks, uint32_t level)
{
  size_t off = (w->len + w->chunk - 1) / w->chunk * w->chunk, i;
  assert_true (w->chunk > 0 && chunks > 0);
  lw_room (w, off, (size_t) chunks * w->chunk);
  lw_span_header (w, off, CCE_LOG_SPAN_MARK, thread, chunks, level);
  w->spans_made++;
  for (i = 0; i < w->nspans; i++)
    if (w->spans[i].thread == thread && w->spans[i].level == level)
      break;
  if (i == w->nspans)
    {
      assert_true (w->nspans < 16);
      w->nspans++;
    }
  w->spans[i].thread = thread;
  w->spans[i].level = level;
  w->spans[i].pos = off + sizeof (struct cce_log_span);
  w->spans[i].end = off + (size_t) chunks * w->chunk;
  return off;
}

/* Chunks of 0 at the end of the file (space given out, not used).  */
static void
lw_unused (struct lw *w, uint32_t chunks)
{
  size_t off = (w->len + w->chunk - 1) / w->chunk * w->chunk;
  lw_room (w, off, (size_t) chunks * w->chunk);
}

/* Where a record of SIZE bytes of THREAD at LEVEL goes: the end of the
   file without chunks, else the open span of THREAD at LEVEL, or a new
   one.  */
static size_t
lw_place (struct lw *w, uint32_t thread, uint32_t level, size_t size)
{
  size_t i, off;
  if (w->chunk == 0)
    return w->len;
  for (i = 0; i < w->nspans; i++)
    if (w->spans[i].thread == thread && w->spans[i].level == level)
      break;
  if (i == w->nspans || w->spans[i].end - w->spans[i].pos < size)
    {
      size_t need = (sizeof (struct cce_log_span) + size + w->chunk - 1)
                    / w->chunk;
      uint32_t chunks = w->span_chunks > need ? w->span_chunks : need;
      lw_span (w, thread, chunks, level);
      for (i = 0; i < w->nspans; i++)
        if (w->spans[i].thread == thread && w->spans[i].level == level)
          break;
    }
  off = w->spans[i].pos;
  w->spans[i].pos += size;
  return off;
}

/* A record with MARK of THREAD at LEVEL; its first KEEP bytes only (all
   of it if KEEP is (size_t) -1), the rest left 0.  Returns its offset.  */
static size_t
lw_record_full (struct lw *w, uint32_t mark, uint32_t level,
                uint32_t thread, uint32_t tag, uint64_t site, uint64_t id,
                size_t nstack, const struct cce_stack_entry *stack,
                size_t keep, const char *path)
{
  size_t size = sizeof (struct cce_log_record)
                + nstack * sizeof (struct cce_log_frame);
  size_t off = lw_place (w, thread, level, size);
  unsigned char *buf = malloc (size);
  struct cce_log_record r;
  assert_non_null (buf);
  memset (&r, 0, sizeof r);
  r.mark = sw32 (w, mark);
  r.thread = sw32 (w, thread);
  r.tag = sw32 (w, tag);
  r.site = sw64 (w, site);
  r.id = sw64 (w, id);
  r.nstack = sw32 (w, (uint32_t) nstack);
  memcpy (buf, &r, sizeof r);
  for (size_t i = 0; i < nstack; i++)
    {
      struct cce_log_frame f;
      f.id = sw64 (w, stack[i].id);
      f.site = sw64 (w, stack[i].site);
      memcpy (buf + sizeof r + i * sizeof f, &f, sizeof f);
    }
  lw_room (w, off, size);
  memcpy (w->data + off, buf, keep < size ? keep : size);
  free (buf);
  if (mark == CCE_LOG_RECORD_MARK && keep >= size)
    {
      if (w->nrecs == w->arecs)
        {
          w->arecs = w->arecs ? 2 * w->arecs : 64;
          w->recs = realloc (w->recs, w->arecs * sizeof *w->recs);
          assert_non_null (w->recs);
        }
      w->recs[w->nrecs].off = off;
      w->recs[w->nrecs].size = size;
      w->recs[w->nrecs].thread = thread;
      w->recs[w->nrecs].tag = tag;
      w->recs[w->nrecs].path = path;
      w->nrecs++;
    }
  return off;
}

static void
lw_record (struct lw *w, uint32_t thread, uint32_t tag, uint64_t site,
           uint64_t id, size_t nstack, const struct cce_stack_entry *stack)
{
  lw_record_full (w, CCE_LOG_RECORD_MARK, 0, thread, tag, site, id, nstack,
                  stack, (size_t) -1, NULL);
}

/* A writer of a log with chunks of CHUNK_SIZE bytes (0: none).  */
static struct lw
lw_open_chunks (uint32_t chunk_size)
{
  struct lw w;
  memset (&w, 0, sizeof w);
  w.chunk = chunk_size;
  w.span_chunks = 1;
  return w;
}

static struct lw
lw_open (void)
{
  return lw_open_chunks (0);
}

static unsigned char *pm_world (uint32_t key, int swap, size_t *len);

/* Save the log of W in $CCE_TEST_DICT_SAVE, if set.  */
static void
lw_save (const struct lw *w)
{
  const char *dir = getenv ("CCE_TEST_DICT_SAVE");
  char path[PATH_MAX];
  FILE *f;
  if (!dir || !*dir)
    return;
  if (lw_saved == 0)
    {
      snprintf (path, sizeof path, "%s/prog.dict", dir);
      f = fopen (path, "wb");
      assert_non_null (f);
      assert_int_equal (fwrite (W.text, 1, W.len, f), W.len);
      assert_int_equal (fclose (f), 0);
      {
        size_t len;
        unsigned char *map = pm_world (cce_module_key (W.g->stamp), 0,
                                       &len);
        snprintf (path, sizeof path, "%s/prog.pcmap", dir);
        f = fopen (path, "wb");
        assert_non_null (f);
        assert_int_equal (fwrite (map, 1, len, f), len);
        assert_int_equal (fclose (f), 0);
        free (map);
      }
    }
  snprintf (path, sizeof path, "%s/%04d.log", dir, lw_saved++);
  f = fopen (path, "wb");
  assert_non_null (f);
  assert_int_equal (fwrite (w->data, 1, w->len, f), w->len);
  assert_int_equal (fclose (f), 0);
}

static int
lw_rec_cmp (const void *a, const void *b)
{
  const struct lw_rec *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* The log of W as a temporary file at its start.  The records noted are
   put in the order of the file.  */
static FILE *
lw_done (struct lw *w)
{
  if (!w->f)
    {
      w->f = tmpfile ();
      assert_non_null (w->f);
    }
  rewind (w->f);
  assert_int_equal (ftruncate (fileno (w->f), 0), 0);
  if (w->len)
    assert_int_equal (fwrite (w->data, 1, w->len, w->f), w->len);
  assert_int_equal (fflush (w->f), 0);
  rewind (w->f);
  lw_save (w);
  if (w->nrecs)
    qsort (w->recs, w->nrecs, sizeof *w->recs, lw_rec_cmp);
  return w->f;
}

/* Free what W holds and close its file.  */
static void
lw_close (struct lw *w)
{
  if (w->f)
    fclose (w->f);
  free (w->data);
  free (w->recs);
  memset (w, 0, sizeof *w);
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
  lw_record_full (w, CCE_LOG_RECORD_MARK, 0, thread, tag, c->site, c->id,
                  c->nstack, c->stack, (size_t) -1, c->path);
}

/* Decode all of LOG in FMT; returns the output (malloc'd) and the status
   of the reader in *CODE (CCED_OK at a clean end).  */
/* Decode LOGF with PROG in format FMT: the output; the reader's end in
   *CODE (CCED_OK: the end of the log) and its message in MSG (if not
   NULL), the output's statistics in *STATS (if not NULL).  */
static char *
run_with (const struct cced_program *prog, FILE *logf, enum cced_format fmt,
          enum cced_errcode *code, char *msg,
          struct cced_output_stats *stats)
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
  log = cced_log_fopen (logf, "test.log", prog, &e);
  if (!log)
    fail_msg ("log: %s", e.msg);
  out = cced_output_new (prog, fmt, of, &e);
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

static char *
run (FILE *logf, enum cced_format fmt, enum cced_errcode *code,
     char *msg, struct cced_output_stats *stats)
{
  return run_with (W.prog, logf, fmt, code, msg, stats);
}

/* The records format of the complete records W wrote, in the order of
   its file (after lw_done); those without a path get "?".  */
static char *
lw_expect (const struct lw *w)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&buf, &size);
  assert_non_null (f);
  for (size_t i = 0; i < w->nrecs; i++)
    fprintf (f, "%" PRIu32 "\t%" PRIu32 "\t%s\n", w->recs[i].thread,
             w->recs[i].tag, w->recs[i].path ? w->recs[i].path : "?");
  assert_int_equal (fclose (f), 0);
  return buf;
}

/* The log of W decoded in records format must be what W wrote, then end
   with CODE (CCED_OK: the end of the log) and a message containing MSG.
   Returns the reader's statistics in *ST (if not NULL).  */
static void
expect_records (struct lw *w, enum cced_errcode code, const char *msg,
                struct cced_log_stats *st)
{
  char *buf = NULL, *want;
  size_t size = 0;
  FILE *of = open_memstream (&buf, &size);
  struct cced_error e;
  struct cced_log *log;
  struct cced_output *out;
  struct cced_record rec;
  int r;

  rewind (w->f);
  log = cced_log_fopen (w->f, "test.log", W.prog, &e);
  if (!log)
    fail_msg ("log: %s", e.msg);
  out = cced_output_new (W.prog, CCED_FORMAT_RECORDS, of, &e);
  assert_non_null (out);
  while ((r = cced_log_next (log, &rec, &e)) > 0)
    assert_int_equal (cced_output_record (out, &rec, NULL), 0);
  assert_int_equal (cced_output_finish (out, NULL), 0);
  cced_output_free (out);
  fclose (of);
  want = lw_expect (w);
  assert_string_equal (buf, want);
  if (code == CCED_OK)
    {
      if (r < 0)
        fail_msg ("error %d: %s", e.code, e.msg);
    }
  else
    {
      assert_int_equal (r, -1);
      if (e.code != code)
        fail_msg ("error %d (%s), expected %d", e.code, e.msg, code);
      if (msg && !strstr (e.msg, msg))
        fail_msg ("message '%s' lacks '%s'", e.msg, msg);
    }
  if (st)
    cced_log_stats (log, st);
  cced_log_close (log);
  free (buf);
  free (want);
}

/* The good log of test_log_good, with chunks of CHUNK bytes (0: none) in
   the other byte order with SWAP.  */
static void
check_log_good (uint32_t chunk, int swap)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (chunk);
  struct cced_error e;
  struct cced_log *log;
  struct cced_record rec;
  struct cced_log_stats st;
  enum cced_errcode code;
  char *out, *expect;

  w.swap = swap;
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
  assert_int_equal (cced_log_swapped (log), swap);
  assert_int_equal (cced_log_chunk_size (log), chunk);
  assert_int_equal (cced_log_nmodules (log), 0);
  for (size_t i = 0; i < 6; i++)
    {
      const struct lw_rec *n = &w.recs[i];
      const struct ctx *x = &c[n->tag == 7 ? 0 : n->tag - 10];
      assert_int_equal (cced_log_next (log, &rec, &e), 1);
      assert_int_equal (rec.index, i + 1);
      assert_int_equal (rec.offset, n->off);
      assert_int_equal (rec.thread, n->thread);
      assert_int_equal (rec.tag, n->tag);
      assert_int_equal (rec.site, x->site);
      assert_int_equal (rec.id, x->id);
      assert_int_equal (rec.nstack, x->nstack);
      assert_int_equal (rec.module, 0);
      for (size_t k = 0; k < x->nstack; k++)
        {
          assert_int_equal (rec.stack[k].id, x->stack[k].id);
          assert_int_equal (rec.stack[k].site, x->stack[k].site);
        }
    }
  assert_int_equal (cced_log_next (log, &rec, &e), 0);
  assert_int_equal (cced_log_next (log, &rec, &e), 0);
  cced_log_stats (log, &st);
  assert_int_equal (st.records, 6);
  assert_int_equal (st.torn, 0);
  assert_int_equal (st.spans, chunk ? 3 : 0);
  assert_int_equal (st.unused_chunks, 0);
  assert_int_equal (st.skipped_chunks, 0);
  cced_log_close (log);

  /* records */
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  expect = lw_expect (&w);
  assert_string_equal (out, expect);
  free (expect);
  free (out);
  if (chunk == 0)
    assert_string_equal (out = lw_expect (&w),
                         "1\t10\tmain;leaf\n"
                         "2\t11\tmain;work;helper;leaf\n"
                         "1\t12\tmain;work;qsort;cb\n"
                         "2\t13\tmain;rec;rec;rec\n"
                         "1\t14\tmain;cb\n"
                         "3\t7\tmain;leaf\n");
  else
    /* A span per thread: thread 1's records, then 2's, then 3's.  */
    assert_string_equal (out = lw_expect (&w),
                         "1\t10\tmain;leaf\n"
                         "1\t12\tmain;work;qsort;cb\n"
                         "1\t14\tmain;cb\n"
                         "2\t11\tmain;work;helper;leaf\n"
                         "2\t13\tmain;rec;rec;rec\n"
                         "3\t7\tmain;leaf\n");
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
  if (chunk == 0)
    {
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
    }
  lw_close (&w);
}

static void
test_log_good (void **state)
{
  (void) state;
  check_log_good (0, 0);
  check_log_good (CHUNK, 0);
  check_log_good (65536, 0);
}

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
  lw_close (&w);
}

/* The log of W, which lw_done has not made yet, must be refused with
   CODE and a message containing MSG.  W is closed.  */
static void
expect_log_error (struct lw *w, enum cced_errcode code, const char *msg)
{
  struct cced_error e;
  struct cced_log *log = cced_log_fopen (lw_done (w), "test.log", W.prog,
                                         &e);
  if (log)
    fail_msg ("log accepted, expected: %s", msg ? msg : "an error");
  if (e.code != code)
    fail_msg ("error %d (%s), expected %d", e.code, e.msg, code);
  if (msg && !strstr (e.msg, msg))
    fail_msg ("message '%s' lacks '%s'", e.msg, msg);
  lw_close (w);
}

static void
test_log_bad_header (void **state)
{
  struct lw w;
  struct cce_log_header h;
  (void) state;

  w = lw_open ();
  lw_header_full (&w, "CCE-LOX", CCE_LOG_VERSION, sizeof h, W.g->stamp);
  expect_log_error (&w, CCED_E_LOG_MAGIC, "not a cce log");

  w = lw_open ();
  lw_put (&w, "cce-dict 1 0123\n", 16);
  expect_log_error (&w, CCED_E_LOG_MAGIC, "not a cce log");

  w = lw_open ();
  lw_put (&w, "hi", 2);
  expect_log_error (&w, CCED_E_LOG_MAGIC, "not a cce log");

  /* Other versions, in either byte order.  */
  for (int swap = 0; swap < 2; swap++)
    {
      static const uint32_t versions[] = { 0, 1, 2, 5, 0x05000000 };
      for (size_t i = 0; i < sizeof versions / sizeof *versions; i++)
        {
          char msg[64];
          w = lw_open ();
          w.swap = swap;
          lw_header_full (&w, CCE_LOG_MAGIC, versions[i], sizeof h,
                          W.g->stamp);
          /* The version is read in either byte order.  */
          snprintf (msg, sizeof msg, "unsupported log version %" PRIu32
                    " (expected 3 to 4)", versions[i] == 0x05000000
                    ? 5 : versions[i]);
          expect_log_error (&w, CCED_E_LOG_VERSION, msg);
        }
    }

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 16, W.g->stamp);
  expect_log_error (&w, CCED_E_LOG_HEADER, "header size 16");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 44, W.g->stamp);
  expect_log_error (&w, CCED_E_LOG_HEADER, "bad log header size 44");

  /* A header size far past the end of the file.  */
  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, sizeof h, W.g->stamp);
  h.header_size = 1u << 30;
  lw_put_at (&w, offsetof (struct cce_log_header, header_size),
             &h.header_size, sizeof h.header_size);
  expect_log_error (&w, CCED_E_LOG_HEADER,
                    "truncated log header (40 of 1073741824 bytes)");

  /* Chunk sizes: 0 or a power of two of at least 4096; the header a
     multiple of it.  */
  {
    static const uint32_t bad[] = { 8, 1000, 2048, 4095, 4097, 12288,
                                    UINT32_MAX };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
      {
        char msg[64];
        w = lw_open_chunks (bad[i]);
        lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, sizeof h,
                        W.g->stamp);
        snprintf (msg, sizeof msg, "bad chunk size %" PRIu32, bad[i]);
        expect_log_error (&w, CCED_E_LOG_HEADER, msg);
      }
  }
  w = lw_open_chunks (CHUNK);
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 6144, W.g->stamp);
  expect_log_error (&w, CCED_E_LOG_HEADER, "bad log header size 6144"
                    " (expected a multiple of 4096, at least 40)");
  w = lw_open_chunks (CHUNK);
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, sizeof h, W.g->stamp);
  expect_log_error (&w, CCED_E_LOG_HEADER, "bad log header size 40");

  /* Empty, and truncated headers.  */
  w = lw_open ();
  expect_log_error (&w, CCED_E_LOG_HEADER, "empty log");
  for (size_t n = 1; n < sizeof h; n++)
    {
      struct lw mw = lw_open ();
      lw_header (&mw);
      w = lw_open ();
      lw_put (&w, mw.data, n);
      expect_log_error (&w, CCED_E_LOG_HEADER, "truncated");
      lw_close (&mw);
    }
  /* Bigger headers, cut in their padding.  */
  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 56, W.g->stamp);
  w.len = 48;
  expect_log_error (&w, CCED_E_LOG_HEADER, "truncated log header (48 of 56"
                    " bytes)");
  w = lw_open_chunks (CHUNK);
  lw_header (&w);
  w.len = CHUNK - 8;
  expect_log_error (&w, CCED_E_LOG_HEADER, "truncated log header (4088 of"
                    " 4096 bytes)");
}

/* The module table of the header.  */
static void
test_log_modules (void **state)
{
  static const char *const paths[] = { "/usr/lib/libfoo.so.1", "/a",
                                       "/lib/x86_64-linux-gnu/libc.so.6" };
  (void) state;

  for (uint32_t chunk = 0; chunk <= CHUNK; chunk += CHUNK)
    for (int bad = 0; bad < 4; bad++)
      {
        struct lw w = lw_open_chunks (chunk);
        struct cce_log_header h;
        struct cced_error e;
        struct cced_log *log;
        size_t end;
        uint32_t nmod = bad == 1 ? 4 : 3;
        lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, sizeof h,
                        W.g->stamp);
        for (size_t i = 0; i < 3; i++)
          {
            struct cce_log_module m = { (uint32_t) strlen (paths[i]), 0 };
            if (bad == 2 && i == 1)
              m.pathlen = 0;
            if (bad == 3 && i == 2)
              m.pathlen = 1u << 20;
            lw_put (&w, &m, sizeof m);
            lw_put (&w, paths[i], strlen (paths[i]));
            lw_room (&w, w.len, (8 - w.len % 8) % 8);
          }
        end = w.len;
        if (chunk)
          lw_room (&w, w.len, chunk - w.len % chunk);
        memcpy (&h, w.data, sizeof h);
        h.nmodules = nmod;
        h.header_size = (uint32_t) (chunk ? w.len : end);
        memcpy (w.data, &h, sizeof h);
        log = cced_log_fopen (lw_done (&w), "t", W.prog, &e);
        if (bad)
          {
            assert_null (log);
            assert_int_equal (e.code, CCED_E_LOG_HEADER);
            assert_string_equal (e.msg, "bad module table in the log"
                                 " header");
          }
        else
          {
            if (!log)
              fail_msg ("%s", e.msg);
            assert_int_equal (cced_log_nmodules (log), 3);
            for (size_t i = 0; i < 3; i++)
              assert_string_equal (cced_log_module (log, i), paths[i]);
            assert_null (cced_log_module (log, 3));
            cced_log_close (log);
          }
        lw_close (&w);
      }
}

static void
test_log_stamp (void **state)
{
  struct lw w;
  (void) state;

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION,
                  sizeof (struct cce_log_header), W.g->stamp ^ 1);
  expect_log_error (&w, CCED_E_STAMP,
                    "log was written by a different build of ./hello");

  w = lw_open ();
  lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION,
                  sizeof (struct cce_log_header), 0);
  expect_log_error (&w, CCED_E_NO_STAMP,
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
  ends[0] = (long) w.len;
  for (int i = 0; i < 5; i++)
    {
      lw_ctx (&w, 1, i, &c[i]);
      ends[i + 1] = (long) w.len;
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
  lw_close (&w);
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
  r.mark = CCE_LOG_RECORD_MARK;
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
  lw_close (&w);

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
  lw_close (&w);
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
  lw_close (&w);
}

/* Headers longer than the struct and the module table: the rest is
   skipped.  */
static void
test_log_header_padding (void **state)
{
  struct ctx c[5];
  (void) state;

  contexts (c);
  for (uint32_t hs = 40; hs <= 64; hs += 8)
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
      lw_close (&w);
    }
  /* With chunks: a header of two.  */
  {
    struct lw w = lw_open_chunks (CHUNK);
    lw_header_full (&w, CCE_LOG_MAGIC, CCE_LOG_VERSION, 2 * CHUNK,
                    W.g->stamp);
    for (int i = 0; i < 5; i++)
      lw_ctx (&w, 1, i, &c[i]);
    lw_done (&w);
    expect_records (&w, CCED_OK, NULL, NULL);
    assert_int_equal (w.recs[0].off, 2 * CHUNK + 16);
    lw_close (&w);
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
  lw_close (&w);
}

/* Spans of several chunks: records cross chunk boundaries inside their
   span, and a deep record takes a span of its own, of several chunks.  */
static void
test_log_spans_of_several_chunks (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (CHUNK);
  struct cced_log_stats st;
  struct cce_stack_entry deep[1000];
  int crossing = 0;
  (void) state;

  contexts (c);
  deep[0] = c[3].stack[0];
  for (size_t i = 1; i < 1000; i++)
    deep[i] = c[3].stack[1];
  w.span_chunks = 3;
  lw_header (&w);
  for (int i = 0; i < 2000; i++)
    lw_ctx (&w, 1 + (i / 50) % 2, i, &c[i % 5]);
  lw_record_full (&w, CCE_LOG_RECORD_MARK, 0, 2, 9999, S9, c[3].id, 1000,
                  deep, (size_t) -1, NULL);
  lw_ctx (&w, 1, 10000, &c[1]);
  lw_done (&w);
  for (size_t i = 0; i < w.nrecs; i++)
    if (w.recs[i].off / CHUNK
        != (w.recs[i].off + w.recs[i].size - 1) / CHUNK)
      crossing++;
  assert_true (crossing > 3);
  /* The deep record's path, for the expectation.  */
  {
    static char path[8 * 1002];
    size_t n = sprintf (path, "main");
    for (size_t i = 0; i <= 1000; i++)
      n += sprintf (path + n, ";rec");
    for (size_t i = 0; i < w.nrecs; i++)
      if (w.recs[i].tag == 9999)
        w.recs[i].path = path;
  }
  expect_records (&w, CCED_OK, NULL, &st);
  assert_int_equal (st.records, 2002);
  assert_int_equal (st.spans, w.spans_made);
  assert_int_equal (st.torn, 0);
  assert_int_equal (st.unused_chunks, 0);
  assert_int_equal (w.len % CHUNK, 0);
  lw_close (&w);
}

/* Chunks of 0 between spans and at the end are skipped; the records
   after them are read.  A chunk that starts with 0 but holds other bytes
   is skipped too, and counted apart.  */
static void
test_log_unused_chunks (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (CHUNK);
  struct cced_log_stats st;
  size_t off;
  (void) state;

  contexts (c);
  lw_header (&w);
  lw_unused (&w, 1);                 /* before any span */
  lw_ctx (&w, 1, 1, &c[0]);
  lw_ctx (&w, 1, 2, &c[1]);
  lw_unused (&w, 2);
  lw_ctx (&w, 2, 3, &c[2]);
  off = w.len;
  lw_unused (&w, 1);
  lw_put_at (&w, off + 100, "x", 1);  /* not empty */
  w.nspans = 0;                       /* new spans from here */
  lw_ctx (&w, 1, 4, &c[3]);
  lw_ctx (&w, 2, 5, &c[4]);
  lw_unused (&w, 3);                  /* at the end */
  lw_done (&w);
  expect_records (&w, CCED_OK, NULL, &st);
  assert_int_equal (st.records, 5);
  assert_int_equal (st.spans, 4);
  assert_int_equal (st.unused_chunks, 6);
  assert_int_equal (st.skipped_chunks, 1);
  assert_int_equal (st.torn, 0);
  lw_close (&w);
}

/* A torn record, the last of its span, is skipped and counted, however
   much of it was written; the records of the other spans are read.  */
static void
test_log_torn (void **state)
{
  struct ctx c[5];
  struct cced_log_stats st;
  size_t rsize = sizeof (struct cce_log_record);
  /* How much of the torn record was written: every field in turn.  */
  static const size_t keeps[] = { 8, 16, 24, 28, 32, 40, 48, 64, 100 };
  (void) state;

  contexts (c);
  for (int swap = 0; swap < 2; swap++)
    for (size_t k = 0; k < sizeof keeps / sizeof *keeps; k++)
      {
        struct lw w = lw_open_chunks (CHUNK);
        w.swap = swap;
        lw_header (&w);
        lw_ctx (&w, 1, 1, &c[0]);
        lw_ctx (&w, 2, 2, &c[1]);
        lw_ctx (&w, 1, 3, &c[2]);
        /* Thread 1 dies while writing main -> rec -> rec -> rec.  */
        lw_record_full (&w, 0, 0, 1, 4, c[3].site, c[3].id, c[3].nstack,
                        c[3].stack, keeps[k], NULL);
        lw_ctx (&w, 2, 5, &c[4]);
        lw_done (&w);
        expect_records (&w, CCED_OK, NULL, &st);
        assert_int_equal (st.records, 4);
        assert_int_equal (st.torn, 1);
        assert_int_equal (st.spans, 2);
        lw_close (&w);
      }

  /* Torn first records of their spans, in two threads; the last span
     full to its end.  */
  {
    struct lw w = lw_open_chunks (CHUNK);
    size_t fill, n;
    lw_header (&w);
    lw_record_full (&w, 0, 0, 1, 1, c[0].site, c[0].id, 0, NULL, 4 + rsize,
                    NULL);
    lw_record_full (&w, 0, 0, 2, 2, c[0].site, c[0].id, 0, NULL, 8, NULL);
    lw_ctx (&w, 3, 3, &c[0]);
    /* Thread 3 fills its span to the end: 126 records of 32 bytes and
       one of 48 after the span header.  */
    fill = (CHUNK - sizeof (struct cce_log_span) - 48) / rsize;
    for (n = 1; n < fill; n++)
      lw_ctx (&w, 3, 3 + n, &c[0]);
    lw_ctx (&w, 3, 999, &c[2]);
    fill++;
    assert_int_equal (w.spans[2].pos, w.spans[2].end);
    assert_int_equal (w.len, 4 * CHUNK);
    lw_done (&w);
    expect_records (&w, CCED_OK, NULL, &st);
    assert_int_equal (st.records, fill);
    assert_int_equal (st.torn, 2);
    assert_int_equal (st.spans, 3);
    assert_int_equal (w.spans_made, 3);
    lw_close (&w);
  }
}

/* The spans of several threads interleave: the records come in the
   order of the file, each thread's in the order it wrote them.  */
static void
test_log_threads_interleaved (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (CHUNK);
  struct cced_log_stats st;
  uint32_t next[5] = { 0 };
  unsigned seed = 12345;
  (void) state;

  contexts (c);
  lw_header (&w);
  for (int i = 0; i < 2000; i++)
    {
      uint32_t t;
      seed = seed * 1103515245 + 12345;
      t = 1 + (seed >> 16) % 4;
      lw_ctx (&w, t, t << 16 | next[t]++, &c[(seed >> 8) % 5]);
    }
  lw_done (&w);
  assert_true (w.spans_made > 20);
  expect_records (&w, CCED_OK, NULL, &st);
  assert_int_equal (st.spans, w.spans_made);
  memset (next, 0, sizeof next);
  for (size_t i = 0; i < w.nrecs; i++)
    {
      uint32_t t = w.recs[i].thread;
      assert_int_equal (w.recs[i].tag, t << 16 | next[t]);
      next[t]++;
    }
  lw_close (&w);
}

/* Spans of level 1 (records of a signal handler that interrupted
   cce_log) between and before the level-0 spans of the same thread.  */
static void
test_log_levels (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (CHUNK);
  struct cced_log_stats st;
  (void) state;

  contexts (c);
  lw_header (&w);
  lw_record_full (&w, CCE_LOG_RECORD_MARK, 1, 1, 100, c[4].site, c[4].id,
                  c[4].nstack, c[4].stack, (size_t) -1, c[4].path);
  lw_ctx (&w, 1, 1, &c[0]);
  lw_record_full (&w, CCE_LOG_RECORD_MARK, 1, 1, 101, c[2].site, c[2].id,
                  c[2].nstack, c[2].stack, (size_t) -1, c[2].path);
  lw_record_full (&w, CCE_LOG_RECORD_MARK, 2, 1, 200, c[3].site, c[3].id,
                  c[3].nstack, c[3].stack, (size_t) -1, c[3].path);
  lw_ctx (&w, 1, 2, &c[1]);
  lw_done (&w);
  expect_records (&w, CCED_OK, NULL, &st);
  assert_int_equal (st.spans, 3);
  assert_int_equal (w.recs[0].tag, 100);
  assert_int_equal (w.recs[1].tag, 101);
  assert_int_equal (w.recs[2].tag, 1);
  lw_close (&w);
}

/* Cut short anywhere inside a span or a chunk: the complete records
   before the cut, then CCED_E_TRUNCATED; cut between spans: the end.  */
static void
test_log_truncated_chunks (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (CHUNK);
  size_t spans[8], nspans = 0;
  (void) state;

  contexts (c);
  w.span_chunks = 2;
  lw_header (&w);
  for (int i = 0; i < 150; i++)
    lw_ctx (&w, 1 + i / 100, i, &c[i % 5]);
  lw_unused (&w, 1);
  w.nspans = 0;
  lw_ctx (&w, 1, 1000, &c[0]);
  lw_done (&w);
  /* Where the spans and the unused chunks start.  */
  for (size_t off = CHUNK; off < w.len;)
    {
      struct cce_log_span s;
      memcpy (&s, w.data + off, sizeof s);
      spans[nspans++] = off;
      off += s.mark ? (size_t) s.chunks * CHUNK : CHUNK;
    }
  assert_int_equal (nspans, 4);
  spans[nspans] = w.len;

  for (size_t n = CHUNK; n <= w.len; n += (n % CHUNK < 64 ? 1 : 8))
    {
      struct lw t = lw_open_chunks (CHUNK);
      size_t complete = 0, boundary = 0, start = 0;
      char msg[128];
      lw_put (&t, w.data, n);
      for (size_t i = 0; i < w.nrecs; i++)
        if (w.recs[i].off + w.recs[i].size <= n)
          complete = i + 1;
      t.recs = malloc ((complete ? complete : 1) * sizeof *t.recs);
      memcpy (t.recs, w.recs, complete * sizeof *t.recs);
      t.nrecs = complete;
      for (size_t i = 0; i <= nspans; i++)
        {
          if (spans[i] == n)
            boundary = 1;
          if (spans[i] < n)
            start = spans[i];
        }
      t.f = tmpfile ();
      assert_int_equal (fwrite (t.data, 1, t.len, t.f), t.len);
      fflush (t.f);
      if (n == CHUNK || boundary)
        expect_records (&t, CCED_OK, NULL, NULL);
      else
        {
          snprintf (msg, sizeof msg, "truncated log: it ends at offset %zu,"
                    " inside the %s at offset %zu", n,
                    w.data[start] && n - start >= sizeof (struct cce_log_span)
                    ? "span" : "chunk", start);
          expect_records (&t, CCED_E_TRUNCATED, msg, NULL);
        }
      lw_close (&t);
    }
  lw_close (&w);
}

/* Write at OFF of W a table entry of SIZE bytes with MARK for THREAD: TAG
   at context C, COUNT, VALUE, ERROR, FLAGS; only its first KEEP bytes
   (all of it if KEEP is (size_t) -1).  */
static void
lw_entry (struct lw *w, size_t off, uint32_t mark, uint32_t size,
          uint32_t thread, uint32_t tag, const struct ctx *c,
          uint64_t count, uint64_t value, uint64_t error, uint32_t flags,
          size_t keep)
{
  unsigned char buf[1024];
  struct cce_log_entry e;
  memset (buf, 0, sizeof buf);
  memset (&e, 0, sizeof e);
  e.mark = sw32 (w, mark);
  e.size = sw32 (w, size);
  e.tag = sw32 (w, tag);
  e.nstack = sw32 (w, (uint32_t) c->nstack);
  e.site = sw64 (w, c->site);
  e.id = sw64 (w, c->id);
  e.count = sw64 (w, count);
  e.value = sw64 (w, value);
  e.error = sw64 (w, error);
  e.flags = sw32 (w, flags);
  e.thread = sw32 (w, thread);
  memcpy (buf, &e, sizeof e);
  for (size_t i = 0; i < c->nstack; i++)
    {
      struct cce_log_frame f;
      f.id = sw64 (w, c->stack[i].id);
      f.site = sw64 (w, c->stack[i].site);
      memcpy (buf + sizeof e + i * sizeof f, &f, sizeof f);
    }
  lw_put_at (w, off, buf, keep < size ? keep : size);
}

/* A value record (cce_count) of THREAD at context C at OFF; returns its
   size.  */
static size_t
lw_value_record (struct lw *w, size_t off, uint32_t thread, uint32_t tag,
                 const struct ctx *c, uint64_t value)
{
  unsigned char buf[256];
  struct cce_log_record r;
  uint64_t v = sw64 (w, value);
  size_t size = sizeof r + sizeof v + c->nstack * sizeof (struct cce_log_frame);
  memset (&r, 0, sizeof r);
  r.mark = sw32 (w, CCE_LOG_VALUE_MARK);
  r.thread = sw32 (w, thread);
  r.tag = sw32 (w, tag);
  r.site = sw64 (w, c->site);
  r.id = sw64 (w, c->id);
  r.nstack = sw32 (w, (uint32_t) c->nstack);
  memcpy (buf, &r, sizeof r);
  memcpy (buf + sizeof r, &v, sizeof v);
  for (size_t i = 0; i < c->nstack; i++)
    {
      struct cce_log_frame f;
      f.id = sw64 (w, c->stack[i].id);
      f.site = sw64 (w, c->stack[i].site);
      memcpy (buf + sizeof r + sizeof v + i * sizeof f, &f, sizeof f);
    }
  lw_put_at (w, off, buf, size);
  return size;
}

/* The log of check_log_tables: a span with a value record, then a table
   span of thread 1 (7 counters) with a valid entry, a dead one, a torn
   one and a valid one with a value, then BAD (0: nothing) at the next
   entry: 1 a size that is not one, 2 a count of 0, 3 more ccStack
   entries than room.  */
static void
lw_tables (struct lw *w, const struct ctx *c, int bad)
{
  size_t off;
  uint32_t e64 = sizeof (struct cce_log_entry);
  lw_header (w);
  off = lw_span (w, 1, 1, 0) + sizeof (struct cce_log_span);
  lw_value_record (w, off, 1, 3, &c[0], 42);
  off = lw_span (w, 1, 1, 7);
  lw_span_header (w, off, CCE_LOG_TABLE_MARK, 1, 1, 7);
  off += sizeof (struct cce_log_span);
  lw_entry (w, off, CCE_LOG_ENTRY_MARK, e64, 1, 1, &c[0], 5, 0, 0, 0,
            (size_t) -1);
  off += e64;
  lw_entry (w, off, CCE_LOG_DEAD_MARK, e64 + 32, 1, 1, &c[1], 3, 0, 0, 0,
            (size_t) -1);
  off += e64 + 32;
  lw_entry (w, off, 0, e64 + 16, 1, 2, &c[2], 9, 0, 0, 0, 40);
  off += e64 + 16;
  lw_entry (w, off, CCE_LOG_ENTRY_MARK, e64 + 64, 1, 2, &c[3], 7, 99, 2,
            CCE_ENTRY_VALUE, (size_t) -1);
  off += e64 + 64;
  if (bad == 1)
    lw_entry (w, off, CCE_LOG_ENTRY_MARK, 12, 1, 1, &c[0], 1, 0, 0, 0,
              (size_t) -1);
  else if (bad == 2)
    lw_entry (w, off, CCE_LOG_ENTRY_MARK, e64, 1, 1, &c[0], 0, 0, 0, 0,
              (size_t) -1);
  else if (bad == 3)
    lw_entry (w, off, CCE_LOG_ENTRY_MARK, e64 + 16, 1, 1, &c[3], 1, 0, 0,
              0, (size_t) -1);
  lw_done (w);
}

static const char tables_records[] =
  "1\t3\tmain;leaf\tvalue=42\n"
  "1\t1\tmain;leaf\tcount=5\n"
  "1\t2\tmain;rec;rec;rec\tcount=7\tvalue=99\n";

/* Value records and tables (CCE_MODE=aggregate): the entries are
   records with counts, the dead and torn ones skipped, the torn ones
   counted; damage is CCED_E_CORRUPT after the entries before it.  */
static void
check_log_tables (int swap)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (CHUNK);
  struct cced_log_stats st;
  struct cced_error e;
  struct cced_log *log;
  struct cced_record rec;
  enum cced_errcode code;
  char *out;
  int r;

  contexts (c);
  w.swap = swap;
  lw_tables (&w, c, 0);
  out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  assert_string_equal (out, tables_records);
  free (out);
  rewind (w.f);
  out = run (w.f, CCED_FORMAT_FOLDED, &code, NULL, NULL);
  assert_int_equal (code, CCED_OK);
  assert_string_equal (out, "main;leaf 6\nmain;rec;rec;rec 7\n");
  free (out);
  rewind (w.f);
  log = cced_log_fopen (w.f, "test.log", W.prog, &e);
  assert_non_null (log);
  while ((r = cced_log_next (log, &rec, &e)) > 0)
    if (rec.count == 7)
      {
        assert_int_equal (rec.error, 2);
        assert_int_equal (rec.value, 99);
        assert_int_equal (rec.flags, CCED_RECORD_VALUE);
        assert_int_equal (rec.nstack, 2);
      }
  assert_int_equal (r, 0);
  cced_log_stats (log, &st);
  assert_int_equal (st.records, 3);
  assert_int_equal (st.entries, 2);
  assert_int_equal (st.tables, 1);
  assert_int_equal (st.counters, 7);
  assert_int_equal (st.max_error, 2);
  assert_int_equal (st.events, 13);
  assert_int_equal (st.torn, 1);
  cced_log_close (log);
  lw_close (&w);

  static const char *const msgs[] = { NULL, "bad size", "impossible counts",
                                      "more ccStack entries than room" };
  for (int bad = 1; bad <= 3; bad++)
    {
      char msg[CCED_ERRMSG_SIZE];
      w = lw_open_chunks (CHUNK);
      w.swap = swap;
      lw_tables (&w, c, bad);
      out = run (w.f, CCED_FORMAT_RECORDS, &code, msg, NULL);
      assert_int_equal (code, CCED_E_CORRUPT);
      assert_non_null (strstr (msg, msgs[bad]));
      assert_string_equal (out, tables_records);
      free (out);
      lw_close (&w);
    }

  /* A version-3 log has neither.  */
  w = lw_open_chunks (CHUNK);
  w.swap = swap;
  lw_header_full (&w, CCE_LOG_MAGIC, 3, CHUNK, W.g->stamp);
  size_t off = lw_span (&w, 1, 1, 7);
  lw_span_header (&w, off, CCE_LOG_TABLE_MARK, 1, 1, 7);
  lw_done (&w);
  out = run (w.f, CCED_FORMAT_RECORDS, &code, NULL, NULL);
  assert_int_equal (code, CCED_E_CORRUPT);
  free (out);
  lw_close (&w);
}

static void
test_log_tables (void **state)
{
  (void) state;
  check_log_tables (0);
  check_log_tables (1);
}

/* Damage gives CCED_E_CORRUPT after the records before it.  */
static void
test_log_corrupt (void **state)
{
  struct ctx c[5];
  struct lw w;
  struct cced_log_stats st;
  size_t off;
  (void) state;

  contexts (c);
  /* A chunk that starts with neither a span header nor 0.  */
  w = lw_open_chunks (CHUNK);
  lw_header (&w);
  lw_ctx (&w, 1, 1, &c[0]);
  lw_unused (&w, 1);
  lw_put_at (&w, 2 * CHUNK, "garbage!", 8);
  lw_done (&w);
  expect_records (&w, CCED_E_CORRUPT, "corrupt log at offset 8192 (a chunk"
                  " that starts with neither a span header nor 0)", NULL);
  lw_close (&w);

  /* Span headers with 0 chunks, thread 0.  */
  for (int k = 0; k < 2; k++)
    {
      w = lw_open_chunks (CHUNK);
      lw_header (&w);
      lw_ctx (&w, 1, 1, &c[0]);
      lw_unused (&w, 1);
      lw_span_header (&w, 2 * CHUNK, CCE_LOG_SPAN_MARK, k ? 0 : 2, k, 0);
      lw_done (&w);
      expect_records (&w, CCED_E_CORRUPT, k ? "corrupt span header at"
                      " offset 8192 (thread 0, 1 chunks)"
                      : "corrupt span header at offset 8192 (thread 2,"
                      " 0 chunks)", NULL);
      lw_close (&w);
    }

  /* Records with a bad mark, another thread's, past the end of the
     span, with too many ccStack entries.  */
  for (int k = 0; k < 4; k++)
    {
      static const char *const msgs[] = {
        "corrupt record at offset 4192 (mark 0x12345678)",
        "corrupt record at offset 4192 (thread 2 in a span of thread 1)",
        "corrupt record at offset 4192 (1000 ccStack entries, past the end"
        " of its span)",
        "corrupt record at offset 4192 (268435457 ccStack entries)",
      };
      struct cce_log_record r;
      w = lw_open_chunks (CHUNK);
      lw_header (&w);
      lw_ctx (&w, 1, 1, &c[0]);
      lw_ctx (&w, 1, 2, &c[2]);
      off = lw_record_full (&w, CCE_LOG_RECORD_MARK, 0, 1, 3, S3, 0, 0, NULL,
                            (size_t) -1, NULL);
      w.nrecs--;
      memcpy (&r, w.data + off, sizeof r);
      if (k == 0)
        r.mark = 0x12345678;
      else if (k == 1)
        r.thread = 2;
      else if (k == 2)
        r.nstack = 1000;
      else
        r.nstack = CCED_MAX_NSTACK + 1;
      lw_put_at (&w, off, &r, sizeof r);
      lw_ctx (&w, 2, 4, &c[0]);       /* not read */
      w.nrecs--;
      lw_done (&w);
      expect_records (&w, CCED_E_CORRUPT, msgs[k], &st);
      assert_int_equal (st.records, 2);
      lw_close (&w);
    }

  /* A span of 2^32 - 1 chunks in a short file: cut short, and nothing
     big is allocated.  */
  w = lw_open_chunks (CHUNK);
  lw_header (&w);
  lw_ctx (&w, 1, 1, &c[0]);
  lw_span_header (&w, CHUNK, CCE_LOG_SPAN_MARK, 1, UINT32_MAX, 0);
  lw_done (&w);
  expect_records (&w, CCED_E_TRUNCATED, "truncated log: it ends at offset"
                  " 8192, inside the span at offset 4096", NULL);
  lw_close (&w);

  /* Without chunks: every record has its mark.  */
  for (int k = 0; k < 2; k++)
    {
      w = lw_open ();
      lw_header (&w);
      lw_ctx (&w, 1, 1, &c[0]);
      lw_record_full (&w, k ? 0x52454344 : 0, 0, 1, 2, S3, 0, 0, NULL,
                      (size_t) -1, NULL);
      lw_done (&w);
      expect_records (&w, CCED_E_CORRUPT, k ? "corrupt record at offset 72"
                      " (mark 0x52454344)" : "corrupt record at offset 72"
                      " (mark 0x00000000)", NULL);
      lw_close (&w);
    }
}

/* Logs with chunks in the other byte order, with a torn record.  */
static void
test_log_swapped_chunks (void **state)
{
  struct ctx c[5];
  struct cced_log_stats st;
  (void) state;

  contexts (c);
  for (uint32_t chunk = CHUNK; chunk <= 16384; chunk *= 4)
    {
      struct lw w = lw_open_chunks (chunk);
      w.swap = 1;
      w.span_chunks = 2;
      lw_header (&w);
      for (int i = 0; i < 500; i++)
        lw_ctx (&w, 0x01020304 + i % 3, 0xa0b0c0d0 + i, &c[i % 5]);
      lw_unused (&w, 1);
      lw_record_full (&w, 0, 0, 0x01020304, 1, S3, 5, 0, NULL, 12, NULL);
      lw_done (&w);
      expect_records (&w, CCED_OK, NULL, &st);
      assert_int_equal (st.records, 500);
      assert_int_equal (st.torn, 1);
      assert_int_equal (st.unused_chunks, 1);
      lw_close (&w);
    }
}

/* The records of test_log_streaming in a log with chunks: spans of
   several threads, and a record of 1.6 MB in a span of its own.  */
static void
test_log_streaming_chunks (void **state)
{
  struct ctx c[5];
  struct lw w = lw_open_chunks (CHUNK);
  struct cced_log_stats st;
  struct cce_stack_entry *deep;
  size_t ndeep = 100000, n;
  char *path;
  (void) state;

  contexts (c);
  deep = malloc (ndeep * sizeof *deep);
  deep[0] = c[3].stack[0];
  for (size_t i = 1; i < ndeep; i++)
    deep[i] = c[3].stack[1];
  path = malloc (8 * ndeep);
  n = sprintf (path, "main");
  for (size_t i = 0; i <= ndeep; i++)
    n += sprintf (path + n, ";rec");

  w.span_chunks = 4;
  lw_header (&w);
  for (int i = 0; i < 60000; i++)
    lw_ctx (&w, 1 + i % 7, i, &c[i % 5]);
  lw_record_full (&w, CCE_LOG_RECORD_MARK, 0, 3, 9, S9, c[3].id, ndeep,
                  deep, (size_t) -1, path);
  for (int i = 0; i < 1000; i++)
    lw_ctx (&w, 8, i, &c[(i * 3) % 5]);
  lw_done (&w);
  expect_records (&w, CCED_OK, NULL, &st);
  assert_int_equal (st.records, 61001);
  assert_int_equal (st.spans, w.spans_made);
  lw_close (&w);
  free (deep);
  free (path);
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
  lw_close (&w);
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
  lw_close (&w);
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

/* ===================================================================
   Records of interrupted instructions and PC maps.  */

/* A range of a PC map of the test program.  */
struct pmr
{
  uint64_t start;
  uint32_t len, state, callee;
  const char *loc;
};

/* Append to *MAP (*LEN bytes, realloc'd) a block of NODE with the N
   ranges R and KEY, in the other byte order with SWAP.  */
static void
pm_append (unsigned char **map, size_t *len, uint32_t key, uint32_t node,
           const struct pmr *r, size_t n, int swap)
{
  size_t str = sizeof (struct cce_pcmap_block)
               + n * sizeof (struct cce_pcmap_range), size, i;
  unsigned char *b;
  struct cce_pcmap_block h;

  for (i = 0, size = str; i < n; i++)
    size += r[i].loc ? strlen (r[i].loc) + 1 : 0;
  size = (size + 7) / 8 * 8;
  *map = realloc (*map, *len + size);
  assert_non_null (*map);
  b = *map + *len;
  memset (b, 0, size);
  for (i = 0; i < n; i++)
    {
      struct cce_pcmap_range q;
      q.start = swap ? __builtin_bswap64 (r[i].start) : r[i].start;
      q.len = swap ? __builtin_bswap32 (r[i].len) : r[i].len;
      q.state = swap ? __builtin_bswap32 (r[i].state) : r[i].state;
      q.callee = swap ? __builtin_bswap32 (r[i].callee) : r[i].callee;
      q.loc = 0;
      if (r[i].loc)
        {
          q.loc = swap ? __builtin_bswap32 ((uint32_t) str) : (uint32_t) str;
          memcpy (b + str, r[i].loc, strlen (r[i].loc) + 1);
          str += strlen (r[i].loc) + 1;
        }
      memcpy (b + sizeof h + i * sizeof q, &q, sizeof q);
    }
  h.mark = CCE_PCMAP_MARK;
  h.version = CCE_PCMAP_VERSION;
  h.flags = CCE_PCMAP_ASYNC;
  h.size = (uint32_t) size;
  h.key = key;
  h.node = node;
  h.nranges = (uint32_t) n;
  if (swap)
    {
      h.mark = __builtin_bswap32 (h.mark);
      h.version = __builtin_bswap16 (h.version);
      h.flags = __builtin_bswap16 (h.flags);
      h.size = __builtin_bswap32 (h.size);
      h.key = __builtin_bswap32 (h.key);
      h.node = __builtin_bswap32 (h.node);
      h.nranges = __builtin_bswap32 (h.nranges);
    }
  memcpy (b, &h, sizeof h);
  *len += size;
}

#define PM_LEAF 0x1000        /* leaf, OWN */
#define PM_WORK 0x2000        /* work, OWN, in the helper it inlined */
#define PM_MAIN 0x3000        /* main, its id that of its call of leaf */
#define PM_CB 0x4000          /* cb, OWN */

/* The PC map of the test program (with KEY), in the other byte order
   with SWAP: malloc'd, *LEN bytes.  */
static unsigned char *
pm_world (uint32_t key, int swap, size_t *len)
{
  static const struct pmr leaf[] = {
    { PM_LEAF, 16, CCE_PC_OWN, CCE_PCMAP_NO_NODE, "leaf\thello.c\t43\t7" } };
  static const struct pmr work[] = {
    { PM_WORK, 8, CCE_PC_OWN, CCE_PCMAP_NO_NODE,
      "work\thello.c\t22\t5\nhelper\thello.c\t33\t2" } };
  static const struct pmr main_[] = {
    { PM_MAIN, 8, CCE_PC_CALLEE, N_LEAF, "main\thello.c\t13\t3" } };
  static const struct pmr cb[] = {
    { PM_CB, 8, CCE_PC_OWN, CCE_PCMAP_NO_NODE, "cb\tcb.c\t53\t1" } };
  unsigned char *map = NULL;

  *len = 0;
  pm_append (&map, len, key, N_LEAF, leaf, 1, swap);
  pm_append (&map, len, key, N_WORK, work, 1, swap);
  pm_append (&map, len, key, N_MAIN, main_, 1, swap);
  pm_append (&map, len, key, N_CB, cb, 1, swap);
  return map;
}

static uint64_t
pm_word (uint32_t addr)
{
  return CCE_PC_WORD (cce_module_key (W.g->stamp), addr);
}

/* Decode all of LOGF with PROG in FMT: the output, malloc'd.  */
static char *
run_prog (const struct cced_program *prog, FILE *logf, enum cced_format fmt,
          struct cced_output_stats *stats)
{
  enum cced_errcode code;
  char *buf;

  rewind (logf);
  buf = run_with (prog, logf, fmt, &code, NULL, stats);
  assert_int_equal (code, CCED_OK);
  return buf;
}

/* The log of records of interrupted instructions of the test program.  */
static void
pc_log (struct lw *w)
{
  struct ctx c[5];
  struct cce_stack_entry st[2];

  contexts (c);
  lw_header (w);
  /* main -> work -> helper -> leaf died of SIGSEGV in leaf.  */
  lw_record (w, 1, CCE_TAG_SIGNAL + SIGSEGV, pm_word (PM_LEAF + 4), c[1].id,
             0, NULL);
  /* Samples: in helper inlined into work, and in main with the id of
     its call of leaf stored.  */
  lw_record (w, 1, CCE_TAG_SAMPLE, pm_word (PM_WORK), W.g->sites[S0].av, 0,
             NULL);
  lw_record (w, 2, CCE_TAG_SAMPLE, pm_word (PM_MAIN), W.g->sites[S1].av, 0,
             NULL);
  lw_record (w, 2, CCE_TAG_SAMPLE, pm_word (PM_MAIN), W.g->sites[S1].av, 0,
             NULL);
  /* cb, a signal handler, logged after it interrupted leaf (reached from
     main -> leaf).  */
  st[0].id = c[0].id;
  st[0].site = pm_word (PM_LEAF);
  lw_record (w, 1, 42, S5, 0, 1, st);
  /* Outside the program, with a signal of no name.  */
  lw_record (w, 3, CCE_TAG_SIGNAL + 200, CCE_PC_EXTERNAL, 0, 0, NULL);
  /* A log record of leaf, then a crash record with its site word.  */
  lw_record (w, 3, 7, S3, c[0].id, 0, NULL);
  lw_record (w, 3, CCE_TAG_SIGNAL + SIGABRT, S3, c[0].id, 0, NULL);
  lw_record (w, 3, 8, S3, c[0].id, 0, NULL);
  lw_done (w);
}

static void
test_pc_records (void **state)
{
  struct cced_error e;
  struct cced_program *p;
  struct cced_output_stats st;
  struct lw w = lw_open ();
  unsigned char *map;
  size_t len;
  char *out;
  (void) state;

  p = cced_program_from_dict ("./hello", W.text, W.len, &e);
  assert_non_null (p);
  map = pm_world (cce_module_key (W.g->stamp), 0, &len);
  if (cced_program_add_pcmap (p, 0, map, len, &e) < 0)
    fail_msg ("%s", e.msg);
  assert_int_equal (cced_program_add_pcmap (p, 0, map, len, &e), -1);
  assert_int_equal (e.code, CCED_E_BAD_PCMAP);
  assert_int_equal (cced_program_add_pcmap (p, 1, map, len, &e), -1);
  assert_int_equal (e.code, CCED_E_BAD_PCMAP);
  pc_log (&w);

  out = run_prog (p, w.f, CCED_FORMAT_RECORDS, &st);
  assert_string_equal (out,
                       "1\tSIGSEGV\tmain;work;helper;leaf\n"
                       "1\tsample\tmain;work;helper\n"
                       "2\tsample\tmain\n"
                       "2\tsample\tmain\n"
                       "1\t42\tmain;leaf;[signal];cb\n"
                       "3\tSIG200\t[incomplete]\n"
                       "3\t7\tmain;leaf\n"
                       "3\tSIGABRT\t[incomplete]\n"
                       "3\t8\tmain;leaf\n");
  assert_int_equal (st.incomplete, 2);
  free (out);

  out = run_prog (p, w.f, CCED_FORMAT_FOLDED, NULL);
  assert_string_equal (out,
                       "[incomplete] 2\n"
                       "main 2\n"
                       "main;leaf 2\n"
                       "main;leaf;[signal];cb 1\n"
                       "main;work;helper 1\n"
                       "main;work;helper;leaf 1\n");
  free (out);
  /* The same records in a log with chunks: a span per thread.  */
  {
    struct lw wc = lw_open_chunks (CHUNK);
    pc_log (&wc);
    out = run_prog (p, wc.f, CCED_FORMAT_FOLDED, NULL);
    assert_string_equal (out,
                         "[incomplete] 2\n"
                         "main 2\n"
                         "main;leaf 2\n"
                         "main;leaf;[signal];cb 1\n"
                         "main;work;helper 1\n"
                         "main;work;helper;leaf 1\n");
    free (out);
    lw_close (&wc);
  }

  out = run_prog (p, w.f, CCED_FORMAT_TEXT, NULL);
  assert_string_equal (out,
                       "record 1: thread 1 tag SIGSEGV\n"
                       "  #0  leaf (hello.c:43:7)\n"
                       "  #1  helper (hello.c:32:7) [inlined]\n"
                       "  #2  work (hello.c:22:5)\n"
                       "  #3  main (hello.c:12:3)\n"
                       "\n"
                       "record 2: thread 1 tag sample\n"
                       "  #0  helper (hello.c:33:2) [inlined]\n"
                       "  #1  work (hello.c:22:5)\n"
                       "  #2  main (hello.c:12:3)\n"
                       "\n"
                       "record 3: thread 2 tag sample\n"
                       "  #0  main (hello.c:13:3)\n"
                       "\n"
                       "record 4: thread 2 tag sample\n"
                       "  #0  main (hello.c:13:3)\n"
                       "\n"
                       "record 5: thread 1 tag 42\n"
                       "  #0  cb (cb.c:52:3)\n"
                       "  #1  [signal] (a signal interrupted the frames "
                       "below)\n"
                       "  #2  leaf (hello.c:43:7)\n"
                       "  #3  main (hello.c:13:3)\n"
                       "\n"
                       "record 6: thread 3 tag SIG200\n"
                       "  #0  ?? (incomplete: interrupted outside the "
                       "program's code)\n"
                       "\n"
                       "record 7: thread 3 tag 7\n"
                       "  #0  leaf (hello.c:42:3)\n"
                       "  #1  main (hello.c:13:3)\n"
                       "\n"
                       "record 8: thread 3 tag SIGABRT\n"
                       "  #0  ?? (incomplete: record of an interrupted "
                       "instruction without its PC)\n"
                       "\n"
                       "record 9: thread 3 tag 8\n"
                       "  #0  leaf (hello.c:42:3)\n"
                       "  #1  main (hello.c:13:3)\n");
  free (out);
  cced_program_close (p);

  /* Without a PC map.  */
  out = run_prog (W.prog, w.f, CCED_FORMAT_RECORDS, NULL);
  assert_string_equal (out,
                       "1\tSIGSEGV\t[incomplete]\n"
                       "1\tsample\t[incomplete]\n"
                       "2\tsample\t[incomplete]\n"
                       "2\tsample\t[incomplete]\n"
                       "1\t42\t[incomplete];[signal];cb\n"
                       "3\tSIG200\t[incomplete]\n"
                       "3\t7\tmain;leaf\n"
                       "3\tSIGABRT\t[incomplete]\n"
                       "3\t8\tmain;leaf\n");
  free (out);
  out = run_prog (W.prog, w.f, CCED_FORMAT_TEXT, NULL);
  assert_non_null (strstr (out, "record 1: thread 1 tag SIGSEGV\n"
                           "  #0  ?? (incomplete: no PC map: the program was "
                           "built by a cce without one)\n"));
  free (out);
  lw_close (&w);

  /* The names of the tags.  */
  {
    char buf[16];
    assert_string_equal (cced_tag_name (CCE_TAG_SIGNAL + SIGSEGV, buf,
                                        sizeof buf), "SIGSEGV");
    assert_string_equal (cced_tag_name (CCE_TAG_SIGNAL + SIGBUS, buf,
                                        sizeof buf), "SIGBUS");
    assert_string_equal (cced_tag_name (CCE_TAG_SIGNAL, buf, sizeof buf),
                         "SIG0");
    assert_string_equal (cced_tag_name (CCE_TAG_SIGNAL + 255, buf,
                                        sizeof buf), "SIG255");
    assert_string_equal (cced_tag_name (CCE_TAG_SAMPLE, buf, sizeof buf),
                         "sample");
    assert_null (cced_tag_name (7, buf, sizeof buf));
    assert_null (cced_tag_name (CCE_TAG_SAMPLE + 1, buf, sizeof buf));
    assert_null (cced_tag_name (CCE_TAG_TRACE, buf, sizeof buf));
  }
  free (map);
}

static void
test_program_elf_pcmap (void **state)
{
  char *path = tmpname ("prog-pc");
  struct cced_error e;
  struct cced_program *p;
  struct lw w = lw_open ();
  unsigned char *map;
  size_t len;
  char *out;
  uint32_t key = cce_module_key (W.g->stamp);
  struct esec secs[2] = {
    { CCE_DICT_SECTION, W.text, W.len, SHF_ALLOC },
    { CCE_PCMAP_SECTION, NULL, 0, 0 },
  };
  static const char *const want =
    "1\tSIGSEGV\tmain;work;helper;leaf\n"
    "1\tsample\tmain;work;helper\n"
    "2\tsample\tmain\n"
    "2\tsample\tmain\n"
    "1\t42\tmain;leaf;[signal];cb\n"
    "3\tSIG200\t[incomplete]\n"
    "3\t7\tmain;leaf\n"
    "3\tSIGABRT\t[incomplete]\n"
    "3\t8\tmain;leaf\n";
  (void) state;

  pc_log (&w);
  /* In this machine's byte order, and in the other one in an ELF file
     of that order.  */
  for (int swap = 0; swap < 2; swap++)
    {
      int big = (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) != swap;
      map = pm_world (key, swap, &len);
      secs[1].data = map;
      secs[1].size = len;
      write_elf_sections (path, secs, 2, big ? ELFDATA2MSB : ELFDATA2LSB);
      p = cced_program_open (path, &e);
      if (!p)
        fail_msg ("%s", e.msg);
      out = run_prog (p, w.f, CCED_FORMAT_RECORDS, NULL);
      assert_string_equal (out, want);
      free (out);
      cced_program_close (p);
      free (map);
    }

  /* An empty map: every PC is outside the program's code.  */
  secs[1].data = "";
  secs[1].size = 0;
  write_elf_sections (path, secs, 2, ELFDATA2LSB);
  p = cced_program_open (path, &e);
  if (!p)
    fail_msg ("%s", e.msg);
  cced_program_close (p);

  /* Malformed and stale maps.  */
  map = pm_world (key, 0, &len);
  secs[1].data = map;
  secs[1].size = len;
  map[0] ^= 0x40;
  write_elf_sections (path, secs, 2, ELFDATA2LSB);
  expect_program_error (path, CCED_E_BAD_PCMAP, "malformed cce PC map: "
                        "block at offset 0: bad mark");
  map[0] ^= 0x40;
  secs[1].size = len - 8;
  write_elf_sections (path, secs, 2, ELFDATA2LSB);
  expect_program_error (path, CCED_E_BAD_PCMAP, "truncated");
  free (map);
  map = pm_world (key ^ 1, 0, &len);
  secs[1].data = map;
  secs[1].size = len;
  write_elf_sections (path, secs, 2, ELFDATA2LSB);
  expect_program_error (path, CCED_E_BAD_PCMAP, "the map is stale");
  free (map);
  /* Stripped to a header (objcopy --only-keep-debug keeps the section
     without its bytes).  */
  secs[1].data = NULL;
  secs[1].size = 64;
  write_elf_sections (path, secs, 2, ELFDATA2LSB);
  expect_program_error (path, CCED_E_BAD_PCMAP, "has no contents");

  lw_close (&w);
  free (path);
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
    cmocka_unit_test (test_log_modules),
    cmocka_unit_test (test_log_spans_of_several_chunks),
    cmocka_unit_test (test_log_unused_chunks),
    cmocka_unit_test (test_log_torn),
    cmocka_unit_test (test_log_threads_interleaved),
    cmocka_unit_test (test_log_levels),
    cmocka_unit_test (test_log_truncated_chunks),
    cmocka_unit_test (test_log_corrupt),
    cmocka_unit_test (test_log_tables),
    cmocka_unit_test (test_log_swapped_chunks),
    cmocka_unit_test (test_log_streaming_chunks),
    cmocka_unit_test (test_output_many_contexts),
    cmocka_unit_test (test_output_write_error),
    cmocka_unit_test (test_misc),
    cmocka_unit_test (test_pc_records),
    cmocka_unit_test (test_program_elf_pcmap),
  };
  return cmocka_run_group_tests (tests, setup, teardown);
}
