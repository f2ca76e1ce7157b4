/* decoder.c -- libccedecode: a record's calling context, from its id,
   site and ccStack.  Never prints, never exits: see decode.h.  */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1     /* strnlen, strdup, fileno */
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cce-abi.h"
#include "cce-format.h"
#include "cce-core.h"
#include "decode.h"
#include "decode-internal.h"

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

void *
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
     log site) and the ccStack entries.  A record of an interrupted
     instruction names it by a PC word, whatever it was.  */
  if (CCE_TAG_IS_PC (rec->tag) && !CCE_IS_PC_WORD (rec->site)
      && rec->site != CCE_PC_EXTERNAL)
    {
      incomplete (d, path, "record of an interrupted instruction without "
                  "its PC");
      return 0;
    }
  /* The sites of the PC words, made in the program's graph.  */
  if (cce_graph_pc_sites (d->prog->g, rec->site, rec->stack, rec->nstack)
      < 0)
    return nomem (err);

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

const char *
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
  else if (f->ext_name == CCE_SIGNAL_MARK)
    name = "[signal]";
  else
    name = graph_string (g, f->ext_name);
  return name && *name ? name : "??";
}
