/* profile.c -- libccedecode: the profiles of the pprof and speedscope
   outputs.  Records are aggregated into samples, one per thread, tag and
   decoded path, each with the events it counts and the sum of their
   values; cced_output_finish writes them as google/pprof's profile.proto
   (gzip-compressed) or as speedscope's JSON file format.  Never prints,
   never exits: see decode.h.

   Frames.  Each source frame of a path is a function of the profile
   (name, file and first line as the dictionary has them); an external
   frame is a function with a name only, and so are the pseudo-frames
   "[thread]", "[signal]" and "[incomplete]" (the root of a path that
   could not be decoded up to the thread's start, as the records and
   folded formats print it).  In pprof, a frame and the frames inlined
   into it make one Location, whose Lines go innermost first (the last
   one is the function the code is in); in speedscope every frame is a
   frame of its own.  */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cce-core.h"
#include "decode.h"
#include "decode-internal.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

/* ===================================================================
   Interning: keys of 32-bit words (or bytes, for strings), numbered from
   0 in the order they were first seen.  */

struct ientry
{
  uint64_t hash;
  size_t id;
  uint64_t a, b, c, d;       /* what the table's user keeps */
  char *str;
  size_t len;                /* of KEY, in bytes */
  uint32_t key[];
};

struct itab
{
  struct ientry **slots;     /* open addressing, power of 2 */
  size_t size;
  struct ientry **items;     /* by id */
  size_t count, aitems;
};

static uint64_t
hash_key (const void *key, size_t len)
{
  const unsigned char *s = key;
  uint64_t h = UINT64_C (0xcbf29ce484222325) ^ len;
  for (size_t i = 0; i < len; i++)
    {
      h ^= s[i];
      h *= UINT64_C (0x100000001b3);
    }
  h ^= h >> 29;
  h *= UINT64_C (0xbf58476d1ce4e5b9);
  h ^= h >> 32;
  return h;
}

/* The entry of the LEN bytes of KEY in T, made (with *CREATED set) if
   there is none; NULL when out of memory.  */
static struct ientry *
itab_get (struct itab *t, const void *key, size_t len, int *created)
{
  uint64_t h = hash_key (key, len);
  size_t mask, i;
  struct ientry *e;

  *created = 0;
  if (t->size)
    {
      mask = t->size - 1;
      for (i = h & mask; (e = t->slots[i]) != NULL; i = (i + 1) & mask)
        if (e->hash == h && e->len == len && memcmp (e->key, key, len) == 0)
          return e;
    }
  if ((t->count + 1) * 2 > t->size)
    {
      size_t nsize = t->size ? t->size * 2 : 256;
      struct ientry **ns = calloc (nsize, sizeof *ns);
      if (!ns)
        return NULL;
      for (size_t j = 0; j < t->size; j++)
        if (t->slots[j])
          {
            size_t k = t->slots[j]->hash & (nsize - 1);
            while (ns[k])
              k = (k + 1) & (nsize - 1);
            ns[k] = t->slots[j];
          }
      free (t->slots);
      t->slots = ns;
      t->size = nsize;
    }
  if (t->count == t->aitems)
    {
      struct ientry **ni = grow_array (t->items, &t->aitems, t->count + 1,
                                       sizeof *ni);
      if (!ni)
        return NULL;
      t->items = ni;
    }
  e = malloc (sizeof *e + ((len + 3) & ~(size_t) 3) + 1);
  if (!e)
    return NULL;
  memset (e, 0, sizeof *e);
  e->hash = h;
  e->id = t->count;
  e->len = len;
  memcpy (e->key, key, len);
  ((char *) e->key)[len] = '\0';
  mask = t->size - 1;
  for (i = h & mask; t->slots[i]; i = (i + 1) & mask)
    ;
  t->slots[i] = e;
  t->items[t->count++] = e;
  *created = 1;
  return e;
}

static void
itab_free (struct itab *t)
{
  for (size_t i = 0; i < t->count; i++)
    {
      free (t->items[i]->str);
      free (t->items[i]);
    }
  free (t->items);
  free (t->slots);
  memset (t, 0, sizeof *t);
}

/* ===================================================================
   The profile.  */

/* Words of a path's key: the status, then per frame these.  */
#define PATH_FRAME_WORDS 6

struct cced_profile
{
  const struct cce_graph *g;
  struct itab paths;         /* key: incomplete, then the frames */
  struct itab samples;       /* key: thread, tag, path id; a: count,
                                b: value, str: the tag's name */
  int has_value;
  struct itab heap;          /* a heap profile's: key: kind (0 alloc, 1
                                free, 2 peak), 0, path id; a: count, b:
                                value, c: sampling period */
  uint32_t *key;             /* scratch */
  size_t akey;
};

struct cced_profile *
cced_profile_new (const struct cce_graph *g)
{
  struct cced_profile *p = calloc (1, sizeof *p);
  if (p)
    p->g = g;
  return p;
}

