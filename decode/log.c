/* log.c -- libccedecode: the reader of event logs (cce-format.h).
   Never prints, never exits: see decode.h.  */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1     /* strnlen, strdup, fileno */
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cce-abi.h"
#include "cce-format.h"
#include "cce-core.h"
#include "decode.h"
#include "decode-internal.h"

/* The log's frames are read as the core's stack entries.  */
_Static_assert (sizeof (struct cce_log_frame)
                == sizeof (struct cce_stack_entry), "frame layout");
_Static_assert (offsetof (struct cce_log_frame, id)
                == offsetof (struct cce_stack_entry, id), "frame layout");
_Static_assert (offsetof (struct cce_log_frame, site)
                == offsetof (struct cce_stack_entry, site), "frame layout");

/* ===================================================================
   Logs.

   The reader goes through the file once, in order, so that it reads a
   pipe as well as a file.  A log with chunks is read span by span: at a
   chunk boundary, a span header or a chunk that starts with 0 (unused,
   skipped); in a span, its records until one whose mark is 0, then the
   rest of the span, whose bytes tell whether that last one was torn.  */

/* The first size of the buffer.  The fuzz target (testsuite/logfuzz)
   builds the reader with a tiny one, so that records cross its end.  */
#ifndef LOG_BUFSIZE
#define LOG_BUFSIZE (256 * 1024)
#endif
/* The longest path of the module table: a longer one is damage.  */
#define LOG_MAX_PATH 65536

struct cced_log
{
  FILE *f;
  int own;                 /* close F */
  char *name;
  int swapped;
  uint32_t version;        /* 3 or 4 (CCE_LOG_VERSION_MIN ..) */
  uint64_t pid, stamp;
  uint32_t chunk_size;     /* 0: records back to back */

  unsigned char *buf;      /* buffered bytes of the file */
  size_t pos, end, cap;
  uint64_t buf_off;        /* offset of buf[0] in the file */
  int eof;

  int in_span;             /* between a span header and the span's end */
  uint64_t span_off;       /* the span's offset */
  uint64_t span_end;       /* the offset of its end */
  uint32_t span_thread;
  int span_table;          /* the span is a table's (entries) */
  int span_heap;           /* the span is a heap profile's */
  uint32_t span_period;    /* a heap span's sampling interval */

  struct cce_stack_entry *stack;   /* when a record cannot be used in
                                      place */
  size_t astack;

  struct cced_log_stats stats;
  int done;
  int failed;
  struct cced_error sticky;

  char **modules;          /* paths of the header's module table */
  size_t nmodules;
};

static inline uint32_t
bswap32 (uint32_t x)
{
  return __builtin_bswap32 (x);
}

static inline uint64_t
bswap64 (uint64_t x)
{
  return __builtin_bswap64 (x);
}

/* The file offset the reader is at.  */
static inline uint64_t
log_offset (const struct cced_log *l)
{
  return l->buf_off + l->pos;
}

/* Make sure N bytes are buffered at POS.  Returns 1, 0 if the file ends
   first (what there is stays buffered), -1 on error.  The buffer only
   grows while data arrives, so a corrupt length cannot make it huge.  */
static int
log_need (struct cced_log *l, size_t n, struct cced_error *err)
{
  while (l->end - l->pos < n)
    {
      size_t got, want;
      if (l->eof)
        return 0;
      if (l->pos > 0)
        {
          memmove (l->buf, l->buf + l->pos, l->end - l->pos);
          l->buf_off += l->pos;
          l->end -= l->pos;
          l->pos = 0;
        }
      if (l->end == l->cap)
        {
          size_t ncap = l->cap ? 2 * l->cap : LOG_BUFSIZE;
          unsigned char *nb;
          if (ncap < l->cap || !(nb = realloc (l->buf, ncap)))
            return nomem (err);
          l->buf = nb;
          l->cap = ncap;
        }
      want = l->cap - l->end;
      errno = 0;
      got = fread (l->buf + l->end, 1, want, l->f);
      l->end += got;
      if (got < want)
        {
          if (ferror (l->f))
            {
              int e = errno ? errno : EIO;
              return seterr (err, CCED_E_READ, e, "read error: %s",
                             strerror (e));
            }
          if (feof (l->f))
            l->eof = 1;
        }
    }
  return 1;
}

