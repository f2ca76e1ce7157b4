/* paths.c -- decoding: from a log site (or an interrupted instruction),
   an id and a ccStack to the path of call sites that was taken, and from
   a path to source frames.  */

#include "core-internal.h"
#include "cce-abi.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Decoding.                                                          */

/* The incoming edge of node N whose range holds ID, or NULL.  The root
   edge is not returned.  */
static const struct cce_edge *
find_edge (const struct cce_graph *g, uint32_t n, uint64_t id)
{
  const struct cce_node *node = &g->nodes[n];
  size_t lo = node->first_in, hi = (size_t) node->first_in + node->n_in;
  const struct cce_edge *e;

  /* The last edge with av <= id.  */
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (g->edges[mid].av <= id)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == node->first_in)
    return NULL;
  e = &g->edges[lo - 1];
  if (e->site == CCE_NONE || id - e->av >= site_width (g, e->site))
    return NULL;
  return e;
}

/* Is S a call out of the program to a function that sends a signal to the
   calling process (and so is where a synchronous signal arrives)?  */
static int
signal_sender (const struct cce_graph *g, const struct cce_site *s)
{
  static const char *const senders[] = {
    "raise", "kill", "abort", "pthread_kill", "tgkill", "killpg",
    "sigqueue", "pthread_sigqueue", "tkill", NULL
  };
  int i;

  if (s->kind != CCE_SITE_EXTERNAL || s->target >= g->nstrings)
    return 0;
  for (i = 0; senders[i]; i++)
    if (strcmp (g->strings[s->target], senders[i]) == 0)
      return 1;
  return 0;
}

/* Is WORD the place of an interrupted instruction (cce-format.h): a PC
   word, or CCE_PC_EXTERNAL?  */
static int
is_pc (uint64_t word)
{
  return CCE_IS_PC_WORD (word) || word == CCE_PC_EXTERNAL;
}

/* Is ID a folded id of node C: 1, with the caller's id in *UP and the
   folded site that holds it in *SITE; 0 if it is none; -1 if it is
   beyond C's fold limit (or C, read from a damaged dictionary, has no
   contexts, where the caller's id would not be smaller).  */
static int
unfold_id (const struct cce_graph *g, const struct cce_node *c, uint64_t id,
           uint64_t *up, uint32_t *site)
{
  uint64_t rel;

  if (id < c->numcc || !c->nfold)
    return 0;
  rel = id - c->numcc;
  if (rel / c->nfold >= c->fold_lim || rel / c->nfold >= id)
    return -1;
  *site = g->folds[c->first_fold + rel % c->nfold];
  *up = rel / c->nfold;
  return 1;
}

/* Enter the function of the instruction of PC word WORD, where the
   thread's id was *ID and its ccStack STACK[0 .. *K): store in *SITE the
   PC's site (CCE_NONE if it has none), the function's node in *N, and
   turn *ID and *K into the function's own by the state of the PC's
   range (cce-format.h, part 3).  Returns NULL, or why the path is
   incomplete from the function's frames on (which *SITE gives, if it is
   not CCE_NONE).  */
