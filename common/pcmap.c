/* pcmap.c -- the PC maps of a program's modules (cce-format.h, part 3):
   reading and checking them, finding the range that holds a PC word,
   and the sites (CCE_SITE_PC) that stand for the ranges records use.

   A PC word is no site: the decoder finds the instruction's range, and
   makes for it, the first time a record needs it, a site in the range's
   node whose frames are the range's location.  cce_decode and
   cce_path_frames then treat it as they treat a log site; only the
   ranges that records use cost memory.  */

#include "core-internal.h"
#include "cce-abi.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* A range of a PC map, its node and callee numbered in the merged
   graph.  */
struct pc_range
{
  uint64_t start;
  uint32_t len;
  uint32_t state;       /* CCE_PC_* */
  uint32_t node;        /* CCE_NONE: the body has no node */
  uint32_t callee;      /* CCE_NONE unless CCE_PC_CALLEE */
  uint32_t loc;         /* offset of the location in the map, 0: none */
  uint32_t site;        /* its CCE_SITE_PC site, CCE_NONE until made */
  int async;            /* its block has CCE_PCMAP_ASYNC */
};

/* The PC map of one module: every range of its blocks, by address, and
   the bytes of the section, which hold the locations.  */
struct pc_map
{
  struct pc_range *ranges;
  size_t nranges;
  char *bytes;
  size_t len;
};

/* The site of a PC word with CCE_PC_CALLER: the frames of the call
   instruction, then the function it called.  */
struct caller_site
{
  uint64_t word;
  uint32_t site;
};

struct cce_pc
{
  struct pc_map **maps;   /* by module; NULL: the module has none */
  size_t nmaps;
  struct caller_site *callers;  /* by word */
  size_t ncallers, acallers;
  cce_pc_callee_fn *callee;     /* names the function a call called */
  void *callee_arg;
  uint32_t *func_of;      /* by string: 1 + a function of that name, 0:
                             none (yet) */
  size_t nfunc_of;        /* strings it covers */
  size_t nfuncs_seen;     /* functions entered in it */
};

static void
map_free (struct pc_map *m)
{
  if (!m)
    return;
  free (m->ranges);
  free (m->bytes);
  free (m);
}

void
cce__pc_free (struct cce_pc *pc)
{
  size_t i;

  if (!pc)
    return;
  for (i = 0; i < pc->nmaps; i++)
    map_free (pc->maps[i]);
  free (pc->maps);
  free (pc->func_of);
  free (pc->callers);
  free (pc);
}

/* ------------------------------------------------------------------ */
/* Locations.                                                         */

/* One frame of a location: NAME '\t' FILE '\t' LINE '\t' COL.  */
struct loc_frame
{
  const char *name, *file;
  size_t nname, nfile;
  uint32_t line, col;
};

/* A decimal number at *P, ended by END (at least one digit, below
   2^32): 0 with *P after END, or -1.  */
static int
loc_num (const char **p, char end, uint32_t *v)
{
  const char *s = *p;
  uint64_t n = 0;

  if (*s < '0' || *s > '9')
    return -1;
  for (; *s >= '0' && *s <= '9'; s++)
    {
      n = n * 10 + (uint64_t) (*s - '0');
      if (n > UINT32_MAX)
        return -1;
    }
  if (*s != end)
    return -1;
  *v = (uint32_t) n;
  *p = end ? s + 1 : s;
  return 0;
}

/* A text field at *P ended by '\t' (no '\n' in it): 0 with *P after the
   tab, or -1.  */
static int
loc_text (const char **p, const char **s, size_t *n)
{
  const char *q = *p;

  while (*q && *q != '\t' && *q != '\n')
    q++;
  if (*q != '\t')
    return -1;
  *s = *p;
  *n = (size_t) (q - *p);
  *p = q + 1;
  return 0;
}

