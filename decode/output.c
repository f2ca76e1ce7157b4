/* output.c -- libccedecode: the output formats of cce-decode (text,
   records, folded; pprof and speedscope through profile.c).  Never
   prints, never exits: see decode.h.  */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1     /* strnlen, strdup, fileno */
#endif

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libiberty/demangle.h>

#include "cce-abi.h"
#include "cce-format.h"
#include "cce-core.h"
#include "decode.h"
#include "decode-internal.h"

/* ===================================================================
   Output.  */

int
cced_format_parse (const char *name, enum cced_format *fmt)
{
  if (!name)
    return -1;
  if (strcmp (name, "text") == 0)
    *fmt = CCED_FORMAT_TEXT;
  else if (strcmp (name, "records") == 0)
    *fmt = CCED_FORMAT_RECORDS;
  else if (strcmp (name, "folded") == 0)
    *fmt = CCED_FORMAT_FOLDED;
  else if (strcmp (name, "pprof") == 0)
    *fmt = CCED_FORMAT_PPROF;
  else if (strcmp (name, "speedscope") == 0)
    *fmt = CCED_FORMAT_SPEEDSCOPE;
  else
    return -1;
  return 0;
}

const char *
cced_format_name (enum cced_format fmt)
{
  switch (fmt)
    {
    case CCED_FORMAT_TEXT:
      return "text";
    case CCED_FORMAT_RECORDS:
      return "records";
    case CCED_FORMAT_FOLDED:
      return "folded";
    case CCED_FORMAT_PPROF:
      return "pprof";
    case CCED_FORMAT_SPEEDSCOPE:
      return "speedscope";
    }
  return "?";
}

/* A bump allocator: the cache and the folded table never free single
   items, so they allocate from blocks.  A reset keeps the blocks for
   reuse (no new page faults).  */
struct arena_block
{
  struct arena_block *next;
  size_t used, size;
  _Alignas (16) unsigned char data[];
};

struct arena
{
  struct arena_block *first, *cur, *last;
  size_t inuse;                /* bytes handed out since the reset */
};

#define ARENA_BLOCK (1024 * 1024)

static void *
arena_alloc (struct arena *a, size_t n)
{
  struct arena_block *b = a->cur;
  void *p;

  n = (n + 15) & ~(size_t) 15;
  while (b && b->size - b->used < n)
    b = b->next;
  if (!b)
    {
      size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
      b = malloc (sizeof *b + size);
      if (!b)
        return NULL;
      b->next = NULL;
      b->used = 0;
      b->size = size;
      if (a->last)
        a->last->next = b;
      else
        a->first = b;
      a->last = b;
    }
  /* Small items keep filling the current block; a block taken for a big
     item becomes current only if it is a normal one.  */
  if (b->size == ARENA_BLOCK || !a->cur)
    a->cur = b;
  p = b->data + b->used;
  b->used += n;
  a->inuse += n;
  return p;
}

static void
arena_reset (struct arena *a)
{
  for (struct arena_block *b = a->first; b; b = b->next)
    b->used = 0;
  a->cur = a->first;
  a->inuse = 0;
}

static void
arena_free (struct arena *a)
{
  struct arena_block *b = a->first, *next;
  for (; b; b = next)
    {
      next = b->next;
      free (b);
    }
  memset (a, 0, sizeof *a);
}

/* A growable string.  */
struct strbuf
{
  char *p;
  size_t n, a;
};

static int
sb_reserve (struct strbuf *sb, size_t more)
{
  char *p;
  if (sb->a - sb->n >= more)
    return 0;
  if (sb->n + more < sb->n
      || !(p = grow_array (sb->p, &sb->a, sb->n + more, 1)))
    return -1;
  sb->p = p;
  return 0;
}

static int
sb_add (struct strbuf *sb, const char *s, size_t n)
{
  if (sb_reserve (sb, n) < 0)
    return -1;
  memcpy (sb->p + sb->n, s, n);
  sb->n += n;
  return 0;
}

static int
sb_puts (struct strbuf *sb, const char *s)
{
  return sb_add (sb, s, strlen (s));
}

/* Whether S has characters that would break the line formats.  */
static int
needs_sanitizing (const char *s)
{
  for (; *s; s++)
    if ((unsigned char) *s < 0x20 || *s == 0x7f)
      return 1;
  return 0;
}

/* S with control characters replaced by '?'.  */
static int
sb_name (struct strbuf *sb, const char *s)
{
  size_t n = strlen (s);
  if (sb_reserve (sb, n) < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = s[i];
      sb->p[sb->n++] = c < 0x20 || c == 0x7f ? '?' : (char) c;
    }
  return 0;
}

static char *
fmt_u64 (char *end, uint64_t v)
{
  do
    {
      *--end = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v);
  return end;
}

static int
sb_u64 (struct strbuf *sb, uint64_t v)
{
  char tmp[24], *e = tmp + sizeof tmp;
  char *s = fmt_u64 (e, v);
  return sb_add (sb, s, e - s);
}

/* A name ready for output: sanitized, with its length.  */
struct oname
{
  const char *s;
  size_t len;
};

/* Folded table entry: a distinct path and its count.  */
struct fentry
{
  uint64_t count;
  size_t len;
  char path[];
};

