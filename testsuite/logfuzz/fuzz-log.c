/* fuzz-log.c -- the fuzz target of the log reader and the decoder
   (libccedecode): its input is an event log, read and decoded in every
   output format.

   Built with clang -fsanitize=fuzzer (CCE_LIBFUZZER defined), it is a
   libFuzzer target.  Built without, it is a replayer: each argument is
   an input file, or a directory of them, run once through the target.

   The programs are the dictionaries (*.dict) of the directory named by
   CCE_LOGFUZZ_DIR, else LOGFUZZ_DIR (set when building), each with the
   PC map of the same name (*.pcmap) if there is one: a log is read
   with the program whose stamp it carries, or with the first one.  The
   log's module table is not used: the target reads no file that its
   input names.

   Besides what the sanitizers catch, the target aborts when the reader
   breaks its contract (decode.h): a record that does not lie within the
   input, records out of the order of the file, a module key other than
   the site's, a clean end of a log with chunks in the middle of a
   chunk, or two reads of one log that differ.  */

#define _GNU_SOURCE 1
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cce-abi.h"
#include "cce-core.h"
#include "cce-format.h"
#include "decode.h"

#ifndef LOGFUZZ_DIR
#define LOGFUZZ_DIR "."
#endif

#define MAX_PROGS 16

static struct cced_program *progs[MAX_PROGS];
static size_t nprogs;
static FILE *sink;

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
die (const char *what, const char *msg)
{
  fprintf (stderr, "fuzz-log: %s: %s\n", what, msg);
  exit (2);
}