/* Read the frame at P of a NUL-terminated location into *F.  Returns
   where the next frame starts, P's terminating NUL after the last one,
   or NULL if the text is not a frame.  */
static const char *
loc_frame (const char *p, struct loc_frame *f)
{
  if (loc_text (&p, &f->name, &f->nname) < 0
      || loc_text (&p, &f->file, &f->nfile) < 0
      || loc_num (&p, '\t', &f->line) < 0)
    return NULL;
  /* COL ends the frame: a '\n' and another frame, or the NUL.  */
  if (loc_num (&p, '\n', &f->col) == 0)
    return *p ? p : NULL;
  if (loc_num (&p, 0, &f->col) == 0)
    return p;
  return NULL;
}

/* ------------------------------------------------------------------ */
/* Reading a PC map.                                                  */

static uint32_t
get32 (const char *p, int swapped)
{
  uint32_t v;
  memcpy (&v, p, sizeof v);
  return swapped ? __builtin_bswap32 (v) : v;
}

static uint16_t
get16 (const char *p, int swapped)
{
  uint16_t v;
  memcpy (&v, p, sizeof v);
  return swapped ? __builtin_bswap16 (v) : v;
}

static uint64_t
get64 (const char *p, int swapped)
{
  uint64_t v;
  memcpy (&v, p, sizeof v);
  return swapped ? __builtin_bswap64 (v) : v;
}

static int
range_cmp (const void *pa, const void *pb)
{
  const struct pc_range *a = pa, *b = pb;

  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return (a->len > b->len) - (a->len < b->len);
}

/* Check the location at OFF (from the start of BLOCK, SIZE bytes, whose
   strings start at STRINGS) of a range of a block of node NODE of G
   (CCE_NONE: none).  Returns NULL, or what is wrong with it.  */
static const char *
check_loc (const struct cce_graph *g, const char *block, uint32_t size,
           uint32_t strings, uint32_t off, uint32_t node)
{
  struct loc_frame f;
  const char *p, *name;

  if (off < strings || off >= size)
    return "its location is outside the block's strings";
  if (!memchr (block + off, 0, size - off))
    return "its location is not NUL-terminated inside the block";
  p = block + off;
  if (!(p = loc_frame (p, &f)))
    return "its location is not a list of frames";
  if (node != CCE_NONE)
    {
      name = g->strings[g->funcs[g->nodes[node].func].name];
      if (strlen (name) != f.nname || memcmp (name, f.name, f.nname) != 0)
        return "its location does not start in the node's function";
    }
  while (*p)
    if (!(p = loc_frame (p, &f)))
      return "its location is not a list of frames";
  return NULL;
}