/* A slot of the open addressing tables (cache and folded).  */
struct slot
{
  uint64_t hash;
  void *e;                   /* struct centry or struct fentry; NULL: free */
};

/* Cache entry: a record's key (site, id, module, stack) and its rendered
   output (text block, records path line), folded entry or path of the
   profile (pprof, speedscope).  */
struct centry
{
  uint64_t site, id;
  uint32_t nstack, module;
  int pc;                    /* a record of an interrupted instruction */
  int incomplete;
  const char *val;
  size_t vlen;
  struct fentry *fold;
  const void *ppath;
  struct cce_stack_entry stack[];
};

/* The cache is dropped (and restarted) when it holds this many bytes or
   entries: a small table stays in the processor's caches.  */
#define CACHE_MAX_BYTES ((size_t) 16 * 1024 * 1024)
#define CACHE_MAX_ENTRIES ((size_t) 1 << 16)
/* When fewer than 1/CACHE_MIN_HIT_RATIO of CACHE_WINDOW lookups hit, the
   log has too many distinct contexts to gain from the cache: it is off
   for the next CACHE_PAUSE records, then tried again.  */
#define CACHE_WINDOW 65536
#define CACHE_MIN_HIT_RATIO 8
#define CACHE_PAUSE (1 << 20)
/* Records with a deeper stack are not cached.  */
#define CACHE_MAX_NSTACK 4096

#define OUTBUF_SIZE (64 * 1024)

struct cced_output
{
  const struct cced_program *prog;
  const struct cce_graph *g;
  enum cced_format fmt;
  FILE *f;
  struct cced_decoder *dec;

  struct oname *names;       /* of g->strings (the first NNAMES: decoding
                                adds the strings of PC locations) */
  size_t nnames;
  struct arena narena;       /* sanitized names */

  char *ob;                  /* output buffer */
  size_t on;
  int werr;                  /* errno of a failed write */

  struct strbuf tmp;

  struct slot *ctab;         /* open addressing, power of 2 */
  size_t csize, ccount;
  struct arena carena;
  uint64_t win_lookups, win_hits;
  uint64_t cache_pause;      /* records to go without the cache */

  struct slot *ftab;
  size_t fsize, fcount;
  struct arena farena;

  size_t depth;              /* frames kept of each path; 0: all */
  struct cced_profile *prof; /* pprof, speedscope */
  int prof_written;
  char **comments;           /* cced_output_comment */
  size_t ncomments;

  struct cced_output_stats stats;
};

static void
out_flush (struct cced_output *o)
{
  if (o->on && !o->werr)
    {
      errno = 0;
      if (fwrite (o->ob, 1, o->on, o->f) != o->on)
        o->werr = errno ? errno : EIO;
    }
  o->on = 0;
}

static inline void
out_write (struct cced_output *o, const char *s, size_t n)
{
  if (OUTBUF_SIZE - o->on < n)
    {
      out_flush (o);
      if (n >= OUTBUF_SIZE)
        {
          errno = 0;
          if (!o->werr && fwrite (s, 1, n, o->f) != n)
            o->werr = errno ? errno : EIO;
          return;
        }
    }
  memcpy (o->ob + o->on, s, n);
  o->on += n;
}

static int
out_check (struct cced_output *o, struct cced_error *err)
{
  if (o->werr)
    return seterr (err, CCED_E_WRITE, o->werr, "write error: %s",
                   strerror (o->werr));
  return 0;
}

char *
cced_display_name (const char *raw, int params)
{
  char *dm = NULL, *c;

  if (!raw || !*raw)
    raw = "??";
  if (raw[0] == '_' && raw[1] == 'Z')
    dm = cplus_demangle (raw, DMGL_ANSI | DMGL_VERBOSE
                              | (params ? DMGL_PARAMS | DMGL_RET_DROP : 0));
  c = dm ? dm : strdup (raw);
  if (c)
    for (char *q = c; *q; q++)
      if ((unsigned char) *q < 0x20 || *q == 0x7f)
        *q = '?';
  return c;
}

/* The names of the strings of the graph that are new since the last
   call, as the format of O shows them (cced_display_name: with the
   parameter lists of C++ functions in the text format, as gdb's
   backtrace shows them, without them in the others, as c++filt -p
   prints them).  Returns 0, or -1 when out of memory.  */
static int
make_names (struct cced_output *o)
{
  const struct cce_graph *g = o->g;
  struct oname *names;

  if (o->names && o->nnames >= g->nstrings)
    return 0;
  names = realloc (o->names, (g->nstrings ? g->nstrings : 1)
                             * sizeof *o->names);
  if (!names)
    return -1;
  o->names = names;
  for (size_t i = o->nnames; i < g->nstrings; i++)
    {
      const char *s = g->strings[i] ? g->strings[i] : "";
      size_t n = strlen (s);
      if (n == 0)
        {
          s = "??";
          n = 2;
        }
      else if ((s[0] == '_' && s[1] == 'Z') || needs_sanitizing (s))
        {
          char *dm = cced_display_name (s, o->fmt == CCED_FORMAT_TEXT);
          char *c;
          if (!dm)
            return -1;
          n = strlen (dm);
          c = arena_alloc (&o->narena, n + 1);
          if (c)
            memcpy (c, dm, n + 1);
          free (dm);
          if (!c)
            return -1;
          s = c;
        }
      o->names[i].s = s;
      o->names[i].len = n;
      o->nnames = i + 1;
    }
  return 0;
}

