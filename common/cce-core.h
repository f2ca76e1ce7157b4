/* cce-core.h -- the encoding core of cce: call graph, numCC, addition
   values, ccStack edges, dictionary text, and decoding of one context.

   Plain C, no GCC inside: the plugin fills a graph from GCC's call graph,
   the decoder reads one back from a dictionary, and the unit tests build
   random ones.  The library never prints and never exits; errors come back
   as a message in a caller-supplied buffer.

   Model.  Nodes are function bodies.  Sites are call sites (and cce_log
   sites) inside a node, each with its inline chain of source frames.  A
   direct site to a node of the program is an edge of the call graph.  Every
   node that can be entered from outside the program or through a pointer
   (CCE_NODE_ENTRY) has a root edge with value 0.  cce_graph_encode makes
   the graph acyclic by carrying back edges on the ccStack (site kind
   CCE_SITE_BACK, callee gets a root edge), cuts edges to the ccStack where
   a node would have more than UINT64_MAX contexts, then numbers the
   contexts of each node (numCC) and gives each incoming edge its addition
   value, hottest edge first so that it gets 0.  */

#ifndef CCE_CORE_H
#define CCE_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "cce-format.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CCE_NONE UINT32_MAX

struct cce_func
{
  uint32_t name;   /* string */
  uint32_t file;   /* string */
  uint32_t line;
};

struct cce_node
{
  uint32_t func;      /* source function */
  uint32_t flags;     /* CCE_NODE_* */
  uint64_t numcc;     /* contexts of the node (encode output) */
  int has_root;       /* node can start a segment (encode output) */
  uint64_t root;      /* its root value when has_root */
  uint32_t first_in;  /* its incoming edges in edges[], sorted by av */
  uint32_t n_in;
  int observed;       /* (encode output) a log site can be reached from
                         it: its context matters */
  int logs;           /* (encode output) observed without observe_all:
                         a log site, or code outside the program (an
                         indirect or external call), can be reached from
                         it, so that GCC never takes a store of the id
                         before a call of it for dead */
  uint64_t fold_lim;  /* (encode output) recursion folded into the id:
                         a folded back site J of the NFOLD ones into this
                         node, called with a caller's id below FOLD_LIM,
                         enters it with NUMCC + id * NFOLD + J; ids
                         [NUMCC, cce_node_width) are those.  0: none.  */
  uint32_t first_fold; /* its folded sites: folds[first_fold .. + nfold),
                          by fold index */
  uint32_t nfold;
  int keeps_id;       /* (encode input) the node must return with the id
                         it found although it is no ENTRY node: the
                         compiler takes it for const or pure, and may move
                         a caller's load of the id across a call of it */
  int clobbers;       /* (encode output) the node may return with another
                         id in the TLS than it was entered with: it is not
                         an ENTRY node nor keeps_id, and it is observed
                         and has code that stores the id (a direct site
                         with an addition value, a ccStack site) or makes
                         a free call of a node that clobbers.  Its return does not restore
                         the id; a caller that reads the id after a free
                         call of it restores it there.  An ENTRY node (code
                         outside the program may call it, and relies on
                         nothing) always returns with the id it found.  */
};

struct cce_frame
{
  uint32_t func;   /* source function */
  uint32_t file;   /* string: file of the call in this function */
  uint32_t line;
  uint32_t col;
};

struct cce_site
{
  uint32_t node;       /* node the site is in */
  char kind;           /* CCE_SITE_* */
  uint32_t target;     /* callee node (direct, back), string (external),
                          else CCE_NONE */
  uint32_t first_frame;/* frames[first_frame .. + nframes) outermost first */
  uint32_t nframes;
  uint64_t av;         /* addition value of a direct site */
  double freq;         /* estimated executions per entry of its node
                          (encode input) */
  char reason;         /* why a site is on the ccStack: 'r' recursion
                          (back edge), 'o' overflow cut; 0 otherwise */
  unsigned char may_log;/* (encode input) an external or indirect call
                          that may enter another module built with cce,
                          whose log sites this graph cannot see: its node
                          is observed as if it logged, and it is never
                          dead */
  unsigned char dead;  /* (encode output) no log site can be reached
                          through this call: it needs no code, and a
                          direct one is no edge */
  unsigned char tail_jump;/* (encode input) a call of its own node whose
                          value its node returns, where the compiler may
                          make it a jump to the node's top: folded, it
                          leaves the id of the deepest level, and its node
                          clobbers even under preserve_all */
  unsigned char guess; /* (encode input) a guessed target of an indirect
                          call: cutting it for overflow would cost the
                          indirect call's frequency, not its own (0), so
                          the overflow plan leaves it alone */
  uint32_t fold;       /* (encode output) a back site folded into the id:
                          its index among the folded sites of its callee
                          (cce_node's fold_lim); CCE_NONE otherwise */
};