void
cced_profile_free (struct cced_profile *p)
{
  if (!p)
    return;
  itab_free (&p->paths);
  itab_free (&p->samples);
  itab_free (&p->heap);
  free (p->key);
  free (p);
}

/* Room for N words in p->key.  */
static int
key_room (struct cced_profile *p, size_t n)
{
  uint32_t *k;
  if (n <= p->akey)
    return 0;
  k = grow_array (p->key, &p->akey, n, sizeof *k);
  if (!k)
    return -1;
  p->key = k;
  return 0;
}

void
cced_profile_counts (const struct cced_profile *p, size_t *npaths,
                     size_t *nsamples)
{
  *npaths = p->paths.count;
  *nsamples = p->samples.count;
}

const void *
cced_profile_path (struct cced_profile *p, const struct cced_path *path)
{
  size_t n = 1 + path->nframes * PATH_FRAME_WORDS;
  uint32_t *k;
  int created;

  if (path->nframes > (SIZE_MAX / 4 - 1) / PATH_FRAME_WORDS
      || key_room (p, n) < 0)
    return NULL;
  k = p->key;
  *k++ = path->status != CCE_DECODE_OK;
  for (size_t i = 0; i < path->nframes; i++)
    {
      const struct cce_path_frame *f = &path->frames[i];
      *k++ = f->func;
      *k++ = f->ext_name;
      *k++ = f->file;
      *k++ = f->line;
      *k++ = f->col;
      *k++ = f->inlined != 0;
    }
  return itab_get (&p->paths, p->key, n * sizeof *k, &created);
}

int
cced_profile_add (struct cced_profile *p, const void *path, uint32_t thread,
                  uint32_t tag, const char *tagname, uint64_t count,
                  uint64_t value, int has_value)
{
  const struct ientry *pe = path;
  uint32_t key[4];
  struct ientry *e;
  int created;

  key[0] = thread;
  key[1] = tag;
  key[2] = (uint32_t) pe->id;
  key[3] = (uint32_t) ((uint64_t) pe->id >> 32);
  e = itab_get (&p->samples, key, sizeof key, &created);
  if (!e)
    return -1;
  if (created)
    {
      char num[24];
      if (!tagname)
        {
          snprintf (num, sizeof num, "%" PRIu32, tag);
          tagname = num;
        }
      if (!(e->str = strdup (tagname)))
        return -1;
    }
  e->a += count;
  if (has_value)
    {
      e->b += value;
      p->has_value = 1;
    }
  return 0;
}

int
cced_profile_add_heap (struct cced_profile *p, const void *path,
                       uint32_t tag, uint64_t count, uint64_t value,
                       uint64_t period)
{
  const struct ientry *pe = path;
  uint32_t key[4];
  struct ientry *e;
  int created;

  key[0] = tag - CCE_TAG_HEAP_ALLOC;
  key[1] = 0;
  key[2] = (uint32_t) pe->id;
  key[3] = (uint32_t) ((uint64_t) pe->id >> 32);
  e = itab_get (&p->heap, key, sizeof key, &created);
  if (!e)
    return -1;
  e->a += count;
  e->b += value;
  e->c = period;
  return 0;
}

double
cced_heap_scale (uint64_t count, uint64_t value, uint64_t period)
{
  if (!period || !count || !value)
    return 1.0;
  double avg = (double) value / (double) count;
  return 1.0 / -expm1 (-avg / (double) period);
}

/* Sample types of a heap profile: those of Go's and gperftools', then
   the peak.  */
#define HEAP_TYPES 6
static const char *const heap_types[HEAP_TYPES][2] = {
  { "alloc_objects", "count" }, { "alloc_space", "bytes" },
  { "inuse_objects", "count" }, { "inuse_space", "bytes" },
  { "peak_objects", "count" }, { "peak_space", "bytes" },
};

/* The values (heap_types) of the heap profile's path of the allocation
   entry A into V, weighted if sampled.  */
static void
heap_values (struct cced_profile *p, const struct ientry *a,
             uint64_t v[HEAP_TYPES])
{
  uint32_t key[4];
  const struct ientry *f, *pk;
  uint64_t c[3], b[3], period = a->c;
  int created;

  memcpy (key, a->key, sizeof key);
  key[0] = 1;
  f = itab_get (&p->heap, key, sizeof key, &created);
  key[0] = 2;
  pk = f ? itab_get (&p->heap, key, sizeof key, &created) : NULL;
  c[0] = a->a;
  b[0] = a->b;
  c[1] = f && f->a <= a->a ? a->a - f->a : 0;
  b[1] = f && f->b <= a->b ? a->b - f->b : 0;
  c[2] = pk ? pk->a : 0;
  b[2] = pk ? pk->b : 0;
  for (int i = 0; i < 3; i++)
    {
      double s = cced_heap_scale (c[i], b[i], period);
      v[2 * i] = (uint64_t) ((double) c[i] * s + 0.5);
      v[2 * i + 1] = (uint64_t) ((double) b[i] * s + 0.5);
    }
}

/* ===================================================================
   What the writers share: functions and strings.  */