static inline struct oname
frame_oname (const struct cced_output *o, const struct cce_path_frame *f)
{
  static const struct oname unknown = { "??", 2 };
  static const struct oname thread_mark = { "[thread]", 8 };
  static const struct oname signal_mark = { "[signal]", 8 };
  const struct cce_graph *g = o->g;
  uint32_t s = CCE_NONE;
  if (f->func == CCE_NONE && f->ext_name == CCE_THREAD_MARK)
    return thread_mark;
  if (f->func == CCE_NONE && f->ext_name == CCE_SIGNAL_MARK)
    return signal_mark;
  if (f->func != CCE_NONE)
    {
      if (f->func < g->nfuncs)
        s = g->funcs[f->func].name;
    }
  else
    s = f->ext_name;
  return s < o->nnames ? o->names[s] : unknown;
}

/* Whether FMT is a profile (profile.c).  */
static int
is_profile (enum cced_format fmt)
{
  return fmt == CCED_FORMAT_PPROF || fmt == CCED_FORMAT_SPEEDSCOPE;
}

struct cced_output *
cced_output_new (const struct cced_program *prog, enum cced_format fmt,
                 FILE *f, struct cced_error *err)
{
  struct cced_output *o;

  clearerr_ (err);
  if (!prog || !f
      || (fmt != CCED_FORMAT_TEXT && fmt != CCED_FORMAT_RECORDS
          && fmt != CCED_FORMAT_FOLDED && fmt != CCED_FORMAT_PPROF
          && fmt != CCED_FORMAT_SPEEDSCOPE))
    {
      seterr (err, CCED_E_INVAL, EINVAL, "invalid output arguments");
      return NULL;
    }
  o = calloc (1, sizeof *o);
  if (!o)
    {
      nomem (err);
      return NULL;
    }
  o->prog = prog;
  o->g = prog->g;
  o->fmt = fmt;
  o->f = f;
  o->ob = malloc (OUTBUF_SIZE);
  o->csize = 1024;
  o->ctab = calloc (o->csize, sizeof *o->ctab);
  if (fmt == CCED_FORMAT_FOLDED)
    {
      o->fsize = 1024;
      o->ftab = calloc (o->fsize, sizeof *o->ftab);
    }
  if (is_profile (fmt))
    o->prof = cced_profile_new (prog->g);
  o->dec = cced_decoder_new (prog, err);
  if (!o->ob || !o->ctab || (fmt == CCED_FORMAT_FOLDED && !o->ftab)
      || (is_profile (fmt) && !o->prof) || !o->dec || make_names (o) < 0)
    {
      cced_output_free (o);
      nomem (err);
      return NULL;
    }
  return o;
}

void
cced_output_free (struct cced_output *o)
{
  if (!o)
    return;
  cced_decoder_free (o->dec);
  free (o->ob);
  free (o->tmp.p);
  free (o->ctab);
  free (o->ftab);
  free (o->names);
  cced_profile_free (o->prof);
  for (size_t i = 0; i < o->ncomments; i++)
    free (o->comments[i]);
  free (o->comments);
  arena_free (&o->narena);
  arena_free (&o->carena);
  arena_free (&o->farena);
  free (o);
}

void
cced_output_stats (const struct cced_output *o,
                   struct cced_output_stats *stats)
{
  *stats = o->stats;
  stats->distinct_paths = o->fcount;
  if (o->prof)
    {
      size_t npaths, nsamples;
      cced_profile_counts (o->prof, &npaths, &nsamples);
      stats->distinct_paths = npaths;
    }
}

static inline uint64_t
mix (uint64_t h, uint64_t v)
{
  h ^= v;
  h *= UINT64_C (0x9e3779b97f4a7c15);
  h ^= h >> 32;
  return h;
}

static inline uint64_t
record_hash (const struct cced_record *rec)
{
  uint64_t h = UINT64_C (0xcbf29ce484222325);
  h = mix (h, rec->site);
  h = mix (h, rec->id);
  h = mix (h, ((uint64_t) rec->module << 32) | rec->nstack);
  h = mix (h, (uint64_t) CCE_TAG_IS_PC (rec->tag));
  for (uint32_t i = 0; i < rec->nstack; i++)
    {
      h = mix (h, rec->stack[i].id);
      h = mix (h, rec->stack[i].site);
    }
  h ^= h >> 29;
  h *= UINT64_C (0xbf58476d1ce4e5b9);
  h ^= h >> 32;
  return h;
}

static inline int
record_eq (const struct centry *e, const struct cced_record *rec)
{
  return e->site == rec->site && e->id == rec->id
         && e->nstack == rec->nstack && e->module == rec->module
         && e->pc == CCE_TAG_IS_PC (rec->tag)
         && (rec->nstack == 0
             || memcmp (e->stack, rec->stack,
                        rec->nstack * sizeof *rec->stack) == 0);
}