/* Whether the N bytes at P are all 0.  */
static int
all_zero (const unsigned char *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (p[i])
      return 0;
  return 1;
}

/* Go past N bytes, without keeping them; set *NONZERO (if not NULL)
   when one of them is not 0.  Returns 1, 0 if the file ends first (at
   its end), -1 on error.  */
static int
log_skip (struct cced_log *l, uint64_t n, int *nonzero,
          struct cced_error *err)
{
  while (n > 0)
    {
      size_t k;
      if (l->end == l->pos)
        {
          int r = log_need (l, 1, err);
          if (r <= 0)
            return r;
        }
      k = l->end - l->pos;
      if (k > n)
        k = (size_t) n;
      if (nonzero && !*nonzero && !all_zero (l->buf + l->pos, k))
        *nonzero = 1;
      l->pos += k;
      n -= k;
    }
  return 1;
}

/* The header's error of a file that ends at offset HAVE, inside the
   header of WANT bytes.  */
static int
log_header_truncated (uint64_t have, uint64_t want, struct cced_error *err)
{
  if (have == 0)
    return seterr (err, CCED_E_LOG_HEADER, 0, "empty log (no header)");
  return seterr (err, CCED_E_LOG_HEADER, 0,
                 "truncated log header (%" PRIu64 " of %" PRIu64 " bytes)",
                 have, want);
}

static int
log_bad_table (struct cced_error *err)
{
  return seterr (err, CCED_E_LOG_HEADER, 0,
                 "bad module table in the log header");
}

/* Read the module table of NMOD entries, which starts at the reader's
   offset, inside the header of HSIZE bytes.  */
static int
log_read_modules (struct cced_log *l, uint32_t nmod, uint32_t hsize,
                  struct cced_error *err)
{
  size_t amod = 0;

  for (uint32_t i = 0; i < nmod; i++)
    {
      struct cce_log_module m;
      uint64_t left = hsize - log_offset (l);
      size_t padded;
      int r;
      if (left < sizeof m)
        return log_bad_table (err);
      r = log_need (l, sizeof m, err);
      if (r <= 0)
        return r < 0 ? -1 : log_header_truncated (l->buf_off + l->end,
                                                   hsize, err);
      memcpy (&m, l->buf + l->pos, sizeof m);
      if (l->swapped)
        m.pathlen = bswap32 (m.pathlen);
      padded = ((size_t) m.pathlen + 7) & ~(size_t) 7;
      if (m.pathlen == 0 || m.pathlen > LOG_MAX_PATH
          || left - sizeof m < padded)
        return log_bad_table (err);
      r = log_need (l, sizeof m + padded, err);
      if (r <= 0)
        return r < 0 ? -1 : log_header_truncated (l->buf_off + l->end,
                                                   hsize, err);
      if (l->nmodules == amod)
        {
          char **nm = grow_array (l->modules, &amod, l->nmodules + 1,
                                  sizeof *l->modules);
          if (!nm)
            return nomem (err);
          l->modules = nm;
        }
      if (!(l->modules[l->nmodules]
            = strndup ((const char *) l->buf + l->pos + sizeof m,
                       m.pathlen)))
        return nomem (err);
      l->nmodules++;
      l->pos += sizeof m + padded;
    }
  return 0;
}

/* Is STAMP the stamp of one of the dictionaries of G's program file (of
   one of its LTRANS partitions: the log carries the first one's)?  */
static int
program_stamp_p (const struct cce_graph *g, uint64_t stamp)
{
  size_t i;

  if (g->nmodules == 0)
    return stamp == g->stamp;
  for (i = 0; i < g->nmodules; i++)
    if (g->modules[i].file == 0 && g->modules[i].stamp == stamp)
      return 1;
  return 0;
}

