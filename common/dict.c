/* dict.c -- the dictionary text of an encoded graph (cce-format.h,
   part 1): writing it, reading and checking it, and the graph of
   several modules, each read from its own dictionary.  */

#include "core-internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Dictionary text.                                                   */

struct buf
{
  char *p;
  size_t len, alloc;
  int failed;
};

static void
buf_add (struct buf *b, const char *s, size_t n)
{
  if (b->failed || GROW (b->p, b->alloc, b->len + n + 1) < 0)
    {
      b->failed = 1;
      return;
    }
  memcpy (b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}

static void
buf_printf (struct buf *b, const char *fmt, ...)
{
  char tmp[256];
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (tmp, sizeof tmp, fmt, ap);
  va_end (ap);
  if (n < 0 || (size_t) n >= sizeof tmp)
    b->failed = 1;
  else
    buf_add (b, tmp, (size_t) n);
}

static void
buf_num (struct buf *b, uint32_t v)
{
  if (v == CCE_NONE)
    buf_add (b, " -", 2);
  else
    buf_printf (b, " %" PRIu32, v);
}

int
cce_graph_write_dict (struct cce_graph *g, char **text, size_t *len)
{
  struct buf b = { 0 };
  size_t i, j;
  char head[64];
  int hlen;

  for (i = 0; i < g->nstrings; i++)
    {
      const char *s = g->strings[i];
      buf_add (&b, "s ", 2);
      for (; *s; s++)
        if (*s == '\\')
          buf_add (&b, "\\\\", 2);
        else if (*s == '\n')
          buf_add (&b, "\\n", 2);
        else
          buf_add (&b, s, 1);
      buf_add (&b, "\n", 1);
    }
  for (i = 0; i < g->nfuncs; i++)
    buf_printf (&b, "f %" PRIu32 " %" PRIu32 " %" PRIu32 "\n",
                g->funcs[i].name, g->funcs[i].file, g->funcs[i].line);
  for (i = 0; i < g->nnodes; i++)
    {
      const struct cce_node *n = &g->nodes[i];
      buf_printf (&b, "n %" PRIu32 " %" PRIx32 " %" PRIu64, n->func,
                  n->flags, n->numcc);
      if (n->has_root)
        buf_printf (&b, " %" PRIu64 "\n", n->root);
      else
        buf_add (&b, " -\n", 3);
    }
  for (i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      buf_printf (&b, "c %" PRIu32 " %c", s->node, s->kind);
      buf_num (&b, s->target);
      buf_printf (&b, " %" PRIu32, s->nframes);
      for (j = 0; j < s->nframes; j++)
        {
          const struct cce_frame *f = &g->frames[s->first_frame + j];
          buf_num (&b, f->func);
          buf_num (&b, f->file);
          buf_printf (&b, " %" PRIu32 " %" PRIu32, f->line, f->col);
        }
      buf_add (&b, "\n", 1);
    }
  for (i = 0; i < g->nsites; i++)
    if (is_edge (g, &g->sites[i]))
      buf_printf (&b, "e %" PRIu32 " %zu %" PRIu64 "\n", g->sites[i].target,
                  i, g->sites[i].av);
  for (i = 0; i < g->nnodes; i++)
    if (g->nodes[i].nfold)
      {
        const struct cce_node *n = &g->nodes[i];
        buf_printf (&b, "r %zu %" PRIu64 " %" PRIu32, i, n->fold_lim,
                    n->nfold);
        for (j = 0; j < n->nfold; j++)
          buf_printf (&b, " %" PRIu32, g->folds[n->first_fold + j]);
        buf_add (&b, "\n", 1);
      }
  if (b.failed)
    {
      free (b.p);
      return -1;
    }
  g->stamp = cce_fnv1a64 (b.p ? b.p : "", b.len);
  hlen = snprintf (head, sizeof head, "%s %d %016" PRIx64 "\n",
                   CCE_DICT_MAGIC, CCE_DICT_VERSION, g->stamp);
  *text = malloc (hlen + b.len + 1);
  if (!*text)
    {
      free (b.p);
      return -1;
    }
  memcpy (*text, head, hlen);
  if (b.len)
    memcpy (*text + hlen, b.p, b.len);
  (*text)[hlen + b.len] = 0;
  *len = hlen + b.len;
  free (b.p);
  return 0;
}

/* A cursor over dictionary text for the reader.  */
struct reader
{
  const char *p, *end;
  size_t line;
  char *err;
  size_t errlen;
  int failed;
};

static void
rd_fail (struct reader *r, const char *what)
{
  if (!r->failed)
    set_err (r->err, r->errlen, "dictionary line %zu: %s", r->line, what);
  r->failed = 1;
}

/* Read a space and a decimal (HEX: hexadecimal) number, or '-' (CCE_NONE
   / UINT64_MAX) when DASH_OK.  */
static uint64_t
rd_num (struct reader *r, int hex, int dash_ok, int *dash)
{
  uint64_t v = 0;
  int digits = 0;

  if (dash)
    *dash = 0;
  if (r->failed)
    return 0;
  if (r->p >= r->end || *r->p != ' ')
    {
      rd_fail (r, "missing field");
      return 0;
    }
  r->p++;
  if (dash_ok && r->p < r->end && *r->p == '-')
    {
      r->p++;
      if (dash)
        *dash = 1;
      return UINT64_MAX;
    }
  for (; r->p < r->end; r->p++, digits++)
    {
      int d;
      char c = *r->p;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (hex && c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else
        break;
      if (__builtin_mul_overflow (v, hex ? 16 : 10, &v)
          || __builtin_add_overflow (v, (uint64_t) d, &v))
        {
          rd_fail (r, "number out of range");
          return 0;
        }
    }
  if (!digits)
    rd_fail (r, "bad number");
  return v;
}

static uint32_t
rd_u32 (struct reader *r, int dash_ok)
{
  int dash;
  uint64_t v = rd_num (r, 0, dash_ok, &dash);

  if (dash)
    return CCE_NONE;
  if (v >= CCE_NONE)
    {
      rd_fail (r, "number out of range");
      return 0;
    }
  return (uint32_t) v;
}

static void
rd_eol (struct reader *r)
{
  if (r->failed)
    return;
  if (r->p >= r->end || *r->p != '\n')
    rd_fail (r, "junk at end of line");
  else
    r->p++;
  r->line++;
}

/* Check that everything in G refers to things that exist, and that each
   node's incoming ranges are disjoint and inside its numCC.  */
static int
validate (struct cce_graph *g, char *err, size_t errlen)
{
  size_t i, j;

#define BAD(...) do { set_err (err, errlen, __VA_ARGS__); return -1; } while (0)
  for (i = 0; i < g->nfuncs; i++)
    if (g->funcs[i].name >= g->nstrings || g->funcs[i].file >= g->nstrings)
      BAD ("dictionary: function %zu names a missing string", i);
  for (i = 0; i < g->nnodes; i++)
    {
      if (g->nodes[i].func >= g->nfuncs)
        BAD ("dictionary: node %zu names a missing function", i);
      /* Indirect and external calls enter an entry node with id 0.  */
      if ((g->nodes[i].flags & CCE_NODE_ENTRY)
          && (!g->nodes[i].has_root || g->nodes[i].root != 0))
        BAD ("dictionary: entry node %zu does not start at id 0", i);
    }
  for (i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      if (s->node >= g->nnodes)
        BAD ("dictionary: site %zu is in a missing node", i);
      switch (s->kind)
        {
        case CCE_SITE_DIRECT:
        case CCE_SITE_BACK:
          if (s->target >= g->nnodes)
            BAD ("dictionary: site %zu calls a missing node", i);
          if (s->kind == CCE_SITE_BACK && !g->nodes[s->target].has_root)
            BAD ("dictionary: ccStack site %zu calls a node with no root", i);
          break;
        case CCE_SITE_EXTERNAL:
          if (s->target >= g->nstrings)
            BAD ("dictionary: site %zu names a missing string", i);
          break;
        case CCE_SITE_INDIRECT:
        case CCE_SITE_LOG:
        case CCE_SITE_TRACE:
          break;
        default:
          BAD ("dictionary: site %zu has unknown kind '%c'", i, s->kind);
        }
      if (s->nframes == 0)
        BAD ("dictionary: site %zu has no frames", i);
      for (j = 0; j < s->nframes; j++)
        {
          const struct cce_frame *f = &g->frames[s->first_frame + j];
          if (f->func >= g->nfuncs
              || (f->file != CCE_NONE && f->file >= g->nstrings))
            BAD ("dictionary: site %zu has a frame naming nothing", i);
        }
    }
  for (i = 0; i < g->nfolds; i++)
    if (g->folds[i] == CCE_NONE)
      BAD ("dictionary: folded recursion with a missing site");
  for (i = 0; i < g->nnodes; i++)
    if (g->nodes[i].nfold && g->nodes[i].numcc == 0)
      BAD ("dictionary: folded recursion into node %zu without contexts", i);
  for (i = 0; i < g->nnodes; i++)
    {
      const struct cce_node *n = &g->nodes[i];
      uint64_t end = 0;
      for (j = n->first_in; j < (size_t) n->first_in + n->n_in; j++)
        {
          const struct cce_edge *e = &g->edges[j];
          uint64_t w = site_width (g, e->site), last;
          if (w == 0)
            continue;
          if (e->av < end || __builtin_add_overflow (e->av, w - 1, &last)
              || last >= n->numcc)
            BAD ("dictionary: node %zu has overlapping contexts", i);
          end = last + 1;
        }
    }
#undef BAD
  return 0;
}

/* Readers of the lines of a dictionary (cce-format.h), one per kind: each
   reads its line after the kind letter into G.  A bad line fails R; -1
   means out of memory.  */

/* s: a string, with \n and \\ escaped.  */
static int
read_string_line (struct reader *r, struct cce_graph *g)
{
  const char *e = memchr (r->p, '\n', (size_t) (r->end - r->p));
  char *s, *q;
  if (!e || r->p >= e || *r->p != ' ')
    {
      rd_fail (r, "bad string");
      return 0;
    }
  s = malloc ((size_t) (e - r->p));
  if (!s)
    return -1;
  for (q = s, r->p++; r->p < e; r->p++)
    if (*r->p == '\\' && r->p + 1 < e)
      *q++ = *++r->p == 'n' ? '\n' : *r->p;
    else
      *q++ = *r->p;
  *q = 0;
  if (cce__add_string (g, s) == CCE_NONE)
    {
      free (s);
      return -1;
    }
  free (s);
  r->p = e;
  return 0;
}

/* f: a source function.  */
static int
read_func_line (struct reader *r, struct cce_graph *g)
{
  struct cce_func f;
  f.name = rd_u32 (r, 0);
  f.file = rd_u32 (r, 0);
  f.line = rd_u32 (r, 0);
  if (GROW (g->funcs, g->afuncs, g->nfuncs + 1) < 0)
    return -1;
  g->funcs[g->nfuncs++] = f;
  return 0;
}

/* n: a node.  */
static int
read_node_line (struct reader *r, struct cce_graph *g)
{
  struct cce_node n;
  int dash;
  memset (&n, 0, sizeof n);
  n.func = rd_u32 (r, 0);
  n.flags = (uint32_t) rd_num (r, 1, 0, NULL);
  n.numcc = rd_num (r, 0, 0, NULL);
  n.root = rd_num (r, 0, 1, &dash);
  n.has_root = !dash;
  if (dash)
    n.root = 0;
  if (GROW (g->nodes, g->anodes, g->nnodes + 1) < 0)
    return -1;
  g->nodes[g->nnodes++] = n;
  return 0;
}

/* c: a call site, with its frames.  */
static int
read_site_line (struct reader *r, struct cce_graph *g)
{
  uint32_t node, target, nfr, j;
  char k;
  node = rd_u32 (r, 0);
  if (r->p + 2 > r->end || r->p[0] != ' ')
    {
      rd_fail (r, "bad site kind");
      return 0;
    }
  k = r->p[1];
  r->p += 2;
  target = rd_u32 (r, 1);
  nfr = rd_u32 (r, 0);
  if (r->failed)
    return 0;
  if (nfr > (size_t) (r->end - r->p) / 8)
    {
      rd_fail (r, "too many frames");
      return 0;
    }
  if (cce_graph_site (g, node, k, target, 0) == CCE_NONE)
    return -1;
  /* A direct site is an edge only with its 'e' line.  */
  g->sites[g->nsites - 1].dead = k == CCE_SITE_DIRECT;
  for (j = 0; j < nfr && !r->failed; j++)
    {
      struct cce_frame f;
      f.func = rd_u32 (r, 0);
      f.file = rd_u32 (r, 1);
      f.line = rd_u32 (r, 0);
      f.col = rd_u32 (r, 0);
      if (GROW (g->frames, g->aframes, g->nframes + 1) < 0)
        return -1;
      g->frames[g->nframes++] = f;
      g->sites[g->nsites - 1].nframes++;
    }
  return 0;
}

/* e: the edge of a direct site, with its addition value.  */
static int
read_edge_line (struct reader *r, struct cce_graph *g)
{
  uint32_t node = rd_u32 (r, 0);
  uint32_t site = rd_u32 (r, 0);
  uint64_t av = rd_num (r, 0, 0, NULL);
  if (r->failed)
    return 0;
  if (site >= g->nsites || g->sites[site].kind != CCE_SITE_DIRECT
      || g->sites[site].target != node)
    {
      rd_fail (r, "edge does not match its site");
      return 0;
    }
  g->sites[site].av = av;
  g->sites[site].dead = 0;
  return 0;
}

/* r: recursion folded into a node, its limit and its back sites.  */
static int
read_fold_line (struct reader *r, struct cce_graph *g)
{
  uint32_t node = rd_u32 (r, 0), j, k;
  uint64_t lim = rd_num (r, 0, 0, NULL), w;
  k = rd_u32 (r, 0);
  if (r->failed)
    return 0;
  if (node >= g->nnodes || g->nodes[node].fold_lim || lim == 0
      || k == 0 || k > g->nsites
      || __builtin_mul_overflow (lim, (uint64_t) k, &w)
      || __builtin_add_overflow (w, g->nodes[node].numcc, &w))
    {
      rd_fail (r, "bad folded recursion");
      return 0;
    }
  g->nodes[node].fold_lim = lim;
  for (j = 0; j < k && !r->failed; j++)
    {
      uint32_t site = rd_u32 (r, 0);
      if (r->failed)
        break;
      if (site >= g->nsites || g->sites[site].kind != CCE_SITE_BACK
          || g->sites[site].target != node
          || g->sites[site].fold != CCE_NONE)
        rd_fail (r, "folded site does not match its node");
      else
        g->sites[site].fold = j;
    }
  return 0;
}

/* The header line of the dictionary TEXT of LEN bytes: its magic, a
   version this reader reads, and a stamp that matches the rest.  Leaves
   R after it and sets *STAMP; -1 with the error set if it is not.  */
static int
read_header (struct reader *r, const char *text, size_t len,
             uint64_t *stamp)
{
  const char *nl = memchr (text, '\n', len);
  char magic[16], head[64];
  unsigned version;
  int nread = 0;

  /* The header is parsed from a NUL-terminated copy: TEXT may end exactly
     at the end of readable memory.  */
  if (nl && nl - text <= 60)
    {
      memcpy (head, text, (size_t) (nl - text));
      head[nl - text] = 0;
    }
  if (!nl || nl - text > 60
      || sscanf (head, "%15s %u %16" SCNx64 "%n", magic, &version, stamp,
                 &nread) != 3
      || strcmp (magic, CCE_DICT_MAGIC) != 0
      || head + nread != head + (nl - text) || nl - text < 17 || strspn (nl - 16, "0123456789abcdef") != 16)
    {
      set_err (r->err, r->errlen, "not a cce dictionary");
      return -1;
    }
  if (version != CCE_DICT_VERSION)
    {
      set_err (r->err, r->errlen,
               "dictionary version %u, this decoder reads %d", version,
               CCE_DICT_VERSION);
      return -1;
    }
  r->p = nl + 1;
  r->line = 2;
  if (cce_fnv1a64 (r->p, (size_t) (r->end - r->p)) != *stamp)
    {
      set_err (r->err, r->errlen, "dictionary is damaged (stamp mismatch)");
      return -1;
    }
  return 0;
}

/* After the last line of G's dictionary: check what refers to what,
   index the edges, rebuild the interning table for lookups by callers
   and make G its own single module.  -1 with the error set if G is not
   a sound graph, or out of memory.  */
static int
finish_read (struct cce_graph *g, char *err, size_t errlen)
{
  size_t i, n = 64;

  for (i = 0; i < g->nsites; i++)
    if (g->sites[i].kind == CCE_SITE_DIRECT && g->sites[i].target >= g->nnodes)
      {
        set_err (err, errlen, "dictionary: site %zu calls a missing node", i);
        return -1;
      }
  if (cce__index_edges (g) < 0)
    goto oom;
  if (validate (g, err, errlen) < 0)
    return -1;
  while (n < 2 * g->nstrings + 2)
    n *= 2;
  if (cce__intern_rehash (g, n) < 0)
    goto oom;
  g->modules = malloc (sizeof *g->modules);
  if (!g->modules)
    goto oom;
  g->modules[0].key = cce_module_key (g->stamp);
  g->modules[0].first_site = 0;
  g->modules[0].nsites = (uint32_t) g->nsites;
  g->modules[0].first_node = 0;
  g->modules[0].nnodes = (uint32_t) g->nnodes;
  g->modules[0].file = 0;
  g->modules[0].stamp = g->stamp;
  g->nmodules = 1;
  return 0;

oom:
  set_err (err, errlen, "%s", strerror (ENOMEM));
  return -1;
}

struct cce_graph *
cce_graph_read_dict (const char *text, size_t len, char *err, size_t errlen)
{
  struct reader r = { text, text + len, 1, err, errlen, 0 };
  struct cce_graph *g;
  uint64_t stamp;

  if (read_header (&r, text, len, &stamp) < 0)
    return NULL;
  g = cce_graph_new ();
  if (!g)
    {
      set_err (err, errlen, "%s", strerror (ENOMEM));
      return NULL;
    }
  g->stamp = stamp;

  while (r.p < r.end && !r.failed)
    {
      int rc = 0;
      switch (*r.p++)
        {
        case 's': rc = read_string_line (&r, g); break;
        case 'f': rc = read_func_line (&r, g); break;
        case 'n': rc = read_node_line (&r, g); break;
        case 'c': rc = read_site_line (&r, g); break;
        case 'e': rc = read_edge_line (&r, g); break;
        case 'r': rc = read_fold_line (&r, g); break;
        default: rd_fail (&r, "unknown entry"); break;
        }
      if (rc < 0)
        {
          set_err (err, errlen, "%s", strerror (ENOMEM));
          cce_graph_free (g);
          return NULL;
        }
      rd_eol (&r);
    }
  if (r.failed || finish_read (g, err, errlen) < 0)
    {
      cce_graph_free (g);
      return NULL;
    }
  return g;
}

/* ------------------------------------------------------------------ */
/* Modules.                                                           */

int
cce_graph_merge (struct cce_graph *dst, const struct cce_graph *src,
                 char *err, size_t errlen)
{
  size_t i, j, sbase, fbase, nbase, frbase, mbase;
  uint32_t *smap = NULL;

  if (dst->nmodules == 0 || src->nmodules == 0)
    {
      set_err (err, errlen, "only graphs read from dictionaries merge");
      return -1;
    }
  for (i = 0; i < dst->nmodules; i++)
    for (j = 0; j < src->nmodules; j++)
      if (dst->modules[i].key == src->modules[j].key)
        {
          set_err (err, errlen, "two modules with the key %08" PRIx32
                   " (the same dictionary twice?)", dst->modules[i].key);
          return -1;
        }
  if ((uint64_t) dst->nsites + src->nsites >= CCE_SIGNAL_MARK
      || (uint64_t) dst->nnodes + src->nnodes >= CCE_NONE
      || (uint64_t) dst->nframes + src->nframes >= CCE_NONE)
    {
      set_err (err, errlen, "merged graph too large");
      return -1;
    }
  smap = malloc ((src->nstrings ? src->nstrings : 1) * sizeof *smap);
  if (!smap)
    goto oom;
  for (i = 0; i < src->nstrings; i++)
    if ((smap[i] = cce_graph_string (dst, src->strings[i])) == CCE_NONE)
      goto oom;
  fbase = dst->nfuncs;
  nbase = dst->nnodes;
  sbase = dst->nsites;
  frbase = dst->nframes;
  if (GROW (dst->funcs, dst->afuncs, fbase + src->nfuncs + 1) < 0
      || GROW (dst->nodes, dst->anodes, nbase + src->nnodes + 1) < 0
      || GROW (dst->sites, dst->asites, sbase + src->nsites + 1) < 0
      || GROW (dst->frames, dst->aframes, frbase + src->nframes + 1) < 0)
    goto oom;
  {
    struct cce_module *m = realloc (dst->modules,
                                    (dst->nmodules + src->nmodules)
                                    * sizeof *m);
    if (!m)
      goto oom;
    dst->modules = m;
  }
  for (i = 0; i < src->nfuncs; i++)
    {
      struct cce_func f = src->funcs[i];
      f.name = smap[f.name];
      f.file = smap[f.file];
      dst->funcs[fbase + i] = f;
    }
  for (i = 0; i < src->nnodes; i++)
    {
      struct cce_node n = src->nodes[i];
      n.func += (uint32_t) fbase;
      dst->nodes[nbase + i] = n;
    }
  for (i = 0; i < src->nsites; i++)
    {
      struct cce_site st = src->sites[i];
      st.node += (uint32_t) nbase;
      if (st.kind == CCE_SITE_DIRECT || st.kind == CCE_SITE_BACK)
        st.target += (uint32_t) nbase;
      else if (st.kind == CCE_SITE_EXTERNAL)
        st.target = smap[st.target];
      st.first_frame += (uint32_t) frbase;
      dst->sites[sbase + i] = st;
    }
  for (i = 0; i < src->nframes; i++)
    {
      struct cce_frame f = src->frames[i];
      f.func += (uint32_t) fbase;
      if (f.file != CCE_NONE)
        f.file = smap[f.file];
      dst->frames[frbase + i] = f;
    }
  dst->nfuncs += src->nfuncs;
  dst->nnodes += src->nnodes;
  dst->nsites += src->nsites;
  dst->nframes += src->nframes;
  mbase = dst->nmodules;
  for (j = 0; j < src->nmodules; j++)
    {
      struct cce_module *m = &dst->modules[mbase + j];
      *m = src->modules[j];
      m->first_site += (uint32_t) sbase;
      m->first_node += (uint32_t) nbase;
      m->file += (uint32_t) mbase;
    }
  dst->nmodules += src->nmodules;
  free (smap);
  if (cce__index_edges (dst) < 0)
    {
      set_err (err, errlen, "%s", strerror (ENOMEM));
      return -1;
    }
  return 0;

oom:
  free (smap);
  set_err (err, errlen, "%s", strerror (ENOMEM));
  return -1;
}

int
cce_graph_merge_part (struct cce_graph *dst, const struct cce_graph *src,
                      size_t file, char *err, size_t errlen)
{
  if (file >= dst->nmodules || dst->modules[file].file != file)
    {
      set_err (err, errlen, "no file module %zu", file);
      return -1;
    }
  if (src->nmodules != 1)
    {
      set_err (err, errlen, "a partition is one dictionary");
      return -1;
    }
  if (cce_graph_merge (dst, src, err, errlen) < 0)
    return -1;
  dst->modules[dst->nmodules - 1].file = (uint32_t) file;
  return 0;
}

uint32_t
cce_site_of_word (const struct cce_graph *g, uint64_t word)
{
  uint32_t key = CCE_SITE_KEY (word), idx = CCE_SITE_INDEX (word);
  size_t i;

  if (key == 0 || g->nmodules == 0)
    {
      /* A plain site number: of the main dictionary, or of a graph built
         in memory.  */
      size_t n = g->nmodules ? g->modules[0].nsites : g->nsites;
      return key == 0 && idx < n ? idx : CCE_NONE;
    }
  for (i = 0; i < g->nmodules; i++)
    if (g->modules[i].key == key)
      return idx < g->modules[i].nsites ? g->modules[i].first_site + idx
                                        : CCE_NONE;
  return CCE_NONE;
}
