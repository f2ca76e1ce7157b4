/* cce-plugin.h -- what the files of the cce GCC plugin share: its
   options, the runtime's declarations, and what collecting the call graph
   hands to instrumenting it.

     cce-plugin.cc   the pass, the dictionary, the options, plugin_init;
     collect.cc      collecting the call graph: sites, targets, guesses,
                     and what the C library's functions may do;
     instrument.cc   instrumenting: the code around each kind of site;
     pcmap.cc        the PC map: every instruction's function, location
                     and state of the id, from a late RTL pass;
     stub.cc         with the id in a register, second entry points of
                     the functions that code outside may call.  */

#ifndef CCE_PLUGIN_H
#define CCE_PLUGIN_H

#include "gcc-common.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cce-abi.h"
#include "cce-core.h"

/* The plugin's options (cce-plugin.cc).  */
struct cce_options
{
  bool stats = false;           /* a summary on stderr */
  bool dump = false;            /* the decisions, to dump_file */
  const char *dump_file = NULL;
  std::vector<std::string> trace;   /* functions whose entries log */
  bool count = false;           /* counted, out-of-line pushes */
  bool observe_all = false;     /* every call encoded */
  int fold = -1;                /* recursion folded: bits; -1 the default */
  bool keep = true;             /* register-keeping cold calls, where
                                   CCE_HAVE_KEEP */
  bool clobber = true;          /* cce_graph's preserve_all when false */
  bool layout = true;           /* order_for_partitions */
  int guess = 3;                /* the most guessed targets of an indirect
                                   call */
  bool compact = true;          /* pushes in blocks GCC optimizes for size
                                   out of line (mark_local_sites) */
  int local_pushes = 16;        /* under async, a function with this many
                                   pushes reads the id and top at each
                                   (mark_local_sites); 0: none does */
  int async = -1;               /* every instruction placeable in the PC
                                   map (pcmap.cc); -1 until plugin_init
                                   settles it (as observe_all) */
  bool idreg = false;           /* the id in register CCE_IDREG
                                   (cce-abi.h) */
  bool stub = true;             /* with idreg, second entry points
                                   (stub.cc) */
};
extern struct cce_options cce_opts;
int trace_index (const char *name);
bool cce_rare_block_p (basic_block bb);   /* instrument.cc */

/* Collecting the call graph (collect.cc).  */

/* A likely target of an indirect call: a direct site to node NODE (a
   function whose address is taken), with the call's frames, taken when
   the pointer called equals the function's address.  */
struct guess
{
  cgraph_node *node;
  uint32_t site;
};

/* One site we found in a body, with what instrumentation needs.  */
struct site_info
{
  cgraph_node *node;
  gimple *stmt;
  uint32_t site;
  std::vector<guess> guesses;   /* an indirect call's likely targets */
};

struct collector
{
  struct cce_graph *g;
  uint32_t key;                              /* module key (cce-format.h) */
  uint32_t word_key;                         /* the key half of the site
                                                words in the code: KEY, or
                                                0 (the main dictionary) in
                                                an executable's first
                                                partition, so that a word
                                                is a 32-bit immediate */
  bool shared;                               /* linking a shared object */
  bool primary;                              /* the first LTRANS partition
                                                (cce_primary_partition_p) */
  std::map<tree, uint32_t> funcs;            /* source FUNCTION_DECL */
  std::map<cgraph_node *, uint32_t> nodes;
  std::vector<site_info> sites;
  std::vector<cgraph_node *> address_taken;  /* candidates for guesses,
                                                in the call graph's order */
  std::set<cgraph_node *> guessable;         /* the same, to look up */
  std::map<std::string, std::vector<cgraph_node *>> field_targets;
  /* The same for one variable's field (VAR.field): its initializer and
     the assignments to VAR.field.  */
  std::map<std::pair<tree, std::string>, std::vector<cgraph_node *>>
    var_field_targets;
  std::map<uint32_t, uint32_t> guess_of;     /* guess site -> its indirect */
  size_t guessed_sites = 0;                  /* indirect sites with them */
  size_t compact_pushes = 0;                 /* pushes out of line
                                                (instrument.cc,
                                                compact_push_p) */
  bool allocator_replaced = false;           /* the program defines malloc */
  bool foreign_pointers = false;             /* pointers called may be of
                                                another cce module */
  std::set<uint64_t> unstored;               /* under async:
                                                cce_unstored_calls */
};