static const char *
pc_enter (const struct cce_graph *g, uint64_t word,
          const struct cce_stack_entry *stack, size_t *k, uint64_t *id,
          uint32_t *n, uint32_t *site)
{
  struct cce_pc_loc loc;
  const struct cce_stack_entry *top;
  const char *why;
  uint32_t ts;

  *site = CCE_NONE;
  if (cce_pc_find (g, word, &loc, &why) < 0)
    return why;
  if (loc.node == CCE_NONE)
    return "interrupted in a function that has no node in the dictionary";
  if (loc.site == CCE_NONE)
    return "PC location without its site (see cce_graph_pc_sites)";
  *site = loc.site;
  *n = loc.node;
  switch (loc.state)
    {
    case CCE_PC_OWN:
      return NULL;

    case CCE_PC_CALLEE:
      {
        /* The id of a call of CALLEE at one of this function's direct
           sites: the function's is the caller's id of that edge.  */
        const struct cce_node *c = &g->nodes[loc.callee];
        const struct cce_edge *e;
        uint64_t up;
        uint32_t fs;
        int r;
        /* After the call of another function whose self tail calls
           became jumps to its top: the id of its deepest level, whose
           levels its own folded sites made (a call that stays a call
           restores the id after it).  Each undone level is smaller.  */
        while ((r = unfold_id (g, c, *id, &up, &fs)) > 0
               && loc.callee != loc.node && g->sites[fs].node == loc.callee)
          *id = up;
        if (r < 0 || (r > 0 && g->sites[fs].node != loc.node))
          return "the id is not one of the function's calls";
        if (r > 0)
          {
            *id = up;
            return NULL;
          }
        e = find_edge (g, loc.callee, *id);
        if (!e || g->sites[e->site].node != loc.node)
          return "the id is not one of the function's calls";
        *id -= e->av;
        return NULL;
      }

    case CCE_PC_PUSHING:
      /* The top entry is being written: not the function's.  */
      if (*k == 0)
        return "no ccStack entry where the function pushes one";
      (*k)--;
      return NULL;

    case CCE_PC_PUSHED:
    case CCE_PC_POPPING:
      /* The top entry is the function's push for a call at one of its
         ccStack sites, with the function's id.  */
      if (*k == 0)
        return "no ccStack entry of the function's call";
      top = &stack[*k - 1];
      ts = cce_site_of_word (g, top->site);
      if (ts == CCE_NONE || g->sites[ts].node != loc.node
          || !cce_kind_on_stack (g->sites[ts].kind))
        return "the top ccStack entry is not a call of the function";
      if (loc.state == CCE_PC_POPPING && top->id != *id)
        return "the id is not the one of the ccStack entry being popped";
      *id = top->id;
      (*k)--;
      return NULL;

    default:
      return loc.async ? "the context is not known at this instruction"
                       : "the context is not known at this instruction "
                         "(built without -fplugin-arg-cce-async)";
    }
}

/* A path of folded recursion is as long as the recursion was deep; a
   machine stack holds far fewer frames than this.  */
#define CCE_DECODE_MAX_FRAMES (UINT64_C (1) << 20)

enum cce_decode_status
cce_decode (const struct cce_graph *g, uint64_t site, uint64_t id,
            const struct cce_stack_entry *stack, size_t nstack,
            uint32_t *sites, size_t maxsites, size_t *nsites,
            const char **reason)
{
  size_t count = 0, k = nstack, i;
  uint32_t n, ls, ps;
  const char *pw;
  enum cce_decode_status status = CCE_DECODE_OK;
  const char *why = NULL;

#define EMIT(s) do { if (count < maxsites) sites[count] = (s); count++; } \
  while (0)
#define GIVE_UP(msg) do { status = CCE_DECODE_INCOMPLETE; why = (msg); \
  goto done; } while (0)

  if (site == CCE_SITE_NONE)
    GIVE_UP ("logged from code built without cce");
  if (is_pc (site))
    {
      /* An interrupted instruction: its function's frames, then the
         walk up from its node with the function's own id and ccStack.  */
      pw = pc_enter (g, site, stack, &k, &id, &n, &ps);
      if (ps != CCE_NONE)
        EMIT (ps);
      if (pw)
        GIVE_UP (pw);
      goto walk;
    }
  ls = cce_site_of_word (g, site);
  if (ls == CCE_NONE)
    GIVE_UP (CCE_SITE_KEY (site) == 0 || g->nmodules == 0
             || cce_site_of_word (g, CCE_SITE_WORD (CCE_SITE_KEY (site), 0))
                != CCE_NONE
             ? "log site unknown to the dictionary"
             : "logged in a module whose dictionary was not given");
  if (g->sites[ls].kind != CCE_SITE_LOG && g->sites[ls].kind != CCE_SITE_TRACE)
    GIVE_UP ("log site unknown to the dictionary");
  EMIT (ls);
  n = g->sites[ls].node;