static inline struct centry *
cache_lookup (struct cced_output *o, uint64_t h, const struct cced_record *rec)
{
  size_t mask = o->csize - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask)
    {
      struct slot *s = &o->ctab[i];
      if (!s->e)
        return NULL;
      if (s->hash == h && record_eq (s->e, rec))
        return s->e;
    }
}

static void
cache_reset (struct cced_output *o)
{
  memset (o->ctab, 0, o->csize * sizeof *o->ctab);
  o->ccount = 0;
  arena_reset (&o->carena);
}

/* Grow an open addressing table of slots (power of 2 size) to twice its
   size.  Returns 0, or -1 when out of memory.  */
static int
table_grow (struct slot **tab, size_t *size)
{
  size_t nsize = *size * 2;
  struct slot *nt = calloc (nsize, sizeof *nt);
  if (!nt)
    return -1;
  for (size_t j = 0; j < *size; j++)
    if ((*tab)[j].e)
      {
        size_t k = (*tab)[j].hash & (nsize - 1);
        while (nt[k].e)
          k = (k + 1) & (nsize - 1);
        nt[k] = (*tab)[j];
      }
  free (*tab);
  *tab = nt;
  *size = nsize;
  return 0;
}

/* Insert a new entry for REC (not in the cache) with value VAL/VLEN,
   FOLD or PPATH.  Failure to cache is not an error.  */
static void
cache_insert (struct cced_output *o, uint64_t h,
              const struct cced_record *rec, const char *val, size_t vlen,
              struct fentry *fold, const void *ppath, int incomplete_)
{
  struct centry *e;
  size_t mask, i;
  char *v = NULL;

  if (rec->nstack > CACHE_MAX_NSTACK)
    return;
  if (o->carena.inuse > CACHE_MAX_BYTES || o->ccount >= CACHE_MAX_ENTRIES)
    cache_reset (o);
  if ((o->ccount + 1) * 2 > o->csize && table_grow (&o->ctab, &o->csize) < 0)
    return;
  e = arena_alloc (&o->carena,
                   sizeof *e + rec->nstack * sizeof *rec->stack + vlen);
  if (!e)
    return;
  if (val)
    {
      v = (char *) (e->stack + rec->nstack);
      memcpy (v, val, vlen);
    }
  e->site = rec->site;
  e->id = rec->id;
  e->nstack = rec->nstack;
  e->module = rec->module;
  e->pc = CCE_TAG_IS_PC (rec->tag);
  e->incomplete = incomplete_;
  e->val = v;
  e->vlen = vlen;
  e->fold = fold;
  e->ppath = ppath;
  if (rec->nstack)
    memcpy (e->stack, rec->stack, rec->nstack * sizeof *rec->stack);
  mask = o->csize - 1;
  for (i = h & mask; o->ctab[i].e; i = (i + 1) & mask)
    ;
  o->ctab[i].hash = h;
  o->ctab[i].e = e;
  o->ccount++;
}

/* Render PATH into o->tmp: the PATH of records and folded, followed by
   '\n' when NL.  */
static int
render_path (struct cced_output *o, const struct cced_path *path, int nl)
{
  static const char inc[] = "[incomplete]";
  struct strbuf *sb = &o->tmp;
  size_t len = nl, i;
  char *p;

  sb->n = 0;
  if (path->status != CCE_DECODE_OK)
    len += sizeof inc - 1 + (path->nframes > 0);
  for (i = 0; i < path->nframes; i++)
    len += frame_oname (o, &path->frames[i]).len + (i > 0);
  if (sb_reserve (sb, len) < 0)
    return -1;
  p = sb->p;
  if (path->status != CCE_DECODE_OK)
    {
      memcpy (p, inc, sizeof inc - 1);
      p += sizeof inc - 1;
      if (path->nframes > 0)
        *p++ = ';';
    }
  for (i = 0; i < path->nframes; i++)
    {
      struct oname n = frame_oname (o, &path->frames[i]);
      if (i > 0)
        *p++ = ';';
      memcpy (p, n.s, n.len);
      p += n.len;
    }
  if (nl)
    *p++ = '\n';
  sb->n = p - sb->p;
  return 0;
}

