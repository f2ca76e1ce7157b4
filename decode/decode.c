/* decode.c -- libccedecode: dictionary and log readers, record decoding
   and output formats of cce-decode.  Never prints, never exits: see
   decode.h.  */

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

#include <gelf.h>
#include <libelf.h>

#include "cce-abi.h"
#include "cce-format.h"
#include "cce-core.h"
#include "decode.h"

/* The log's frames are read as the core's stack entries.  */
_Static_assert (sizeof (struct cce_log_frame)
                == sizeof (struct cce_stack_entry), "frame layout");
_Static_assert (offsetof (struct cce_log_frame, id)
                == offsetof (struct cce_stack_entry, id), "frame layout");
_Static_assert (offsetof (struct cce_log_frame, site)
                == offsetof (struct cce_stack_entry, site), "frame layout");

/* ===================================================================
   Errors.  */

static const char *const errstrs[CCED_NERRORS] = {
  [CCED_OK] = "no error",
  [CCED_E_NOMEM] = "out of memory",
  [CCED_E_OPEN] = "cannot open file",
  [CCED_E_READ] = "read error",
  [CCED_E_WRITE] = "write error",
  [CCED_E_ELF] = "ELF error",
  [CCED_E_NOT_ELF] = "not an ELF file",
  [CCED_E_NO_DICT] = "not built with cce (no dictionary)",
  [CCED_E_BAD_DICT] = "malformed cce dictionary",
  [CCED_E_LOG_MAGIC] = "not a cce log (bad magic)",
  [CCED_E_LOG_VERSION] = "unsupported log version",
  [CCED_E_LOG_HEADER] = "bad log header",
  [CCED_E_NO_STAMP] = "log written by a program without a dictionary",
  [CCED_E_STAMP] = "log was written by a different build of the program",
  [CCED_E_TRUNCATED] = "truncated record",
  [CCED_E_CORRUPT] = "corrupt record",
  [CCED_E_INVAL] = "invalid argument",
};

const char *
cced_errstr (enum cced_errcode code)
{
  if ((unsigned) code < CCED_NERRORS && errstrs[code])
    return errstrs[code];
  return "unknown error";
}

/* Set *ERR (if not NULL) to CODE with a formatted message (the generic
   one when FMT is NULL).  Returns -1.  */
