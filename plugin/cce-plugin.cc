/* cce-plugin.cc -- the cce GCC plugin: precise calling context encoding at
   LTO link time.

   Loaded into lto1 by -fplugin=cce.so on the link line.  In WPA it asks for
   a single LTRANS partition, so that one late IPA pass, run after all
   inlining, sees every function body of the program.  That pass:

     1. materializes every body and collects its call sites, each with the
        chain of inlined frames GCC recorded in its lexical blocks;
     2. hands the call graph to the GCC-free core (common/encode.c), which
        finds back edges, numCC and addition values;
     3. inserts the id arithmetic around call sites (see cce-abi.h);
     4. emits the decoding dictionary as the variable __cce_dict.

   Before and after, for a function g with a hot call of f (av 0), a cold
   call of f (av 3), a recursive call of g and a cce_log (T is the TLS
   block __cce_tls of cce-abi.h):

       void g (int n)                void g (int n)
       {                             {
                                       id = T[ID]; t = T[TOP];      (1)
         f ();                           f ();                      (2)
         if (n) f ();                    if (n) { T[ID] = id + 3; f ();
                                                  T[ID] = id; }     (3)
         if (n) g (n - 1);               if (n) {
                                           s = t;
                                           if (t >= T[LIMIT])
                                             s = __cce_grow (t);
                                           T[TOP] = s + 1;
                                           *s = { id, 7 };
                                           T[ID] = ROOT (g);
                                           g (n - 1);
                                           T[TOP] = t; T[ID] = id; } (4)
         cce_log (1);                    __cce_log_at (1, 9);       (5)
       }                             }

   With -fexceptions, every landing pad of g starts with
   T[TOP] = t; T[ID] = id (6): unwinding skipped the code after the calls
   it went through.

   The numbers match the comments in instrument_function (instrument.cc).  */

#include "cce-plugin.h"
#include "plugin-version.h"
#include "memmodel.h"
#include "rtl.h"

int plugin_is_GPL_compatible;

static const char *const plugin_name_str = "cce";

/* Plugin options (the table options[] below), with their defaults.  GCC
   12 parses -fdump-* before it loads plugins, so a plugin pass cannot have
   a -fdump-ipa-NAME switch of its own; the dump is asked for with
   -fplugin-arg-cce-dump instead.  */
struct cce_options cce_opts;

/* The position of NAME in the trace list, or -1.  */
int
trace_index (const char *name)
{
  for (size_t i = 0; i < cce_opts.trace.size (); i++)
    if (cce_opts.trace[i] == name)
      return (int) i;
  return -1;
}

/* ------------------------------------------------------------------ */
/* The dictionary.                                                    */

/* The attributes WPA gives the symbols of a program whose output is an
   executable, or a shared object (mark_linker_output); a space keeps
   them out of any source.  */
static const char executable_attr[] = "cce executable";
static const char shared_object_attr[] = "cce shared object";

/* In WPA, which knows what the link makes (-flinker-output): if it is an
   executable or a shared object, mark its functions and variables with
   executable_attr or shared_object_attr, which stream to the LTRANS with
   them (a partition may hold variables only).  A relocatable output gets
   neither: it may end up in either.  Once, at the first IPA pass WPA
   runs.  */
static void
mark_linker_output (void)
{
  static bool done;
  if (done || !flag_wpa)
    return;
  done = true;
  if (flag_lto_linker_output == LTO_LINKER_OUTPUT_EXEC
      || flag_lto_linker_output == LTO_LINKER_OUTPUT_PIE)
    mark_program (executable_attr);
  else if (flag_lto_linker_output == LTO_LINKER_OUTPUT_DYN)
    mark_program (shared_object_attr);
}

/* Is the output a shared object?  lto1 is told with -flinker-output, but
   lto-wrapper does not pass it on to the LTRANS: there, WPA's mark
   (mark_linker_output) says it, and without one (a linker that did not
   tell, or a relocatable link) a PIC unit that defines no main is taken
   for a shared object's.  */
static bool
linking_shared_object (void)
{
  if (flag_lto_linker_output != LTO_LINKER_OUTPUT_UNKNOWN)
    return flag_lto_linker_output == LTO_LINKER_OUTPUT_DYN;
  if (program_marked_p (executable_attr))
    return false;
  if (program_marked_p (shared_object_attr))
    return true;
  if (!flag_pic || flag_pie)
    return false;
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    if (DECL_NAME (node->decl) && MAIN_NAME_P (DECL_NAME (node->decl))
        && TREE_PUBLIC (node->decl))
      return false;
  return true;
}

/* Is the output known to be an executable: told, or marked by WPA (a
   relocatable output may end up in a shared object)?  */
