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
   link-time address RET calls, or NULL if unknown.  */
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

#endif /* CCE_DECODE_INTERNAL_H */