/* The contract is broken: abort, for the fuzzer to keep the input.  */
#define CHECK(cond)                                                     \
  do                                                                    \
    if (!(cond))                                                        \
      {                                                                 \
        fprintf (stderr, "fuzz-log: %s:%d: check failed: %s\n",         \
                 __FILE__, __LINE__, #cond);                            \
        abort ();                                                       \
      }                                                                 \
  while (0)

/* The contents of the file PATH (malloc'd, *LEN bytes), or NULL if
   there is no such file when MAY_MISS.  */
static char *
read_whole (const char *path, int may_miss, size_t *len)
{
  char *text;
  long n;
  FILE *f;

  f = fopen (path, "rb");
  if (!f && may_miss && errno == ENOENT)
    return NULL;
  if (!f)
    die (path, strerror (errno));
  if (fseek (f, 0, SEEK_END) != 0 || (n = ftell (f)) < 0)
    die (path, "cannot tell its size");
  rewind (f);
  text = malloc ((size_t) n + 1);
  if (!text || fread (text, 1, (size_t) n, f) != (size_t) n)
    die (path, "cannot read it");
  fclose (f);
  *len = (size_t) n;
  return text;
}

/* Add the program of the dictionary file PATH (NAME.dict), with the PC
   map NAME.pcmap if there is one.  */
static void
add_program (const char *path)
{
  struct cced_error err;
  char *text, *pcpath;
  size_t len;

  if (nprogs == MAX_PROGS)
    die (path, "too many dictionaries");
  text = read_whole (path, 0, &len);
  progs[nprogs] = cced_program_from_dict (path, text, len, &err);
  free (text);
  if (!progs[nprogs])
    die (path, err.msg);
  if (asprintf (&pcpath, "%.*s.pcmap", (int) (strlen (path) - 5), path) < 0)
    die (path, strerror (ENOMEM));
  text = read_whole (pcpath, 1, &len);
  if (text && cced_program_add_pcmap (progs[nprogs], 0, text, len, &err) < 0)
    die (pcpath, err.msg);
  free (text);
  free (pcpath);
  nprogs++;
}

static int
is_dict (const struct dirent *e)
{
  size_t n = strlen (e->d_name);
  return n > 5 && strcmp (e->d_name + n - 5, ".dict") == 0;
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  const char *dir = getenv ("CCE_LOGFUZZ_DIR");
  struct dirent **names;
  int n;

  (void) argc;
  (void) argv;
  if (!dir || !*dir)
    dir = LOGFUZZ_DIR;
  n = scandir (dir, &names, is_dict, alphasort);
  if (n < 0)
    die (dir, strerror (errno));
  for (int i = 0; i < n; i++)
    {
      char path[4096];
      snprintf (path, sizeof path, "%s/%s", dir, names[i]->d_name);
      add_program (path);
      free (names[i]);
    }
  free (names);
  if (nprogs == 0)
    die (dir, "no dictionary (*.dict)");
  sink = fopen ("/dev/null", "w");
  if (!sink)
    die ("/dev/null", strerror (errno));
  return 0;
}

/* The program of the log DATA (SIZE bytes): the one whose stamp its
   header carries, in either byte order, or the first one.  */
static const struct cced_program *
program_of (const uint8_t *data, size_t size)
{
  uint64_t stamp;
  if (size >= offsetof (struct cce_log_header, pid))
    {
      memcpy (&stamp, data + offsetof (struct cce_log_header, stamp),
              sizeof stamp);
      for (size_t i = 0; i < nprogs; i++)
        {
          uint64_t s = cced_program_graph (progs[i])->stamp;
          if (s == stamp || s == __builtin_bswap64 (stamp))
            return progs[i];
        }
    }
  return progs[0];
}

/* What one read of a log gave.  */
struct outcome
{
  int opened;
  enum cced_errcode code;       /* of the open, or of the end */
  uint64_t records, torn, spans, unused, skipped, sum;
};

/* Read the log DATA (SIZE bytes) and print it in FMT to the sink, with
   the threads' origins if ORIGIN; check the records; fill *O.  */
static void
read_log (const struct cced_program *prog, const uint8_t *data,
          size_t size, enum cced_format fmt, int origin, struct outcome *o)
{
  static const char empty[1];
  struct cced_error err;
  struct cced_log *log;
  struct cced_output *out;
  struct cced_record rec;
  struct cced_log_stats st;
  uint64_t last_end = 0;
  FILE *in;
  int r;

  memset (o, 0, sizeof *o);
  /* fmemopen wants at least a byte: an empty input is an empty stream
     of one.  */
  in = fmemopen ((void *) (size ? (const void *) data : empty),
                 size ? size : 1, "rb");
  CHECK (in);
  if (size == 0)
    CHECK (fgetc (in) == 0);
  log = cced_log_fopen (in, "fuzz.log", prog, &err);
  if (!log)
    {
      CHECK (err.code != CCED_OK && err.msg[0]);
      o->code = err.code;
      fclose (in);
      return;
    }
  o->opened = 1;
  out = cced_output_new (prog, fmt, sink, &err);
  CHECK (out);
  cced_output_set_thread_origin (out, origin);
  while ((r = cced_log_next (log, &rec, &err)) > 0)
    {
      uint64_t bytes = sizeof (struct cce_log_record)
                       + (uint64_t) rec.nstack * sizeof (struct cce_log_frame);
      CHECK (rec.index == o->records + 1);
      CHECK (rec.offset >= last_end);
      CHECK (rec.offset <= size && bytes <= size - rec.offset);
      CHECK (rec.nstack == 0 || rec.stack);
      CHECK (rec.module == (rec.site == CCE_SITE_NONE
                            ? 0 : CCE_SITE_KEY (rec.site)));
      last_end = rec.offset + bytes;
      o->records++;
      o->sum = o->sum * 31 + rec.offset + rec.tag + rec.thread + rec.site
               + rec.id + rec.nstack;
      for (uint32_t i = 0; i < rec.nstack; i++)
        o->sum += rec.stack[i].id ^ rec.stack[i].site;
      CHECK (cced_output_record (out, &rec, &err) == 0);
    }
  if (r < 0)
    {
      CHECK (err.code == CCED_E_TRUNCATED || err.code == CCED_E_CORRUPT);
      CHECK (err.msg[0]);
      o->code = err.code;
      /* The error stays.  */
      CHECK (cced_log_next (log, &rec, &err) == -1
             && err.code == o->code);
    }
  else
    CHECK (cced_log_next (log, &rec, &err) == 0);
  CHECK (cced_output_finish (out, &err) == 0);
  cced_output_free (out);
  cced_log_stats (log, &st);
  CHECK (st.records == o->records);
  if (r == 0 && cced_log_chunk_size (log))
    {
      /* A clean end is at the end of a chunk: the header, spans and
         unused chunks fill the file.  */
      uint32_t cs = cced_log_chunk_size (log);
      CHECK (size % cs == 0);
      CHECK (st.unused_chunks + st.skipped_chunks + st.spans
             <= size / cs);
    }
  o->torn = st.torn;
  o->spans = st.spans;
  o->unused = st.unused_chunks;
  o->skipped = st.skipped_chunks;
  cced_log_close (log);
  fclose (in);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static const struct { enum cced_format fmt; int origin; } passes[] = {
    { CCED_FORMAT_RECORDS, 0 },
    { CCED_FORMAT_TEXT, 0 },
    { CCED_FORMAT_FOLDED, 0 },
    { CCED_FORMAT_RECORDS, 1 },
  };
  const struct cced_program *prog = program_of (data, size);
  struct outcome first, o;

  for (size_t i = 0; i < sizeof passes / sizeof *passes; i++)
    {
      read_log (prog, data, size, passes[i].fmt, passes[i].origin,
                i ? &o : &first);
      if (i)
        CHECK (memcmp (&o, &first, sizeof o) == 0);
    }
  return 0;
}

#ifndef CCE_LIBFUZZER
/* Run the target on the file PATH; returns 0, or -1 if it cannot be
   read.  */
static int
replay_file (const char *path)
{
  FILE *f = fopen (path, "rb");
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0, got;

  if (!f)
    {
      fprintf (stderr, "fuzz-log: %s: %s\n", path, strerror (errno));
      return -1;
    }
  do
    {
      if (len == cap)
        {
          cap = cap ? 2 * cap : 65536;
          buf = realloc (buf, cap);
          if (!buf)
            die (path, strerror (ENOMEM));
        }
      got = fread (buf + len, 1, cap - len, f);
      len += got;
    }
  while (got > 0);
  fclose (f);
  LLVMFuzzerTestOneInput (buf, len);
  free (buf);
  return 0;
}

int
main (int argc, char **argv)
{
  int bad = 0;
  unsigned long n = 0;

  LLVMFuzzerInitialize (&argc, &argv);
  for (int i = 1; i < argc; i++)
    {
      struct stat st;
      if (stat (argv[i], &st) == 0 && S_ISDIR (st.st_mode))
        {
          struct dirent **names;
          int k = scandir (argv[i], &names, NULL, alphasort);
          if (k < 0)
            {
              fprintf (stderr, "fuzz-log: %s: %s\n", argv[i],
                       strerror (errno));
              bad = 1;
              continue;
            }
          for (int j = 0; j < k; j++)
            {
              char path[4096];
              if (names[j]->d_name[0] != '.')
                {
                  snprintf (path, sizeof path, "%s/%s", argv[i],
                            names[j]->d_name);
                  if (replay_file (path) < 0)
                    bad = 1;
                  else
                    n++;
                }
              free (names[j]);
            }
          free (names);
        }
      else if (replay_file (argv[i]) < 0)
        bad = 1;
      else
        n++;
    }
  printf ("fuzz-log: %lu inputs replayed\n", n);
  for (size_t i = 0; i < nprogs; i++)
    cced_program_close (progs[i]);
  fclose (sink);
  return bad;
}
#endif