static bool
linking_executable (void)
{
  if (flag_lto_linker_output != LTO_LINKER_OUTPUT_UNKNOWN)
    return flag_lto_linker_output == LTO_LINKER_OUTPUT_EXEC
           || flag_lto_linker_output == LTO_LINKER_OUTPUT_PIE;
  return program_marked_p (executable_attr);
}

/* The number of the LTRANS partition this lto1 compiles: N of its dump
   base, OUTPUT.ltransN.ltrans (or DIR/ltransN.ltrans with -dumpdir);
   0 in the single lto1 of -flto-partition=none.  */
static long
ltrans_partition (void)
{
  if (!flag_ltrans || !dump_base_name)
    return 0;
  long part = 0;
  for (const char *p = strstr (dump_base_name, "ltrans"); p;
       p = strstr (p + 1, "ltrans"))
    if (ISDIGIT (p[6]))
      {
        char *end;
        long n = strtol (p + 6, &end, 10);
        if (*end == '.')
          part = n;
      }
  return part;
}

/* Is this lto1 the first LTRANS partition (or the only lto1)?  Each
   partition encodes its own functions as a module of its own, with its
   own dictionary (cce-format.h, section 1); the first one's is
   __cce_dict, the module whose stamp the runtime writes into the log,
   and in an executable it also defines the TLS block.  */
bool
cce_primary_partition_p (void)
{
  return ltrans_partition () == 0;
}

/* Emit the dictionary TEXT (LEN bytes): as __cce_dict in the primary
   partition, as a local variable of the same section in the others.  */
static void
emit_dictionary (const char *text, size_t len, bool shared, bool primary)
{
  /* With its NUL: the decoder finds the next partition's after it.  */
  tree str = build_string (len + 1, text);
  tree type = build_array_type_nelts (char_type_node, len + 1);
  TREE_TYPE (str) = type;
  TREE_CONSTANT (str) = 1;
  TREE_READONLY (str) = 1;
  TREE_STATIC (str) = 1;

  tree decl = build_decl (UNKNOWN_LOCATION, VAR_DECL,
                          get_identifier (primary ? CCE_SYM_DICT
                                          : CCE_SYM_DICT_PART), type);
  TREE_PUBLIC (decl) = primary;
  TREE_STATIC (decl) = 1;
  TREE_READONLY (decl) = 1;
  TREE_USED (decl) = 1;
  DECL_ARTIFICIAL (decl) = 1;
  DECL_PRESERVE_P (decl) = 1;
  DECL_INITIAL (decl) = str;
  SET_DECL_ALIGN (decl, 8 * BITS_PER_UNIT);
  DECL_USER_ALIGN (decl) = 1;
  set_decl_section_name (decl, CCE_DICT_SECTION);
  /* A shared library keeps its dictionary to itself: the runtime's
     reference to __cce_dict is the executable's, and every module's
     dictionary stays in its own cce_dict section for the decoder.  */
  if (shared && primary)
    {
      DECL_VISIBILITY (decl) = VISIBILITY_HIDDEN;
      DECL_VISIBILITY_SPECIFIED (decl) = 1;
    }
  DECL_ATTRIBUTES (decl) = tree_cons (get_identifier ("retain"), NULL_TREE,
                                      tree_cons (get_identifier ("used"),
                                                 NULL_TREE, NULL_TREE));
  varpool_node::finalize_decl (decl);
}

/* With idreg, the executable's mark that its code keeps the id in the
   register (cce-abi.h, CCE_SYM_IDREG_MARK), in the primary partition.  */
static void
emit_idreg_mark (void)
{
  tree decl = build_decl (UNKNOWN_LOCATION, VAR_DECL,
                          get_identifier (CCE_SYM_IDREG_MARK),
                          char_type_node);
  TREE_PUBLIC (decl) = 1;
  TREE_STATIC (decl) = 1;
  TREE_READONLY (decl) = 1;
  TREE_USED (decl) = 1;
  DECL_ARTIFICIAL (decl) = 1;
  DECL_PRESERVE_P (decl) = 1;
  DECL_INITIAL (decl) = build_int_cst (char_type_node, 1);
  DECL_ATTRIBUTES (decl) = tree_cons (get_identifier ("retain"), NULL_TREE,
                                      tree_cons (get_identifier ("used"),
                                                 NULL_TREE, NULL_TREE));
  varpool_node::finalize_decl (decl);
}

/* The output of the link: lto1's dump base is OUTPUT.ltransN.ltrans or
   OUTPUT.wpa.  */
