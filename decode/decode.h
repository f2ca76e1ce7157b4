/* decode.h -- libccedecode: read a program's cce dictionary and its event
   logs, decode the records into calling contexts and format them.

   Like elfutils' libraries, this one never prints to stderr and never
   exits: every function that can fail fills a caller-supplied struct
   cced_error (an error code plus a complete one-line message) and returns
   NULL or -1.  The cce-decode command is a thin wrapper around it.

   Typical use:

     struct cced_error err;
     struct cced_program *prog = cced_program_open ("./app", &err);
     struct cced_log *log = cced_log_open ("app.log", prog, &err);
     struct cced_output *out = cced_output_new (prog, CCED_FORMAT_RECORDS,
                                                stdout, &err);
     struct cced_record rec;
     int r;
     while ((r = cced_log_next (log, &rec, &err)) > 0)
       if (cced_output_record (out, &rec, &err) < 0)
         break;
     cced_output_finish (out, &err);     (also after an error of the log:
                                          what was decoded is printed)
     ...  cced_output_free, cced_log_close, cced_program_close.  */

#ifndef CCE_DECODE_H
#define CCE_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cce-core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes.  cced_errstr gives a generic text for each; the message in
   struct cced_error is the precise one (with offsets, file names...).  */
enum cced_errcode
{
  CCED_OK = 0,
  CCED_E_NOMEM,          /* out of memory */
  CCED_E_OPEN,           /* a file could not be opened (errnum set) */
  CCED_E_READ,           /* read error (errnum set) */
  CCED_E_WRITE,          /* write error on the output (errnum set) */
  CCED_E_ELF,            /* libelf failed on an ELF file */
  CCED_E_NOT_ELF,        /* PROGRAM is not an ELF file */
  CCED_E_NO_DICT,        /* PROGRAM has no cce_dict section */
  CCED_E_BAD_DICT,       /* the dictionary is malformed */
  CCED_E_LOG_MAGIC,      /* LOG is not a cce log */
  CCED_E_LOG_VERSION,    /* unsupported log version */
  CCED_E_LOG_HEADER,     /* empty log, truncated or malformed header */
  CCED_E_NO_STAMP,       /* log written by a program without dictionary */
  CCED_E_STAMP,          /* log written by another build of PROGRAM */
  CCED_E_TRUNCATED,      /* the log ends inside a record or a span */
  CCED_E_CORRUPT,        /* a record or a span is impossible (a bad mark,
                            an absurd nstack...) */
  CCED_E_INVAL,          /* invalid argument */
  CCED_E_BAD_PCMAP,      /* the PC map is malformed, or stale (made for
                            another dictionary) */
  CCED_NERRORS
};

#define CCED_ERRMSG_SIZE 512

struct cced_error
{
  enum cced_errcode code;
  int errnum;                     /* errno for OPEN, READ, WRITE; else 0 */
  char msg[CCED_ERRMSG_SIZE];     /* one line, no trailing newline */
};

/* Generic text of CODE (never NULL).  */
const char *cced_errstr (enum cced_errcode code);

/* Sanity limit: a record with more ccStack entries is corrupt.  */
#define CCED_MAX_NSTACK (UINT32_C (1) << 28)

/* ---------------------------------------------------------------------
   Programs.  */

struct cced_program;

/* Open the ELF file PATH and read its dictionary (section
   CCE_DICT_SECTION) and its PC map (section CCE_PCMAP_SECTION), if it has
   one: records of interrupted instructions need it (cce-format.h), and
   decode as incomplete without it.  Errors: CCED_E_OPEN, CCED_E_NOT_ELF,
   CCED_E_ELF, CCED_E_NO_DICT, CCED_E_BAD_DICT, CCED_E_BAD_PCMAP,
   CCED_E_NOMEM.  */
struct cced_program *cced_program_open (const char *path,
                                        struct cced_error *err);

/* A program made of the dictionary text TEXT (LEN bytes; reading stops at
   the first NUL byte).  NAME is used in messages.  */
struct cced_program *cced_program_from_dict (const char *name,
                                             const char *text, size_t len,
                                             struct cced_error *err);

/* Add the dictionary and the PC map of the shared library PATH, another
   module of the same program built with cce, so that records and
   ccStack entries in its code decode.  Adding a module twice does
   nothing.  Returns 0, or -1 with the errors of cced_program_open
   (CCED_E_NO_DICT: PATH was not built with cce; CCED_E_BAD_PCMAP: the
   module was added, without its PC map) or CCED_E_BAD_DICT (two modules
   with one key).  Call it before making decoders and outputs of P.  */
