/* test-profile.c -- unit tests of the protocol buffers writer of
   libccedecode (pbwrite.c), read back by a reader of the test's own, and
   of the profile outputs (pprof, speedscope) and --depth on records that
   carry counts and values, and of the weights of sampled heap
   profiles.  */

#define _GNU_SOURCE 1
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "cce-core.h"
#include "cce-format.h"
#include "decode.h"
#include "decode-internal.h"

/* ===================================================================
   A reader of the wire format.  */

struct rd
{
  const unsigned char *p, *end;
};

/* Read a varint into *V: 0, or -1 at the end or on a bad one.  */
static int
rd_varint (struct rd *r, uint64_t *v)
{
  uint64_t x = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      unsigned char c;
      if (r->p == r->end)
        return -1;
      c = *r->p++;
      x |= (uint64_t) (c & 0x7f) << shift;
      if (!(c & 0x80))
        {
          *v = x;
          return 0;
        }
    }
  return -1;
}

/* A field: its number, and a varint in *V or LEN bytes at *DATA.
   Returns 1, 0 at the end of the message, or -1 if it is malformed (or
   of another wire type).  */
static int
rd_field (struct rd *r, uint32_t *field, uint64_t *v,
          const unsigned char **data, size_t *len)
{
  uint64_t key;
  if (r->p == r->end)
    return 0;
  if (rd_varint (r, &key) < 0)
    return -1;
  *field = (uint32_t) (key >> 3);
  *data = NULL;
  switch (key & 7)
    {
    case 0:
      return rd_varint (r, v) < 0 ? -1 : 1;
    case 2:
      if (rd_varint (r, v) < 0 || *v > (uint64_t) (r->end - r->p))
        return -1;
      *data = r->p;
      *len = (size_t) *v;
      r->p += *len;
      return 1;
    default:
      return -1;
    }
}

/* ===================================================================
   The writer.  */

static void
expect_bytes (const struct cced_pbuf *b, const unsigned char *want,
              size_t n)
{
  assert_false (b->oom);
  assert_int_equal (b->n, n);
  assert_memory_equal (b->p, want, n);
}

/* The weight of a sampled heap profile's counts: 1 unsampled; at an
   average size equal to the interval 1 / (1 - 1/e); near 1 for blocks
   far larger than the interval; near INTERVAL / AVG for small ones.  */
static void
test_heap_scale (void **state)
{
  (void) state;
  assert_true (cced_heap_scale (10, 1000, 0) == 1.0);
  assert_true (cced_heap_scale (0, 0, 4096) == 1.0);
  double s = cced_heap_scale (1, 4096, 4096);
  assert_true (s > 1.5819 && s < 1.5820);
  s = cced_heap_scale (2, 2 << 20, 4096);
  assert_true (s >= 1.0 && s < 1.0000001);
  s = cced_heap_scale (100, 1600, 4096);
  assert_true (s > 256.0 && s < 257.0);
}

