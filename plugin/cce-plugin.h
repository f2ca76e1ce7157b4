/* cce-plugin.h -- what the files of the cce GCC plugin share: its
   options, the runtime's declarations, and what collecting the call graph
   hands to instrumenting it.

     cce-plugin.cc   the pass, the dictionary, the options, plugin_init;
     collect.cc      collecting the call graph: sites, targets, guesses,
                     and what the C library's functions may do;
     instrument.cc   instrumenting: the code around each kind of site.  */

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

/* Plugin options (cce-plugin.cc).  */
extern bool opt_stats;
extern bool opt_dump;
extern const char *opt_dump_file;
extern std::vector<std::string> opt_trace;
extern bool opt_count;
extern bool opt_observe_all;
extern int opt_fold;
extern bool opt_keep;
extern bool opt_clobber;
extern int opt_guess;
int trace_index (const char *name);

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
  bool shared;                               /* linking a shared object */
  std::map<tree, uint32_t> funcs;            /* source FUNCTION_DECL */
  std::map<cgraph_node *, uint32_t> nodes;
  std::vector<site_info> sites;
  std::vector<cgraph_node *> address_taken;  /* candidates for guesses,
                                                in the call graph's order */
  std::set<cgraph_node *> guessable;         /* the same, to look up */
  std::map<std::string, std::vector<cgraph_node *>> field_targets;
  std::map<uint32_t, uint32_t> guess_of;     /* guess site -> its indirect */
  size_t guessed_sites = 0;                  /* indirect sites with them */
  bool allocator_replaced = false;           /* the program defines malloc */
  bool foreign_pointers = false;             /* pointers called may be of
                                                another cce module */
};

tree source_decl (tree fndecl);
const char *source_name (tree decl);
const char *external_name (tree fndecl);
uint32_t func_of (collector &c, tree fndecl);
bool name_in (const char *name, const char *const *names);
bool allocator_name_p (const char *name);
bool is_runtime (tree fndecl);
bool may_be_instrumented (tree fndecl);
extern const char *const lookup_fns[];
void collect_field_targets (collector &c);
void collect_sites (collector &c, cgraph_node *node);

/* Instrumenting (instrument.cc).  */
extern tree tls_decl;
extern hash_set<tree> instrumented_fns;
void build_runtime_decls (bool shared);
void instrument_function (collector &c, size_t first, size_t last);

#endif /* CCE_PLUGIN_H */