static int
log_read_header (struct cced_log *l, const struct cced_program *prog,
                 struct cced_error *err)
{
  struct cce_log_header h;
  size_t have;
  uint32_t version, hsize, nmod, csize;
  int r;

  r = log_need (l, sizeof h, err);
  if (r < 0)
    return -1;
  have = l->end - l->pos;
  /* Whatever there is must start with the magic.  */
  if (memcmp (l->buf + l->pos, CCE_LOG_MAGIC,
              have < sizeof h.magic ? have : sizeof h.magic) != 0)
    return seterr (err, CCED_E_LOG_MAGIC, 0, NULL);
  if (r == 0)
    return log_header_truncated (have, sizeof h, err);
  memcpy (&h, l->buf + l->pos, sizeof h);
  version = h.version;
  hsize = h.header_size;
  nmod = h.nmodules;
  csize = h.chunk_size;
  if ((version < CCE_LOG_VERSION_MIN || version > CCE_LOG_VERSION)
      && bswap32 (version) >= CCE_LOG_VERSION_MIN
      && bswap32 (version) <= CCE_LOG_VERSION)
    {
      l->swapped = 1;
      version = bswap32 (version);
      hsize = bswap32 (hsize);
      nmod = bswap32 (nmod);
      csize = bswap32 (csize);
      h.stamp = bswap64 (h.stamp);
      h.pid = bswap64 (h.pid);
    }
  /* A version of a log in the other byte order reads as a big number.  */
  if (version > 0xffff && bswap32 (version) <= 0xffff)
    version = bswap32 (version);
  if (version < CCE_LOG_VERSION_MIN || version > CCE_LOG_VERSION)
    return seterr (err, CCED_E_LOG_VERSION, 0,
                   "unsupported log version %" PRIu32
                   " (expected %d to %d)", version, CCE_LOG_VERSION_MIN,
                   CCE_LOG_VERSION);
  l->version = version;
  if (csize != 0 && (csize < 4096 || (csize & (csize - 1)) != 0))
    return seterr (err, CCED_E_LOG_HEADER, 0,
                   "bad chunk size %" PRIu32 " in the log header (expected"
                   " 0 or a power of two of at least 4096)", csize);
  if (hsize < sizeof h || hsize % 8 != 0
      || (csize != 0 && hsize % csize != 0))
    return seterr (err, CCED_E_LOG_HEADER, 0,
                   "bad log header size %" PRIu32 " (expected a multiple"
                   " of %" PRIu32 ", at least %zu)", hsize,
                   csize ? csize : 8, sizeof h);
  if (nmod > (hsize - sizeof h) / (2 * sizeof (struct cce_log_module)))
    return log_bad_table (err);
  l->chunk_size = csize;
  l->pos += sizeof h;
  if (log_read_modules (l, nmod, hsize, err) < 0)
    return -1;
  /* NULs up to HSIZE.  */
  r = log_skip (l, hsize - log_offset (l), NULL, err);
  if (r < 0)
    return -1;
  if (r == 0)
    return log_header_truncated (log_offset (l), hsize, err);
  l->stamp = h.stamp;
  l->pid = h.pid;

  if (h.stamp == 0)
    return seterr (err, CCED_E_NO_STAMP, 0, NULL);
  if (!program_stamp_p (prog->g, h.stamp))
    return seterr (err, CCED_E_STAMP, 0,
                   "log was written by a different build of %s", prog->name);
  return 0;
}

struct cced_log *
cced_log_fopen (FILE *f, const char *name, const struct cced_program *prog,
                struct cced_error *err)
{
  struct cced_log *l;

  clearerr_ (err);
  if (!f || !prog)
    {
      seterr (err, CCED_E_INVAL, EINVAL, "no log or no program");
      return NULL;
    }
  l = calloc (1, sizeof *l);
  if (!l || !(l->name = strdup (name ? name : "log")))
    {
      free (l);
      nomem (err);
      return NULL;
    }
  l->f = f;
  if (log_read_header (l, prog, err) < 0)
    {
      cced_log_close (l);
      return NULL;
    }
  return l;
}