struct cce_edge
{
  uint32_t node;   /* callee */
  uint32_t site;   /* direct site; CCE_NONE for the root edge */
  uint64_t av;
};

/* A module of a merged graph (cce_graph_merge): the sites of one
   dictionary, found by the key in site words and PC words.  A file
   linked from several LTRANS partitions holds one dictionary per
   partition; they are modules of one file, whose PC map is one.  */
struct cce_module
{
  uint32_t key;          /* cce_module_key of its stamp */
  uint32_t first_site;   /* its sites: sites[first_site .. + nsites) */
  uint32_t nsites;
  uint32_t first_node;   /* its nodes: nodes[first_node .. + nnodes) */
  uint32_t nnodes;
  uint32_t file;         /* the first module of its file, which holds the
                            file's PC map (cce_graph_read_pcmap) */
  uint64_t stamp;
};

/* The PC maps of a graph's modules and the sites made for their ranges
   (pcmap.c).  */
struct cce_pc;

struct cce_graph
{
  char **strings;        size_t nstrings, astrings;
  struct cce_func *funcs;   size_t nfuncs, afuncs;
  struct cce_node *nodes;   size_t nnodes, anodes;
  struct cce_site *sites;   size_t nsites, asites;
  struct cce_frame *frames; size_t nframes, aframes;
  struct cce_edge *edges;   size_t nedges;   /* encode / read output,
                                                root edges included */
  uint32_t *folds;          size_t nfolds;   /* encode / read output: the
                                                folded sites, by callee and
                                                fold index */
  int observe_all;       /* encode input: take every function as able to
                            log (encode every call, as if all were
                            observed) */
  int fold_max;          /* encode input: log2 of the largest fold limit
                            tried (at most 63); 0: the default, 32;
                            negative: no folding */
  int preserve_all;      /* encode input: every node returns with the id
                            it found (no node clobbers), but for a folded
                            tail_jump site's */
  int entry_observed;    /* encode input: a function of another module of
                            the program (another LTRANS partition) that
                            may be entered from outside can reach a log:
                            every call through a pointer or out of the
                            module is observed */
  uint64_t stamp;        /* of the dictionary text (write / read output) */
  struct cce_module *modules; size_t nmodules;  /* read and merge output:
                                                   one per dictionary; none
                                                   for a graph built in
                                                   memory, whose site words
                                                   are plain numbers */
  void *intern;          /* string interning table */
  struct cce_pc *pc;     /* cce_graph_read_pcmap output: the PC maps of
                            the modules; NULL if none was read */
};

/* Statistics of cce_graph_encode.  */
struct cce_encode_stats
{
  size_t direct_sites;     /* direct sites to program nodes */
  size_t zero_sites;       /* ... of which with addition value 0: no code */
  size_t back_sites;       /* direct sites moved to the ccStack: recursion */
  size_t folded_sites;     /* back sites folded into the id: a push only
                              when the caller's id reaches the limit */
  unsigned fold_bits;      /* log2 of the fold limit chosen (0: none) */
  size_t overflow_sites;   /* ... : more than UINT64_MAX contexts */
  size_t indirect_sites;
  size_t external_sites;
  size_t log_sites;
  size_t dead_sites;       /* sites through which no log site can be
                              reached: no code (direct, indirect,
                              external) */
  size_t clobber_nodes;    /* nodes that return without restoring the id
                              (cce_node's clobbers) */
  size_t clobber_sites;    /* free sites calling one: they restore the id
                              after the call where it is read again */
  uint64_t max_numcc;
};

/* Is a site of KIND a ccStack call (back edge or overflow cut, indirect,
   external)?  */
static inline int
cce_kind_on_stack (char kind)
{
  return kind == CCE_SITE_BACK || kind == CCE_SITE_INDIRECT
         || kind == CCE_SITE_EXTERNAL;
}