struct writer
{
  struct cced_profile *p;
  struct itab strings;       /* pprof's string table */
  struct itab funcs;         /* key: kind, index; a: name, b: file, d:
                                system name (string ids), c: first line,
                                str: the name */
  int params;                /* names with C++ parameter lists */
  uint32_t *words;           /* scratch */
  size_t awords;
  int oom;
};

/* The id of the string S (LEN bytes) in W's string table.  */
static uint64_t
string_id (struct writer *w, const char *s, size_t len)
{
  int created;
  struct ientry *e = itab_get (&w->strings, s, len, &created);
  if (!e)
    {
      w->oom = 1;
      return 0;
    }
  return e->id;
}


/* The function of the frame F (NULL: the "[incomplete]" pseudo-frame)
   in W: its entry, made with its name, file and first line on first
   use; NULL when out of memory.  */
static struct ientry *
func_of (struct writer *w, const struct cce_path_frame *f)
{
  const struct cce_graph *g = w->p->g;
  uint32_t key[2];
  struct ientry *e;
  int created;

  if (!f)
    {
      key[0] = 2;
      key[1] = 0;
    }
  else if (f->func != CCE_NONE)
    {
      key[0] = 0;
      key[1] = f->func;
    }
  else
    {
      key[0] = 1;
      key[1] = f->ext_name;
    }
  e = itab_get (&w->funcs, key, sizeof key, &created);
  if (!e)
    {
      w->oom = 1;
      return NULL;
    }
  if (created)
    {
      const char *file = NULL;
      uint32_t line = 0;
      /* pprof's name has the parameter list of a C++ function, its
         system name the symbol.  */
      const char *raw = f ? cced_frame_name (g, f) : "[incomplete]";
      e->str = cced_display_name (raw, w->params);
      if (!e->str)
        {
          w->oom = 1;
          return NULL;
        }
      if (f && f->func != CCE_NONE && f->func < g->nfuncs)
        {
          file = graph_string (g, g->funcs[f->func].file);
          line = g->funcs[f->func].line;
          if (!file || !*file)
            file = f->file != CCE_NONE ? graph_string (g, f->file) : NULL;
        }
      e->a = string_id (w, e->str, strlen (e->str));
      e->d = raw && raw[0] == '_' && raw[1] == 'Z'
             ? string_id (w, raw, strlen (raw)) : e->a;
      e->b = file && *file ? string_id (w, file, strlen (file)) : 0;
      e->c = line;
    }
  return e;
}

/* The id of the path of the sample S.  */
static size_t
sample_path (const struct ientry *s)
{
  return (size_t) ((uint64_t) s->key[2] | (uint64_t) s->key[3] << 32);
}

/* The frames of the path PE: its status and frames, rebuilt from its
   key into FR (of PE's number of frames).  */
static size_t
path_frames (const struct ientry *pe, struct cce_path_frame *fr,
             int *incomplete)
{
  size_t n = (pe->len / sizeof (uint32_t) - 1) / PATH_FRAME_WORDS;
  const uint32_t *k = pe->key;
  *incomplete = *k++ != 0;
  for (size_t i = 0; i < n; i++)
    {
      fr[i].func = *k++;
      fr[i].ext_name = *k++;
      fr[i].file = *k++;
      fr[i].line = *k++;
      fr[i].col = *k++;
      fr[i].inlined = (int) *k++;
    }
  return n;
}

static size_t
path_nframes (const struct ientry *pe)
{
  return (pe->len / sizeof (uint32_t) - 1) / PATH_FRAME_WORDS;
}

static void
writer_free (struct writer *w)
{
  itab_free (&w->strings);
  itab_free (&w->funcs);
  free (w->words);
}

/* The largest number of frames of a path of P.  */
static size_t
max_frames (const struct cced_profile *p)
{
  size_t m = 0;
  for (size_t i = 0; i < p->paths.count; i++)
    {
      size_t n = path_nframes (p->paths.items[i]);
      if (n > m)
        m = n;
    }
  return m;
}

/* ===================================================================
   pprof: profile.proto.  */

/* Field numbers of profile.proto.  */
enum
{
  PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3,
  PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6,
  PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
  PROFILE_DEFAULT_SAMPLE_TYPE = 14,
  VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
  SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
  LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3,
  MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
  MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
  MAPPING_HAS_INLINE_FRAMES = 10,
  LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_LINE = 4,
  LINE_FUNCTION_ID = 1, LINE_LINE = 2,
  FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3,
  FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5
};

/* Append to the words of LOC (of *NLOC, *ALOC allocated) the location ids
   of the path PE, leaf first, making its locations in LOCS and its
   functions in W.  FR has room for the path's frames.  */