/* Render the frame lines of the text format into o->tmp.  */
static int
render_text (struct cced_output *o, const struct cced_path *path)
{
  struct strbuf *sb = &o->tmp;
  const struct cce_graph *g = o->g;
  size_t k = 0;
  int r = 0;

  sb->n = 0;
  for (size_t i = path->nframes; i-- > 0; k++)
    {
      const struct cce_path_frame *f = &path->frames[i];
      struct oname name = frame_oname (o, f);
      r |= sb_add (sb, "  #", 3);
      r |= sb_u64 (sb, k);
      r |= sb_add (sb, "  ", 2);
      r |= sb_add (sb, name.s, name.len);
      if (f->func == CCE_NONE && f->ext_name == CCE_THREAD_MARK)
        r |= sb_puts (sb, " (created here by the frames below)");
      else if (f->func == CCE_NONE && f->ext_name == CCE_SIGNAL_MARK)
        r |= sb_puts (sb, " (a signal interrupted the frames below)");
      else if (f->func == CCE_NONE)
        r |= sb_puts (sb, " [external]");
      else if (f->file < o->nnames && g->strings[f->file]
               && g->strings[f->file][0])
        {
          r |= sb_add (sb, " (", 2);
          r |= sb_add (sb, o->names[f->file].s, o->names[f->file].len);
          if (f->line)
            {
              r |= sb_add (sb, ":", 1);
              r |= sb_u64 (sb, f->line);
              if (f->col)
                {
                  r |= sb_add (sb, ":", 1);
                  r |= sb_u64 (sb, f->col);
                }
            }
          r |= sb_add (sb, ")", 1);
        }
      if (f->inlined)
        r |= sb_puts (sb, " [inlined]");
      r |= sb_add (sb, "\n", 1);
    }
  if (path->status != CCE_DECODE_OK)
    {
      r |= sb_add (sb, "  #", 3);
      r |= sb_u64 (sb, k);
      r |= sb_puts (sb, "  ?? (incomplete: ");
      r |= sb_name (sb, path->reason ? path->reason : "unknown");
      r |= sb_puts (sb, ")\n");
    }
  return r ? -1 : 0;
}

/* A hash of N bytes at S, 8 bytes at a time.  */
static uint64_t
hash_bytes (const char *s, size_t n)
{
  uint64_t h = UINT64_C (0xcbf29ce484222325) ^ n;
  while (n >= 8)
    {
      uint64_t v;
      memcpy (&v, s, 8);
      h = mix (h, v);
      s += 8;
      n -= 8;
    }
  if (n)
    {
      uint64_t v = 0;
      memcpy (&v, s, n);
      h = mix (h, v);
    }
  h ^= h >> 29;
  h *= UINT64_C (0xbf58476d1ce4e5b9);
  h ^= h >> 32;
  return h;
}

/* The folded entry of the path in o->tmp, created with count 0.  */
static struct fentry *
fold_entry (struct cced_output *o)
{
  const char *s = o->tmp.p ? o->tmp.p : "";
  size_t n = o->tmp.n;
  uint64_t h = hash_bytes (s, n);
  size_t mask = o->fsize - 1, i;
  struct fentry *e;

  for (i = h & mask; (e = o->ftab[i].e) != NULL; i = (i + 1) & mask)
    if (o->ftab[i].hash == h && e->len == n && memcmp (e->path, s, n) == 0)
      return e;

  if ((o->fcount + 1) * 2 > o->fsize)
    {
      if (table_grow (&o->ftab, &o->fsize) < 0)
        return NULL;
      mask = o->fsize - 1;
      for (i = h & mask; o->ftab[i].e; i = (i + 1) & mask)
        ;
    }
  e = arena_alloc (&o->farena, sizeof *e + n + 1);
  if (!e)
    return NULL;
  e->count = 0;
  e->len = n;
  memcpy (e->path, s, n);
  e->path[n] = '\0';
  o->ftab[i].hash = h;
  o->ftab[i].e = e;
  o->fcount++;
  return e;
}

/* The name of the traced function a record of -fplugin-arg-cce-trace
   stands for, or NULL if REC is an ordinary cce_log record.  */
static const char *
trace_name (const struct cced_output *o, const struct cced_record *rec)
{
  const struct cce_graph *g;
  const struct cce_site *s;
  uint32_t site;

  if (rec->tag < CCE_TAG_TRACE)
    return NULL;
  g = o->prog->g;
  site = cce_site_of_word (g, rec->site);
  if (site == CCE_NONE || g->sites[site].kind != CCE_SITE_TRACE)
    return NULL;
  s = &g->sites[site];
  site = g->funcs[g->frames[s->first_frame + s->nframes - 1].func].name;
  return site < o->nnames ? o->names[site].s : NULL;
}

/* The names of the signals (as this machine numbers them).  */
static const struct
{
  int sig;
  const char *name;
} signames[] = {
#define SIGNAME(s) { s, #s }
  SIGNAME (SIGHUP), SIGNAME (SIGINT), SIGNAME (SIGQUIT), SIGNAME (SIGILL),
  SIGNAME (SIGTRAP), SIGNAME (SIGABRT), SIGNAME (SIGBUS), SIGNAME (SIGFPE),
  SIGNAME (SIGKILL), SIGNAME (SIGUSR1), SIGNAME (SIGSEGV),
  SIGNAME (SIGUSR2), SIGNAME (SIGPIPE), SIGNAME (SIGALRM),
  SIGNAME (SIGTERM), SIGNAME (SIGCHLD), SIGNAME (SIGCONT),
  SIGNAME (SIGSTOP), SIGNAME (SIGTSTP), SIGNAME (SIGTTIN),
  SIGNAME (SIGTTOU), SIGNAME (SIGURG), SIGNAME (SIGXCPU),
  SIGNAME (SIGXFSZ), SIGNAME (SIGVTALRM), SIGNAME (SIGPROF),
  SIGNAME (SIGWINCH), SIGNAME (SIGSYS),
#ifdef SIGSTKFLT
  SIGNAME (SIGSTKFLT),
#endif
#ifdef SIGIO
  SIGNAME (SIGIO),
#endif
#ifdef SIGPWR
  SIGNAME (SIGPWR),
#endif
#undef SIGNAME
};