struct cced_log *
cced_log_open (const char *path, const struct cced_program *prog,
               struct cced_error *err)
{
  struct cced_log *l;
  struct stat st;
  FILE *f;

  clearerr_ (err);
  if (!path)
    {
      seterr (err, CCED_E_INVAL, EINVAL, "no log");
      return NULL;
    }
  f = fopen (path, "rb");
  if (!f)
    {
      int e = errno;
      seterr (err, CCED_E_OPEN, e, "%s", strerror (e));
      return NULL;
    }
  if (fstat (fileno (f), &st) == 0 && S_ISDIR (st.st_mode))
    {
      seterr (err, CCED_E_OPEN, EISDIR, "%s", strerror (EISDIR));
      fclose (f);
      return NULL;
    }
  l = cced_log_fopen (f, path, prog, err);
  if (!l)
    {
      fclose (f);
      return NULL;
    }
  l->own = 1;
  return l;
}

void
cced_log_close (struct cced_log *l)
{
  if (!l)
    return;
  if (l->own && l->f)
    fclose (l->f);
  free (l->buf);
  free (l->stack);
  free (l->name);
  for (size_t i = 0; i < l->nmodules; i++)
    free (l->modules[i]);
  free (l->modules);
  free (l);
}

size_t
cced_log_nmodules (const struct cced_log *l)
{
  return l->nmodules;
}

const char *
cced_log_module (const struct cced_log *l, size_t i)
{
  return i < l->nmodules ? l->modules[i] : NULL;
}

uint64_t
cced_log_pid (const struct cced_log *l)
{
  return l->pid;
}

uint64_t
cced_log_stamp (const struct cced_log *l)
{
  return l->stamp;
}

int
cced_log_swapped (const struct cced_log *l)
{
  return l->swapped;
}

uint32_t
cced_log_chunk_size (const struct cced_log *l)
{
  return l->chunk_size;
}

void
cced_log_stats (const struct cced_log *l, struct cced_log_stats *stats)
{
  *stats = l->stats;
}

static int
log_fail (struct cced_log *l, struct cced_error *err)
{
  l->failed = 1;
  if (err)
    l->sticky = *err;
  else
    l->sticky.code = CCED_E_READ;
  return -1;
}

/* The log ends at the reader's offset, inside what started at START: a
   span (SPAN) or a chunk.  */
static int
log_truncated (struct cced_log *l, uint64_t start, int span,
               struct cced_error *err)
{
  seterr (err, CCED_E_TRUNCATED, 0,
          "truncated log: it ends at offset %" PRIu64 ", inside the %s"
          " at offset %" PRIu64, l->buf_off + l->end, span ? "span" : "chunk",
          start);
  return log_fail (l, err);
}

/* Buffer the N bytes of the next span header or record at POS.  Returns
   1; 0 at the end of the log (nothing left: the log is done); 2 if the
   log ends inside those N bytes; -1 on error (the log has failed).  */
static int
log_need_next (struct cced_log *l, size_t n, struct cced_error *err)
{
  int r = log_need (l, n, err);
  if (r < 0)
    return log_fail (l, err);
  if (r == 0 && l->end == l->pos)
    {
      l->done = 1;
      return 0;
    }
  return r == 0 ? 2 : 1;
}

/* Go to the next span: past the chunks that start with 0 to a span
   header, which is read.  Returns 1, 0 at the end of the log, -1 on
   error.  */