static int __attribute__ ((format (printf, 4, 5)))
seterr (struct cced_error *err, enum cced_errcode code, int errnum,
        const char *fmt, ...)
{
  if (!err)
    return -1;
  err->code = code;
  err->errnum = errnum;
  if (fmt)
    {
      va_list ap;
      va_start (ap, fmt);
      vsnprintf (err->msg, sizeof err->msg, fmt, ap);
      va_end (ap);
    }
  else
    snprintf (err->msg, sizeof err->msg, "%s", cced_errstr (code));
  /* One line.  */
  for (char *p = err->msg; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
  return -1;
}

static int
nomem (struct cced_error *err)
{
  return seterr (err, CCED_E_NOMEM, ENOMEM, NULL);
}

static void
clearerr_ (struct cced_error *err)
{
  if (err)
    {
      err->code = CCED_OK;
      err->errnum = 0;
      err->msg[0] = '\0';
    }
}

/* ===================================================================
   Programs.  */

struct cced_program
{
  char *name;
  struct cce_graph *g;
};

struct cced_program *
cced_program_from_dict (const char *name, const char *text, size_t len,
                        struct cced_error *err)
{
  char msg[CCED_ERRMSG_SIZE - 64];
  struct cced_program *p;
  char *copy = NULL;
  size_t n;

  clearerr_ (err);
  if (!name)
    name = "program";
  if (!text)
    {
      seterr (err, CCED_E_INVAL, EINVAL, "no dictionary text");
      return NULL;
    }
  /* The section holds a C string: stop at its NUL (and any padding).
     The reader wants the text followed by a NUL: copy it if it is not.  */
  n = strnlen (text, len);
  if (n == len)
    {
      if (!(copy = malloc (len + 1)))
        {
          nomem (err);
          return NULL;
        }
      memcpy (copy, text, len);
      copy[len] = '\0';
      text = copy;
    }
  len = n;

  p = calloc (1, sizeof *p);
  if (!p || !(p->name = strdup (name)))
    {
      free (p);
      free (copy);
      nomem (err);
      return NULL;
    }
  msg[0] = '\0';
  p->g = cce_graph_read_dict (text, len, msg, sizeof msg);
  free (copy);
  if (!p->g)
    {
      seterr (err, CCED_E_BAD_DICT, 0, "malformed cce dictionary: %s",
              msg[0] ? msg : "unknown error");
      free (p->name);
      free (p);
      return NULL;
    }
  return p;
}

/* Read the dictionary of the ELF file PATH into a program named PATH.  */
static struct cced_program *
program_from_elf (const char *path, struct cced_error *err)
{
  struct cced_program *p = NULL;
  Elf *elf = NULL;
  Elf_Scn *scn = NULL, *found = NULL;
  Elf_Data *data;
  GElf_Shdr shdr;
  size_t shstrndx;
  struct stat st;
  int fd;

  clearerr_ (err);
  if (!path)
    {
      seterr (err, CCED_E_INVAL, EINVAL, "no program");
      return NULL;
    }
  if (elf_version (EV_CURRENT) == EV_NONE)
    {
      seterr (err, CCED_E_ELF, 0, "libelf: %s", elf_errmsg (-1));
      return NULL;
    }
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int e = errno;
      seterr (err, CCED_E_OPEN, e, "%s", strerror (e));
      return NULL;
    }
  if (fstat (fd, &st) == 0 && S_ISDIR (st.st_mode))
    {
      seterr (err, CCED_E_OPEN, EISDIR, "%s", strerror (EISDIR));
      close (fd);
      return NULL;
    }

  elf = elf_begin (fd, ELF_C_READ_MMAP, NULL);
  if (!elf)
    elf = elf_begin (fd, ELF_C_READ, NULL);
  if (!elf)
    {
      seterr (err, CCED_E_ELF, 0, "libelf: %s", elf_errmsg (-1));
      goto out;
    }
  if (elf_kind (elf) != ELF_K_ELF)
    {
      seterr (err, CCED_E_NOT_ELF, 0, NULL);
      goto out;
    }
  if (elf_getshdrstrndx (elf, &shstrndx) != 0)
    {
      seterr (err, CCED_E_ELF, 0, "libelf: %s", elf_errmsg (-1));
      goto out;
    }
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      const char *name;
      if (!gelf_getshdr (scn, &shdr))
        {
          seterr (err, CCED_E_ELF, 0, "libelf: %s", elf_errmsg (-1));
          goto out;
        }
      name = elf_strptr (elf, shstrndx, shdr.sh_name);
      if (name && strcmp (name, CCE_DICT_SECTION) == 0)
        {
          found = scn;
          break;
        }
    }
  if (!found)
    {
      seterr (err, CCED_E_NO_DICT, 0, NULL);
      goto out;
    }
  if (shdr.sh_type == SHT_NOBITS || shdr.sh_size == 0)
    {
      seterr (err, CCED_E_BAD_DICT, 0,
              "malformed cce dictionary: section %s is empty",
              CCE_DICT_SECTION);
      goto out;
    }
  if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress (found, 0, 0) < 0)
    {
      seterr (err, CCED_E_ELF, 0, "libelf: %s", elf_errmsg (-1));
      goto out;
    }
  data = elf_getdata (found, NULL);
  if (!data || !data->d_buf)
    {
      seterr (err, CCED_E_ELF, 0, "libelf: cannot read section %s: %s",
              CCE_DICT_SECTION, elf_errmsg (-1));
      goto out;
    }
  p = cced_program_from_dict (path, data->d_buf, data->d_size, err);

out:
  if (elf)
    elf_end (elf);
  close (fd);
  return p;
}

struct cced_program *
cced_program_open (const char *path, struct cced_error *err)
{
  return program_from_elf (path, err);
}