walk:
  for (;;)
    {
      const struct cce_node *node;
      const struct cce_site *s;
      const struct cce_stack_entry *top;
      uint32_t ts;

      /* Walk up through one segment.  Each step goes up an edge of the
         acyclic graph, so it ends within nnodes steps, or up a folded
         back edge, which makes the id smaller.  */
      for (i = 0;; i++)
        {
          const struct cce_edge *e;
          node = &g->nodes[n];
          if (node->has_root && id == node->root)
            break;
          if (i > g->nnodes)
            GIVE_UP ("dictionary is cyclic");
          if (id >= node->numcc && node->nfold)
            {
              uint64_t rel = id - node->numcc;
              uint32_t fs;
              if (rel / node->nfold >= node->fold_lim)
                GIVE_UP ("context id does not fit the call graph");
              if (count > CCE_DECODE_MAX_FRAMES)
                GIVE_UP ("path longer than the decoder follows");
              fs = g->folds[node->first_fold + rel % node->nfold];
              id = rel / node->nfold;
              EMIT (fs);
              n = g->sites[fs].node;
              i = 0;
              continue;
            }
          e = find_edge (g, n, id);
          if (!e)
            GIVE_UP ("context id does not fit the call graph");
          id -= e->av;
          EMIT (e->site);
          n = g->sites[e->site].node;
        }
      if (k == 0)
        {
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("path starts at a function that is not an entry");
          break;
        }
      top = &stack[--k];
      if (is_pc (top->site))
        {
          /* A signal handler's segment, and the instruction the signal
             interrupted: the path goes on there, with the interrupted
             id and the entries below.  */
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("signal entry does not start at an entry function");
          EMIT (CCE_SIGNAL_MARK);
          id = top->id;
          pw = pc_enter (g, top->site, stack, &k, &id, &n, &ps);
          if (ps != CCE_NONE)
            EMIT (ps);
          if (pw)
            GIVE_UP (pw);
          continue;
        }
      if (top->site == CCE_SITE_SIGNAL_SYNC
          || top->site == CCE_SITE_SIGNAL_ASYNC)
        {
          /* A signal handler's segment.  A signal the process sent itself
             arrived inside the libc call that sent it: if that call is the
             ccStack entry below, with its callee's id 0, the path goes on
             exactly through it.  */
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("signal entry does not start at an entry function");
          if (top->site == CCE_SITE_SIGNAL_SYNC && top->id == 0 && k > 0
              && (ts = cce_site_of_word (g, stack[k - 1].site)) != CCE_NONE
              && signal_sender (g, &g->sites[ts]))
            continue;
          GIVE_UP ("signal handler: the interrupted context is unknown");
        }
      if (top->site == CCE_SITE_THREAD)
        {
          /* The thread's start routine: below is its creator's context at
             pthread_create.  */
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("thread does not start at an entry function");
          if (k == 0)
            GIVE_UP ("thread entry without its creator's context");
          EMIT (CCE_THREAD_MARK);
          id = 0;
          continue;
        }
      ts = cce_site_of_word (g, top->site);
      if (ts == CCE_NONE)
        GIVE_UP ("ccStack entry names an unknown site");
      s = &g->sites[ts];
      if (s->kind == CCE_SITE_BACK)
        {
          if (s->target != n)
            GIVE_UP ("ccStack entry does not call this function");
        }
      else if (s->kind == CCE_SITE_INDIRECT || s->kind == CCE_SITE_EXTERNAL)
        {
          if (!(node->flags & CCE_NODE_ENTRY))
            GIVE_UP ("ccStack entry enters a function that is not an entry");
        }
      else
        GIVE_UP ("ccStack entry is not a ccStack site");
      EMIT (ts);
      n = s->node;
      id = top->id;
    }