static int
log_next_span (struct cced_log *l, struct cced_error *err)
{
  for (;;)
    {
      struct cce_log_span s;
      uint64_t off = log_offset (l), extent;
      int r = log_need_next (l, sizeof s, err);
      if (r <= 0)
        return r;
      if (r == 2)
        return log_truncated (l, off, 0, err);
      memcpy (&s, l->buf + l->pos, sizeof s);
      if (l->swapped)
        {
          s.mark = bswap32 (s.mark);
          s.thread = bswap32 (s.thread);
          s.chunks = bswap32 (s.chunks);
          s.level = bswap32 (s.level);
        }
      if (s.mark == 0)
        {
          /* Not used: skipped, whatever it holds.  */
          int nonzero = 0;
          l->pos += sizeof s.mark;
          r = log_skip (l, l->chunk_size - sizeof s.mark, &nonzero, err);
          if (r < 0)
            return log_fail (l, err);
          if (r == 0)
            return log_truncated (l, off, 0, err);
          if (nonzero)
            l->stats.skipped_chunks++;
          else
            l->stats.unused_chunks++;
          continue;
        }
      if (s.mark != CCE_LOG_SPAN_MARK
          && !((s.mark == CCE_LOG_TABLE_MARK || s.mark == CCE_LOG_HEAP_MARK)
               && l->version >= 4))
        {
          seterr (err, CCED_E_CORRUPT, 0,
                  "corrupt log at offset %" PRIu64 " (a chunk that starts"
                  " with neither a span header nor 0)", off);
          return log_fail (l, err);
        }
      extent = (uint64_t) s.chunks * l->chunk_size;
      if (s.chunks == 0 || s.thread == 0 || extent > UINT64_MAX - off)
        {
          seterr (err, CCED_E_CORRUPT, 0,
                  "corrupt span header at offset %" PRIu64 " (thread %"
                  PRIu32 ", %" PRIu32 " chunks)", off, s.thread, s.chunks);
          return log_fail (l, err);
        }
      l->pos += sizeof s;
      l->in_span = 1;
      l->span_off = off;
      l->span_end = off + extent;
      l->span_thread = s.thread;
      l->span_table = s.mark == CCE_LOG_TABLE_MARK
                      || s.mark == CCE_LOG_HEAP_MARK;
      l->span_heap = s.mark == CCE_LOG_HEAP_MARK;
      l->span_period = l->span_heap ? s.level : 0;
      l->stats.spans++;
      if (s.mark == CCE_LOG_HEAP_MARK)
        l->stats.heap_spans++;
      else if (l->span_table)
        {
          l->stats.tables++;
          if (s.level > l->stats.counters)
            l->stats.counters = s.level;
        }
      return 1;
    }
}

/* Fill REC with the record of header H at the reader's offset, of TOTAL
   bytes, buffered, and go past it: a record (with a value word after H
   when H's mark is CCE_LOG_VALUE_MARK), or with ENTRY the table entry
   whose header is ENTRY.  */
static int
log_take_record (struct cced_log *l, const struct cce_log_record *h,
                 const struct cce_log_entry *entry, size_t total,
                 struct cced_record *rec, struct cced_error *err)
{
  int has_value = !entry && h->mark == CCE_LOG_VALUE_MARK;
  const unsigned char *frames = l->buf + l->pos
                                + (entry ? sizeof *entry : sizeof *h)
                                + (has_value ? sizeof (uint64_t) : 0);

