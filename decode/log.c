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
   Logs.  */

#define LOG_CHUNK (256 * 1024)
#define LOG_MAX_HEADER 65536

struct cced_log
{
  FILE *f;
  int own;                 /* close F */
  char *name;
  int swapped;
  uint64_t pid, stamp;

  unsigned char *buf;      /* buffered bytes of the file */
  size_t pos, end, cap;
  uint64_t buf_off;        /* offset of buf[0] in the file */
  int eof;

  struct cce_stack_entry *stack;   /* when a record cannot be used in
                                      place */
  size_t astack;

  uint64_t index;
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
          size_t ncap = l->cap ? 2 * l->cap : LOG_CHUNK;
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

static int
log_read_header (struct cced_log *l, const struct cced_program *prog,
                 struct cced_error *err)
{
  struct cce_log_header h;
  size_t have;
  uint32_t version, hsize;
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
    {
      if (have == 0)
        return seterr (err, CCED_E_LOG_HEADER, 0, "empty log (no header)");
      return seterr (err, CCED_E_LOG_HEADER, 0,
                     "truncated log header (%zu of %zu bytes)", have,
                     sizeof h);
    }
  memcpy (&h, l->buf + l->pos, sizeof h);
  version = h.version;
  hsize = h.header_size;
  if (version != CCE_LOG_VERSION && bswap32 (version) == CCE_LOG_VERSION)
    {
      l->swapped = 1;
      version = bswap32 (version);
      hsize = bswap32 (hsize);
      h.stamp = bswap64 (h.stamp);
      h.pid = bswap64 (h.pid);
    }
  if (version != CCE_LOG_VERSION)
    return seterr (err, CCED_E_LOG_VERSION, 0,
                   "unsupported log version %" PRIu32
                   " (expected %d)", version, CCE_LOG_VERSION);
  if (hsize < sizeof h || hsize > LOG_MAX_HEADER)
    return seterr (err, CCED_E_LOG_HEADER, 0,
                   "bad log header size %" PRIu32 " (expected %zu)", hsize,
                   sizeof h);
  r = log_need (l, hsize, err);
  if (r < 0)
    return -1;
  if (r == 0)
    return seterr (err, CCED_E_LOG_HEADER, 0,
                   "truncated log header (%zu of %" PRIu32 " bytes)",
                   l->end - l->pos, hsize);
  {
    /* The module table: NMODULES entries within the header.  */
    const unsigned char *q = l->buf + l->pos + sizeof h;
    const unsigned char *end = l->buf + l->pos + hsize;
    uint32_t nmod = l->swapped ? bswap32 (h.nmodules) : h.nmodules;
    if (nmod > (hsize - sizeof h) / sizeof (struct cce_log_module))
      return seterr (err, CCED_E_LOG_HEADER, 0,
                     "bad module table in the log header");
    if (nmod && !(l->modules = calloc (nmod, sizeof *l->modules)))
      return nomem (err);
    for (uint32_t i = 0; i < nmod; i++)
      {
        struct cce_log_module m;
        size_t padded;
        if ((size_t) (end - q) < sizeof m)
          return seterr (err, CCED_E_LOG_HEADER, 0,
                         "bad module table in the log header");
        memcpy (&m, q, sizeof m);
        if (l->swapped)
          m.pathlen = bswap32 (m.pathlen);
        q += sizeof m;
        padded = ((size_t) m.pathlen + 7) & ~(size_t) 7;
        if (m.pathlen == 0 || (size_t) (end - q) < padded)
          return seterr (err, CCED_E_LOG_HEADER, 0,
                         "bad module table in the log header");
        if (!(l->modules[i] = strndup ((const char *) q, m.pathlen)))
          return nomem (err);
        l->nmodules++;
        q += padded;
      }
  }
  l->pos += hsize;
  l->stamp = h.stamp;
  l->pid = h.pid;

  if (h.stamp == 0)
    return seterr (err, CCED_E_NO_STAMP, 0, NULL);
  if (h.stamp != prog->g->stamp)
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

int
cced_log_next (struct cced_log *l, struct cced_record *rec,
               struct cced_error *err)
{
  struct cce_log_record h;
  uint64_t offset;
  size_t total;
  const unsigned char *frames;
  int r;

  if (l->failed)
    {
      if (err)
        *err = l->sticky;
      return -1;
    }
  if (l->done)
    return 0;

  if (l->end - l->pos < sizeof h)
    {
      r = log_need (l, sizeof h, err);
      if (r < 0)
        return log_fail (l, err);
      if (r == 0)
        {
          if (l->end == l->pos)
            {
              l->done = 1;
              return 0;
            }
          seterr (err, CCED_E_TRUNCATED, 0,
                  "truncated record at offset %" PRIu64,
                  l->buf_off + l->pos);
          return log_fail (l, err);
        }
    }
  memcpy (&h, l->buf + l->pos, sizeof h);
  if (l->swapped)
    {
      h.thread = bswap32 (h.thread);
      h.tag = bswap32 (h.tag);
      h.site = bswap64 (h.site);
      h.id = bswap64 (h.id);
      h.nstack = bswap32 (h.nstack);
      h.module = bswap32 (h.module);
    }
  offset = l->buf_off + l->pos;
  if (h.nstack > CCED_MAX_NSTACK)
    {
      seterr (err, CCED_E_CORRUPT, 0,
              "corrupt record at offset %" PRIu64 " (%" PRIu32
              " ccStack entries)", offset, h.nstack);
      return log_fail (l, err);
    }
  total = sizeof h + (size_t) h.nstack * sizeof (struct cce_log_frame);
  if (l->end - l->pos < total)
    {
      r = log_need (l, total, err);
      if (r < 0)
        return log_fail (l, err);
      if (r == 0)
        {
          seterr (err, CCED_E_TRUNCATED, 0,
                  "truncated record at offset %" PRIu64, offset);
          return log_fail (l, err);
        }
    }

  frames = l->buf + l->pos + sizeof h;
  if (h.nstack == 0)
    rec->stack = NULL;
  else if (!l->swapped
           && ((uintptr_t) frames % _Alignof (struct cce_stack_entry)) == 0)
    rec->stack = (const struct cce_stack_entry *) (const void *) frames;
  else
    {
      if (h.nstack > l->astack)
        {
          size_t n = l->astack ? l->astack : 16;
          struct cce_stack_entry *s;
          while (n < h.nstack)
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
      memcpy (l->stack, frames, (size_t) h.nstack * sizeof *l->stack);
      if (l->swapped)
        for (uint32_t i = 0; i < h.nstack; i++)
          {
            l->stack[i].id = bswap64 (l->stack[i].id);
            l->stack[i].site = bswap64 (l->stack[i].site);
          }
      rec->stack = l->stack;
    }
  l->pos += total;
  rec->offset = offset;
  rec->index = ++l->index;
  rec->thread = h.thread;
  rec->tag = h.tag;
  rec->site = h.site;
  rec->id = h.id;
  rec->nstack = h.nstack;
  rec->module = h.module;
  return 1;
}