static int
path_locations (struct writer *w, struct itab *locs, const struct ientry *pe,
                struct cce_path_frame *fr, uint64_t **loc, size_t *nloc,
                size_t *aloc)
{
  int incomplete;
  size_t n = path_frames (pe, fr, &incomplete);
  size_t end = n;

  *nloc = 0;
  if (key_room (w->p, 2 * (n + 1)) < 0)
    return -1;
  /* Groups of frames, from the leaf: a frame that was not inlined into
     its caller and the frames inlined into it.  */
  while (end > 0 || incomplete)
    {
      size_t start = end, nw = 0;
      struct ientry *le;
      int created;

      if (end > 0)
        {
          start = end - 1;
          while (start > 0 && fr[start].inlined)
            start--;
          for (size_t i = end; i-- > start;)
            {
              struct ientry *fe = func_of (w, &fr[i]);
              if (!fe)
                return -1;
              w->p->key[nw++] = (uint32_t) fe->id;
              w->p->key[nw++] = fr[i].line;
            }
        }
      else
        {
          struct ientry *fe = func_of (w, NULL);
          if (!fe)
            return -1;
          w->p->key[nw++] = (uint32_t) fe->id;
          w->p->key[nw++] = 0;
          incomplete = 0;
        }
      le = itab_get (locs, w->p->key, nw * sizeof (uint32_t), &created);
      if (!le)
        return -1;
      if (*nloc == *aloc)
        {
          uint64_t *nl = grow_array (*loc, aloc, *nloc + 1, sizeof *nl);
          if (!nl)
            return -1;
          *loc = nl;
        }
      (*loc)[(*nloc)++] = le->id + 1;
      end = start;
    }
  return 0;
}

/* Compress the N bytes at BUF with gzip to WRITE (CTX).  */
static int
gzip_out (const unsigned char *buf, size_t n, cced_write_fn *write,
          void *ctx)
{
  unsigned char out[16384];
  z_stream z;
  int r;

  memset (&z, 0, sizeof z);
  if (deflateInit2 (&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                    Z_DEFAULT_STRATEGY) != Z_OK)
    return -1;
  z.next_in = (unsigned char *) buf;
  do
    {
      size_t chunk = n > (1u << 30) ? (1u << 30) : n;
      int flush;
      z.avail_in = (uInt) chunk;
      n -= chunk;
      flush = n ? Z_NO_FLUSH : Z_FINISH;
      do
        {
          z.next_out = out;
          z.avail_out = sizeof out;
          r = deflate (&z, flush);
          if (r == Z_STREAM_ERROR)
            {
              deflateEnd (&z);
              return -1;
            }
          write (ctx, out, sizeof out - z.avail_out);
        }
      while (z.avail_out == 0);
    }
  while (n);
  deflateEnd (&z);
  return r == Z_STREAM_END ? 0 : -1;
}