static std::string
link_output (void)
{
  std::string name = dump_base_name ? dump_base_name : "a.out";
  size_t p = name.find (".ltrans");
  if (p == std::string::npos)
    p = name.find (".wpa");
  if (p != std::string::npos)
    name.erase (p);
  return name;
}

/* ------------------------------------------------------------------ */
/* The pass.                                                          */

static void
dump_decisions (FILE *f, const collector &c,
                const struct cce_encode_stats &st)
{
  const struct cce_graph *g = c.g;

  fprintf (f, "cce: %zu nodes, %zu sites, max numCC %" PRIu64 "\n",
           g->nnodes, g->nsites, st.max_numcc);
  fprintf (f, "cce: direct %zu (av 0, no code: %zu), ccStack: back edges "
           "%zu (folded into the id: %zu, limit 2^%u), overflow cuts %zu, "
           "indirect %zu (%zu with guessed targets), external %zu; "
           "log %zu\n",
           st.direct_sites, st.zero_sites, st.back_sites, st.folded_sites,
           st.fold_bits, st.overflow_sites, st.indirect_sites,
           c.guessed_sites, st.external_sites, st.log_sites);
  fprintf (f, "cce: unobserved (no log reachable, no code): %zu sites\n",
           st.dead_sites);
  fprintf (f, "cce: functions that return without restoring the id: %zu; "
           "free calls of them (a restore after, where read): %zu\n",
           st.clobber_nodes, st.clobber_sites);
  if (c.allocator_replaced)
    fprintf (f, "cce: the program replaces malloc: calls of the C library "
             "that may allocate are external sites\n");
  for (size_t i = 0; i < g->nnodes; i++)
    {
      const struct cce_node *n = &g->nodes[i];
      fprintf (f, "node %zu %s flags %x numCC %" PRIu64, i,
               g->strings[g->funcs[n->func].name], n->flags, n->numcc);
      if (n->has_root)
        fprintf (f, " root %" PRIu64, n->root);
      if (n->nfold)
        fprintf (f, " folded %u limit %" PRIu64, n->nfold, n->fold_lim);
      if (!n->observed)
        fprintf (f, " unobserved");
      if (n->clobbers)
        fprintf (f, " clobbers");
      fputc ('\n', f);
    }
  for (size_t i = 0; i < g->nsites; i++)
    {
      const struct cce_site *s = &g->sites[i];
      fprintf (f, "site %zu in node %u kind %c", i, s->node, s->kind);
      if (s->kind == CCE_SITE_DIRECT || s->kind == CCE_SITE_BACK)
        fprintf (f, " -> node %u", s->target);
      else if (s->kind == CCE_SITE_EXTERNAL)
        fprintf (f, " -> %s", g->strings[s->target]);
      if (s->dead)
        fprintf (f, " unobserved, free");
      else if (s->kind == CCE_SITE_DIRECT)
        fprintf (f, " av %" PRIu64 "%s", s->av,
                 s->av ? " instrumented" : " free");
      else if (s->kind == CCE_SITE_BACK && s->fold != CCE_NONE)
        fprintf (f, " folded %u (back edge; ccStack at the limit) entry %"
                 PRIu64 "%s", s->fold, cce_site_entry (g, (uint32_t) i),
                 s->tail_jump ? ", may become a jump to the top" : "");
      else if (s->kind == CCE_SITE_BACK)
        fprintf (f, " ccStack (%s) entry %" PRIu64,
                 s->reason == 'o' ? "overflow cut" : "back edge",
                 cce_site_entry (g, (uint32_t) i));
      else if (s->kind == CCE_SITE_TRACE)
        fprintf (f, " trace");
      else if (s->kind != CCE_SITE_LOG)
        fprintf (f, " ccStack");
      auto gi = c.guess_of.find ((uint32_t) i);
      if (gi != c.guess_of.end ())
        fprintf (f, " (guessed target of indirect site %u)", gi->second);
      fprintf (f, " freq %.3g\n", s->freq);
    }
}