tree source_decl (tree fndecl);
/* A frame of a location: function FN (a body's decl or an inlined
   function's), at LOC in it.  */
struct cce_frame_at
{
  tree fn;
  location_t loc;
};
std::vector<cce_frame_at> frames_at (cgraph_node *node, tree block,
                                     location_t loc);
const char *source_name (tree decl);
const char *func_symbol (tree fndecl);
bool hidden_function_p (tree fndecl);
tree thunk_target (tree fndecl);
bool is_runtime (tree fndecl);
bool is_cce_log (tree fndecl);
void collect_graph (collector &c);
bool cce_primary_partition_p (void);
void mark_unobserved (void);
void order_for_partitions (void);
void mark_program (const char *attr);
bool program_marked_p (const char *attr);
bool unobserved_p (tree fndecl);
bool entry_observed_p (void);

/* Instrumenting (instrument.cc).  */
enum cce_rt_decl
{
  CCE_RT_TLS,           /* __thread uint64_t __cce_tls[CCE_TLS_WORDS] */
  CCE_RT_GROW,          /* uint64_t __cce_grow (uint64_t) */
  CCE_RT_PUSH,          /* void __cce_push (uint64_t, uint64_t, uint64_t) */
  CCE_RT_PUSH_COUNTED,  /* the same, counted */
  CCE_RT_POP,           /* void __cce_pop (uint64_t) */
  CCE_RT_LOG_AT,        /* void __cce_log_at (unsigned, uint64_t) */
  CCE_RT_COUNT_AT,      /* void __cce_count_at (unsigned, uint64_t,
                           uint64_t) */
  CCE_RT_LOG_ID,        /* void __cce_log_id (unsigned, uint64_t,
                           uint64_t) */
  CCE_RT_COUNT_ID,      /* void __cce_count_id (unsigned, uint64_t,
                           uint64_t, uint64_t) */
  CCE_RT_IDREG,         /* the id's register (idreg): a global register
                           variable */
  CCE_RT_MAX
};
extern tree cce_rt[CCE_RT_MAX];
void build_runtime_decls (bool shared, bool define);
bool cce_instrumented_p (tree fndecl);
bool self_tail_jump_p (gcall *call);
/* The template of the empty volatile asm at the top of a function whose
   self tail calls may become jumps there: where a new level of its
   recursion starts (instrument.cc, self_tail_jumps; pcmap.cc).  */
#define CCE_ASM_REENTRY "# cce: a level of recursion starts"
/* The template of the store of the id's register under async
   (instrument.cc, id_store; pcmap.cc), which ends in CCE_ASM_IDREG_MARK.  */
#define CCE_ASM_IDREG_MARK "# cce: the id"
#define CCE_ASM_IDREG "movq %0, %%" CCE_IDREG "\t" CCE_ASM_IDREG_MARK
#define CCE_ASM_IDREG_ADD "leaq %c1(%0), %%" CCE_IDREG "\t" CCE_ASM_IDREG_MARK
/* ... and an id times 2, 3, 5 or 9 plus a fold's value (the index scale
   is the factor less one).  */
#define CCE_ASM_IDREG_SCALE \
  "leaq %c1(%0,%0,%c2), %%" CCE_IDREG "\t" CCE_ASM_IDREG_MARK