int
cce_graph_read_pcmap (struct cce_graph *g, size_t module, const void *data,
                      size_t len, int swapped, char *err, size_t errlen)
{
  const struct cce_module *mod;
  struct pc_map *m = NULL;
  size_t off, nranges = 0, aranges = 0, i;
  const size_t bsize = sizeof (struct cce_pcmap_block);
  const size_t rsize = sizeof (struct cce_pcmap_range);

#define BAD(...) do { set_err (err, errlen, __VA_ARGS__); goto fail; } \
  while (0)
  if (module >= g->nmodules)
    {
      set_err (err, errlen, "no module %zu: the graph has %zu", module,
               g->nmodules);
      return -1;
    }
  if (g->modules[module].file != module)
    {
      set_err (err, errlen, "module %zu is a partition of module %" PRIu32,
               module, g->modules[module].file);
      return -1;
    }
  if (g->pc && module < g->pc->nmaps && g->pc->maps[module])
    {
      set_err (err, errlen, "module %zu has a PC map already", module);
      return -1;
    }
  if (len >= UINT32_MAX)
    {
      set_err (err, errlen, "%zu bytes: too large", len);
      return -1;
    }
  m = calloc (1, sizeof *m);
  if (!m || !(m->bytes = malloc (len ? len : 1)))
    goto oom;
  if (len)
    memcpy (m->bytes, data, len);
  m->len = len;

  for (off = 0; off < len;)
    {
      const char *b = m->bytes + off;
      uint32_t mark, size, key, node, nr, strings, r;
      uint16_t version, flags;

      if (len - off < bsize)
        BAD ("block at offset %zu: truncated (%zu bytes left)",
             off, len - off);
      mark = get32 (b + offsetof (struct cce_pcmap_block, mark), swapped);
      version = get16 (b + offsetof (struct cce_pcmap_block, version),
                       swapped);
      flags = get16 (b + offsetof (struct cce_pcmap_block, flags), swapped);
      size = get32 (b + offsetof (struct cce_pcmap_block, size), swapped);
      key = get32 (b + offsetof (struct cce_pcmap_block, key), swapped);
      node = get32 (b + offsetof (struct cce_pcmap_block, node), swapped);
      nr = get32 (b + offsetof (struct cce_pcmap_block, nranges), swapped);
      if (mark != CCE_PCMAP_MARK)
        BAD ("block at offset %zu: bad mark 0x%08" PRIx32, off,
             mark);
      if (version != CCE_PCMAP_VERSION)
        BAD ("block at offset %zu: version %u, this decoder reads %d",
             off, (unsigned) version, CCE_PCMAP_VERSION);
      if (size < bsize || size % 8 != 0)
        BAD ("block at offset %zu: bad size %" PRIu32, off, size);
      if (size > len - off)
        BAD ("block at offset %zu: truncated (size %" PRIu32
             ", %zu bytes left)", off, size, len - off);
      /* The block of a function of the module, or of another partition
         of its file.  */
      mod = &g->modules[module];
      if (key != mod->key)
        for (i = 0; i < g->nmodules; i++)
          if (g->modules[i].key == key && g->modules[i].file == module)
            {
              mod = &g->modules[i];
              break;
            }
      if (key != mod->key)
        BAD ("block at offset %zu: key %08" PRIx32 ", the dictionary's is "
             "%08" PRIx32 ": the map is stale, made for another build",
             off, key, g->modules[module].key);
      if (node != CCE_PCMAP_NO_NODE && node >= mod->nnodes)
        BAD ("block at offset %zu: node %" PRIu32 ", the dictionary "
             "has %" PRIu32, off, node, mod->nnodes);
      if (nr > (size - bsize) / rsize)
        BAD ("block at offset %zu: %" PRIu32 " ranges do not fit "
             "in its %" PRIu32 " bytes", off, nr, size);
      strings = (uint32_t) (bsize + nr * rsize);
      if (GROW (m->ranges, aranges, nranges + nr) < 0)
        goto oom;
      for (r = 0; r < nr; r++)
        {
          const char *q = b + bsize + r * rsize;
          struct pc_range *pr = &m->ranges[nranges + r];
          const char *why;
          uint64_t last;

          pr->start = get64 (q + offsetof (struct cce_pcmap_range, start),
                             swapped);
          pr->len = get32 (q + offsetof (struct cce_pcmap_range, len),
                           swapped);
          pr->state = get32 (q + offsetof (struct cce_pcmap_range, state),
                             swapped);
          pr->callee = get32 (q + offsetof (struct cce_pcmap_range, callee),
                              swapped);
          pr->loc = get32 (q + offsetof (struct cce_pcmap_range, loc),
                           swapped);
          pr->node = node == CCE_PCMAP_NO_NODE ? CCE_NONE
                                               : mod->first_node + node;
          pr->site = CCE_NONE;
          pr->async = (flags & CCE_PCMAP_ASYNC) != 0;
          if (__builtin_add_overflow (pr->start, (uint64_t) pr->len, &last))
            BAD ("block at offset %zu: range %" PRIu32 " runs past "
                 "the end of the address space", off, r);
          if (pr->state > CCE_PC_UNKNOWN)
            BAD ("block at offset %zu: range %" PRIu32 " has the "
                 "unknown state %" PRIu32, off, r, pr->state);
          if (pr->state == CCE_PC_CALLEE)
            {
              if (pr->callee >= mod->nnodes)
                BAD ("block at offset %zu: range %" PRIu32 " calls "
                     "node %" PRIu32 ", the dictionary has %" PRIu32, off,
                     r, pr->callee, mod->nnodes);
              pr->callee += mod->first_node;
            }
          else if (pr->callee != CCE_PCMAP_NO_NODE)
            BAD ("block at offset %zu: range %" PRIu32 " has a "
                 "callee but not the state CCE_PC_CALLEE", off, r);
          else
            pr->callee = CCE_NONE;
          if (pr->loc)
            {
              why = check_loc (g, b, size, strings, pr->loc, pr->node);
              if (why)
                BAD ("block at offset %zu: range %" PRIu32 ": %s",
                     off, r, why);
              pr->loc += (uint32_t) off;
            }
        }
      nranges += nr;
      off += size;
    }

  /* The ranges of all blocks, by address: disjoint.  */
  if (nranges)
    qsort (m->ranges, nranges, sizeof *m->ranges, range_cmp);
  for (i = 1; i < nranges; i++)
    if (m->ranges[i].start - m->ranges[i - 1].start < m->ranges[i - 1].len)
      BAD ("two ranges hold the address 0x%" PRIx64,
           m->ranges[i].start);
  m->nranges = nranges;

  if (!g->pc && !(g->pc = calloc (1, sizeof *g->pc)))
    goto oom;
  if (module >= g->pc->nmaps)
    {
      struct pc_map **maps = realloc (g->pc->maps,
                                      g->nmodules * sizeof *maps);
      if (!maps)
        goto oom;
      for (i = g->pc->nmaps; i < g->nmodules; i++)
        maps[i] = NULL;
      g->pc->maps = maps;
      g->pc->nmaps = g->nmodules;
    }
  g->pc->maps[module] = m;
  return 0;

oom:
  set_err (err, errlen, "%s", strerror (ENOMEM));
fail:
  map_free (m);
  return -1;
#undef BAD
}