static void
test_varints (void **state)
{
  static const struct
  {
    uint64_t v;
    size_t n;
    unsigned char bytes[10];
  } cases[] = {
    { 0, 1, { 0 } },
    { 1, 1, { 1 } },
    { 127, 1, { 0x7f } },
    { 128, 2, { 0x80, 0x01 } },
    { 150, 2, { 0x96, 0x01 } },
    { 300, 2, { 0xac, 0x02 } },
    { UINT32_MAX, 5, { 0xff, 0xff, 0xff, 0xff, 0x0f } },
    { UINT64_MAX, 10,
      { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
  };
  (void) state;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    {
      struct cced_pbuf b = { 0 };
      struct rd r;
      uint64_t v;
      cced_pb_varint (&b, cases[i].v);
      expect_bytes (&b, cases[i].bytes, cases[i].n);
      r.p = b.p;
      r.end = b.p + b.n;
      assert_int_equal (rd_varint (&r, &v), 0);
      assert_true (v == cases[i].v);
      assert_ptr_equal (r.p, r.end);
      cced_pb_free (&b);
    }
}

/* The examples of the protocol buffers encoding guide: field 1 = 150,
   field 2 = "testing", field 3 = an embedded message with field 1 =
   150, field 4 = packed 3, 270, 86942; and a negative int64.  */
static void
test_fields (void **state)
{
  static const unsigned char want[] = {
    0x08, 0x96, 0x01,
    0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
    0x1a, 0x03, 0x08, 0x96, 0x01,
    0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05,
    0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01
  };
  static const uint64_t packed[] = { 3, 270, 86942 };
  struct cced_pbuf b = { 0 }, m = { 0 };
  (void) state;

  cced_pb_uint (&b, 1, 150);
  cced_pb_string (&b, 2, "testing");
  cced_pb_uint (&m, 1, 150);
  cced_pb_message (&b, 3, &m);
  cced_pb_packed (&b, 4, packed, 3);
  cced_pb_packed (&b, 9, packed, 0);     /* nothing */
  cced_pb_int (&b, 5, -1);
  expect_bytes (&b, want, sizeof want);
  cced_pb_free (&b);
  cced_pb_free (&m);
}

/* Many fields of random values, read back.  */
static void
test_roundtrip (void **state)
{
  struct cced_pbuf b = { 0 };
  uint64_t vals[2000];
  struct rd r;
  uint32_t field;
  uint64_t v;
  const unsigned char *data;
  size_t len, i;
  (void) state;

  srand (7);
  for (i = 0; i < 2000; i++)
    {
      vals[i] = ((uint64_t) rand () << 40) ^ ((uint64_t) rand () << 20)
                ^ (uint64_t) rand ();
      vals[i] >>= rand () % 64;
      if (i % 3 == 2)
        {
          char s[32];
          snprintf (s, sizeof s, "s%" PRIu64, vals[i]);
          cced_pb_string (&b, (uint32_t) i + 1, s);
        }
      else
        cced_pb_uint (&b, (uint32_t) i + 1, vals[i]);
    }
  assert_false (b.oom);
  r.p = b.p;
  r.end = b.p + b.n;
  for (i = 0; i < 2000; i++)
    {
      assert_int_equal (rd_field (&r, &field, &v, &data, &len), 1);
      assert_int_equal (field, i + 1);
      if (i % 3 == 2)
        {
          char s[32];
          snprintf (s, sizeof s, "s%" PRIu64, vals[i]);
          assert_non_null (data);
          assert_int_equal (len, strlen (s));
          assert_memory_equal (data, s, len);
        }
      else
        {
          assert_null (data);
          assert_true (v == vals[i]);
        }
    }
  assert_int_equal (rd_field (&r, &field, &v, &data, &len), 0);
  cced_pb_free (&b);
}

/* ===================================================================
   The profile outputs.

     main --S0--> work (helper inlined) --S2--> leaf   S3 log
       \--S1--> leaf  */

enum { S0, S1, S2, S3 };
enum { N_MAIN, N_WORK, N_LEAF };

struct world
{
  struct cce_graph *g;
  char *text;
  size_t len;
  struct cced_program *prog;
};

static struct world W;

static int
setup (void **state)
{
  struct cce_graph *g = cce_graph_new ();
  uint32_t f_main, f_work, f_helper, f_leaf, s;
  struct cced_error e;
  char err[256];
  (void) state;

  memset (&W, 0, sizeof W);
  f_main = cce_graph_func (g, "main", "p.c", 10);
  f_work = cce_graph_func (g, "work", "p.c", 20);
  f_helper = cce_graph_func (g, "helper", "p.c", 30);
  f_leaf = cce_graph_func (g, "leaf \"q\"", "p.c", 40);
  assert_int_equal (cce_graph_node (g, f_main, CCE_NODE_ENTRY), N_MAIN);
  assert_int_equal (cce_graph_node (g, f_work, 0), N_WORK);
  assert_int_equal (cce_graph_node (g, f_leaf, 0), N_LEAF);
  s = cce_graph_site (g, N_MAIN, CCE_SITE_DIRECT, N_WORK, 1);
  assert_int_equal (s, S0);
  assert_int_equal (cce_graph_frame (g, s, f_main, "p.c", 12, 3), 0);
  s = cce_graph_site (g, N_MAIN, CCE_SITE_DIRECT, N_LEAF, 1);
  assert_int_equal (s, S1);
  assert_int_equal (cce_graph_frame (g, s, f_main, "p.c", 13, 3), 0);
  s = cce_graph_site (g, N_WORK, CCE_SITE_DIRECT, N_LEAF, 5);
  assert_int_equal (s, S2);
  assert_int_equal (cce_graph_frame (g, s, f_work, "p.c", 22, 5), 0);
  assert_int_equal (cce_graph_frame (g, s, f_helper, "p.c", 32, 7), 0);
  s = cce_graph_site (g, N_LEAF, CCE_SITE_LOG, CCE_NONE, 1);
  assert_int_equal (s, S3);
  assert_int_equal (cce_graph_frame (g, s, f_leaf, "p.c", 42, 3), 0);
  err[0] = 0;
  if (cce_graph_encode (g, NULL, err, sizeof err) != 0)
    fail_msg ("encode: %s", err);
  W.g = g;
  assert_int_equal (cce_graph_write_dict (g, &W.text, &W.len), 0);
  W.prog = cced_program_from_dict ("./prog", W.text, W.len, &e);
  if (!W.prog)
    fail_msg ("%s", e.msg);
  return 0;
}

static int
teardown (void **state)
{
  (void) state;
  cced_program_close (W.prog);
  cce_graph_free (W.g);
  free (W.text);
  return 0;
}

/* The records: main;leaf and main;work;helper;leaf on threads 1 and 2,
   with counts and (for some) values.  */
struct rec_spec
{
  int deep;                 /* through work */
  uint32_t thread, tag;
  uint64_t count, value;
  int has_value;
};

static const struct rec_spec RECS[] = {
  { 0, 1, 7, 1, 0, 0 },
  { 1, 1, 7, 3, 300, 1 },
  { 1, 1, 7, 2, 50, 1 },
  { 0, 2, 8, 5, 1000, 1 },
  { 1, 2, 7, 1, 0, 0 },
  { 0, 1, 7, 4, 0, 0 },
};
#define NRECS (sizeof RECS / sizeof *RECS)

/* A line that output adds to its output with cced_output_comment, or
   NULL.  */
static const char *comment;

/* The output of RECS in FMT, cut to DEPTH frames, in a new buffer of
   *LEN bytes.  */
static char *
output (enum cced_format fmt, size_t depth, size_t *len)
{
  char *buf = NULL;
  size_t size = 0;
  FILE *f = open_memstream (&buf, &size);
  struct cced_error e;
  struct cced_output *out;

  assert_non_null (f);
  out = cced_output_new (W.prog, fmt, f, &e);
  if (!out)
    fail_msg ("%s", e.msg);
  cced_output_set_depth (out, depth);
  for (size_t i = 0; i < NRECS; i++)
    {
      struct cced_record rec;
      memset (&rec, 0, sizeof rec);
      rec.index = i + 1;
      rec.thread = RECS[i].thread;
      rec.tag = RECS[i].tag;
      rec.site = S3;
      rec.id = RECS[i].deep ? W.g->sites[S0].av + W.g->sites[S2].av
                            : W.g->sites[S1].av;
      rec.count = RECS[i].count;
      rec.value = RECS[i].value;
      rec.flags = RECS[i].has_value ? CCED_RECORD_VALUE : 0;
      if (cced_output_record (out, &rec, &e) < 0)
        fail_msg ("%s", e.msg);
    }
  if (comment && cced_output_comment (out, comment, &e) < 0)
    fail_msg ("%s", e.msg);
  if (cced_output_finish (out, &e) < 0)
    fail_msg ("%s", e.msg);
  cced_output_free (out);
  assert_int_equal (fclose (f), 0);
  *len = size;
  return buf;
}

static void
test_folded_counts (void **state)
{
  size_t len;
  char *s;
  (void) state;
  s = output (CCED_FORMAT_FOLDED, 0, &len);
  assert_string_equal (s, "main;leaf \"q\" 10\n"
                          "main;work;helper;leaf \"q\" 6\n");
  free (s);
  s = output (CCED_FORMAT_FOLDED, 1, &len);
  assert_string_equal (s, "leaf \"q\" 16\n");
  free (s);
  s = output (CCED_FORMAT_FOLDED, 2, &len);
  assert_string_equal (s, "helper;leaf \"q\" 6\nmain;leaf \"q\" 10\n");
  free (s);
}

/* gunzip the N bytes at GZ into a new buffer of *LEN bytes.  */
static unsigned char *
gunzip (const unsigned char *gz, size_t n, size_t *len)
{
  z_stream z;
  size_t a = 1 << 16;
  unsigned char *out = malloc (a);
  int r;

  assert_non_null (out);
  memset (&z, 0, sizeof z);
  assert_int_equal (inflateInit2 (&z, 15 + 16), Z_OK);
  z.next_in = (unsigned char *) gz;
  z.avail_in = (uInt) n;
  z.next_out = out;
  z.avail_out = (uInt) a;
  r = inflate (&z, Z_FINISH);
  assert_int_equal (r, Z_STREAM_END);
  assert_int_equal (z.avail_in, 0);
  *len = a - z.avail_out;
  inflateEnd (&z);
  return out;
}

/* A decoded Profile: what the test looks at.  */
struct pprof
{
  char *strings[64];
  size_t nstrings;
  uint64_t types[4][2];
  size_t ntypes;
  struct
  {
    uint64_t locs[8], vals[2], thread, tagstr;
    size_t nlocs, nvals;
  } samples[16];
  size_t nsamples;
  struct
  {
    uint64_t id, funcs[8];
    size_t nlines;
  } locs[16];
  size_t nlocs;
  struct
  {
    uint64_t id, name, file, start;
  } funcs[16];
  size_t nfuncs;
  uint64_t default_type;
  uint64_t comments[4];
  size_t ncomments;
};

/* Read the packed varints (or one varint V) of a field into OUT[*N].  */
static void
read_packed (const unsigned char *data, size_t len, uint64_t v,
             uint64_t *out, size_t *n, size_t max)
{
  if (!data)
    {
      assert_true (*n < max);
      out[(*n)++] = v;
      return;
    }
  struct rd r = { data, data + len };
  while (r.p < r.end)
    {
      assert_true (*n < max);
      assert_int_equal (rd_varint (&r, &out[(*n)++]), 0);
    }
}

static void
parse_pprof (const unsigned char *p, size_t n, struct pprof *pp)
{
  struct rd r = { p, p + n }, s, t;
  uint32_t field, f2, f3;
  uint64_t v, v2, v3;
  const unsigned char *data, *d2, *d3;
  size_t len, l2, l3;
  int k;

  memset (pp, 0, sizeof *pp);
  while ((k = rd_field (&r, &field, &v, &data, &len)) == 1)
    switch (field)
      {
      case 1:                   /* sample_type */
        s.p = data;
        s.end = data + len;
        while (rd_field (&s, &f2, &v2, &d2, &l2) == 1)
          pp->types[pp->ntypes][f2 - 1] = v2;
        pp->ntypes++;
        break;
      case 2:                   /* sample */
        {
          __typeof__ (pp->samples[0]) *sm = &pp->samples[pp->nsamples++];
          s.p = data;
          s.end = data + len;
          while (rd_field (&s, &f2, &v2, &d2, &l2) == 1)
            if (f2 == 1)
              read_packed (d2, l2, v2, sm->locs, &sm->nlocs, 8);
            else if (f2 == 2)
              read_packed (d2, l2, v2, sm->vals, &sm->nvals, 2);
            else if (f2 == 3)
              {
                uint64_t key = 0, str = 0, num = 0;
                t.p = d2;
                t.end = d2 + l2;
                while (rd_field (&t, &f3, &v3, &d3, &l3) == 1)
                  if (f3 == 1)
                    key = v3;
                  else if (f3 == 2)
                    str = v3;
                  else if (f3 == 3)
                    num = v3;
                assert_true (key < pp->nstrings || pp->nstrings == 0);
                /* Strings come last: keep both, sort them out later.  */
                if (num)
                  sm->thread = num;
                if (str)
                  sm->tagstr = str;
              }
        }
        break;
      case 4:                   /* location */
        {
          __typeof__ (pp->locs[0]) *l = &pp->locs[pp->nlocs++];
          s.p = data;
          s.end = data + len;
          while (rd_field (&s, &f2, &v2, &d2, &l2) == 1)
            if (f2 == 1)
              l->id = v2;
            else if (f2 == 4)
              {
                t.p = d2;
                t.end = d2 + l2;
                while (rd_field (&t, &f3, &v3, &d3, &l3) == 1)
                  if (f3 == 1)
                    l->funcs[l->nlines] = v3;
                l->nlines++;
              }
        }
        break;
      case 5:                   /* function */
        {
          __typeof__ (pp->funcs[0]) *fn = &pp->funcs[pp->nfuncs++];
          s.p = data;
          s.end = data + len;
          while (rd_field (&s, &f2, &v2, &d2, &l2) == 1)
            if (f2 == 1)
              fn->id = v2;
            else if (f2 == 2)
              fn->name = v2;
            else if (f2 == 4)
              fn->file = v2;
            else if (f2 == 5)
              fn->start = v2;
        }
        break;
      case 6:                   /* string_table */
        assert_non_null (data);
        assert_true (pp->nstrings < 64);
        pp->strings[pp->nstrings++] = strndup ((const char *) data, len);
        break;
      case 13:                  /* comment */
        read_packed (data, len, v, pp->comments, &pp->ncomments, 4);
        break;
      case 14:
        pp->default_type = v;
        break;
      }
  assert_int_equal (k, 0);
}

static const char *
func_name (const struct pprof *pp, uint64_t id)
{
  for (size_t i = 0; i < pp->nfuncs; i++)
    if (pp->funcs[i].id == id)
      return pp->strings[pp->funcs[i].name];
  fail_msg ("no function %" PRIu64, id);
  return NULL;
}

/* The sample's stack, root first, each Location's Lines from the last
   (its function) to the first (innermost), joined by ';'.  */
static void
stack_of (const struct pprof *pp, size_t i, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = 0;
  for (size_t j = pp->samples[i].nlocs; j-- > 0;)
    {
      size_t k;
      for (k = 0; k < pp->nlocs; k++)
        if (pp->locs[k].id == pp->samples[i].locs[j])
          break;
      assert_true (k < pp->nlocs);
      for (size_t l = pp->locs[k].nlines; l-- > 0;)
        n += snprintf (buf + n, size - n, "%s%s", n ? ";" : "",
                       func_name (pp, pp->locs[k].funcs[l]));
    }
}

static void
test_pprof (void **state)
{
  size_t gzlen, len;
  char *gz = output (CCED_FORMAT_PPROF, 0, &gzlen);
  unsigned char *raw = gunzip ((unsigned char *) gz, gzlen, &len);
  struct pprof pp;
  uint64_t want[3][2] = { { 0 } };   /* per thread 1, 2 and in all */
  char stack[256];
  (void) state;

  parse_pprof (raw, len, &pp);
  assert_true (pp.nstrings > 0);
  assert_string_equal (pp.strings[0], "");
  assert_int_equal (pp.ncomments, 0);
  assert_int_equal (pp.ntypes, 2);
  assert_string_equal (pp.strings[pp.types[0][0]], "events");
  assert_string_equal (pp.strings[pp.types[0][1]], "count");
  assert_string_equal (pp.strings[pp.types[1][0]], "space");
  assert_string_equal (pp.strings[pp.types[1][1]], "bytes");
  assert_string_equal (pp.strings[pp.default_type], "events");

  /* One sample per thread, tag and path; counts and values add up.  */
  for (size_t i = 0; i < NRECS; i++)
    {
      want[RECS[i].thread - 1][0] += RECS[i].count;
      want[RECS[i].thread - 1][1] += RECS[i].value;
    }
  assert_int_equal (pp.nsamples, 4);
  for (size_t i = 0; i < pp.nsamples; i++)
    {
      uint64_t th = pp.samples[i].thread;
      assert_true (th == 1 || th == 2);
      assert_int_equal (pp.samples[i].nvals, 2);
      want[th - 1][0] -= pp.samples[i].vals[0];
      want[th - 1][1] -= pp.samples[i].vals[1];
      stack_of (&pp, i, stack, sizeof stack);
      if (pp.samples[i].nlocs == 3)
        assert_string_equal (stack, "main;work;helper;leaf \"q\"");
      else
        assert_string_equal (stack, "main;leaf \"q\"");
      assert_string_equal (pp.strings[pp.samples[i].tagstr],
                           th == 2 && pp.samples[i].nlocs == 2 ? "8" : "7");
    }
  assert_true (want[0][0] == 0 && want[0][1] == 0);
  assert_true (want[1][0] == 0 && want[1][1] == 0);

  /* helper is inlined into work: one Location, helper's Line first.  */
  for (size_t k = 0; k < pp.nlocs; k++)
    if (pp.locs[k].nlines == 2)
      {
        assert_string_equal (func_name (&pp, pp.locs[k].funcs[0]), "helper");
        assert_string_equal (func_name (&pp, pp.locs[k].funcs[1]), "work");
      }
    else
      assert_int_equal (pp.locs[k].nlines, 1);
  for (size_t k = 0; k < pp.nfuncs; k++)
    {
      assert_string_equal (pp.strings[pp.funcs[k].file], "p.c");
      assert_true (pp.funcs[k].start >= 10 && pp.funcs[k].start <= 40);
    }
  for (size_t k = 0; k < pp.nstrings; k++)
    free (pp.strings[k]);
  free (raw);
  free (gz);
}

/* A comment of the output (the bound of a Space-Saving summary) is a
   comment of the profile.  */
static void
test_pprof_comment (void **state)
{
  size_t gzlen, len;
  char *gz;
  unsigned char *raw;
  struct pprof pp;
  (void) state;

  comment = "space-saving: 8 counters per thread, counts may be over by"
            " at most 3";
  gz = output (CCED_FORMAT_PPROF, 0, &gzlen);
  comment = NULL;
  raw = gunzip ((unsigned char *) gz, gzlen, &len);
  parse_pprof (raw, len, &pp);
  assert_int_equal (pp.ncomments, 1);
  assert_true (pp.comments[0] < pp.nstrings);
  assert_string_equal (pp.strings[pp.comments[0]],
                       "space-saving: 8 counters per thread, counts may be"
                       " over by at most 3");
  for (size_t k = 0; k < pp.nstrings; k++)
    free (pp.strings[k]);
  free (raw);
  free (gz);
}

static void
test_speedscope (void **state)
{
  size_t len;
  char *s = output (CCED_FORMAT_SPEEDSCOPE, 0, &len);
  (void) state;

  /* The name is escaped; a profile of counts per thread, and of bytes
     for the threads with values.  */
  assert_non_null (strstr (s, "{\"name\": \"leaf \\\"q\\\"\", \"file\": "
                              "\"p.c\", \"line\": 40}"));
  assert_non_null (strstr (s, "\"name\": \"thread 1\", \"unit\": \"none\", "
                              "\"startValue\": 0, \"endValue\": 10,"));
  assert_non_null (strstr (s, "\"name\": \"thread 1 bytes\", \"unit\": "
                              "\"bytes\", \"startValue\": 0, "
                              "\"endValue\": 350,"));
  assert_non_null (strstr (s, "\"name\": \"thread 2\", \"unit\": \"none\", "
                              "\"startValue\": 0, \"endValue\": 6,"));
  assert_non_null (strstr (s, "\"name\": \"thread 2 bytes\", \"unit\": "
                              "\"bytes\", \"startValue\": 0, "
                              "\"endValue\": 1000,"));
  /* thread 1's bytes: only the path through work has values.  */
  assert_non_null (strstr (s, "\"thread 1 bytes\", \"unit\": \"bytes\", "
                              "\"startValue\": 0, \"endValue\": 350,\n"
                              "     \"samples\": [\n      [0, 2, 3, 1]],\n"
                              "     \"weights\": [350]}"));
  free (s);

  /* --depth=1: every sample is the leaf alone.  */
  s = output (CCED_FORMAT_SPEEDSCOPE, 1, &len);
  assert_non_null (strstr (s, "\"samples\": [\n      [0]],\n"
                              "     \"weights\": [10]}"));
  assert_null (strstr (s, "main"));
  free (s);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_heap_scale),
    cmocka_unit_test (test_varints),
    cmocka_unit_test (test_fields),
    cmocka_unit_test (test_roundtrip),
    cmocka_unit_test_setup_teardown (test_folded_counts, setup, teardown),
    cmocka_unit_test_setup_teardown (test_pprof, setup, teardown),
    cmocka_unit_test_setup_teardown (test_pprof_comment, setup, teardown),
    cmocka_unit_test_setup_teardown (test_speedscope, setup, teardown),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