done:
  /* Sites were emitted innermost first: reverse what fits.  */
  if (count <= maxsites)
    for (i = 0; i < count / 2; i++)
      {
        uint32_t t = sites[i];
        sites[i] = sites[count - 1 - i];
        sites[count - 1 - i] = t;
      }
  *nsites = count;
  if (reason)
    *reason = why;
  return status;
#undef EMIT
#undef GIVE_UP
}

/* Are functions A and B of G (CCE_NONE: none) the same source function?
   The dictionaries of two partitions of a program each have an entry
   for a function both call into.  */
static int
same_func (const struct cce_graph *g, uint32_t a, uint32_t b)
{
  if (a == b)
    return 1;
  if (a >= g->nfuncs || b >= g->nfuncs)
    return 0;
  return g->funcs[a].name == g->funcs[b].name
         && g->funcs[a].file == g->funcs[b].file
         && g->funcs[a].line == g->funcs[b].line;
}

void
cce_path_frames (const struct cce_graph *g, const uint32_t *sites,
                 size_t nsites, struct cce_path_frame *frames,
                 size_t maxframes, size_t *nframes)
{
  size_t count = 0, i, j;
  struct cce_path_frame last;
  int have_last = 0;

  memset (&last, 0, sizeof last);
  for (i = 0; i < nsites; i++)
    {
      const struct cce_site *s;
      const struct cce_node *node;
      int inherit_inlined = 0;

      if (sites[i] == CCE_THREAD_MARK || sites[i] == CCE_SIGNAL_MARK)
        {
          struct cce_path_frame pf;
          memset (&pf, 0, sizeof pf);
          pf.func = CCE_NONE;
          pf.ext_name = sites[i];
          pf.file = CCE_NONE;
          if (count < maxframes)
            frames[count] = pf;
          count++;
          last = pf;
          continue;
        }
      s = &g->sites[sites[i]];
      node = &g->nodes[s->node];

      /* A split part continues the frame of its function: drop the call
         into the part.  */
      if ((node->flags & CCE_NODE_SPLIT_PART) && have_last
          && same_func (g, last.func, node->func) && count > 0)
        {
          count--;
          inherit_inlined = last.inlined;
        }
      for (j = 0; j < s->nframes; j++)
        {
          const struct cce_frame *f = &g->frames[s->first_frame + j];
          struct cce_path_frame pf;
          /* A hidden node's own frame is left out; what was inlined into
             it stays, the first of it becoming the root.  */
          if ((node->flags & CCE_NODE_HIDDEN) && j == 0)
            continue;
          pf.func = f->func;
          pf.ext_name = CCE_NONE;
          pf.file = f->file;
          pf.line = f->line;
          pf.col = f->col;
          pf.inlined = (j > 0 && !((node->flags & CCE_NODE_HIDDEN) && j == 1))
                       || inherit_inlined;
          if (count < maxframes)
            frames[count] = pf;
          count++;
          last = pf;
          have_last = 1;
        }
      /* A call out of the module that entered the function it names,
         built with cce (in a shared library, or interposable): the
         callee's own frame follows.  */
      if (s->kind == CCE_SITE_EXTERNAL && i + 1 < nsites
          && sites[i + 1] < g->nsites && s->target < g->nstrings
          && (g->nodes[g->sites[sites[i + 1]].node].flags & CCE_NODE_ENTRY)
          && strcmp (g->strings[s->target],
                     g->strings[g->funcs[g->nodes[g->sites[sites[i + 1]].node]
                                         .func].name]) == 0)
        continue;
      if (s->kind == CCE_SITE_EXTERNAL)
        {
          struct cce_path_frame pf;
          pf.func = CCE_NONE;
          pf.ext_name = s->target;
          pf.file = CCE_NONE;
          pf.line = pf.col = 0;
          pf.inlined = 0;
          if (count < maxframes)
            frames[count] = pf;
          count++;
          last = pf;
        }
    }
  *nframes = count;
}