  if (h->nstack == 0)
    rec->stack = NULL;
  else if (!l->swapped
           && ((uintptr_t) frames % _Alignof (struct cce_stack_entry)) == 0)
    rec->stack = (const struct cce_stack_entry *) (const void *) frames;
  else
    {
      if (h->nstack > l->astack)
        {
          size_t n = l->astack ? l->astack : 16;
          struct cce_stack_entry *s;
          while (n < h->nstack)
            n *= 2;
          s = realloc (l->stack, n * sizeof *s);
          if (!s)
            {
              nomem (err);
              return log_fail (l, err);
            }
          l->stack = s;
          l->astack = n;
        }
      memcpy (l->stack, frames, (size_t) h->nstack * sizeof *l->stack);
      if (l->swapped)
        for (uint32_t i = 0; i < h->nstack; i++)
          {
            l->stack[i].id = bswap64 (l->stack[i].id);
            l->stack[i].site = bswap64 (l->stack[i].site);
          }
      rec->stack = l->stack;
    }
  rec->offset = log_offset (l);
  rec->index = ++l->stats.records;
  rec->thread = h->thread;
  rec->tag = h->tag;
  rec->site = h->site;
  rec->id = h->id;
  rec->nstack = h->nstack;
  rec->module = h->site == CCE_SITE_NONE ? 0 : CCE_SITE_KEY (h->site);
  rec->count = 1;
  rec->value = 0;
  rec->flags = 0;
  rec->error = 0;
  rec->period = entry ? l->span_period : 0;
  if (has_value)
    {
      memcpy (&rec->value, l->buf + l->pos + sizeof *h, sizeof rec->value);
      if (l->swapped)
        rec->value = bswap64 (rec->value);
      rec->flags = CCED_RECORD_VALUE;
    }
  if (entry)
    {
      rec->count = entry->count;
      rec->error = entry->error;
      if (entry->flags & CCE_ENTRY_VALUE)
        {
          rec->value = entry->value;
          rec->flags = CCED_RECORD_VALUE;
        }
      l->stats.entries++;
      if (entry->error > l->stats.max_error)
        l->stats.max_error = entry->error;
    }
  l->stats.events += rec->count;
  l->pos += total;
  return 1;
}

/* The header of the record at the reader's offset, converted, from the
   buffer (its bytes are there).  */
static void
log_record_header (const struct cced_log *l, struct cce_log_record *h)
{
  memcpy (h, l->buf + l->pos, sizeof *h);
  if (l->swapped)
    {
      h->mark = bswap32 (h->mark);
      h->tag = bswap32 (h->tag);
      h->site = bswap64 (h->site);
      h->id = bswap64 (h->id);
      h->nstack = bswap32 (h->nstack);
      h->thread = bswap32 (h->thread);
    }
}

static int
log_bad_mark (struct cced_log *l, uint32_t mark, struct cced_error *err)
{
  seterr (err, CCED_E_CORRUPT, 0,
          "corrupt record at offset %" PRIu64 " (mark 0x%08" PRIx32 ")",
          log_offset (l), mark);
  return log_fail (l, err);
}

static int
log_bad_nstack (struct cced_log *l, uint32_t nstack, struct cced_error *err)
{
  seterr (err, CCED_E_CORRUPT, 0,
          "corrupt record at offset %" PRIu64 " (%" PRIu32
          " ccStack entries)", log_offset (l), nstack);
  return log_fail (l, err);
}

/* The next record of the span being read into REC.  Returns 1, 0 at the
   end of the span (the reader is then past it), -1 on error.  */
/* The end of what a span holds, LEFT bytes before its end: skip them,
   counting a torn record or entry if they are not all 0.  Returns 0, or
   -1 with the reader's error.  */
static int
log_span_end (struct cced_log *l, uint64_t left, struct cced_error *err)
{
  int nonzero = 0;
  int r = log_skip (l, left, &nonzero, err);
  if (r < 0)
    return log_fail (l, err);
  if (r == 0)
    return log_truncated (l, l->span_off, 1, err);
  if (nonzero)
    l->stats.torn++;
  return 0;
}

static int
log_span_record (struct cced_log *l, struct cced_record *rec,
                 struct cced_error *err)
{
  struct cce_log_record h;
  uint64_t left = l->span_end - log_offset (l);
  size_t total;
  uint32_t mark;
  int r;

