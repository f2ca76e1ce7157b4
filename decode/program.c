/* program.c -- libccedecode: errors, and programs: the dictionaries and
   PC maps of an executable and of the shared libraries it loaded.  Never
   prints, never exits: see decode.h.  */


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
#include "decode-internal.h"

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
  [CCED_E_TRUNCATED] = "truncated log",
  [CCED_E_CORRUPT] = "corrupt log",
  [CCED_E_INVAL] = "invalid argument",
  [CCED_E_BAD_PCMAP] = "malformed cce PC map",
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
int
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

int
nomem (struct cced_error *err)
{
  return seterr (err, CCED_E_NOMEM, ENOMEM, NULL);
}

void
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

/* cce_pc_callee_fn of a program ARG.  */
static const char *
program_callee (void *arg, size_t module, uint64_t ret)
{
  struct cced_program *p = arg;
  return module < p->ncalls ? cced_calls_callee (p->calls[module], ret)
                            : NULL;
}

/* Keep CALLS, what the calls of module MODULE of P call (NULL: none
   known).  0, or -1 when out of memory (CALLS freed).  */
static int
keep_calls (struct cced_program *p, size_t module, struct cced_calls *calls)
{
  if (module >= p->ncalls)
    {
      struct cced_calls **v = realloc (p->calls, (module + 1) * sizeof *v);
      if (!v)
        {
          cced_calls_free (calls);
          return -1;
        }
      memset (v + p->ncalls, 0, (module + 1 - p->ncalls) * sizeof *v);
      p->calls = v;
      p->ncalls = module + 1;
    }
  cced_calls_free (p->calls[module]);
  p->calls[module] = calls;
  return 0;
}

/* Attach the PC map of LEN bytes at DATA (in the other byte order if
   SWAPPED) to module MODULE of P.  Returns 0, or -1 with
   CCED_E_BAD_PCMAP or CCED_E_NOMEM.  */
static int
attach_pcmap (struct cced_program *p, size_t module, const void *data,
              size_t len, int swapped, struct cced_error *err)
{
  char msg[CCED_ERRMSG_SIZE - 64];

  msg[0] = '\0';
  if (cce_graph_read_pcmap (p->g, module, data, len, swapped, msg,
                            sizeof msg) == 0)
    {
      cce_graph_set_pc_callee (p->g, program_callee, p);
      return 0;
    }
  if (strcmp (msg, strerror (ENOMEM)) == 0)
    return nomem (err);
  return seterr (err, CCED_E_BAD_PCMAP, 0, "malformed cce PC map: %s",
                 msg[0] ? msg : "unknown error");
}

int
cced_program_add_pcmap (struct cced_program *p, size_t module,
                        const void *data, size_t len, struct cced_error *err)
{
  clearerr_ (err);
  if (!p || (!data && len))
    return seterr (err, CCED_E_INVAL, EINVAL, "no program or no PC map");
  return attach_pcmap (p, module, data, len, 0, err);
}

/* The data of section SCN (header SHDR, named NAME) of ELF, uncompressed,
   or NULL with *ERR set.  */
static Elf_Data *
section_data (Elf_Scn *scn, const GElf_Shdr *shdr, const char *name,
              struct cced_error *err)
{
  Elf_Data *data;

  if ((shdr->sh_flags & SHF_COMPRESSED) && elf_compress (scn, 0, 0) < 0)
    {
      seterr (err, CCED_E_ELF, 0, "libelf: %s", elf_errmsg (-1));
      return NULL;
    }
  data = elf_getdata (scn, NULL);
  if (!data || (!data->d_buf && data->d_size))
    {
      seterr (err, CCED_E_ELF, 0, "libelf: cannot read section %s: %s",
              name, elf_errmsg (-1));
      return NULL;
    }
  return data;
}

/* The dictionaries after the first one in the LEN bytes at DATA, the
   contents of a cce_dict section: the first one ends at a NUL, and each
   other one, of another LTRANS partition, starts after NULs of padding.
   Each is added to P as a partition of its module FILE.  Returns 0, or
   -1 with *ERR set.  */
static int
add_partitions (struct cced_program *p, size_t file, const char *data,
                size_t len, struct cced_error *err)
{
  char msg[CCED_ERRMSG_SIZE - 64];
  size_t off = strnlen (data, len);

  for (;;)
    {
      struct cced_program *part;
      size_t n;
      int r;

      while (off < len && data[off] == '\0')
        off++;
      if (off == len)
        return 0;
      n = strnlen (data + off, len - off);
      part = cced_program_from_dict (p->name, data + off, n, err);
      if (!part)
        return -1;
      msg[0] = '\0';
      r = cce_graph_merge_part (p->g, part->g, file, msg, sizeof msg);
      cced_program_close (part);
      if (r < 0)
        {
          if (strcmp (msg, strerror (ENOMEM)) == 0)
            return nomem (err);
          return seterr (err, CCED_E_BAD_DICT, 0,
                         "malformed cce dictionary: %s", msg);
        }
      off += n;
    }
}

/* What the ELF file PATH holds for cce: its dictionary, as a program
   named PATH, and its PC map (section CCE_PCMAP_SECTION), if it has one,
   copied to *PCMAP (malloc'd, *PCLEN bytes, in the other byte order than
   this machine's if *SWAPPED); *PCMAP is NULL if it has none.  */