int
cced_profile_pprof (struct cced_profile *p, const char *name,
                    char *const *comments, size_t ncomments,
                    cced_write_fn *write, void *ctx, struct cced_error *err)
{
  struct writer w;
  struct itab locs, merged;
  struct cced_pbuf out, m, sub;
  struct cce_path_frame *fr = NULL;
  uint64_t **plocs = NULL;   /* location ids of each path, leaf first */
  size_t *nplocs = NULL;
  uint64_t *loc = NULL;
  size_t nloc = 0, aloc = 0;
  uint64_t s_thread, s_tag;
  int r = -1, heap = p->heap.count > 0;
  uint64_t (*hv)[HEAP_TYPES] = NULL;   /* a heap profile's values */
  size_t ahv = 0;
  uint64_t period = 1;

  memset (&w, 0, sizeof w);
  memset (&locs, 0, sizeof locs);
  memset (&merged, 0, sizeof merged);
  memset (&out, 0, sizeof out);
  memset (&m, 0, sizeof m);
  memset (&sub, 0, sizeof sub);
  w.p = p;
  w.params = 1;

  string_id (&w, "", 0);
  /* Sample types: a heap profile's, or events, and the sum of values
     where records have them.  */
  m.n = 0;
  if (heap)
    for (int i = 0; i < HEAP_TYPES; i++)
      {
        m.n = 0;
        cced_pb_uint (&m, VALUETYPE_TYPE,
                      string_id (&w, heap_types[i][0],
                                 strlen (heap_types[i][0])));
        cced_pb_uint (&m, VALUETYPE_UNIT,
                      string_id (&w, heap_types[i][1],
                                 strlen (heap_types[i][1])));
        cced_pb_message (&out, PROFILE_SAMPLE_TYPE, &m);
      }
  else
    {
      cced_pb_uint (&m, VALUETYPE_TYPE, string_id (&w, "events", 6));
      cced_pb_uint (&m, VALUETYPE_UNIT, string_id (&w, "count", 5));
      cced_pb_message (&out, PROFILE_SAMPLE_TYPE, &m);
    }
  if (p->has_value && !heap)
    {
      m.n = 0;
      cced_pb_uint (&m, VALUETYPE_TYPE, string_id (&w, "space", 5));
      cced_pb_uint (&m, VALUETYPE_UNIT, string_id (&w, "bytes", 5));
      cced_pb_message (&out, PROFILE_SAMPLE_TYPE, &m);
    }
  s_thread = string_id (&w, "thread", 6);
  s_tag = string_id (&w, "tag", 3);

  /* The locations of the paths.  */
  fr = malloc ((max_frames (p) + 1) * sizeof *fr);
  plocs = calloc (p->paths.count + 1, sizeof *plocs);
  nplocs = calloc (p->paths.count + 1, sizeof *nplocs);
  if (!fr || !plocs || !nplocs)
    goto done;
  for (size_t i = 0; i < p->paths.count; i++)
    {
      if (path_locations (&w, &locs, p->paths.items[i], fr, &loc, &nloc,
                          &aloc) < 0)
        goto done;
      if (nloc && !(plocs[i] = malloc (nloc * sizeof *loc)))
        goto done;
      if (nloc)
        memcpy (plocs[i], loc, nloc * sizeof *loc);
      nplocs[i] = nloc;
    }

  /* A heap profile's samples: one per Location list, whatever the
     thread.  */
  for (size_t i = 0; heap && i < p->heap.count; i++)
    {
      const struct ientry *s = p->heap.items[i];
      size_t path = sample_path (s);
      struct ientry *e;
      uint64_t v[HEAP_TYPES];
      int created;
      if (s->key[0] != 0)
        continue;
      heap_values (p, s, v);
      if (period == 1 && s->c)
        period = s->c;
      if (key_room (p, nplocs[path] + 1) < 0)
        goto done;
      for (size_t k = 0; k < nplocs[path]; k++)
        p->key[k] = (uint32_t) plocs[path][k];
      if (!(e = itab_get (&merged, p->key, nplocs[path] * sizeof *p->key,
                          &created)))
        goto done;
      if (created)
        {
          if (merged.count > ahv)
            {
              uint64_t (*n)[HEAP_TYPES] = grow_array (hv, &ahv, merged.count,
                                                      sizeof *hv);
              if (!n)
                goto done;
              hv = n;
            }
          memset (hv[e->id], 0, sizeof *hv);
        }
      for (int k = 0; k < HEAP_TYPES; k++)
        hv[e->id][k] += v[k];
    }
  for (size_t i = 0; heap && i < merged.count; i++)
    {
      const struct ientry *s = merged.items[i];
      size_t nw = s->len / sizeof *s->key;
      m.n = 0;
      if (nw > aloc)
        {
          uint64_t *nl = grow_array (loc, &aloc, nw, sizeof *nl);
          if (!nl)
            goto done;
          loc = nl;
        }
      for (size_t k = 0; k < nw; k++)
        loc[k] = s->key[k];
      cced_pb_packed (&m, SAMPLE_LOCATION_ID, loc, nw);
      cced_pb_packed (&m, SAMPLE_VALUE, hv[s->id], HEAP_TYPES);
      cced_pb_message (&out, PROFILE_SAMPLE, &m);
    }

  /* Samples: those of paths that differ only where a Location does not
   tell (columns) are one.  Key: thread, tag's name, locations.  */
  for (size_t i = 0; !heap && i < p->samples.count; i++)
    {
      const struct ientry *s = p->samples.items[i];
      size_t path = sample_path (s), nw = 0;
      struct ientry *e;
      int created;
      if (s->a == 0 || key_room (p, 2 + nplocs[path]) < 0)
        {
          if (s->a == 0)
            continue;
          goto done;
        }
      p->key[nw++] = s->key[0];
      p->key[nw++] = (uint32_t) string_id (&w, s->str, strlen (s->str));
      for (size_t k = 0; k < nplocs[path]; k++)
        p->key[nw++] = (uint32_t) plocs[path][k];
      if (!(e = itab_get (&merged, p->key, nw * sizeof *p->key, &created)))
        goto done;
      e->a += s->a;
      e->b += s->b;
    }
  for (size_t i = 0; !heap && i < merged.count; i++)
    {
      const struct ientry *s = merged.items[i];
      size_t nw = s->len / sizeof *s->key;
      uint64_t v[2];
      m.n = 0;
      if (nw - 2 > aloc)
        {
          uint64_t *nl = grow_array (loc, &aloc, nw - 2, sizeof *nl);
          if (!nl)
            goto done;
          loc = nl;
        }
      for (size_t k = 2; k < nw; k++)
        loc[k - 2] = s->key[k];
      cced_pb_packed (&m, SAMPLE_LOCATION_ID, loc, nw - 2);
      v[0] = s->a;
      v[1] = s->b;
      cced_pb_packed (&m, SAMPLE_VALUE, v, p->has_value ? 2 : 1);
      sub.n = 0;
      cced_pb_uint (&sub, LABEL_KEY, s_thread);
      cced_pb_uint (&sub, LABEL_NUM, s->key[0]);
      cced_pb_message (&m, SAMPLE_LABEL, &sub);
      sub.n = 0;
      cced_pb_uint (&sub, LABEL_KEY, s_tag);
      cced_pb_uint (&sub, LABEL_STR, s->key[1]);
      cced_pb_message (&m, SAMPLE_LABEL, &sub);
      cced_pb_message (&out, PROFILE_SAMPLE, &m);
    }

  /* One mapping, the program, whose locations are all symbolized.  */
  m.n = 0;
  cced_pb_uint (&m, MAPPING_ID, 1);
  cced_pb_uint (&m, MAPPING_FILENAME, string_id (&w, name, strlen (name)));
  cced_pb_uint (&m, MAPPING_HAS_FUNCTIONS, 1);
  cced_pb_uint (&m, MAPPING_HAS_FILENAMES, 1);
  cced_pb_uint (&m, MAPPING_HAS_LINE_NUMBERS, 1);
  cced_pb_uint (&m, MAPPING_HAS_INLINE_FRAMES, 1);
  cced_pb_message (&out, PROFILE_MAPPING, &m);

  /* Locations: their lines go innermost first.  */
  for (size_t i = 0; i < locs.count; i++)
    {
      const struct ientry *l = locs.items[i];
      size_t nw = l->len / sizeof (uint32_t);
      m.n = 0;
      cced_pb_uint (&m, LOCATION_ID, l->id + 1);
      cced_pb_uint (&m, LOCATION_MAPPING_ID, 1);
      for (size_t k = 0; k + 1 < nw; k += 2)
        {
          sub.n = 0;
          cced_pb_uint (&sub, LINE_FUNCTION_ID, (uint64_t) l->key[k] + 1);
          if (l->key[k + 1])
            cced_pb_int (&sub, LINE_LINE, l->key[k + 1]);
          cced_pb_message (&m, LOCATION_LINE, &sub);
        }
      cced_pb_message (&out, PROFILE_LOCATION, &m);
    }

  /* Functions.  */
  for (size_t i = 0; i < w.funcs.count; i++)
    {
      const struct ientry *f = w.funcs.items[i];
      m.n = 0;
      cced_pb_uint (&m, FUNCTION_ID, f->id + 1);
      cced_pb_uint (&m, FUNCTION_NAME, f->a);
      cced_pb_uint (&m, FUNCTION_SYSTEM_NAME, f->d);
      if (f->b)
        cced_pb_uint (&m, FUNCTION_FILENAME, f->b);
      if (f->c)
        cced_pb_int (&m, FUNCTION_START_LINE, (int64_t) f->c);
      cced_pb_message (&out, PROFILE_FUNCTION, &m);
    }

  for (size_t i = 0; i < ncomments; i++)
    cced_pb_uint (&out, PROFILE_COMMENT,
                  string_id (&w, comments[i], strlen (comments[i])));
  if (heap)
    {
      /* The period: the sampling interval in bytes (1: every
         allocation); what pprof shows first: the bytes live at the
         end.  */
      m.n = 0;
      cced_pb_uint (&m, VALUETYPE_TYPE, string_id (&w, "space", 5));
      cced_pb_uint (&m, VALUETYPE_UNIT, string_id (&w, "bytes", 5));
      cced_pb_message (&out, PROFILE_PERIOD_TYPE, &m);
      cced_pb_uint (&out, PROFILE_PERIOD, period);
      cced_pb_uint (&out, PROFILE_DEFAULT_SAMPLE_TYPE,
                    string_id (&w, "inuse_space", 11));
    }
  else
    {
      /* The period: one event.  */
      m.n = 0;
      cced_pb_uint (&m, VALUETYPE_TYPE, string_id (&w, "events", 6));
      cced_pb_uint (&m, VALUETYPE_UNIT, string_id (&w, "count", 5));
      cced_pb_message (&out, PROFILE_PERIOD_TYPE, &m);
      cced_pb_uint (&out, PROFILE_PERIOD, 1);
      /* What pprof shows first: the events (not the last type, its
         default).  */
      cced_pb_uint (&out, PROFILE_DEFAULT_SAMPLE_TYPE,
                    string_id (&w, "events", 6));
    }

  /* The string table, last: every string is known now.  */
  for (size_t i = 0; i < w.strings.count && !w.oom; i++)
    cced_pb_bytes (&out, PROFILE_STRING_TABLE, w.strings.items[i]->key,
                   w.strings.items[i]->len);

  if (w.oom || out.oom || m.oom || sub.oom)
    goto done;
  if (gzip_out (out.p, out.n, write, ctx) < 0)
    goto done;
  r = 0;

 done:
  if (r < 0)
    nomem (err);
  if (plocs)
    for (size_t i = 0; i < p->paths.count; i++)
      free (plocs[i]);
  free (plocs);
  free (nplocs);
  free (loc);
  free (fr);
  free (hv);
  itab_free (&locs);
  itab_free (&merged);
  cced_pb_free (&out);
  cced_pb_free (&m);
  cced_pb_free (&sub);
  writer_free (&w);
  return r;
}