const char *
cced_tag_name (uint32_t tag, char *buf, size_t size)
{
  uint32_t sig;

  if (tag == CCE_TAG_SAMPLE)
    return "sample";
  if (tag == CCE_TAG_HEAP_ALLOC)
    return "alloc";
  if (tag == CCE_TAG_HEAP_FREE)
    return "free";
  if (tag == CCE_TAG_HEAP_PEAK)
    return "peak";
  if (!CCE_TAG_IS_PC (tag))
    return NULL;
  sig = tag - CCE_TAG_SIGNAL;
  for (size_t i = 0; i < sizeof signames / sizeof *signames; i++)
    if ((uint32_t) signames[i].sig == sig)
      return signames[i].name;
  snprintf (buf, size, "SIG%" PRIu32, sig);
  return buf;
}

/* The name REC shows as its tag (in BUF, of SIZE bytes, or static), or
   NULL for a number: a traced function's name, or the name of the
   signal or sample of an interrupted instruction.  */
static inline const char *
tag_name (const struct cced_output *o, const struct cced_record *rec,
          char *buf, size_t size)
{
  if (__builtin_expect (rec->tag < CCE_TAG_SIGNAL, 1))
    return NULL;
  if (rec->tag >= CCE_TAG_TRACE)
    return trace_name (o, rec);
  return cced_tag_name (rec->tag, buf, size);
}

/* The end of a record's line: "\tcount=N" for a record that stands for
   N != 1 events (an entry of a table), "\tvalue=V" for one with a value
   (cce_count), then the newline, which VAL holds otherwise.  */
static void
emit_record_extra (struct cced_output *o, const struct cced_record *rec)
{
  char num[24], *ne = num + sizeof num, *ns;
  if (rec->count != 1)
    {
      out_write (o, "\tcount=", 7);
      ns = fmt_u64 (ne, rec->count);
      out_write (o, ns, ne - ns);
    }
  if (rec->flags & CCED_RECORD_VALUE)
    {
      out_write (o, "\tvalue=", 7);
      ns = fmt_u64 (ne, rec->value);
      out_write (o, ns, ne - ns);
    }
  out_write (o, "\n", 1);
}

/* The line of REC: "THREAD\tTAG\t" and VAL, its path and a newline, or
   with emit_record_extra's columns before the newline.  */
static inline void
emit_record_line (struct cced_output *o, const struct cced_record *rec,
                  const char *val, size_t vlen)
{
  if (__builtin_expect (rec->count != 1 || rec->flags != 0, 0))
    {
      /* VAL's newline goes after the columns.  */
      struct cced_record r = *rec;
      r.count = 1;
      r.flags = 0;
      emit_record_line (o, &r, val, vlen - 1);
      emit_record_extra (o, rec);
      return;
    }
  char tmp[48], *e = tmp + sizeof tmp, *s = e;
  char tbuf[16];
  const char *tn;
  /* "THREAD\tTAG\t" built backwards.  A traced function's record shows
     the function's name as its tag, and a record of an interrupted
     instruction its signal's name or "sample".  */
  *--s = '\t';
  if ((tn = tag_name (o, rec, tbuf, sizeof tbuf)) != NULL)
    {
      *--s = '\t';
      s = fmt_u64 (s, rec->thread);
      out_write (o, s, e - s - 1);
      out_write (o, tn, strlen (tn));
      out_write (o, "\t", 1);
      out_write (o, val, vlen);
      return;
    }
  s = fmt_u64 (s, rec->tag);
  *--s = '\t';
  s = fmt_u64 (s, rec->thread);
  if (OUTBUF_SIZE - o->on >= (size_t) (e - s) + vlen)
    {
      /* Fast path: straight into the buffer.  */
      memcpy (o->ob + o->on, s, e - s);
      o->on += e - s;
      memcpy (o->ob + o->on, val, vlen);
      o->on += vlen;
    }
  else
    {
      out_write (o, s, e - s);
      out_write (o, val, vlen);
    }
}

static void
emit_text_header (struct cced_output *o, const struct cced_record *rec)
{
  char tmp[128], *p = tmp;
  char num[24], *ne = num + sizeof num, *ns;
  if (o->stats.records > 1)
    *p++ = '\n';
  memcpy (p, "record ", 7);
  p += 7;
  ns = fmt_u64 (ne, rec->index);
  memcpy (p, ns, ne - ns);
  p += ne - ns;
  memcpy (p, ": thread ", 9);
  p += 9;
  ns = fmt_u64 (ne, rec->thread);
  memcpy (p, ns, ne - ns);
  p += ne - ns;
  memcpy (p, " tag ", 5);
  p += 5;
  {
    char tbuf[16];
    const char *tn = NULL;
    if (rec->tag >= CCE_TAG_SIGNAL && rec->tag < CCE_TAG_TRACE)
      tn = cced_tag_name (rec->tag, tbuf, sizeof tbuf);
    if (tn)
      {
        /* An interrupted instruction: the signal, or "sample".  */
        out_write (o, tmp, p - tmp);
        out_write (o, tn, strlen (tn));
        p = tmp;
      }
    else
      {
        ns = fmt_u64 (ne, rec->tag);
        memcpy (p, ns, ne - ns);
        p += ne - ns;
        out_write (o, tmp, p - tmp);
        p = tmp;
        tn = trace_name (o, rec);
        if (tn)
          {
            out_write (o, " (trace ", 8);
            out_write (o, tn, strlen (tn));
            *p++ = ')';
          }
      }
  }
  /* A table's entry, a record with a value.  */
  if (rec->count != 1)
    {
      memcpy (p, " count ", 7);
      p += 7;
      ns = fmt_u64 (ne, rec->count);
      memcpy (p, ns, ne - ns);
      p += ne - ns;
    }
  if (rec->flags & CCED_RECORD_VALUE)
    {
      memcpy (p, " value ", 7);
      p += 7;
      ns = fmt_u64 (ne, rec->value);
      memcpy (p, ns, ne - ns);
      p += ne - ns;
    }
  *p++ = '\n';
  out_write (o, tmp, p - tmp);
}