int
cced_program_add_module (struct cced_program *p, const char *path,
                         struct cced_error *err)
{
  char msg[CCED_ERRMSG_SIZE - 64];
  struct cced_program *m;
  size_t i;

  clearerr_ (err);
  if (!p || !path)
    return seterr (err, CCED_E_INVAL, EINVAL, "no program or no module");
  m = program_from_elf (path, err);
  if (!m)
    return -1;
  for (i = 0; i < p->g->nmodules; i++)
    if (p->g->modules[i].stamp == m->g->stamp)
      {
        /* The same dictionary again (a module named twice).  */
        cced_program_close (m);
        return 0;
      }
  msg[0] = '\0';
  if (cce_graph_merge (p->g, m->g, msg, sizeof msg) < 0)
    {
      cced_program_close (m);
      if (strcmp (msg, strerror (ENOMEM)) == 0)
        return nomem (err);
      return seterr (err, CCED_E_BAD_DICT, 0, "cannot add module %s: %s",
                     path, msg);
    }
  cced_program_close (m);
  return 0;
}

size_t
cced_program_nmodules (const struct cced_program *p)
{
  return p->g->nmodules;
}

const struct cce_graph *
cced_program_graph (const struct cced_program *p)
{
  return p->g;
}

const char *
cced_program_name (const struct cced_program *p)
{
  return p->name;
}

void
cced_program_close (struct cced_program *p)
{
  if (!p)
    return;
  cce_graph_free (p->g);
  free (p->name);
  free (p);
}

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

/* ===================================================================
   Decoding.  */

struct cced_decoder
{
  const struct cced_program *prog;
  int thread_origin;            /* keep the creating thread's context */
  uint32_t *sites;
  size_t asites;
  struct cce_path_frame *frames;
  size_t aframes;
  char reason[128];
};

struct cced_decoder *
cced_decoder_new (const struct cced_program *prog, struct cced_error *err)
{
  struct cced_decoder *d;

  clearerr_ (err);
  d = calloc (1, sizeof *d);
  if (!d)
    {
      nomem (err);
      return NULL;
    }
  d->prog = prog;
  d->asites = 64;
  d->aframes = 128;
  d->sites = malloc (d->asites * sizeof *d->sites);
  d->frames = malloc (d->aframes * sizeof *d->frames);
  if (!d->sites || !d->frames)
    {
      cced_decoder_free (d);
      nomem (err);
      return NULL;
    }
  return d;
}

void
cced_decoder_free (struct cced_decoder *d)
{
  if (!d)
    return;
  free (d->sites);
  free (d->frames);
  free (d);
}

/* BUF (of *ALLOC items of SIZE bytes) reallocated for at least N items:
   the new pointer, with *ALLOC updated, or NULL (BUF unchanged).  */
static void *
grow_array (void *buf, size_t *alloc, size_t n, size_t size)
{
  size_t a = *alloc ? *alloc : 16;
  void *nb;
  while (a < n)
    {
      if (a > SIZE_MAX / 2 / size)
        return NULL;
      a *= 2;
    }
  nb = realloc (buf, a * size);
  if (nb)
    *alloc = a;
  return nb;
}