static unsigned int
cce_execute (void)
{
  collector c;
  char err[256];

  c.g = cce_graph_new ();
  if (!c.g)
    fatal_error (UNKNOWN_LOCATION, "cce: out of memory");
  c.shared = linking_shared_object ();
  c.primary = cce_primary_partition_p ();
  if (cce_opts.idreg && c.shared)
    fatal_error (UNKNOWN_LOCATION, "cce: %<-fplugin-arg-cce-idreg%> is for "
                 "executables, not shared objects");
  if (!cce_rt[CCE_RT_TLS])
    build_runtime_decls (c.shared, c.primary);

  /* Step 1.  */
  collect_graph (c);

  /* Step 2.  */
  struct cce_encode_stats st;
  c.g->observe_all = cce_opts.observe_all;
  c.g->preserve_all = !cce_opts.clobber;
  c.g->entry_observed = entry_observed_p ();
  if (cce_opts.fold >= 0)
    c.g->fold_max = cce_opts.fold ? cce_opts.fold : -1;
  if (cce_graph_encode (c.g, &st, err, sizeof err) < 0)
    fatal_error (UNKNOWN_LOCATION, "cce: cannot encode the call graph: %s",
                 err);
  if (dump_file)
    dump_decisions (dump_file, c, st);
  if (cce_opts.dump)
    {
      std::string name;
      if (cce_opts.dump_file)
        name = cce_opts.dump_file;
      else
        name = link_output () + ".cce";
      /* One file per LTRANS partition: FILE, FILE.1, FILE.2 ...  */
      long part = ltrans_partition ();
      if (part && name != "-")
        name += "." + std::to_string (part);
      FILE *f = name == "-" ? stderr : fopen (name.c_str (), "w");
      if (!f)
        error ("cce: cannot write dump file %qs: %m", name.c_str ());
      else
        {
          dump_decisions (f, c, st);
          if (f != stderr)
            fclose (f);
        }
    }

  /* Step 4, first half: the dictionary text, whose stamp gives the module
     key in the site words of step 3.  */
  char *text;
  size_t len;
  /* The dictionaries of two partitions must differ, so that their
     stamps, and the keys in their site words, do: another partition's
     says which partition it is (a string no entry refers to).  */
  if (long part = ltrans_partition ())
    {
      std::string tag = "ltrans partition " + std::to_string (part);
      if (cce_graph_string (c.g, tag.c_str ()) == CCE_NONE)
        fatal_error (UNKNOWN_LOCATION, "cce: out of memory");
    }
  if (cce_graph_write_dict (c.g, &text, &len) < 0)
    fatal_error (UNKNOWN_LOCATION, "cce: out of memory");
  c.key = cce_module_key (c.g->stamp);
  c.word_key = c.primary && linking_executable () ? 0 : c.key;

  /* Under async, calls out of the program stay calls.  */
  if (cce_opts.async)
    for (const auto &n : c.nodes)
      keep_calls_out (n.first->decl);

  /* With idreg, which entries get a second entry point: their callers'
     code depends on it.  */
  choose_stubs (c);
  /* Under async, which calls' stores a restore may not precede
     (chain_restores in instrument.cc, and the PC map).  */
  if (cce_opts.async)
    c.unstored = cce_unstored_calls (c.g);

  /* Step 3: sites are grouped by node in the order collected.  */
  for (size_t i = 0, j; i < c.sites.size (); i = j)
    {
      for (j = i; j < c.sites.size () && c.sites[j].node == c.sites[i].node;
           j++)
        ;
      instrument_function (c, i, j);
    }
  /* With idreg under async, the entries that have no site.  */
  if (cce_opts.idreg && cce_opts.async)
    {
      std::set<cgraph_node *> with_sites;
      for (const site_info &si : c.sites)
        with_sites.insert (si.node);
      for (const auto &n : c.nodes)
        if (!with_sites.count (n.first))
          instrument_entry (c, n.first);
    }
  /* The link the line is of, last: the lines of the partitions of links
     run at once may come in any order.  */
  if (cce_opts.stats)
    fprintf (stderr, "cce: %zu functions, %zu sites: %zu direct "
             "(%zu free), %zu back edges (%zu folded), %zu overflow cuts, "
             "%zu indirect (%zu guessed), %zu external, %zu log; max numCC "
             "%" PRIu64 "; %zu sites unobserved; %zu functions return "
             "without restoring the id; %zu pushes out of line; output %s\n",
             c.g->nnodes, c.g->nsites, st.direct_sites, st.zero_sites,
             st.back_sites, st.folded_sites, st.overflow_sites,
             st.indirect_sites, c.guessed_sites,
             st.external_sites, st.log_sites, st.max_numcc, st.dead_sites,
             st.clobber_nodes, c.compact_pushes,
             lbasename (link_output ().c_str ()));
  /* The stubs, after the guesses' compares took the addresses.  */
  make_stubs (c);

  /* Step 4.  */
  if (c.primary || c.g->nnodes)
    emit_dictionary (text, len, c.shared, c.primary);
  if (cce_opts.idreg && c.primary)
    emit_idreg_mark ();
  pcmap_note_graph (c);
  free (text);
  cce_graph_free (c.g);
  return 0;
}