/* ===================================================================
   speedscope: its JSON file format.  */

/* Append S as a JSON string to B: quoted, escaped, and with the bytes of
   invalid UTF-8 replaced by U+FFFD.  */
static void
json_string (struct cced_pbuf *b, const char *s)
{
  const unsigned char *u = (const unsigned char *) s;
  cced_pb_raw (b, "\"", 1);
  while (*u)
    {
      unsigned char c = *u;
      size_t len = 0;
      if (c == '"' || c == '\\')
        {
          char esc[2] = { '\\', (char) c };
          cced_pb_raw (b, esc, 2);
          u++;
          continue;
        }
      if (c < 0x20 || c == 0x7f)
        {
          char esc[8];
          snprintf (esc, sizeof esc, "\\u%04x", c);
          cced_pb_raw (b, esc, 6);
          u++;
          continue;
        }
      if (c < 0x80)
        len = 1;
      else if (c >= 0xc2 && c <= 0xdf)
        len = 2;
      else if (c >= 0xe0 && c <= 0xef)
        len = 3;
      else if (c >= 0xf0 && c <= 0xf4)
        len = 4;
      /* A well-formed sequence: continuation bytes, no overlong form,
         no surrogate, nothing above U+10FFFF.  */
      for (size_t k = 1; k < len; k++)
        if ((u[k] & 0xc0) != 0x80)
          len = 0;
      if (len == 3
          && ((c == 0xe0 && u[1] < 0xa0) || (c == 0xed && u[1] >= 0xa0)))
        len = 0;
      if (len == 4
          && ((c == 0xf0 && u[1] < 0x90) || (c == 0xf4 && u[1] >= 0x90)))
        len = 0;
      if (len == 0)
        {
          cced_pb_raw (b, "\\ufffd", 6);
          u++;
        }
      else
        {
          cced_pb_raw (b, u, len);
          u += len;
        }
    }
  cced_pb_raw (b, "\"", 1);
}