  if (left == 0)
    return 0;
  r = log_need (l, left < sizeof h ? (size_t) left : sizeof h, err);
  if (r < 0)
    return log_fail (l, err);
  if (r == 0)
    return log_truncated (l, l->span_off, 1, err);
  memcpy (&mark, l->buf + l->pos, sizeof mark);
  if (l->swapped)
    mark = bswap32 (mark);
  if (mark == 0)
    {
      /* The end of the records: the rest of the span is 0, or a torn
         record.  */
      return log_span_end (l, left, err);
    }
  if (mark != CCE_LOG_RECORD_MARK
      && !(mark == CCE_LOG_VALUE_MARK && l->version >= 4))
    return log_bad_mark (l, mark, err);
  if (left < sizeof h)
    {
      seterr (err, CCED_E_CORRUPT, 0,
              "corrupt record at offset %" PRIu64 " (past the end of its"
              " span)", log_offset (l));
      return log_fail (l, err);
    }
  log_record_header (l, &h);
  if (h.nstack > CCED_MAX_NSTACK)
    return log_bad_nstack (l, h.nstack, err);
  total = sizeof h + (size_t) h.nstack * sizeof (struct cce_log_frame)
          + (mark == CCE_LOG_VALUE_MARK ? sizeof (uint64_t) : 0);
  if (total > left)
    {
      seterr (err, CCED_E_CORRUPT, 0,
              "corrupt record at offset %" PRIu64 " (%" PRIu32 " ccStack"
              " entries, past the end of its span)", log_offset (l),
              h.nstack);
      return log_fail (l, err);
    }
  if (h.thread != l->span_thread)
    {
      seterr (err, CCED_E_CORRUPT, 0,
              "corrupt record at offset %" PRIu64 " (thread %" PRIu32
              " in a span of thread %" PRIu32 ")", log_offset (l), h.thread,
              l->span_thread);
      return log_fail (l, err);
    }
  r = log_need (l, total, err);
  if (r < 0)
    return log_fail (l, err);
  if (r == 0)
    return log_truncated (l, l->span_off, 1, err);
  return log_take_record (l, &h, NULL, total, rec, err);
}

static int
log_bad_entry (struct cced_log *l, const char *what, struct cced_error *err)
{
  seterr (err, CCED_E_CORRUPT, 0,
          "corrupt table entry at offset %" PRIu64 " (%s)", log_offset (l),
          what);
  return log_fail (l, err);
}

/* The next valid entry of the table span being read into REC: past dead
   entries, and torn ones (counted).  Returns 1, 0 at the end of the span
   (the reader is then past it), -1 on error.  */
static int
log_span_entry (struct cced_log *l, struct cced_record *rec,
                struct cced_error *err)
{
  for (;;)
    {
      struct cce_log_entry e;
      struct cce_log_record h;
      uint64_t left = l->span_end - log_offset (l);
      uint32_t head[2];
      int r;

      if (left < sizeof head)
        {
          /* The span's last bytes: no room for an entry.  */
          int nonzero = 0;
          r = log_skip (l, left, &nonzero, err);
          if (r < 0)
            return log_fail (l, err);
          if (r == 0)
            return log_truncated (l, l->span_off, 1, err);
          if (nonzero)
            return log_bad_entry (l, "past the end of its span", err);
          return 0;
        }
      r = log_need (l, sizeof head, err);
      if (r < 0)
        return log_fail (l, err);
      if (r == 0)
        return log_truncated (l, l->span_off, 1, err);
      memcpy (head, l->buf + l->pos, sizeof head);
      if (l->swapped)
        {
          head[0] = bswap32 (head[0]);
          head[1] = bswap32 (head[1]);
        }
      if (head[1] == 0)
        {
          /* The end of the entries: the rest of the span is 0, or an
             entry torn before its size was stored.  */
          if (head[0] != 0)
            return log_bad_entry (l, "a mark without a size", err);
          return log_span_end (l, left, err);
        }
      if (head[1] < sizeof e || head[1] % 8 != 0 || head[1] > left)
        return log_bad_entry (l, "bad size", err);
      if (head[0] == 0 || head[0] == CCE_LOG_DEAD_MARK)
        {
          /* Torn (the process died while writing it), or holding
             nothing.  */
          if (head[0] == 0)
            l->stats.torn++;
          r = log_skip (l, head[1], NULL, err);
          if (r < 0)
            return log_fail (l, err);
          if (r == 0)
            return log_truncated (l, l->span_off, 1, err);
          continue;
        }
      if (head[0] != CCE_LOG_ENTRY_MARK)
        return log_bad_mark (l, head[0], err);
      r = log_need (l, head[1], err);
      if (r < 0)
        return log_fail (l, err);
      if (r == 0)
        return log_truncated (l, l->span_off, 1, err);
      memcpy (&e, l->buf + l->pos, sizeof e);
      if (l->swapped)
        {
          e.mark = head[0];
          e.size = head[1];
          e.tag = bswap32 (e.tag);
          e.nstack = bswap32 (e.nstack);
          e.site = bswap64 (e.site);
          e.id = bswap64 (e.id);
          e.count = bswap64 (e.count);
          e.value = bswap64 (e.value);
          e.error = bswap64 (e.error);
          e.flags = bswap32 (e.flags);
          e.thread = bswap32 (e.thread);
        }
      if (e.nstack > (e.size - sizeof e) / sizeof (struct cce_log_frame))
        return log_bad_entry (l, "more ccStack entries than room", err);
      if (e.thread != l->span_thread)
        return log_bad_entry (l, "not its span's thread", err);
      if (l->span_heap)
        {
          /* A heap profile's: no error; nothing to say if 0.  */
          if (e.error != 0 || !CCE_TAG_IS_HEAP (e.tag))
            return log_bad_entry (l, "impossible counts", err);
          if (e.count == 0)
            {
              r = log_skip (l, e.size, NULL, err);
              if (r < 0)
                return log_fail (l, err);
              if (r == 0)
                return log_truncated (l, l->span_off, 1, err);
              continue;
            }
        }
      else if (e.count == 0 || e.error >= e.count
               || (e.flags & ~(uint32_t) CCE_ENTRY_VALUE) != 0)
        return log_bad_entry (l, "impossible counts", err);
      h.mark = e.mark;
      h.tag = e.tag;
      h.site = e.site;
      h.id = e.id;
      h.nstack = e.nstack;
      h.thread = e.thread;
      return log_take_record (l, &h, &e, e.size, rec, err);
    }
}