/* Keep the innermost o->depth frames of PATH: the pseudo-frames
   [thread] and [signal] do not count, and are kept only between two
   frames that are.  The innermost frames of an incomplete path are
   exact, so the cut path of one that has enough of them is complete.  */
static void
cut_path (const struct cced_output *o, struct cced_path *path)
{
  size_t kept = 0;

  if (!o->depth)
    return;
  for (size_t i = path->nframes; i-- > 0;)
    {
      const struct cce_path_frame *f = &path->frames[i];
      if (f->func == CCE_NONE
          && (f->ext_name == CCE_THREAD_MARK
              || f->ext_name == CCE_SIGNAL_MARK))
        continue;
      if (++kept == o->depth)
        {
          path->frames += i;
          path->nframes -= i;
          path->status = CCE_DECODE_OK;
          path->reason = NULL;
          return;
        }
    }
}

/* Add REC, whose path is PPATH of o->prof, to the profile.  */
static int
profile_add (struct cced_output *o, const struct cced_record *rec,
             const void *ppath, struct cced_error *err)
{
  char tbuf[16];
  if (CCE_TAG_IS_HEAP (rec->tag))
    {
      if (cced_profile_add_heap (o->prof, ppath, rec->tag, rec->count,
                                 rec->value, rec->period) < 0)
        return nomem (err);
      return 0;
    }
  if (cced_profile_add (o->prof, ppath, rec->thread, rec->tag,
                        tag_name (o, rec, tbuf, sizeof tbuf), rec->count,
                        rec->value, (rec->flags & CCED_RECORD_VALUE) != 0)
      < 0)
    return nomem (err);
  return 0;
}

/* What REC adds to its path's count in the folded format: its events,
   or for a heap profile the bytes live at the end (those allocated less
   those freed, weighted when sampled; the peak adds nothing).  */
static uint64_t
fold_weight (const struct cced_record *rec)
{
  if (__builtin_expect (!CCE_TAG_IS_HEAP (rec->tag), 1))
    return rec->count;
  if (rec->tag == CCE_TAG_HEAP_PEAK)
    return 0;
  uint64_t v = rec->value;
  if (rec->period)
    v = (uint64_t) ((double) v * cced_heap_scale (rec->count, rec->value,
                                                   rec->period) + 0.5);
  return rec->tag == CCE_TAG_HEAP_ALLOC ? v : -v;
}

int
cced_output_record (struct cced_output *o, const struct cced_record *rec,
                    struct cced_error *err)
{
  uint64_t h = 0;
  struct centry *e = NULL;
  struct cced_path path;
  struct fentry *fe = NULL;
  int inc, use_cache = o->cache_pause == 0;

  o->stats.records++;
  if (use_cache)
    {
      h = record_hash (rec);
      e = cache_lookup (o, h, rec);
      o->win_hits += e != NULL;
      if (++o->win_lookups == CACHE_WINDOW)
        {
          if (o->win_hits * CACHE_MIN_HIT_RATIO < o->win_lookups)
            {
              o->cache_pause = CACHE_PAUSE;
              cache_reset (o);
              use_cache = 0;
            }
          o->win_lookups = o->win_hits = 0;
        }
    }
  else
    o->cache_pause--;
  if (e)
    {
      o->stats.cache_hits++;
      o->stats.incomplete += e->incomplete;
      switch (o->fmt)
        {
        case CCED_FORMAT_RECORDS:
          emit_record_line (o, rec, e->val, e->vlen);
          break;
        case CCED_FORMAT_TEXT:
          emit_text_header (o, rec);
          out_write (o, e->val, e->vlen);
          break;
        case CCED_FORMAT_FOLDED:
          e->fold->count += fold_weight (rec);
          return 0;
        case CCED_FORMAT_PPROF:
        case CCED_FORMAT_SPEEDSCOPE:
          return profile_add (o, rec, e->ppath, err);
        }
      return out_check (o, err);
    }