static struct cced_program *
program_from_elf (const char *path, void **pcmap, size_t *pclen,
                  int *swapped, struct cced_calls **calls,
                  struct cced_error *err)
{
  struct cced_program *p = NULL;
  Elf *elf = NULL;
  Elf_Scn *scn = NULL, *found = NULL, *pcscn = NULL;
  Elf_Data *data;
  GElf_Shdr shdr, pcshdr;
  size_t shstrndx;
  struct stat st;
  const unsigned char *ident;
  int fd;

  *pcmap = NULL;
  *pclen = 0;
  *swapped = 0;
  *calls = NULL;
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
      GElf_Shdr sh;
      const char *name;
      if (!gelf_getshdr (scn, &sh))
        {
          seterr (err, CCED_E_ELF, 0, "libelf: %s", elf_errmsg (-1));
          goto out;
        }
      name = elf_strptr (elf, shstrndx, sh.sh_name);
      if (!name)
        continue;
      if (!found && strcmp (name, CCE_DICT_SECTION) == 0)
        {
          found = scn;
          shdr = sh;
        }
      else if (!pcscn && strcmp (name, CCE_PCMAP_SECTION) == 0)
        {
          pcscn = scn;
          pcshdr = sh;
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
  if (!(data = section_data (found, &shdr, CCE_DICT_SECTION, err)))
    goto out;
  if (!data->d_buf)
    {
      seterr (err, CCED_E_ELF, 0, "libelf: cannot read section %s: %s",
              CCE_DICT_SECTION, elf_errmsg (-1));
      goto out;
    }
  if (pcscn)
    {
      Elf_Data *pd;
      if (pcshdr.sh_type == SHT_NOBITS)
        {
          seterr (err, CCED_E_BAD_PCMAP, 0,
                  "malformed cce PC map: section %s has no contents",
                  CCE_PCMAP_SECTION);
          goto out;
        }
      if (!(pd = section_data (pcscn, &pcshdr, CCE_PCMAP_SECTION, err)))
        goto out;
      if (!(*pcmap = malloc (pd->d_size ? pd->d_size : 1)))
        {
          nomem (err);
          goto out;
        }
      if (pd->d_size)
        memcpy (*pcmap, pd->d_buf, pd->d_size);
      *pclen = pd->d_size;
      ident = (const unsigned char *) elf_getident (elf, NULL);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
      *swapped = ident && ident[EI_DATA] == ELFDATA2LSB;
#else
      *swapped = ident && ident[EI_DATA] == ELFDATA2MSB;
#endif
    }
  p = cced_program_from_dict (path, data->d_buf, data->d_size, err);
  if (p && add_partitions (p, 0, data->d_buf, data->d_size, err) < 0)
    {
      cced_program_close (p);
      p = NULL;
    }
  /* What its calls call, for the records of threads stopped outside the
     program (out of memory: they are not named).  */
  if (p && *pcmap)
    *calls = cced_calls_read (elf, shstrndx);

out:
  if (!p)
    {
      free (*pcmap);
      *pcmap = NULL;
    }
  if (elf)
    elf_end (elf);
  close (fd);
  return p;
}

struct cced_program *
cced_program_open (const char *path, struct cced_error *err)
{
  struct cced_program *p;
  struct cced_calls *calls;
  void *pcmap;
  size_t pclen;
  int swapped;

  p = program_from_elf (path, &pcmap, &pclen, &swapped, &calls, err);
  if (p && calls && keep_calls (p, 0, calls) < 0)
    {
      nomem (err);
      cced_program_close (p);
      p = NULL;
    }
  else if (!p)
    cced_calls_free (calls);
  if (p && pcmap && attach_pcmap (p, 0, pcmap, pclen, swapped, err) < 0)
    {
      cced_program_close (p);
      p = NULL;
    }
  free (pcmap);
  return p;
}

int
cced_program_add_module (struct cced_program *p, const char *path,
                         struct cced_error *err)
{
  char msg[CCED_ERRMSG_SIZE - 64];
  struct cced_program *m;
  struct cced_calls *calls;
  void *pcmap;
  size_t pclen, i, file;
  int swapped, r;

  clearerr_ (err);
  if (!p || !path)
    return seterr (err, CCED_E_INVAL, EINVAL, "no program or no module");
  m = program_from_elf (path, &pcmap, &pclen, &swapped, &calls, err);
  if (!m)
    return -1;
  for (i = 0; i < p->g->nmodules; i++)
    if (p->g->modules[i].stamp == m->g->stamp)
      {
        /* The same dictionary again (a module named twice).  */
        cced_program_close (m);
        cced_calls_free (calls);
        free (pcmap);
        return 0;
      }
  msg[0] = '\0';
  file = p->g->nmodules;
  if (cce_graph_merge (p->g, m->g, msg, sizeof msg) < 0)
    {
      cced_program_close (m);
      cced_calls_free (calls);
      free (pcmap);
      if (strcmp (msg, strerror (ENOMEM)) == 0)
        return nomem (err);
      return seterr (err, CCED_E_BAD_DICT, 0, "cannot add module %s: %s",
                     path, msg);
    }
  cced_program_close (m);
  /* The module's PC map, checked against its dictionary.  A bad one
     leaves the module without a map.  */
  if (calls && keep_calls (p, file, calls) < 0)
    {
      free (pcmap);
      return nomem (err);
    }
  r = 0;
  if (pcmap)
    r = attach_pcmap (p, file, pcmap, pclen, swapped, err);
  free (pcmap);
  return r;
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
  size_t i;

  if (!p)
    return;
  for (i = 0; i < p->ncalls; i++)
    cced_calls_free (p->calls[i]);
  free (p->calls);
  cce_graph_free (p->g);
  free (p->name);
  free (p);
}