/* The next record of a log without chunks into REC.  Returns 1, 0 at the
   end of the log, -1 on error.  */
static int
log_stream_record (struct cced_log *l, struct cced_record *rec,
                   struct cced_error *err)
{
  struct cce_log_record h;
  size_t total;
  int r;

  r = log_need_next (l, sizeof h, err);
  if (r <= 0)
    return r;
  if (r == 2)
    {
      seterr (err, CCED_E_TRUNCATED, 0,
              "truncated record at offset %" PRIu64, log_offset (l));
      return log_fail (l, err);
    }
  log_record_header (l, &h);
  if (h.mark != CCE_LOG_RECORD_MARK
      && !(h.mark == CCE_LOG_VALUE_MARK && l->version >= 4))
    return log_bad_mark (l, h.mark, err);
  if (h.nstack > CCED_MAX_NSTACK)
    return log_bad_nstack (l, h.nstack, err);
  total = sizeof h + (size_t) h.nstack * sizeof (struct cce_log_frame)
          + (h.mark == CCE_LOG_VALUE_MARK ? sizeof (uint64_t) : 0);
  r = log_need (l, total, err);
  if (r < 0)
    return log_fail (l, err);
  if (r == 0)
    {
      seterr (err, CCED_E_TRUNCATED, 0,
              "truncated record at offset %" PRIu64, log_offset (l));
      return log_fail (l, err);
    }
  return log_take_record (l, &h, NULL, total, rec, err);
}

int
cced_log_next (struct cced_log *l, struct cced_record *rec,
               struct cced_error *err)
{
  if (l->failed)
    {
      if (err)
        *err = l->sticky;
      return -1;
    }
  if (l->done)
    return 0;
  if (l->chunk_size == 0)
    return log_stream_record (l, rec, err);
  for (;;)
    {
      int r;
      if (!l->in_span)
        {
          r = log_next_span (l, err);
          if (r <= 0)
            return r;
        }
      r = l->span_table ? log_span_entry (l, rec, err)
                        : log_span_record (l, rec, err);
      if (r != 0)
        return r;
      l->in_span = 0;
    }
}