int cced_program_add_module (struct cced_program *p, const char *path,
                             struct cced_error *err);
/* Give module MODULE of P (0: the program, then the modules in the order
   they were added) the PC map of LEN bytes at DATA, the contents of a
   section CCE_PCMAP_SECTION in this machine's byte order.  Returns 0, or
   -1 with CCED_E_BAD_PCMAP (also: MODULE has a map already, or there is
   no such module), CCED_E_INVAL or CCED_E_NOMEM.  */
int cced_program_add_pcmap (struct cced_program *p, size_t module,
                            const void *data, size_t len,
                            struct cced_error *err);
/* Modules of P: 1 + the modules added.  */
size_t cced_program_nmodules (const struct cced_program *p);
const struct cce_graph *cced_program_graph (const struct cced_program *p);
const char *cced_program_name (const struct cced_program *p);
void cced_program_close (struct cced_program *p);

/* ---------------------------------------------------------------------
   Logs: a streaming reader.  Memory is bounded by the largest record, not
   by the size of the log.  The log is read once, in order, so F may be a
   pipe.

   What the reader does with each part of a log (cce-format.h):

   - A complete record (its mark CCE_LOG_RECORD_MARK, or
     CCE_LOG_VALUE_MARK with its value) is returned, in the order of the
     file: the records of a span one after the other.
   - A valid entry of a table span is returned as a record whose COUNT,
     VALUE and ERROR are the entry's; dead entries are skipped, torn
     ones (mark 0) skipped and counted as torn records.  The entries of
     a heap profile's spans (CCE_HEAP) are records of the tags
     CCE_TAG_HEAP_ALLOC, _FREE and _PEAK, with their PERIOD.
   - A torn record (a record whose mark is 0 with other bytes than 0 in
     the rest of its span: the process died while writing it) is skipped
     and counted (cced_log_stats).  It is never returned.
   - A chunk that starts with a word of 0 where a span should start is
     not used and is skipped.  It is counted as unused when all of it is
     0, else as skipped (cced_log_stats): a span header that the process
     died while writing (the runtime stores its mark last), or damage.
   These are not errors: a log of a process that died while logging
   gives all its complete records, then the end of the log.

   Errors end the reading, after every complete record before them:
   - CCED_E_TRUNCATED: the file ends inside a span or a chunk (the runtime
     makes the file longer by whole spans, so a file cut short was cut
     after the fact), or, in a log without chunks, inside a record;
   - CCED_E_CORRUPT: a chunk that starts with neither a span header nor
     0; a span header with 0 chunks or thread 0; a record whose mark is
     neither 0 nor CCE_LOG_RECORD_MARK (in a log without chunks: not
     CCE_LOG_RECORD_MARK), with more than CCED_MAX_NSTACK ccStack
     entries, that runs past the end of its span, or whose thread is not
     its span's;
   - CCED_E_READ, CCED_E_NOMEM.  */

struct cced_log;

/* Read and check the log header from F (not closed by cced_log_close) and
   check its stamp against PROG's dictionary.  NAME is used in messages.
   Versions CCE_LOG_VERSION_MIN to CCE_LOG_VERSION are read.  Errors: CCED_E_READ, CCED_E_LOG_HEADER
   (also a chunk size that is not 0 or a power of two of at least 4096,
   or a header size that is not a multiple of it), CCED_E_LOG_MAGIC,
   CCED_E_LOG_VERSION, CCED_E_NO_STAMP, CCED_E_STAMP, CCED_E_NOMEM.  */
struct cced_log *cced_log_fopen (FILE *f, const char *name,
                                 const struct cced_program *prog,
                                 struct cced_error *err);

/* Same on the file PATH (closed by cced_log_close).  */
struct cced_log *cced_log_open (const char *path,
                                const struct cced_program *prog,
                                struct cced_error *err);

void cced_log_close (struct cced_log *log);

uint64_t cced_log_pid (const struct cced_log *log);
uint64_t cced_log_stamp (const struct cced_log *log);
/* The shared objects the process had loaded when it opened the log (its
   header's module table): cced_log_nmodules of them, each a path, or NULL
   past the end.  Those built with cce are modules to add to the program
   (cced_program_add_module).  */
size_t cced_log_nmodules (const struct cced_log *log);
const char *cced_log_module (const struct cced_log *log, size_t i);
/* Whether the log was written in the other byte order (it is converted).  */
int cced_log_swapped (const struct cced_log *log);
/* The log's chunk size: 0 for a log without chunks (written to a pipe).  */
uint32_t cced_log_chunk_size (const struct cced_log *log);

/* What the reader has gone through so far; at the end of the log, all of
   it.  */