static void
incomplete (struct cced_decoder *d, struct cced_path *path,
            const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

static void
incomplete (struct cced_decoder *d, struct cced_path *path,
            const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (d->reason, sizeof d->reason, fmt, ap);
  va_end (ap);
  path->status = CCE_DECODE_INCOMPLETE;
  path->reason = d->reason;
  path->frames = d->frames;
  path->nframes = 0;
}

int
cced_decode (struct cced_decoder *d, const struct cced_record *rec,
             struct cced_path *path, struct cced_error *err)
{
  const struct cce_graph *g = d->prog->g;
  enum cce_decode_status st;
  const char *reason = NULL;
  size_t nsites, nframes;

  /* The core checks the log site (CCE_SITE_NONE, out of range, not a
     log site) and the ccStack entries.  */

  for (;;)
    {
      reason = NULL;
      nsites = 0;
      st = cce_decode (g, rec->site, rec->id, rec->stack, rec->nstack,
                       d->sites, d->asites, &nsites, &reason);
      if (nsites <= d->asites)
        break;
      uint32_t *ns = grow_array (d->sites, &d->asites, nsites,
                                 sizeof *d->sites);
      if (!ns)
        return nomem (err);
      d->sites = ns;
    }
  for (;;)
    {
      nframes = 0;
      cce_path_frames (g, d->sites, nsites, d->frames, d->aframes, &nframes);
      if (nframes <= d->aframes)
        break;
      struct cce_path_frame *nf = grow_array (d->frames, &d->aframes,
                                              nframes, sizeof *d->frames);
      if (!nf)
        return nomem (err);
      d->frames = nf;
    }
  path->status = st;
  path->reason = NULL;
  if (st != CCE_DECODE_OK)
    {
      path->status = CCE_DECODE_INCOMPLETE;
      path->reason = reason ? reason : "undecodable context";
    }
  path->frames = d->frames;
  path->nframes = nframes;
  /* By default a thread's path starts at its start routine: drop what
     lies left of the last thread mark, the mark included.  */
  if (!d->thread_origin)
    for (size_t i = nframes; i-- > 0;)
      if (d->frames[i].func == CCE_NONE
          && d->frames[i].ext_name == CCE_THREAD_MARK)
        {
          path->frames = d->frames + i + 1;
          path->nframes = nframes - i - 1;
          break;
        }
  return 0;
}

void
cced_decoder_set_thread_origin (struct cced_decoder *d, int on)
{
  d->thread_origin = on;
}

static const char *
graph_string (const struct cce_graph *g, uint32_t s)
{
  if (s < g->nstrings && g->strings[s])
    return g->strings[s];
  return NULL;
}

const char *
cced_frame_name (const struct cce_graph *g, const struct cce_path_frame *f)
{
  const char *name = NULL;
  if (f->func != CCE_NONE)
    {
      if (f->func < g->nfuncs)
        name = graph_string (g, g->funcs[f->func].name);
    }
  else if (f->ext_name == CCE_THREAD_MARK)
    name = "[thread]";
  else
    name = graph_string (g, f->ext_name);
  return name && *name ? name : "??";
}

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
   output (text block, records path line) or folded entry.  */
struct centry
{
  uint64_t site, id;
  uint32_t nstack, module;
  int incomplete;
  const char *val;
  size_t vlen;
  struct fentry *fold;
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

  struct oname *names;       /* of g->strings */
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

/* The names of G's strings, ready for output.  */
static int
make_names (struct cced_output *o)
{
  const struct cce_graph *g = o->g;

  o->names = calloc (g->nstrings ? g->nstrings : 1, sizeof *o->names);
  if (!o->names)
    return -1;
  for (size_t i = 0; i < g->nstrings; i++)
    {
      const char *s = g->strings[i] ? g->strings[i] : "";
      size_t n = strlen (s);
      if (n == 0)
        {
          s = "??";
          n = 2;
        }
      else if (needs_sanitizing (s))
        {
          char *c = arena_alloc (&o->narena, n + 1);
          if (!c)
            return -1;
          for (size_t k = 0; k <= n; k++)
            c[k] = ((unsigned char) s[k] < 0x20 && s[k]) || s[k] == 0x7f
                   ? '?' : s[k];
          s = c;
        }
      o->names[i].s = s;
      o->names[i].len = n;
    }
  return 0;
}

static inline struct oname
frame_oname (const struct cced_output *o, const struct cce_path_frame *f)
{
  static const struct oname unknown = { "??", 2 };
  static const struct oname thread_mark = { "[thread]", 8 };
  const struct cce_graph *g = o->g;
  uint32_t s = CCE_NONE;
  if (f->func == CCE_NONE && f->ext_name == CCE_THREAD_MARK)
    return thread_mark;
  if (f->func != CCE_NONE)
    {
      if (f->func < g->nfuncs)
        s = g->funcs[f->func].name;
    }
  else
    s = f->ext_name;
  return s < g->nstrings ? o->names[s] : unknown;
}

struct cced_output *
cced_output_new (const struct cced_program *prog, enum cced_format fmt,
                 FILE *f, struct cced_error *err)
{
  struct cced_output *o;

  clearerr_ (err);
  if (!prog || !f
      || (fmt != CCED_FORMAT_TEXT && fmt != CCED_FORMAT_RECORDS
          && fmt != CCED_FORMAT_FOLDED))
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
  o->dec = cced_decoder_new (prog, err);
  if (!o->ob || !o->ctab || (fmt == CCED_FORMAT_FOLDED && !o->ftab)
      || !o->dec || make_names (o) < 0)
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

/* Insert a new entry for REC (not in the cache) with value VAL/VLEN or
   FOLD.  Failure to cache is not an error.  */
static void
cache_insert (struct cced_output *o, uint64_t h,
              const struct cced_record *rec, const char *val, size_t vlen,
              struct fentry *fold, int incomplete_)
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
  e->incomplete = incomplete_;
  e->val = v;
  e->vlen = vlen;
  e->fold = fold;
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
      else if (f->func == CCE_NONE)
        r |= sb_puts (sb, " [external]");
      else if (f->file < g->nstrings && g->strings[f->file]
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
  return graph_string (g, g->funcs[g->frames[s->first_frame + s->nframes
                                             - 1].func].name);
}

static inline void
emit_record_line (struct cced_output *o, const struct cced_record *rec,
                  const char *val, size_t vlen)
{
  char tmp[48], *e = tmp + sizeof tmp, *s = e;
  const char *tn;
  /* "THREAD\tTAG\t" built backwards.  A traced function's record shows
     the function's name as its tag.  */
  *--s = '\t';
  if (__builtin_expect (rec->tag >= CCE_TAG_TRACE, 0)
      && (tn = trace_name (o, rec)) != NULL)
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
  ns = fmt_u64 (ne, rec->tag);
  memcpy (p, ns, ne - ns);
  p += ne - ns;
  out_write (o, tmp, p - tmp);
  p = tmp;
  {
    const char *tn = trace_name (o, rec);
    if (tn)
      {
        out_write (o, " (trace ", 8);
        out_write (o, tn, strlen (tn));
        *p++ = ')';
      }
  }
  *p++ = '\n';
  out_write (o, tmp, p - tmp);
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
          e->fold->count++;
          return 0;
        }
      return out_check (o, err);
    }

  if (cced_decode (o->dec, rec, &path, err) < 0)
    return -1;
  inc = path.status != CCE_DECODE_OK;
  o->stats.incomplete += inc;
  switch (o->fmt)
    {
    case CCED_FORMAT_RECORDS:
      if (render_path (o, &path, 1) < 0)
        return nomem (err);
      emit_record_line (o, rec, o->tmp.p, o->tmp.n);
      if (use_cache)
        cache_insert (o, h, rec, o->tmp.p, o->tmp.n, NULL, inc);
      break;
    case CCED_FORMAT_TEXT:
      if (render_text (o, &path) < 0)
        return nomem (err);
      emit_text_header (o, rec);
      out_write (o, o->tmp.p, o->tmp.n);
      if (use_cache)
        cache_insert (o, h, rec, o->tmp.p, o->tmp.n, NULL, inc);
      break;
    case CCED_FORMAT_FOLDED:
      if (render_path (o, &path, 0) < 0 || !(fe = fold_entry (o)))
        return nomem (err);
      fe->count++;
      if (use_cache)
        cache_insert (o, h, rec, NULL, 0, fe, inc);
      return 0;
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
}

int
cced_output_finish (struct cced_output *o, struct cced_error *err)
{
  if (o->fmt == CCED_FORMAT_FOLDED && o->fcount)
    {
      struct fentry **v = malloc (o->fcount * sizeof *v);
      size_t n = 0;
      if (!v)
        return nomem (err);
      for (size_t i = 0; i < o->fsize; i++)
        if (o->ftab[i].e
            && ((struct fentry *) o->ftab[i].e)->count)
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