static const pass_data pass_data_cce = {
  SIMPLE_IPA_PASS, /* type */
  "cce",           /* name */
  OPTGROUP_NONE,   /* optinfo_flags */
  TV_NONE,         /* tv_id */
  0,               /* properties_required */
  0,               /* properties_provided */
  0,               /* properties_destroyed */
  0,               /* todo_flags_start */
  0,               /* todo_flags_finish */
};

class pass_cce : public simple_ipa_opt_pass
{
public:
  pass_cce (gcc::context *ctxt) : simple_ipa_opt_pass (pass_data_cce, ctxt)
  {
  }
  /* Only where the whole program's bodies are: the LTRANS, or the single
     lto1 of -flto-partition=none.  */
  bool gate (function *) final override
  {
    return in_lto_p && !flag_wpa;
  }
  unsigned int execute (function *) final override
  {
    return cce_execute ();
  }
};

/* Gate override.  Two GCC passes would make a decoded path plausible but
   wrong:
   - identical code folding (icf, in lto1) merges g into f, and a call of g
     would decode as a call of f; it decides from compile-time summaries,
     so it is switched off where it runs;
   - tail recursion elimination (tailr, in cc1) turns a self tail call into
     a loop before LTO, and the recursion's frames would vanish.  lto1's
     own tailr runs after cce has put ccStack code around every recursive
     call, so it finds no tail call to remove.
   GATE_STATUS points to the pass's bool gate.  */
static void
cce_override_gate (void *gate_status, void *)
{
  if (!current_pass || !current_pass->name)
    return;
  if (flag_wpa && current_pass->type == IPA_PASS)
    mark_linker_output ();
  /* Once the program's visibility is known, before inlining.  */
  if (flag_wpa && current_pass->type == IPA_PASS
      && strcmp (current_pass->name, "inline") == 0)
    {
      mark_unobserved ();
      if (cce_opts.layout)
        order_for_partitions ();
    }
  if (strcmp (current_pass->name, "icf") == 0
      || strcmp (current_pass->name, "tailr") == 0)
    *(bool *) gate_status = false;
  /* GCC 12's backward jump threader (pass "thread") can thread the entry
     edge past the first block of an instrumented function and drop the
     block's loads of the id and top, then crash in update_ssa (bash's
     assign_compound_array_list at -O2).  The other threaders stay.  */
  if (strcmp (current_pass->name, "thread") == 0 && current_function_decl
      && cce_instrumented_p (current_function_decl))
    *(bool *) gate_status = false;
}

/* Traced functions are kept out of interprocedural optimization, as if
   with __attribute__ ((noipa)), when compiling and at link time: not
   inlined, not cloned, and neither known const or pure nor summarized for
   their callers -- their entries log, and every entry must run.  */
static void
cce_keep_traced (void *, void *)
{
  cgraph_node *node;
  FOR_EACH_FUNCTION (node)
    {
      tree decl = node->decl;
      if (!DECL_NAME (decl)
          || trace_index (source_name (source_decl (decl))) < 0)
        continue;
      if (lookup_attribute ("always_inline", DECL_ATTRIBUTES (decl)))
        {
          warning_at (DECL_SOURCE_LOCATION (decl), 0,
                      "cce: cannot trace %<always_inline%> function %qD", decl);
          continue;
        }
      DECL_UNINLINABLE (decl) = 1;
      TREE_READONLY (decl) = 0;
      DECL_PURE_P (decl) = 0;
      DECL_LOOPING_CONST_OR_PURE_P (decl) = 0;
      if (!lookup_attribute ("noipa", DECL_ATTRIBUTES (decl)))
        DECL_ATTRIBUTES (decl) = tree_cons (get_identifier ("noipa"),
                                            NULL_TREE,
                                            DECL_ATTRIBUTES (decl));
    }
}

/* Compile-time check: the plugin only works at LTO link time.  */
static void
cce_start_unit (void *, void *)
{
  if (!in_lto_p && !flag_generate_lto && !flag_generate_offload)
    error ("cce: %<-fplugin=cce.so%> needs %<-flto%>");
}

#define CCE_MIN_PARTITION 50000

/* In WPA: unless the link says otherwise (-flto-partition,
   --param=lto-partitions), as many LTRANS partitions as the link runs
   LTRANS jobs at once (-flto=N, -flto=auto: WPA's -fwpa=N): a call from
   one partition into another goes through the ccStack, so partitions
   that no job runs in parallel would cost run time and save nothing.
   Plain -flto runs its LTRANS jobs one after the other: one partition.
   A partition is at least CCE_MIN_PARTITION units of GCC's size
   estimates (--param=lto-min-partition; GCC's own minimum is 10,000):
   a program the size of lua 5.4 (about 25,000 lines of C) stays whole,
   its one LTRANS takes seconds.  */