struct cced_log_stats
{
  uint64_t records;          /* records returned */
  uint64_t torn;             /* torn records skipped */
  uint64_t spans;            /* span headers read */
  uint64_t unused_chunks;    /* chunks of 0 skipped */
  uint64_t skipped_chunks;   /* chunks that start with 0 but hold other
                                bytes, skipped */
  uint64_t events;           /* the sum of the counts of the records
                                returned */
  uint64_t tables;           /* table spans read (CCE_MODE=aggregate) */
  uint64_t entries;          /* table entries returned (among RECORDS) */
  uint32_t counters;         /* the largest table's counters (N) */
  uint64_t heap_spans;       /* table spans of a heap profile (CCE_HEAP) */
  uint64_t max_error;        /* the largest ERROR of an entry: 0 if every
                                count is exact */
};
void cced_log_stats (const struct cced_log *log,
                     struct cced_log_stats *stats);

/* One record.  STACK is the ccStack, bottom first; it points into the
   reader and is valid until the next call of cced_log_next.  A record
   whose TAG is CCE_TAG_SIGNAL + a signal number (the thread died of it)
   or CCE_TAG_SAMPLE (a CPU-time sample) stands for an interrupted
   instruction: SITE is its PC word (cce-format.h).  */
struct cced_record
{
  uint64_t offset;        /* of the record in the log */
  uint64_t index;         /* 1, 2, ... among the records returned */
  uint32_t thread;
  uint32_t tag;
  uint64_t site;
  uint64_t id;
  uint32_t nstack;
  uint32_t module;        /* module key of the log site: CCE_SITE_KEY of
                             SITE, 0 for CCE_SITE_NONE */
  const struct cce_stack_entry *stack;
  uint64_t count;         /* events the record stands for: 1 for one
                             logged event, more for an entry of a table
                             the runtime aggregated */
  uint64_t value;         /* sum of the values of those events, when
                             FLAGS has CCED_RECORD_VALUE; else 0 */
  uint32_t flags;         /* CCED_RECORD_* */
  uint64_t error;         /* COUNT is at most this over the true count
                             (an entry of a table that became a
                             Space-Saving summary); else 0 */
  uint64_t period;        /* an entry of a heap profile (TAG
                             CCE_TAG_HEAP_*): its sampling interval in
                             bytes (CCE_HEAP_SAMPLE), 0 if every
                             allocation was counted */
};

/* FLAGS of a record.  */
#define CCED_RECORD_VALUE 0x1   /* VALUE holds a sum of values (bytes...) */

/* Read the next record into *REC.  Returns 1, 0 at the end of the log, or
   -1 with an error above in *ERR.  All complete records before an error
   are returned first.  After -1 the reader stays at the error.  */
int cced_log_next (struct cced_log *log, struct cced_record *rec,
                   struct cced_error *err);

/* ---------------------------------------------------------------------
   Decoding one record.  */

struct cced_decoder;

struct cced_path
{
  enum cce_decode_status status;     /* CCE_DECODE_OK or _INCOMPLETE */
  const char *reason;                /* when incomplete */
  const struct cce_path_frame *frames;  /* root first; for an incomplete
                                           path, its exact innermost part */
  size_t nframes;
};

struct cced_decoder *cced_decoder_new (const struct cced_program *prog,
                                       struct cced_error *err);
void cced_decoder_free (struct cced_decoder *d);

/* Decode REC into *PATH (valid until the next call on D).  A record that
   cannot be decoded (uninstrumented log site, site out of range,
   inconsistent stack, an instruction outside the program's functions or
   where the context is not known...) gives an incomplete path, not an
   error.  The path of an interrupted instruction ends in the frames of
   the instruction's location (the last one's line is the
   instruction's); a ccStack entry of an asynchronous signal with the PC
   word of the instruction it interrupted puts the frame "[signal]"
   between that instruction's context and the handler.  The sites of the
   PC map ranges that records use are added to the program's graph (so
   a program is used by one thread at a time).  Returns 0, or -1 with
   CCED_E_NOMEM.  */
int cced_decode (struct cced_decoder *d, const struct cced_record *rec,
                 struct cced_path *path, struct cced_error *err);

/* With ON, a thread's path starts where it was created: the creating
   thread's context at pthread_create, then the frame "[thread]", then the
   start routine.  Off (the default), it starts at the start routine.  */
void cced_decoder_set_thread_origin (struct cced_decoder *d, int on);

/* Name of a frame of a decoded path: its source function or the external
   function, or "[thread]" or "[signal]" (never NULL).  A C++ function's
   name is its mangled symbol, as the dictionary has it; the outputs
   demangle it.  */