/* ------------------------------------------------------------------ */
/* Finding a PC.                                                      */

/* The range of G's PC maps that holds PC word WORD, and its map in *MAP
   (if MAP is not NULL), or NULL with *REASON set.  */
static struct pc_range *
find_range (const struct cce_graph *g, uint64_t word,
            const struct pc_map **map, const char **reason)
{
  const struct pc_map *m;
  uint32_t key = CCE_SITE_KEY (word), addr = CCE_PC_ADDR (word);
  size_t mod, lo, hi;

  /* A return address: the call is the instruction before it.  */
  if (CCE_IS_PC_WORD (word) && CCE_PC_IS_CALLER (word))
    {
      if (addr == 0)
        {
          *reason = "not a PC word";
          return NULL;
        }
      addr--;
    }

  *reason = "interrupted outside the program's code";
  if (word == CCE_PC_EXTERNAL)
    return NULL;
  if (!CCE_IS_PC_WORD (word))
    {
      *reason = "not a PC word";
      return NULL;
    }
  /* The key 0 names the main program, as in site words.  */
  for (mod = 0; mod < g->nmodules; mod++)
    if (g->modules[mod].key == key || (key == 0 && mod == 0))
      break;
  if (mod == g->nmodules)
    {
      *reason = "interrupted in a module whose dictionary was not given";
      return NULL;
    }
  mod = g->modules[mod].file;
  m = g->pc && mod < g->pc->nmaps ? g->pc->maps[mod] : NULL;
  if (!m)
    {
      *reason = "no PC map: the program was built by a cce without one";
      return NULL;
    }
  /* The last range that starts at or below ADDR.  */
  lo = 0;
  hi = m->nranges;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (m->ranges[mid].start <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || addr - m->ranges[lo - 1].start >= m->ranges[lo - 1].len)
    return NULL;
  if (map)
    *map = m;
  return &m->ranges[lo - 1];
}