  if (cced_decode (o->dec, rec, &path, err) < 0)
    return -1;
  cut_path (o, &path);
  /* The strings of the PC locations decoding added.  */
  if (make_names (o) < 0)
    return nomem (err);
  inc = path.status != CCE_DECODE_OK;
  o->stats.incomplete += inc;
  switch (o->fmt)
    {
    case CCED_FORMAT_RECORDS:
      if (render_path (o, &path, 1) < 0)
        return nomem (err);
      emit_record_line (o, rec, o->tmp.p, o->tmp.n);
      if (use_cache)
        cache_insert (o, h, rec, o->tmp.p, o->tmp.n, NULL, NULL, inc);
      break;
    case CCED_FORMAT_TEXT:
      if (render_text (o, &path) < 0)
        return nomem (err);
      emit_text_header (o, rec);
      out_write (o, o->tmp.p, o->tmp.n);
      if (use_cache)
        cache_insert (o, h, rec, o->tmp.p, o->tmp.n, NULL, NULL, inc);
      break;
    case CCED_FORMAT_FOLDED:
      if (render_path (o, &path, 0) < 0 || !(fe = fold_entry (o)))
        return nomem (err);
      fe->count += fold_weight (rec);
      if (use_cache)
        cache_insert (o, h, rec, NULL, 0, fe, NULL, inc);
      return 0;
    case CCED_FORMAT_PPROF:
    case CCED_FORMAT_SPEEDSCOPE:
      {
        const void *pp = cced_profile_path (o->prof, &path);
        if (!pp)
          return nomem (err);
        if (use_cache)
          cache_insert (o, h, rec, NULL, 0, NULL, pp, inc);
        return profile_add (o, rec, pp, err);
      }
    }
  return out_check (o, err);
}

static int
fentry_cmp (const void *a, const void *b)
{
  const struct fentry *x = *(const struct fentry *const *) a;
  const struct fentry *y = *(const struct fentry *const *) b;
  size_t n = x->len < y->len ? x->len : y->len;
  int c = memcmp (x->path, y->path, n);
  if (c)
    return c;
  return x->len < y->len ? -1 : x->len > y->len;
}

void
cced_output_set_thread_origin (struct cced_output *out, int on)
{
  cced_decoder_set_thread_origin (out->dec, on);
  cache_reset (out);
}

void
cced_output_set_depth (struct cced_output *out, size_t depth)
{
  out->depth = depth;
  cache_reset (out);
}

/* Where the profile writers put their bytes.  */
static void
profile_write (void *ctx, const void *buf, size_t n)
{
  out_write (ctx, buf, n);
}

int
cced_output_comment (struct cced_output *o, const char *text,
                     struct cced_error *err)
{
  char **v = realloc (o->comments, (o->ncomments + 1) * sizeof *v);
  if (!v)
    return nomem (err);
  o->comments = v;
  if (!(v[o->ncomments] = strdup (text)))
    return nomem (err);
  o->ncomments++;
  return 0;
}

/* Write the profile of O, if it has samples or is the first one, and
   start a new one.  */
static int
finish_profile (struct cced_output *o, struct cced_error *err)
{
  const char *name = o->prog->name ? o->prog->name : "";
  struct cced_profile *np;
  size_t npaths, nsamples;
  int r;

  cced_profile_counts (o->prof, &npaths, &nsamples);
  if (o->prof_written && !nsamples)
    return 0;
  if (o->fmt == CCED_FORMAT_PPROF)
    r = cced_profile_pprof (o->prof, name, o->comments, o->ncomments,
                            profile_write, o, err);
  else
    r = cced_profile_speedscope (o->prof, name, profile_write, o, err);
  if (r < 0)
    return -1;
  /* Written: a second finish writes only what came after.  */
  if (!(np = cced_profile_new (o->g)))
    return nomem (err);
  cache_reset (o);
  cced_profile_free (o->prof);
  o->prof = np;
  o->prof_written = 1;
  return 0;
}

int
cced_output_finish (struct cced_output *o, struct cced_error *err)
{
  if (o->prof && finish_profile (o, err) < 0)
    return -1;
  if (o->fmt == CCED_FORMAT_FOLDED && o->fcount)
    {
      struct fentry **v = malloc (o->fcount * sizeof *v);
      size_t n = 0;
      if (!v)
        return nomem (err);
      for (size_t i = 0; i < o->fsize; i++)
        if (o->ftab[i].e
            && ((struct fentry *) o->ftab[i].e)->count
            /* A heap profile's path with more freed than allocated
               (weighted samples) has nothing live.  */
            && ((struct fentry *) o->ftab[i].e)->count <= INT64_MAX)
          v[n++] = o->ftab[i].e;
      qsort (v, n, sizeof *v, fentry_cmp);
      for (size_t i = 0; i < n; i++)
        {
          char num[24], *ne = num + sizeof num, *ns;
          out_write (o, v[i]->path, v[i]->len);
          ns = fmt_u64 (ne - 1, v[i]->count);
          *--ns = ' ';
          ne[-1] = '\n';
          out_write (o, ns, ne - ns);
        }
      free (v);
      /* Printed: a second finish prints nothing.  */
      for (size_t i = 0; i < o->fsize; i++)
        if (o->ftab[i].e)
          ((struct fentry *) o->ftab[i].e)->count = 0;
    }
  out_flush (o);
  errno = 0;
  if (!o->werr && (fflush (o->f) != 0 || ferror (o->f)))
    o->werr = errno ? errno : EIO;
  return out_check (o, err);
}