static void
choose_partitions (void)
{
  if (OPTION_SET_P (flag_lto_partition)
      || flag_lto_partition != LTO_PARTITION_BALANCED
      || OPTION_SET_P (param_lto_partitions))
    return;
  long jobs = 1;
  if (ISDIGIT (flag_wpa[0]))
    jobs = strtol (flag_wpa, NULL, 10);
  else if (flag_wpa[0])
    jobs = sysconf (_SC_NPROCESSORS_ONLN);   /* a jobserver */
  if (jobs <= 1)
    flag_lto_partition = LTO_PARTITION_ONE;
  else
    param_lto_partitions = (int) MIN (jobs, param_lto_partitions);
  if (!OPTION_SET_P (param_min_partition_size))
    param_min_partition_size = MIN (MAX (param_min_partition_size,
                                         CCE_MIN_PARTITION),
                                    param_max_partition_size);
}

/* ------------------------------------------------------------------ */
/* Options: one table drives their parsing, their errors and the help.  */

enum option_kind
{
  OPTION_FLAG,          /* -fplugin-arg-cce-KEY */
  OPTION_BOOL,          /* KEY=0|1 */
  OPTION_NUMBER,        /* KEY=N, MIN <= N <= MAX */
  OPTION_FILE,          /* KEY or KEY=FILE: sets a flag, and the file */
  OPTION_SWITCH,        /* KEY (1) or KEY=0|1; -1 if not given */
  OPTION_LIST           /* KEY=A[,B...]: the trace list */
};

struct option_spec
{
  const char *key;
  enum option_kind kind;
  int min, max;         /* OPTION_NUMBER */
  void *var;            /* bool * (FLAG, BOOL, FILE), int * (NUMBER,
                           SWITCH) */
  const char **file;    /* OPTION_FILE: the file, NULL if none */
  const char *usage;    /* what follows the key in the help */
  const char *help;     /* what it does; '\n' starts a new line */
  const char *values;   /* in an error: what the value means */
  const char *example;  /* in an error: a good value */
};

static const struct option_spec options[] = {
  { "stats", OPTION_FLAG, 0, 0, &cce_opts.stats, NULL, "",
    "print a one-line summary of the plugin's decisions to stderr",
    NULL, NULL },
  { "dump", OPTION_FILE, 0, 0, &cce_opts.dump, &cce_opts.dump_file,
    "[=FILE]",
    "write the plugin's decisions (nodes, numCC, sites, addition\n"
    "values, back edges) to FILE, by default OUTPUT.cce", NULL, NULL },
  { "trace", OPTION_LIST, 0, 0, &cce_opts.trace, NULL, "=F[,F...]",
    "log a record at every entry of each function F, with tag\n"
    "0xfff00000 + its position in the list (give it when compiling\n"
    "too: traced functions are not inlined)",
    "a list of functions", "F1,F2" },
  { "count", OPTION_FLAG, 0, 0, &cce_opts.count, NULL, "",
    "count ccStack pushes (out of line; the runtime reports them at\n"
    "exit when CCE_STATS names a file)", NULL, NULL },
  { "observe-all", OPTION_FLAG, 0, 0, &cce_opts.observe_all, NULL, "",
    "encode every call, as if every function logged, exact at every\n"
    "instruction (async) unless async=0 is given", NULL, NULL },
  { "fold", OPTION_NUMBER, 0, 48, &cce_opts.fold, NULL, "=N",
    "fold recursion into the id up to a limit of at most BASE * 2^N\n"
    "(default 32); 0: every back edge pushes",
    "a number of bits from 0 (no folding) to 48", "16" },
  { "keep", OPTION_BOOL, 0, 1, &cce_opts.keep, NULL, "=0|1",
    "1 (default, x86-64): cold pushes, pops and grows keep every\n"
    "register; 0: plain calls", "0 (plain calls on cold paths) or 1", "0" },
  { "clobber", OPTION_BOOL, 0, 1, &cce_opts.clobber, NULL, "=0|1",
    "1 (default): functions not callable from outside may return\n"
    "with the id their last call stored; 0: every function restores it",
    "0 (every function restores the id) or 1", "0" },
  { "async", OPTION_SWITCH, 0, 1, &cce_opts.async, NULL, "[=0|1]",
    "make the context exact at every instruction, for crash records\n"
    "and samples (implies observe-all): every function restores the id\n"
    "after each call (it costs time); on with observe-all unless 0",
    "nothing, 1 (exact at every instruction) or 0 (not)", "0" },
  { "idreg", OPTION_FLAG, 0, 0, &cce_opts.idreg, NULL, "",
    "keep the id in register " CCE_IDREG " (x86-64 executables), which\n"
    "no code of the program may then use",
    NULL, NULL },
  { "stub", OPTION_BOOL, 0, 1, &cce_opts.stub, NULL, "=0|1",
    "1 (default): with idreg, a function that code outside the\n"
    "program may call and that the program calls directly gets a\n"
    "second entry point, so that the program's calls pass the id in\n"
    "the register; 0: such a function takes its id from the TLS block",
    "0 (no second entry points) or 1", "0" },
  { "layout", OPTION_BOOL, 0, 1, &cce_opts.layout, NULL, "=0|1",
    "1 (default): with several LTRANS partitions, order the functions\n"
    "so that hot calls stay within a partition (a call into another\n"
    "goes through the ccStack); 0: GCC's order",
    "0 (GCC's order of functions for partitions) or 1", "0" },
  { "guess", OPTION_NUMBER, 0, 8, &cce_opts.guess, NULL, "=N",
    "an indirect call compares the pointer with at most N likely\n"
    "targets (a virtual call: the methods of its slot) and calls a\n"
    "match directly (default 3; 0: none)",
    "the most targets an indirect call compares with, from 0 (none: "
    "every indirect call pushes) to 8", "1" },
  { "compact", OPTION_BOOL, 0, 1, &cce_opts.compact, NULL, "=0|1",
    "1 (default, x86-64): a ccStack push in a block that GCC\n"
    "optimizes for size (an error path) calls the runtime instead of\n"
    "being inline; 0: every push is inline",
    "0 (every push inline) or 1", "0" },
  { "local-pushes", OPTION_NUMBER, 0, 1000000, &cce_opts.local_pushes, NULL,
    "=N",
    "with async: a function with N or more ccStack pushes (default 16)\n"
    "reads the id and the top at each push instead of keeping them in\n"
    "registers across its code (0: none does)",
    "the number of pushes from which a function reads the id at each, "
    "0 (never) or more", "16" },
};