static void
json_u64 (struct cced_pbuf *b, uint64_t v)
{
  char num[24];
  int n = snprintf (num, sizeof num, "%" PRIu64, v);
  cced_pb_raw (b, num, (size_t) n);
}

static void
json_lit (struct cced_pbuf *b, const char *s)
{
  cced_pb_raw (b, s, strlen (s));
}

/* Samples in the order of their threads, then of their first record.  */
static int
sample_cmp (const void *x, const void *y)
{
  const struct ientry *a = *(const struct ientry *const *) x;
  const struct ientry *b = *(const struct ientry *const *) y;
  if (a->key[0] != b->key[0])
    return a->key[0] < b->key[0] ? -1 : 1;
  return a->id < b->id ? -1 : a->id > b->id;
}

/* Merge the samples V[0..N-1] (of one thread) into M, keyed by their
   frames (W's functions, root first): a counts, b values.  FR has room
   for the frames of any path.  */
static int
speedscope_merge (struct writer *w, struct itab *m, struct ientry *const *v,
                  size_t n, struct cce_path_frame *fr)
{
  struct cced_profile *p = w->p;
  for (size_t i = 0; i < n; i++)
    {
      const struct ientry *pe = p->paths.items[sample_path (v[i])];
      int incomplete, created;
      size_t nf = path_frames (pe, fr, &incomplete), nw = 0;
      struct ientry *e;

      if (key_room (p, nf + 1) < 0)
        return -1;
      if (incomplete)
        {
          struct ientry *fe = func_of (w, NULL);
          if (!fe)
            return -1;
          p->key[nw++] = (uint32_t) fe->id;
        }
      for (size_t k = 0; k < nf; k++)
        {
          struct ientry *fe = func_of (w, &fr[k]);
          if (!fe)
            return -1;
          p->key[nw++] = (uint32_t) fe->id;
        }
      if (!(e = itab_get (m, p->key, nw * sizeof *p->key, &created)))
        return -1;
      e->a += v[i]->a;
      e->b += v[i]->b;
    }
  return 0;
}

/* The profile named NAME of the merged samples M of one thread, of unit
   UNIT: their values with BYTES, else their counts.  */
static void
speedscope_profile (struct cced_pbuf *b, const struct itab *m,
                    const char *name, const char *unit, int bytes)
{
  uint64_t total = 0;
  int first = 1;

  for (size_t i = 0; i < m->count; i++)
    total += bytes ? m->items[i]->b : m->items[i]->a;
  json_lit (b, "    {\"type\": \"sampled\", \"name\": ");
  json_string (b, name);
  json_lit (b, ", \"unit\": ");
  json_string (b, unit);
  json_lit (b, ", \"startValue\": 0, \"endValue\": ");
  json_u64 (b, total);
  json_lit (b, ",\n     \"samples\": [");
  for (size_t i = 0; i < m->count; i++)
    {
      const struct ientry *s = m->items[i];
      size_t nw = s->len / sizeof *s->key;
      if ((bytes ? s->b : s->a) == 0)
        continue;
      json_lit (b, first ? "\n      [" : ",\n      [");
      first = 0;
      for (size_t k = 0; k < nw; k++)
        {
          if (k)
            json_lit (b, ", ");
          json_u64 (b, s->key[k]);
        }
      json_lit (b, "]");
    }
  json_lit (b, "],\n     \"weights\": [");
  first = 1;
  for (size_t i = 0; i < m->count; i++)
    {
      uint64_t x = bytes ? m->items[i]->b : m->items[i]->a;
      if (x == 0)
        continue;
      if (!first)
        json_lit (b, ", ");
      first = 0;
      json_u64 (b, x);
    }
  json_lit (b, "]}");
}

