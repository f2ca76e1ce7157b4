/* flow.c -- which restores of the id and the top after a call are
   needed: a backward liveness over the blocks of one function.  */

#include "core-internal.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ */
/* Restores: a backward liveness of the id and the top.               */

/* What is live at the start of block B, given LIVE_OUT, and (when LIVE is
   not NULL) what is live after each of its events.  */
static uint8_t
flow_block (const struct cce_flow *f, size_t b, uint8_t live_out,
            uint8_t *live)
{
  uint8_t l = live_out;
  for (uint32_t e = f->ev_start[b + 1]; e-- > f->ev_start[b];)
    {
      if (live)
        live[e] = l;
      l = (uint8_t) ((l & ~(f->ev[e] >> 2)) | (f->ev[e] & 3));
    }
  return l;
}

static uint8_t
flow_out (const struct cce_flow *f, size_t b, const uint8_t *live_in)
{
  uint8_t out = 0;
  for (uint32_t k = f->succ_start[b]; k < f->succ_start[b + 1]; k++)
    out |= f->succ[k] == CCE_NONE ? (CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP)
           : f->succ[k] == CCE_FLOW_EXIT ? f->exit_use
           : live_in[f->succ[k]];
  return out;
}

int
cce_flow_live_after (const struct cce_flow *f, uint8_t *live)
{
  uint8_t *in = calloc (f->nblocks ? f->nblocks : 1, 1);
  if (!in)
    return -1;
  /* Liveness only grows from all-dead, so this ends: at most two bits per
     block can change.  */
  for (int changed = 1; changed;)
    {
      changed = 0;
      for (size_t b = f->nblocks; b-- > 0;)
        {
          uint8_t l = flow_block (f, b, flow_out (f, b, in), NULL);
          if (l != in[b])
            {
              in[b] = l;
              changed = 1;
            }
        }
    }
  for (size_t b = 0; b < f->nblocks; b++)
    flow_block (f, b, flow_out (f, b, in), live);
  free (in);
  return 0;
}