/* The keys of the options, as the help writes them, joined by ", ".  */
static std::string
option_keys (void)
{
  std::string keys;
  for (const option_spec &o : options)
    keys += std::string (keys.empty () ? "" : ", ") + o.key + o.usage;
  return keys;
}

/* The help text of the plugin (cce_plugin_info).  */
static std::string
options_help (void)
{
  std::string h = "cce: precise calling context encoding.  Put "
                  "-fplugin=cce.so on the link line of an -flto build.\n"
                  "Options (-fplugin-arg-cce-KEY[=VALUE]):\n";
  for (const option_spec &o : options)
    {
      std::string name = std::string ("  ") + o.key + o.usage;
      name.resize (std::max<size_t> (name.size () + 2, 18), ' ');
      h += name;
      for (const char *c = o.help; *c; c++)
        h += *c == '\n' ? std::string ("\n") + std::string (18, ' ')
                        : std::string (1, *c);
      h += '\n';
    }
  return h;
}

/* Add the functions of the comma-separated list VALUE to the trace list.
   False (after an error) if one is empty or there are too many.  */
static bool
parse_trace_list (const char *value)
{
  std::string list = value;
  size_t p = 0;
  while (p <= list.size ())
    {
      size_t q = list.find (',', p);
      if (q == std::string::npos)
        q = list.size ();
      std::string name = list.substr (p, q - p);
      if (name.empty ())
        {
          error ("cce: empty function name in %<-fplugin-arg-cce-trace=%s%>",
                 value);
          return false;
        }
      if (trace_index (name.c_str ()) < 0)
        cce_opts.trace.push_back (name);
      p = q + 1;
    }
  if (cce_opts.trace.size () > 0xfffff)
    {
      error ("cce: too many functions to trace");
      return false;
    }
  return true;
}

/* Set the option KEY to VALUE (NULL: none given).  False, after one
   error line, if KEY is unknown or VALUE is not one it takes.  */
static bool
parse_option (const char *key, const char *value)
{
  const option_spec *o = NULL;
  for (const option_spec &x : options)
    if (strcmp (x.key, key) == 0)
      o = &x;
  if (!o)
    {
      error ("cce: unknown plugin argument %<-fplugin-arg-cce-%s%>; "
             "known: %s", key, option_keys ().c_str ());
      return false;
    }
  switch (o->kind)
    {
    case OPTION_FLAG:
      if (value)
        {
          error ("cce: %<-fplugin-arg-cce-%s%> takes no value", key);
          return false;
        }
      *(bool *) o->var = true;
      return true;
    case OPTION_FILE:
      *(bool *) o->var = true;
      *o->file = value;
      return true;
    case OPTION_LIST:
      if (!value || !*value)
        break;
      return parse_trace_list (value);
    case OPTION_SWITCH:
      if (!value)
        {
          *(int *) o->var = 1;
          return true;
        }
      /* FALLTHRU */
    case OPTION_BOOL:
    case OPTION_NUMBER:
      {
        char *end;
        long n = value ? strtol (value, &end, 10) : -1;
        if (!value || !*value || *end || n < o->min || n > o->max)
          break;
        if (o->kind == OPTION_BOOL)
          *(bool *) o->var = n != 0;
        else if (o->kind == OPTION_SWITCH)
          *(int *) o->var = n != 0;
        else
          *(int *) o->var = (int) n;
        return true;
      }
    }
  error ("cce: %<-fplugin-arg-cce-%s%> takes %s: "
         "%<-fplugin-arg-cce-%s=%s%>", key, o->values, key, o->example);
  return false;
}