/* An addition value added to the register itself, and taken off it.  */
#define CCE_ASM_IDREG_PLUS "addq %0, %%" CCE_IDREG "\t" CCE_ASM_IDREG_MARK
#define CCE_ASM_IDREG_MINUS "subq %0, %%" CCE_IDREG "\t" CCE_ASM_IDREG_MARK
/* An addition value added to the id word itself before a call, and
   taken off it after, or a restore that takes it off (instrument.cc,
   id_adjust: in-place sites, subtract_restores), which the PC map takes
   for the store of the id it is: OP (addq or subq) with an immediate,
   or for a value of 2^31 or more through a scratch register; MARK says
   which store it is.  */
#define CCE_ASM_ADJUST(op, mark) op " %2, %0\t" mark
#define CCE_ASM_ADJUST_WIDE(op, mark) "movabsq %3, %1\n\t" op " %1, %0\t" mark
/* ... and where the subtraction after one call and the addition
   before the next are one change by the difference of their values
   (instrument.cc, merge_adjusts), this mark: the PC map takes it for
   the next call's store, after the first call only.  Where the two
   values are the same the mark alone is the asm, no instruction, but a
   store as GCC and the PC map see it.  */
#define CCE_ASM_ID_CHAIN_MARK "# cce: the id for the next call"
/* ... and, after a folded site, the id word's (WORD - %4) >> %5, times
   %6 (the inverse of the odd part of the fold's factor): the caller's
   id (subtract_restores).  The asm is a head (%4 an immediate, or
   through scratch %2 where it is 2^31 or more), the steps its factor
   needs, and the tail, whose one instruction stores the id word.  */
#define CCE_ASM_ID_UNFOLD_HEAD "movq %3, %1\n\tsubq %4, %1\n\t"
#define CCE_ASM_ID_UNFOLD_HEAD_WIDE \
  "movq %3, %1\n\tmovabsq %4, %2\n\tsubq %2, %1\n\t"
#define CCE_ASM_ID_UNFOLD_SHIFT "shrq %5, %1\n\t"
#define CCE_ASM_ID_UNFOLD_ODD "movabsq %6, %2\n\timulq %2, %1\n\t"
#define CCE_ASM_ID_UNFOLD_TAIL "movq %1, %0\t" CCE_ASM_IDREG_MARK
/* The store, on a loop's entry edge, of the id the loop's last call
   was made with (instrument.cc, chain_loops): operand 2 is that call's
   callee, a node of the graph, whose CALLEE state the PC map starts
   the loop in.  */
#define CCE_ASM_LOOP_MARK "# cce: the id of the loop's last call, node"
#define CCE_ASM_LOOP_ID "movq %1, %0\t" CCE_ASM_LOOP_MARK " %2"
/* The asms of a folded site's multiply-add (folded_id): they read and
   write registers only, and the PC map takes them for no asm.  */
#define CCE_ASM_FOLD_MARK "# cce: fold"
#define CCE_ASM_FOLD_LEA "leaq %c2(%1,%1,%c3), %0\t" CCE_ASM_FOLD_MARK
#define CCE_ASM_FOLD_COPY CCE_ASM_FOLD_MARK
#define CCE_ASM_FOLD_CONST "movabsq %1, %0\t" CCE_ASM_FOLD_MARK
/* ... and of its load, which the PC map takes for no store.  */
#define CCE_ASM_IDREG_LOAD "movq %%" CCE_IDREG ", %0\t# cce: load the id"

void instrument_function (collector &c, size_t first, size_t last);
void instrument_entry (collector &c, cgraph_node *node);
void keep_calls_out (tree decl);
std::set<uint64_t> cce_unstored_calls (const struct cce_graph *g);

/* Second entry points (stub.cc).  */
void choose_stubs (const collector &c);
bool cce_stubbed_p (uint32_t node);
bool cce_guess_through_pointer_p (uint32_t site);
void make_stubs (const collector &c);

/* The PC map (pcmap.cc).  */
void pcmap_note_graph (const collector &c);
void pcmap_register (const char *plugin_name, bool async);

#endif /* CCE_PLUGIN_H */