/* Does a call at SITE (after cce_graph_encode) leave the id in the TLS
   changed although the site itself stores nothing: a live direct site
   with addition value 0 whose callee clobbers?  */
static inline int
cce_site_clobbers (const struct cce_graph *g, uint32_t site)
{
  const struct cce_site *s = &g->sites[site];
  return s->kind == CCE_SITE_DIRECT && !s->dead && s->av == 0
         && s->target < g->nnodes && g->nodes[s->target].clobbers;
}

/* Building.  Each returns the new item's number, or CCE_NONE when out of
   memory.  */
struct cce_graph *cce_graph_new (void);
void cce_graph_free (struct cce_graph *g);
uint32_t cce_graph_string (struct cce_graph *g, const char *s);
uint32_t cce_graph_func (struct cce_graph *g, const char *name,
                         const char *file, uint32_t line);
uint32_t cce_graph_node (struct cce_graph *g, uint32_t func, uint32_t flags);
/* A site in NODE of KIND to TARGET with FREQ; its frames are added next
   with cce_graph_frame, outermost first.  */
uint32_t cce_graph_site (struct cce_graph *g, uint32_t node, char kind,
                         uint32_t target, double freq);
int cce_graph_frame (struct cce_graph *g, uint32_t site, uint32_t func,
                     const char *file, uint32_t line, uint32_t col);

/* Compute back edges, overflow cuts, numCC, root values and addition
   values.  Returns 0, or -1 with a message in ERR (ERRLEN bytes).  STATS
   may be NULL.  */
int cce_graph_encode (struct cce_graph *g, struct cce_encode_stats *stats,
                      char *err, size_t errlen);

/* The id a ccStack site sets for its callee (cce_abi.h's ENTRY).  */
uint64_t cce_site_entry (const struct cce_graph *g, uint32_t site);

/* The ids of node N its callees see: its contexts and, above them, those
   entered through folded back sites.  */
static inline uint64_t
cce_node_width (const struct cce_node *n)
{
  return n->numcc + (uint64_t) n->nfold * n->fold_lim;
}

/* A back site SITE folded into the id (cce_site's fold), called with the
   caller's id ID: if ID is below the callee's fold limit, store the id the
   callee starts with in *CALLEE_ID and return 1.  Otherwise return 0:
   the call pushes (ID, SITE) and the callee starts with cce_site_entry,
   as for any ccStack site.  */
int cce_site_fold (const struct cce_graph *g, uint32_t site, uint64_t id,
                   uint64_t *callee_id);

/* The dictionary text of an encoded graph, malloc'd, in *TEXT and *LEN.
   Sets g->stamp.  Returns 0, or -1 when out of memory.  */
int cce_graph_write_dict (struct cce_graph *g, char **text, size_t *len);

/* Read a dictionary of LEN bytes at TEXT.  Returns the graph, or NULL with
   a message in ERR.  */
struct cce_graph *cce_graph_read_dict (const char *text, size_t len,
                                       char *err, size_t errlen);

/* Append the graph SRC, read from the dictionary of another module of the
   same program (a shared library, with the dictionaries of its
   partitions), to DST, read from one too.  Site words
   with SRC's key then name SRC's sites in DST.  SRC's PC maps are not
   taken: read them into DST (cce_graph_read_pcmap).  Returns 0, or -1
   with a message in ERR (out of memory, or a module key already in
   DST).  */
int cce_graph_merge (struct cce_graph *dst, const struct cce_graph *src,
                     char *err, size_t errlen);

/* The same for SRC read from another dictionary of the file of DST's
   module FILE (another LTRANS partition of it): its PC map blocks are
   then read with FILE's (cce_graph_read_pcmap).  */
int cce_graph_merge_part (struct cce_graph *dst, const struct cce_graph *src,
                          size_t file, char *err, size_t errlen);

/* The site of G a site word names (cce-format.h), or CCE_NONE.  */
uint32_t cce_site_of_word (const struct cce_graph *g, uint64_t word);

/* Decoding one context.  */
struct cce_stack_entry
{
  uint64_t id;
  uint64_t site;
};

enum cce_decode_status
{
  CCE_DECODE_OK = 0,        /* the path is complete */
  CCE_DECODE_INCOMPLETE     /* the path's root part could not be recovered;
                               the sites returned are the exact innermost
                               part, and *REASON says why */
};