/* The caller site of WORD in PC, or NULL.  */
static struct caller_site *
find_caller (const struct cce_pc *pc, uint64_t word)
{
  size_t lo = 0, hi = pc->ncallers;
  while (lo < hi)
    {
      size_t mid = lo + (hi - lo) / 2;
      if (pc->callers[mid].word < word)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < pc->ncallers && pc->callers[lo].word == word
         ? &pc->callers[lo] : NULL;
}

int
cce_pc_find (const struct cce_graph *g, uint64_t word,
             struct cce_pc_loc *loc, const char **reason)
{
  const struct pc_range *r = find_range (g, word, NULL, reason);

  if (!r)
    return -1;
  loc->site = r->site;
  if (CCE_PC_IS_CALLER (word))
    {
      const struct caller_site *c = find_caller (g->pc, word);
      loc->site = c ? c->site : CCE_NONE;
    }
  loc->node = r->node;
  loc->state = r->state;
  loc->callee = r->callee;
  loc->async = r->async;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Sites of ranges.                                                   */

/* A function of G named by the N bytes at NAME, a new one if G has
   none: its number, or CCE_NONE when out of memory.  Any function of
   that name will do: a path shows its name only.  */
static uint32_t
func_named (struct cce_graph *g, const char *name, size_t n)
{
  struct cce_pc *pc = g->pc;
  char *copy = malloc (n + 1);
  uint32_t s, f;

  if (!copy)
    return CCE_NONE;
  memcpy (copy, name, n);
  copy[n] = 0;
  s = cce_graph_string (g, copy);
  if (s == CCE_NONE)
    goto out;
  if (pc->nfunc_of < g->nstrings)
    {
      size_t want = g->nstrings + g->nstrings / 2 + 16;
      uint32_t *fo = realloc (pc->func_of, want * sizeof *fo);
      if (!fo)
        {
          s = CCE_NONE;
          goto out;
        }
      memset (fo + pc->nfunc_of, 0, (want - pc->nfunc_of) * sizeof *fo);
      pc->func_of = fo;
      pc->nfunc_of = want;
    }
  for (; pc->nfuncs_seen < g->nfuncs; pc->nfuncs_seen++)
    {
      uint32_t nm = g->funcs[pc->nfuncs_seen].name;
      if (nm < pc->nfunc_of && !pc->func_of[nm])
        pc->func_of[nm] = (uint32_t) pc->nfuncs_seen + 1;
    }
  if (!pc->func_of[s])
    {
      f = cce_graph_func (g, copy, "", 0);
      if (f == CCE_NONE)
        {
          s = CCE_NONE;
          goto out;
        }
      pc->func_of[s] = f + 1;
    }
  s = pc->func_of[s] - 1;
out:
  free (copy);
  return s;
}

/* Add the frames of the location of range R of map M to SITE of G, the
   first one in function FUNC0: 0, or -1 when out of memory.  */
static int
loc_frames (struct cce_graph *g, const struct pc_map *m,
            const struct pc_range *r, uint32_t site, uint32_t func0)
{
  const char *p = m->bytes + r->loc;
  struct loc_frame f;

  /* The location was checked when the map was read: at least one
     frame, the first one in the node's function.  */
  do
    {
      int first = p == m->bytes + r->loc;
      uint32_t func;
      char *file = NULL;
      int rc;

      p = loc_frame (p, &f);
      if (!p)
        return -1;
      func = first ? func0 : func_named (g, f.name, f.nname);
      if (func == CCE_NONE)
        return -1;
      if (f.nfile)
        {
          if (!(file = malloc (f.nfile + 1)))
            return -1;
          memcpy (file, f.file, f.nfile);
          file[f.nfile] = 0;
        }
      rc = cce_graph_frame (g, site, func, file, f.line, f.col);
      free (file);
      if (rc < 0)
        return -1;
    }
  while (*p);
  return 0;
}

/* Make the site of range R of map M of G, with a last frame of the
   function named CALLEE if it is not NULL: its number in *OUT and 0, or
   -1 when out of memory.  */
static int
make_site (struct cce_graph *g, const struct pc_map *m,
           const struct pc_range *r, const char *callee, uint32_t *out)
{
  uint32_t site, func0 = g->nodes[r->node].func;

  if (g->nsites >= CCE_SIGNAL_MARK - 1)
    return -1;
  site = cce_graph_site (g, r->node, CCE_SITE_PC, CCE_NONE, 0);
  if (site == CCE_NONE)
    return -1;
  if (!r->loc)
    {
      /* No location: the function alone.  */
      if (cce_graph_frame (g, site, func0, NULL, 0, 0) < 0)
        return -1;
    }
  else if (loc_frames (g, m, r, site, func0) < 0)
    return -1;
  if (callee)
    {
      uint32_t f = func_named (g, callee, strlen (callee));
      if (f == CCE_NONE || cce_graph_frame (g, site, f, NULL, 0, 0) < 0)
        return -1;
    }
  *out = site;
  return 0;
}

/* Make the site of PC word WORD if a range holds it: 0, or -1 when out
   of memory.  */
static int
pc_site (struct cce_graph *g, uint64_t word)
{
  const struct pc_map *m;
  const char *why;
  struct pc_range *r;

  if (!CCE_IS_PC_WORD (word))
    return 0;
  r = find_range (g, word, &m, &why);
  if (!r || r->node == CCE_NONE)
    return 0;
  if (CCE_PC_IS_CALLER (word))
    {
      struct cce_pc *pc = g->pc;
      struct caller_site *c;
      const char *name = NULL;
      uint32_t s;
      size_t i;

      if (find_caller (pc, word))
        return 0;
      /* The module of the word: find_range found it.  */
      for (i = 0; i < g->nmodules; i++)
        if (i < pc->nmaps && pc->maps[i] == m)
          break;
      if (pc->callee)
        name = pc->callee (pc->callee_arg, i, CCE_PC_ADDR (word));
      /* A call of a function of the program, which left it by a tail
         call: which function it jumped to, and through which others,
         is not known.  No site: the record is incomplete.  */
      if (name && !*name)
        return 0;
      if (make_site (g, m, r, name ? name : "??", &s) < 0)
        return -1;
      if (pc->ncallers == pc->acallers)
        {
          size_t want = pc->acallers ? 2 * pc->acallers : 16;
          c = realloc (pc->callers, want * sizeof *c);
          if (!c)
            return -1;
          pc->callers = c;
          pc->acallers = want;
        }
      for (i = pc->ncallers; i > 0 && pc->callers[i - 1].word > word; i--)
        pc->callers[i] = pc->callers[i - 1];
      pc->callers[i].word = word;
      pc->callers[i].site = s;
      pc->ncallers++;
      return 0;
    }
  if (r->site != CCE_NONE)
    return 0;
  return make_site (g, m, r, NULL, &r->site);
}

void
cce_graph_set_pc_callee (struct cce_graph *g, cce_pc_callee_fn *fn,
                         void *arg)
{
  if (g->pc)
    {
      g->pc->callee = fn;
      g->pc->callee_arg = arg;
    }
}

int
cce_graph_pc_sites (struct cce_graph *g, uint64_t site,
                    const struct cce_stack_entry *stack, size_t nstack)
{
  size_t i;

  if (!g->pc)
    return 0;
  if (pc_site (g, site) < 0)
    return -1;
  for (i = 0; i < nstack; i++)
    if (pc_site (g, stack[i].site) < 0)
      return -1;
  return 0;
}