const char *cced_frame_name (const struct cce_graph *g,
                             const struct cce_path_frame *f);

/* ---------------------------------------------------------------------
   Output.  */

enum cced_format
{
  CCED_FORMAT_TEXT,       /* gdb-like backtrace per record */
  CCED_FORMAT_RECORDS,    /* THREAD \t TAG \t PATH per record */
  CCED_FORMAT_FOLDED,     /* PATH COUNT, identical paths aggregated */
  CCED_FORMAT_PPROF,      /* google/pprof's profile.proto, gzip-compressed:
                             a sample per thread, tag and path */
  CCED_FORMAT_SPEEDSCOPE  /* speedscope's JSON file format: a sampled
                             profile per thread and unit */
};

/* Parse "text", "records", "folded", "pprof" or "speedscope".  Returns 0,
   or -1.  */
int cced_format_parse (const char *name, enum cced_format *fmt);
const char *cced_format_name (enum cced_format fmt);

struct cced_output;

/* An output of records of PROG in FMT to F.  The output is buffered by
   the library; F is flushed by cced_output_finish, never closed.  */
struct cced_output *cced_output_new (const struct cced_program *prog,
                                     enum cced_format fmt, FILE *f,
                                     struct cced_error *err);

/* Decode and format one record.  Returns 0, or -1 with CCED_E_WRITE or
   CCED_E_NOMEM.  */
int cced_output_record (struct cced_output *out,
                        const struct cced_record *rec,
                        struct cced_error *err);

/* cced_decoder_set_thread_origin for the records of OUT.  */
void cced_output_set_thread_origin (struct cced_output *out, int on);

/* Keep only the innermost DEPTH frames of each path (0, the default: the
   whole path), in every format: a flat profile for 1, caller-callee
   pairs for 2, the k-calling-context forest of Ausiello et al. for K.
   Frames are source-level frames: inlined ones count.  The pseudo-frames
   [thread] and [signal] do not count, and stay only between two frames
   that do.  An incomplete path's innermost frames are exact: when it has
   DEPTH frames or more, its cut path is complete (no [incomplete]
   marker); with fewer it stays incomplete.  Call it before the first
   record.  */
void cced_output_set_depth (struct cced_output *out, size_t depth);

/* The profiles (CCED_FORMAT_PPROF, CCED_FORMAT_SPEEDSCOPE) aggregate
   records with the same thread, tag and path into a sample, adding
   their COUNTs and, where FLAGS has CCED_RECORD_VALUE, their VALUEs.
   pprof's sample types are events/count, and space/bytes when a record
   has a value; each sample has the labels "thread" (a number) and "tag"
   (its name as CCED_FORMAT_RECORDS prints it).  A frame and the frames
   inlined into it make one Location, its Lines innermost first.
   speedscope gets a profile of counts (unit "none") per thread, and one
   of values (unit "bytes") per thread that has them; each frame,
   inlined or not, is a frame of its own.  An incomplete path starts
   with the frame "[incomplete]" in both.  */

/* Add TEXT, one line about the whole output (the bound of the counts of
   a Space-Saving summary, say), to OUT: a pprof profile keeps it as a
   comment (pprof -comments); the other formats leave it to the caller.
   Returns 0, or -1 with CCED_E_NOMEM.  */
int cced_output_comment (struct cced_output *out, const char *text,
                         struct cced_error *err);

/* Write what is pending (the folded table for CCED_FORMAT_FOLDED, the
   profile for CCED_FORMAT_PPROF and CCED_FORMAT_SPEEDSCOPE: written by
   the first call, and by a later one only if records came after) and
   flush F.  Returns 0, or -1 with CCED_E_WRITE or CCED_E_NOMEM.  */
int cced_output_finish (struct cced_output *out, struct cced_error *err);

void cced_output_free (struct cced_output *out);

/* The name an output gives the tag TAG of a record in BUF (SIZE bytes,
   at least 16): for a record of an interrupted instruction, the
   signal's name ("SIGSEGV", or "SIG" and its number if it has no name
   here) or "sample"; NULL for any other tag.  */
const char *cced_tag_name (uint32_t tag, char *buf, size_t size);

/* Statistics of an output.  */
struct cced_output_stats
{
  uint64_t records;
  uint64_t incomplete;       /* records whose path is incomplete */
  uint64_t cache_hits;       /* records formatted from the cache */
  uint64_t distinct_paths;   /* folded, pprof, speedscope */
};
void cced_output_stats (const struct cced_output *out,
                        struct cced_output_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* CCE_DECODE_H */