/* Decode the context of a record: log site word SITE, id ID, ccStack STACK
   of NSTACK entries (bottom first).  Stores up to MAXSITES site numbers in
   SITES, root first, the log site last, and their count in *NSITES
   (which may exceed MAXSITES: call again with more room).

   SITE may be a PC word (cce-format.h, records of interrupted
   instructions), and so may the site of a ccStack entry pushed for an
   asynchronous signal: cce_graph_pc_sites must have made their sites.
   The PC's site then stands for the log site, and the state of its
   range turns ID and the ccStack into the function's own before the
   walk goes up from it.  Below the handler of such a ccStack entry, the
   path goes on at the interrupted instruction, after a CCE_SIGNAL_MARK.  */
enum cce_decode_status cce_decode (const struct cce_graph *g, uint64_t site,
                                   uint64_t id,
                                   const struct cce_stack_entry *stack,
                                   size_t nstack, uint32_t *sites,
                                   size_t maxsites, size_t *nsites,
                                   const char **reason);

/* In the sites cce_decode returns: the point where a thread was created
   (its creating thread's context is to the left).  */
#define CCE_THREAD_MARK (CCE_NONE - 1)
/* In the sites cce_decode returns: the point where a signal interrupted
   the thread (the interrupted context is to the left, the handler's to
   the right).  The lowest site number that is not a site.  */
#define CCE_SIGNAL_MARK (CCE_NONE - 2)

/* Source frames of a decoded path.  */
struct cce_path_frame
{
  uint32_t func;        /* source function, or CCE_NONE for an external
                           frame */
  uint32_t ext_name;    /* string naming the external frame, else
                           CCE_NONE; CCE_THREAD_MARK for the frame that
                           joins a thread to where it was created,
                           CCE_SIGNAL_MARK for the one that joins a
                           signal handler to what it interrupted */
  uint32_t file, line, col;  /* where this frame called the next one (or
                                logged); file CCE_NONE if unknown */
  int inlined;          /* the frame was inlined into its caller */
};

/* Expand the sites of a decoded path (root first) into source frames, root
   first, collapsing split parts into their function and inserting one
   frame for each external function in the path, except where the next
   frame is the external function itself, an entry built with cce (in a
   shared library of a merged graph, or called through the PLT).  Same room convention as
   cce_decode.  */
void cce_path_frames (const struct cce_graph *g, const uint32_t *sites,
                      size_t nsites, struct cce_path_frame *frames,
                      size_t maxframes, size_t *nframes);

/* PC maps (cce-format.h, part 3).  A PC word names an instruction, not a
   site; the decoder makes, for each range of a PC map that a record
   uses, a site of kind CCE_SITE_PC in the range's node, whose frames are
   the range's location (as a 'c' line with those frames would have), so
   that cce_decode and cce_path_frames treat it like a log site.  Such a
   site is in no module and never in a dictionary.  */
#define CCE_SITE_PC 'p'

/* Read the PC map of module MODULE of G (a graph read from a dictionary,
   with the modules merged into it: 0 is the first one): LEN bytes at
   DATA, the contents of its section CCE_PCMAP_SECTION, in the other byte
   order than this machine's if SWAPPED.  Every block is checked against
   the format and against the module's dictionary: its key, its nodes,
   and the first frame of each location (the node's function).  Returns
   0, or -1 with a message in ERR: the map is malformed, or stale (made
   for another dictionary), or MODULE has a map already, or out of
   memory.  */
int cce_graph_read_pcmap (struct cce_graph *g, size_t module,
                          const void *data, size_t len, int swapped,
                          char *err, size_t errlen);

/* Make the sites of the PC words of a record before cce_decode decodes
   it: SITE and the sites of the NSTACK entries of STACK.  A word that no
   range of a PC map holds needs none.  Returns 0, or -1 when out of
   memory.  */
int cce_graph_pc_sites (struct cce_graph *g, uint64_t site,
                        const struct cce_stack_entry *stack, size_t nstack);

/* The name of the function that the call instruction before link-time
   address RET of module MODULE calls (a function outside the program,
   as the program calls it: abort, qsort), or NULL if unknown, or "" if
   it calls a function of the program (which can have left the program
   only by a tail call: a record there is incomplete).  ARG is what
   cce_graph_set_pc_callee was given.  */
typedef const char *cce_pc_callee_fn (void *arg, size_t module,
                                      uint64_t ret);