static struct plugin_info cce_plugin_info = { "0.1.0", NULL };

/* The trees the plugin keeps across passes, for GCC's garbage
   collector.  */
static const struct ggc_root_tab cce_ggc_roots[] = {
  { &cce_rt[0], CCE_RT_MAX, sizeof (cce_rt[0]), &gt_ggc_mx_tree_node,
    &gt_pch_nx_tree_node },
  LAST_GGC_ROOT_TAB
};

int
plugin_init (struct plugin_name_args *info, struct plugin_gcc_version *ver)
{
  /* On bad input: error () and return 0 with nothing registered.  The
     error fails the compilation; returning 1 would only add GCC's own
     second line, "failed to initialize plugin".  */

  /* 1. Version check.  */
  if (!plugin_default_version_check (ver, &gcc_version))
    {
      error ("cce: this plugin was built for GCC %s, not %s",
             gcc_version.basever, ver->basever);
      return 0;
    }

  /* 2. Arguments.  */
  for (int i = 0; i < info->argc; i++)
    if (!parse_option (info->argv[i].key, info->argv[i].value))
      return 0;
  cce_opts.keep = cce_opts.keep && CCE_HAVE_KEEP;
  if (cce_opts.idreg)
    {
      if (!CCE_HAVE_KEEP)
        {
          error ("cce: %<-fplugin-arg-cce-idreg%> is for x86-64 only");
          return 0;
        }
      /* No code of this compilation allocates the register, as with
         -ffixed-r15.  */
      fix_register (CCE_IDREG, 1, 1);
    }
  /* Exact at every instruction is what encoding every call is for; it
     needs every call encoded.  */
  if (cce_opts.async < 0)
    cce_opts.async = cce_opts.observe_all;
  else if (cce_opts.async)
    cce_opts.observe_all = true;
  if (cce_opts.async)
    {
      /* The protocol pcmap.cc can follow at every instruction.  Folded
         recursion keeps it with the register-keeping push and pop,
         whose single commit points the runtime knows (rt/keep.c);
         without them (keep=0, count) recursion pushes.  */
      cce_opts.clobber = false;
      if (!cce_opts.keep || cce_opts.count)
        cce_opts.fold = 0;
    }

  static std::string help = options_help ();
  cce_plugin_info.help = help.c_str ();
  register_callback (plugin_name_str, PLUGIN_INFO, NULL, &cce_plugin_info);

  register_callback (plugin_name_str, PLUGIN_REGISTER_GGC_ROOTS, NULL,
                     (void *) cce_ggc_roots);

  /* 3. In WPA, as many partitions as LTRANS jobs.  */
  if (flag_wpa)
    choose_partitions ();

  /* 4. No identical code folding, no tail recursion elimination.  */
  register_callback (plugin_name_str, PLUGIN_OVERRIDE_GATE,
                     cce_override_gate, NULL);

  /* 5. Check for -flto when compiling.  */
  register_callback (plugin_name_str, PLUGIN_START_UNIT, cce_start_unit,
                     NULL);

  /* 6. Keep traced functions out of line.  */
  if (!cce_opts.trace.empty ())
    register_callback (plugin_name_str, PLUGIN_ALL_IPA_PASSES_START,
                       cce_keep_traced, NULL);

  /* 7. The pass, after the last late IPA pass.  */
  struct register_pass_info pass_info;
  pass_info.pass = new pass_cce (g);
  pass_info.reference_pass_name = "simdclone";
  pass_info.ref_pass_instance_number = 1;
  pass_info.pos_op = PASS_POS_INSERT_AFTER;
  register_callback (plugin_name_str, PLUGIN_PASS_MANAGER_SETUP, NULL,
                     &pass_info);

  /* 8. The PC map, late in the RTL passes.  */
  pcmap_register (plugin_name_str, cce_opts.async);
  return 0;
}
