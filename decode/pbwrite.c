/* pbwrite.c -- libccedecode: a small protocol buffers writer, enough for
   the pprof output (profile.proto): varints, and length-delimited fields
   (strings, nested messages, packed repeated varints).  Never prints,
   never exits: see decode.h.  */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <stdlib.h>
#include <string.h>

#include "decode-internal.h"

/* Wire types.  */
#define PB_VARINT 0
#define PB_LEN 2

/* Make room in B for MORE bytes.  Returns 0, or -1 (B marked out of
   memory).  */
static int
pb_reserve (struct cced_pbuf *b, size_t more)
{
  unsigned char *p;
  if (b->oom)
    return -1;
  if (b->a - b->n >= more)
    return 0;
  if (b->n + more < b->n
      || !(p = grow_array (b->p, &b->a, b->n + more, 1)))
    {
      b->oom = 1;
      return -1;
    }
  b->p = p;
  return 0;
}

void
cced_pb_raw (struct cced_pbuf *b, const void *data, size_t n)
{
  if (n == 0 || pb_reserve (b, n) < 0)
    return;
  memcpy (b->p + b->n, data, n);
  b->n += n;
}

void
cced_pb_varint (struct cced_pbuf *b, uint64_t v)
{
  if (pb_reserve (b, 10) < 0)
    return;
  while (v >= 0x80)
    {
      b->p[b->n++] = (unsigned char) (v | 0x80);
      v >>= 7;
    }
  b->p[b->n++] = (unsigned char) v;
}

void
cced_pb_uint (struct cced_pbuf *b, uint32_t field, uint64_t v)
{
  cced_pb_varint (b, (uint64_t) field << 3 | PB_VARINT);
  cced_pb_varint (b, v);
}

void
cced_pb_int (struct cced_pbuf *b, uint32_t field, int64_t v)
{
  /* int64: two's complement, as a 64-bit varint.  */
  cced_pb_uint (b, field, (uint64_t) v);
}

void
cced_pb_bytes (struct cced_pbuf *b, uint32_t field, const void *data,
               size_t n)
{
  cced_pb_varint (b, (uint64_t) field << 3 | PB_LEN);
  cced_pb_varint (b, n);
  cced_pb_raw (b, data, n);
}

void
cced_pb_string (struct cced_pbuf *b, uint32_t field, const char *s)
{
  cced_pb_bytes (b, field, s, strlen (s));
}

void
cced_pb_message (struct cced_pbuf *b, uint32_t field,
                 const struct cced_pbuf *m)
{
  if (m->oom)
    b->oom = 1;
  cced_pb_bytes (b, field, m->p, m->n);
}

void
cced_pb_packed (struct cced_pbuf *b, uint32_t field, const uint64_t *v,
                size_t n)
{
  size_t len = 0;
  if (n == 0)
    return;
  for (size_t i = 0; i < n; i++)
    {
      uint64_t x = v[i];
      do
        {
          len++;
          x >>= 7;
        }
      while (x);
    }
  cced_pb_varint (b, (uint64_t) field << 3 | PB_LEN);
  cced_pb_varint (b, len);
  for (size_t i = 0; i < n; i++)
    cced_pb_varint (b, v[i]);
}

void
cced_pb_free (struct cced_pbuf *b)
{
  free (b->p);
  memset (b, 0, sizeof *b);
}