/* Have the sites of PC words with CCE_PC_CALLER end in a frame of the
   function FN names (else "??").  After the first PC map was read.  */
void cce_graph_set_pc_callee (struct cce_graph *g, cce_pc_callee_fn *fn,
                              void *arg);

/* Where PC word WORD is in G's PC maps.  */
struct cce_pc_loc
{
  uint32_t site;         /* its CCE_SITE_PC site, CCE_NONE if not made */
  uint32_t node;         /* the node of the range, CCE_NONE if none */
  uint32_t state;        /* CCE_PC_* */
  uint32_t callee;       /* node, for CCE_PC_CALLEE; else CCE_NONE */
  int async;             /* the block has CCE_PCMAP_ASYNC */
};

/* Find PC word WORD (or CCE_PC_EXTERNAL) in G's PC maps: 0 with *LOC
   filled, or -1 with *REASON saying why it has no place (no module with
   its key, a module without a PC map, an address outside every range:
   code outside the program's functions).  */
int cce_pc_find (const struct cce_graph *g, uint64_t word,
                 struct cce_pc_loc *loc, const char **reason);

/* Which restores a function needs.  After a call site the id (the ccStack
   top) must be put back only if something reads it before the next site
   writes it again.  The plugin describes each instrumented function as
   blocks of events, in order, each with what it reads of the value it
   finds (CCE_FLOW_USE_*) and what it writes (CCE_FLOW_DEF_*): a site that
   stores the id before its call defines the id; a free call, a log site,
   the load of the id and a return use it.  A free call of a node that
   clobbers the id (cce_site_clobbers) uses both and then defines the id:
   its restore is what a later read finds.  */
#define CCE_FLOW_USE_ID 0x01
#define CCE_FLOW_USE_TOP 0x02
#define CCE_FLOW_DEF_ID 0x04
#define CCE_FLOW_DEF_TOP 0x08

struct cce_flow
{
  size_t nblocks;
  const uint32_t *ev_start;    /* nblocks + 1: block b has the events
                                  ev[ev_start[b] .. ev_start[b + 1]) */
  const uint8_t *ev;           /* CCE_FLOW_* of each event */
  const uint32_t *succ_start;  /* nblocks + 1, the same for succ[] */
  const uint32_t *succ;        /* successor blocks; CCE_NONE: a place that
                                  uses both (an abnormal edge, the exit);
                                  CCE_FLOW_EXIT: the exit, which uses
                                  EXIT_USE */
  uint8_t exit_use;            /* CCE_FLOW_USE_* of the return (only with
                                  CCE_FLOW_EXIT): both, or the top alone
                                  where the function clobbers the id */
};
#define CCE_FLOW_EXIT (CCE_NONE - 1)

/* The effect of code that takes one of two paths, of effects A and B:
   it may read what either reads, and surely writes only what both
   write.  */
static inline uint8_t
cce_flow_either (uint8_t a, uint8_t b)
{
  return (uint8_t) (((a | b) & (CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP))
                    | (a & b & (CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP)));
}

/* Set LIVE[E] to the CCE_FLOW_USE_* bits of what is read after event E
   before it is written again (a least fixed point over the blocks).
   Returns 0, or -1 when out of memory.  */
int cce_flow_live_after (const struct cce_flow *f, uint8_t *live);

/* ------------------------------------------------------------------ */
/* The order of functions for LTO partitions (layout.c).              */

/* A call between functions FROM and TO, WEIGHT how hot it is (calls per
   run, or any measure that orders calls alike).  */
struct cce_layout_edge
{
  uint32_t from, to;
  double weight;
};

/* Put the N functions (0 .. N-1, in the source's order, of sizes SIZE)
   in the order a partitioner that cuts the sequence should see them:
   the calls EDGES (NEDGES), hottest first, join the clusters of their
   two functions while both fit in MAX_SIZE, each cluster a run of the
   sequence (the caller's cluster before the callee's), the clusters in
   the order of the functions they start with.  ORDER gets the N
   functions.  Returns 0, or -1 when out of memory.  */
int cce_layout_order (size_t n, const uint64_t *size,
                      const struct cce_layout_edge *edges, size_t nedges,
                      uint64_t max_size, uint32_t *order);

#ifdef __cplusplus
}
#endif

#endif /* CCE_CORE_H */