int
cced_profile_speedscope (struct cced_profile *p, const char *name,
                         cced_write_fn *write, void *ctx,
                         struct cced_error *err)
{
  struct writer w;
  struct itab merged;
  struct cced_pbuf profiles, out;
  struct cce_path_frame *fr = NULL;
  struct ientry **v = NULL;
  const char *base = strrchr (name, '/');
  int r = -1, nprof = 0;

  memset (&w, 0, sizeof w);
  memset (&merged, 0, sizeof merged);
  memset (&profiles, 0, sizeof profiles);
  memset (&out, 0, sizeof out);
  w.p = p;
  base = base && base[1] ? base + 1 : name;

  fr = malloc ((max_frames (p) + 1) * sizeof *fr);
  v = malloc ((p->samples.count + 1) * sizeof *v);
  if (!fr || !v)
    goto done;
  if (p->samples.count)
    memcpy (v, p->samples.items, p->samples.count * sizeof *v);
  qsort (v, p->samples.count, sizeof *v, sample_cmp);

  /* A heap profile: the bytes live at the end and the bytes allocated,
     per path (the allocation entries, whose counts become the live
     bytes and values the bytes allocated).  */
  if (p->heap.count)
    {
      size_t n = 0;
      struct ientry **hv = realloc (v, (p->heap.count + 1) * sizeof *v);
      if (!hv)
        goto done;
      v = hv;
      for (size_t i = 0; i < p->heap.count; i++)
        if (p->heap.items[i]->key[0] == 0)
          v[n++] = p->heap.items[i];
      for (size_t i = 0; i < n; i++)
        {
          uint64_t x[HEAP_TYPES];
          heap_values (p, v[i], x);
          v[i]->a = x[3];
          v[i]->b = x[1];
        }
      if (speedscope_merge (&w, &merged, v, n, fr) < 0)
        goto done;
      json_lit (&profiles, "\n");
      speedscope_profile (&profiles, &merged, "inuse_space", "bytes", 0);
      json_lit (&profiles, ",\n");
      speedscope_profile (&profiles, &merged, "alloc_space", "bytes", 1);
      nprof = 2;
    }
  /* A profile of counts per thread, and one of values where the thread
     has them.  */
  for (size_t i = 0; !p->heap.count && i < p->samples.count;)
    {
      size_t j = i;
      uint64_t count = 0, value = 0;
      uint32_t thread = v[i]->key[0];
      char pname[64];
      while (j < p->samples.count && v[j]->key[0] == thread)
        {
          count += v[j]->a;
          value += v[j]->b;
          j++;
        }
      itab_free (&merged);
      if ((count || value)
          && speedscope_merge (&w, &merged, v + i, j - i, fr) < 0)
        goto done;
      if (count)
        {
          snprintf (pname, sizeof pname, "thread %" PRIu32, thread);
          json_lit (&profiles, nprof++ ? ",\n" : "\n");
          speedscope_profile (&profiles, &merged, pname, "none", 0);
        }
      if (value)
        {
          snprintf (pname, sizeof pname, "thread %" PRIu32 " bytes", thread);
          json_lit (&profiles, nprof++ ? ",\n" : "\n");
          speedscope_profile (&profiles, &merged, pname, "bytes", 1);
        }
      i = j;
    }

  json_lit (&out, "{\"$schema\": "
            "\"https://www.speedscope.app/file-format-schema.json\",\n"
            " \"name\": ");
  json_string (&out, base);
  json_lit (&out, ",\n \"exporter\": \"cce-decode " PACKAGE_VERSION "\",\n"
            " \"activeProfileIndex\": 0,\n"
            " \"shared\": {\"frames\": [");
  for (size_t i = 0; i < w.funcs.count; i++)
    {
      const struct ientry *f = w.funcs.items[i];
      json_lit (&out, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
      json_string (&out, f->str);
      if (f->b)
        {
          json_lit (&out, ", \"file\": ");
          json_string (&out, (const char *) w.strings.items[f->b]->key);
        }
      if (f->c)
        {
          json_lit (&out, ", \"line\": ");
          json_u64 (&out, f->c);
        }
      json_lit (&out, "}");
    }
  json_lit (&out, "]},\n \"profiles\": [");
  cced_pb_raw (&out, profiles.p, profiles.n);
  json_lit (&out, "]}\n");
  if (w.oom || profiles.oom || out.oom)
    goto done;
  write (ctx, out.p, out.n);
  r = 0;

 done:
  if (r < 0)
    nomem (err);
  free (fr);
  free (v);
  itab_free (&merged);
  cced_pb_free (&profiles);
  cced_pb_free (&out);
  writer_free (&w);
  return r;
}
