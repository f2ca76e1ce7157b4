/* decode-internal.h -- what the files of libccedecode share: the
   error helpers and the program, whose dictionaries the log reader, the
   decoder and the output formats use.  */

#ifndef CCE_DECODE_INTERNAL_H
#define CCE_DECODE_INTERNAL_H

#include <libelf.h>
#include "cce-core.h"
#include "decode.h"

struct cced_calls;

struct cced_program
{
  char *name;
  struct cce_graph *g;
  struct cced_calls **calls;    /* by module: what its calls call */
  size_t ncalls;
};

/* What the call instructions of a module call (calls.c): read from the
   ELF file ELF (section names in SHSTRNDX), or NULL when out of
   memory.  */
struct cced_calls *cced_calls_read (Elf *elf, size_t shstrndx);
/* The name of the function that the call instruction that ends at
   link-time address RET calls, or NULL if unknown, or "" for a function
   of the module itself.  */
const char *cced_calls_callee (const struct cced_calls *c, uint64_t ret);
void cced_calls_free (struct cced_calls *c);

/* Set *ERR (if not NULL) to CODE with a formatted message (the generic
   one when FMT is NULL).  Returns -1.  */
int seterr (struct cced_error *err, enum cced_errcode code, int errnum,
            const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));
/* seterr with CCED_E_NOMEM.  Returns -1.  */
int nomem (struct cced_error *err);
/* Set *ERR (if not NULL) to no error.  */
void clearerr_ (struct cced_error *err);

/* BUF (of *ALLOC items of SIZE bytes) reallocated for at least N items:
   the new pointer, with *ALLOC updated, or NULL (BUF unchanged).  */
void *grow_array (void *buf, size_t *alloc, size_t n, size_t size);
/* String S of G, or NULL if it has none.  */
const char *graph_string (const struct cce_graph *g, uint32_t s);

/* A protocol buffers message being written (pbwrite.c): N bytes at P, of
   A allocated.  OOM is set when memory ran out; the writers then do
   nothing, so that a whole message is checked once at its end.  Start
   from all zeros.  */
struct cced_pbuf
{
  unsigned char *p;
  size_t n, a;
  int oom;
};

/* Append N raw bytes of DATA; a varint V; field FIELD as a varint V (for
   uint32, uint64 and bool) or as a signed int64 V; field FIELD
   length-delimited with the N bytes of DATA, the string S, the message
   M or the packed repeated varints V[0..N-1] (nothing when N is 0).  */
void cced_pb_raw (struct cced_pbuf *b, const void *data, size_t n);
void cced_pb_varint (struct cced_pbuf *b, uint64_t v);
void cced_pb_uint (struct cced_pbuf *b, uint32_t field, uint64_t v);
void cced_pb_int (struct cced_pbuf *b, uint32_t field, int64_t v);
void cced_pb_bytes (struct cced_pbuf *b, uint32_t field, const void *data,
                    size_t n);
void cced_pb_string (struct cced_pbuf *b, uint32_t field, const char *s);
void cced_pb_message (struct cced_pbuf *b, uint32_t field,
                      const struct cced_pbuf *m);
void cced_pb_packed (struct cced_pbuf *b, uint32_t field, const uint64_t *v,
                     size_t n);
void cced_pb_free (struct cced_pbuf *b);

/* The profile of the pprof and speedscope outputs (profile.c): samples
   keyed by thread, tag and path, each with the events it counts and the
   sum of their values.  */
struct cced_profile;

struct cced_profile *cced_profile_new (const struct cce_graph *g);
void cced_profile_free (struct cced_profile *p);
/* The number of distinct paths and of samples of P.  */
void cced_profile_counts (const struct cced_profile *p, size_t *npaths,
                          size_t *nsamples);
/* The path PATH of P (the same pointer for every equal path), or NULL
   when out of memory.  */
const void *cced_profile_path (struct cced_profile *p,
                               const struct cced_path *path);
/* Add COUNT events whose values sum to VALUE (when HAS_VALUE) on thread
   THREAD with tag TAG at the path PATH of P.  TAGNAME is the tag's name,
   or NULL to name it by its number; it is taken from the first record of
   a sample.  Returns 0, or -1 when out of memory.  */
int cced_profile_add (struct cced_profile *p, const void *path,
                      uint32_t thread, uint32_t tag, const char *tagname,
                      uint64_t count, uint64_t value, int has_value);

/* The name a frame shows for the symbol or name RAW (output.c): a C++
   symbol demangled, with its parameter list and without its return type
   when PARAMS, else RAW; control characters as '?'.  A new string (free
   it), NULL when out of memory.  */
char *cced_display_name (const char *raw, int params);

/* Add an entry of a heap profile (TAG one of CCE_TAG_HEAP_*: COUNT
   blocks of VALUE bytes, sampled every PERIOD bytes, 0 for none) at the
   path PATH of P, whatever its thread.  A profile with such entries is
   a heap profile: its writers give the heap's sample types, from these
   alone.  Returns 0, or -1 when out of memory.  */
int cced_profile_add_heap (struct cced_profile *p, const void *path,
                           uint32_t tag, uint64_t count, uint64_t value,
                           uint64_t period);
/* The weight of a heap profile's COUNT blocks of VALUE bytes sampled
   every PERIOD bytes (0: not sampled): 1 / (1 - exp (-AVG / PERIOD)),
   AVG the blocks' average size.  */
double cced_heap_scale (uint64_t count, uint64_t value, uint64_t period);

/* Where the profile writers put their bytes: WRITE (CTX, BUF, N).  */
typedef void cced_write_fn (void *ctx, const void *buf, size_t n);

/* Write P as a gzip-compressed profile.proto of the program NAME, with
   the NCOMMENTS lines COMMENTS as its comments.  Returns 0, or -1 with
   CCED_E_NOMEM.  */
int cced_profile_pprof (struct cced_profile *p, const char *name,
                        char *const *comments, size_t ncomments,
                        cced_write_fn *write, void *ctx,
                        struct cced_error *err);
/* Write P as a speedscope file of the program NAME.  Returns 0, or -1
   with CCED_E_NOMEM.  */
int cced_profile_speedscope (struct cced_profile *p, const char *name,
                             cced_write_fn *write, void *ctx,
                             struct cced_error *err);

#endif /* CCE_DECODE_INTERNAL_H */
