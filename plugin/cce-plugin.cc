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
                                           if (t - 1 >= T[LAST])
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

   The numbers match the comments in instrument_function below.  */

#include "gcc-common.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cce-abi.h"
#include "cce-core.h"

int plugin_is_GPL_compatible;

static const char *const plugin_name_str = "cce";

/* Plugin options.  GCC 12 parses -fdump-* before it loads plugins, so a
   plugin pass cannot have a -fdump-ipa-NAME switch of its own; the dump is
   asked for with -fplugin-arg-cce-dump instead.  */
static bool opt_stats;
static bool opt_dump;
static const char *opt_dump_file;
static std::vector<std::string> opt_trace;   /* functions to trace */
static bool opt_count;
static bool opt_observe_all;
static int opt_fold = -1;    /* -1: the default */
static bool opt_keep = true;  /* register-keeping cold calls, where
                                 CCE_HAVE_KEEP */
static bool opt_clobber = true;   /* cce_graph's preserve_all when false */
static int opt_guess = 3;     /* the most guessed targets of an indirect
                                 call */

/* The position of NAME in the trace list, or -1.  */
static int
trace_index (const char *name)
{
  for (size_t i = 0; i < opt_trace.size (); i++)
    if (opt_trace[i] == name)
      return (int) i;
  return -1;
}

/* ------------------------------------------------------------------ */
/* Declarations of the runtime ABI (cce-abi.h), built once per lto1.  */

static tree tls_decl;     /* __thread uint64_t __cce_tls[CCE_TLS_WORDS] */
static tree grow_decl;    /* uint64_t __cce_grow (uint64_t) */
static tree push_decl;    /* void __cce_push (uint64_t, uint64_t, uint64_t) */
static tree push_counted_decl;  /* the same, counted */
static tree pop_decl;     /* void __cce_pop (uint64_t) */
static tree log_at_decl;  /* void __cce_log_at (unsigned, uint64_t) */

/* Build an external, nothrow, leaf function declaration NAME of TYPE.  */
static tree
build_runtime_fn (const char *name, tree type)
{
  tree decl = build_fn_decl (name, type);
  TREE_NOTHROW (decl) = 1;
  DECL_ATTRIBUTES (decl)
    = tree_cons (get_identifier ("leaf"), NULL_TREE,
                 tree_cons (get_identifier ("nothrow"), NULL_TREE, NULL_TREE));
  SET_DECL_ASSEMBLER_NAME (decl, get_identifier (name));
  return decl;
}

/* SHARED: the output is a shared object.  */
static void
build_runtime_decls (bool shared)
{
  tree u64 = long_long_unsigned_type_node;
  tree type = build_array_type_nelts (u64, CCE_TLS_WORDS);

  tls_decl = build_decl (UNKNOWN_LOCATION, VAR_DECL,
                         get_identifier (CCE_SYM_TLS), type);
  TREE_PUBLIC (tls_decl) = 1;
  DECL_ARTIFICIAL (tls_decl) = 1;
  TREE_ADDRESSABLE (tls_decl) = 1;
  if (shared)
    {
      /* A shared object refers to the block through its GOT
         (initial-exec): libcce, loaded at start-up, defines it, or the
         executable does when it was built with cce.  */
      DECL_EXTERNAL (tls_decl) = 1;
      TREE_STATIC (tls_decl) = 0;
      set_decl_tls_model (tls_decl, TLS_MODEL_INITIAL_EXEC);
      varpool_node::get_create (tls_decl);
    }
  else
    {
      /* An executable defines the block itself and reaches it at a fixed
         offset from the thread pointer (local-exec): no GOT load, and no
         register to hold its address.  The linker exports the definition,
         since libcce defines the same symbol, and the dynamic linker binds
         libcce's and every shared object's references to it (cce-abi.h,
         CCE_SYM_TLS).  */
      DECL_EXTERNAL (tls_decl) = 0;
      TREE_STATIC (tls_decl) = 1;
      TREE_USED (tls_decl) = 1;
      DECL_PRESERVE_P (tls_decl) = 1;
      SET_DECL_ALIGN (tls_decl, CCE_TLS_WORDS * 64);
      DECL_USER_ALIGN (tls_decl) = 1;
      set_decl_tls_model (tls_decl, TLS_MODEL_LOCAL_EXEC);
      varpool_node::finalize_decl (tls_decl);
    }

  grow_decl = build_runtime_fn (CCE_SYM_GROW,
                                build_function_type_list (u64, u64,
                                                          NULL_TREE));
  tree push_type = build_function_type_list (void_type_node, u64, u64, u64,
                                             NULL_TREE);
  push_decl = build_runtime_fn (CCE_SYM_PUSH, push_type);
  push_counted_decl = build_runtime_fn (CCE_SYM_PUSH_COUNTED, push_type);
  pop_decl = build_runtime_fn (CCE_SYM_POP,
                               build_function_type_list (void_type_node, u64,
                                                         NULL_TREE));
  log_at_decl = build_runtime_fn (CCE_SYM_LOG_AT,
                                  build_function_type_list (void_type_node,
                                                            unsigned_type_node,
                                                            u64, NULL_TREE));
}

/* A cold-path call of the runtime's register-keeping entry point NAME
   (cce-abi.h, __cce_*_keep): an asm that runs SETUP (instructions with
   constant operands, or "") and calls NAME through the GOT (no lazy PLT
   binding in between), with IN (if any) in rdi and the result (if OUT)
   in rax,
   clobbering memory, the flags, r10 and r11 only.  The constants are in
   the template, not operands, so that GCC does not keep them in
   registers across the hot path.  GCC does not see the call, so the
   function may be a leaf that keeps data in the red zone below its stack
   pointer (when the instrumented call is expanded inline, as
   __builtin_setjmp is, or deleted after this pass): the asm steps over
   the red zone around the call, as cce-abi.h asks.  */
static gimple *
keep_call (const char *name, const std::string &setup, tree in, tree out)
{
  vec<tree, va_gc> *inputs = NULL, *outputs = NULL, *clobbers = NULL;
  if (in)
    vec_safe_push (inputs,
                   build_tree_list (build_tree_list (NULL_TREE,
                                                     build_string (1, "D")),
                                    in));
  if (out)
    vec_safe_push (outputs,
                   build_tree_list (build_tree_list (NULL_TREE,
                                                     build_string (2, "=a")),
                                    out));
  static const char *const clob[] = { "memory", "r10", "r11" };
  for (const char *c : clob)
    vec_safe_push (clobbers, build_tree_list (NULL_TREE,
                                              build_string (strlen (c), c)));
  std::string skip = std::to_string (CCE_KEEP_SKIP);
  std::string text = setup + "addq $-" + skip + ", %%rsp\n\tcall *" + name
                     + "@GOTPCREL(%%rip)\n\tsubq $-" + skip + ", %%rsp";
  gasm *a = gimple_build_asm_vec (ggc_strdup (text.c_str ()), inputs,
                                  outputs, clobbers, NULL);
  gimple_asm_set_volatile (a, true);
  if (out)
    SSA_NAME_DEF_STMT (out) = a;
  return a;
}

/* The cold push of a folded site: __cce_push (ID, WORD, ENTRY).  */
static gimple *
cold_push (tree id, uint64_t word, uint64_t entry)
{
  tree u64 = long_long_unsigned_type_node;
  if (opt_count || !opt_keep)
    return gimple_build_call (opt_count ? push_counted_decl : push_decl, 3,
                              id, build_int_cst (u64, word),
                              build_int_cst (u64, entry));
  char setup[96];
  snprintf (setup, sizeof setup,
            "movabsq $%#" PRIx64 ", %%%%r10\n\tmovabsq $%#" PRIx64
            ", %%%%r11\n\t", word, entry);
  return keep_call (CCE_SYM_PUSH_KEEP, setup, id, NULL_TREE);
}

/* The cold pop of a folded site: __cce_pop (ID); with the keeping entry
   points, the pop that takes the id from the entry its push wrote, so
   that ID need not live across the call.  */
static gimple *
cold_pop (tree id)
{
  if (!opt_keep)
    return gimple_build_call (pop_decl, 1, id);
  return keep_call (CCE_SYM_POP_ENTRY_KEEP, "", NULL_TREE, NULL_TREE);
}

/* The cold grow of an inline push: GROWN = __cce_grow (TOP).  */
static gimple *
cold_grow (tree top, tree grown)
{
  if (!opt_keep)
    {
      gcall *g = gimple_build_call (grow_decl, 1, top);
      gimple_call_set_lhs (g, grown);
      return g;
    }
  return keep_call (CCE_SYM_GROW_KEEP, "", top, grown);
}

/* A reference to the 64-bit word at byte OFFSET from the address ADDR,
   volatile if VOLATILE_P.  */
static tree
word_ref (tree addr, unsigned offset, bool volatile_p)
{
  tree type = long_long_unsigned_type_node;
  if (volatile_p)
    type = build_qualified_type (type, TYPE_QUAL_VOLATILE);
  tree ref = build2 (MEM_REF, type, addr,
                     build_int_cst (build_pointer_type (type), offset));
  TREE_THIS_VOLATILE (ref) = volatile_p;
  return ref;
}

/* Set while the code of a call GCC knows as a built-in is inserted (the
   program's own malloc, free, memcpy...): GCC assumes such a call reads
   no memory of ours, and would delete our stores before it as dead.  */
static bool pin_site_stores;

/* A reference to word K of the TLS block, volatile if VOLATILE_P or
   pin_site_stores.  */
static tree
tls_ref (unsigned k, bool volatile_p)
{
  return word_ref (build_fold_addr_expr (tls_decl), 8 * k,
                   volatile_p || pin_site_stores);
}

/* ------------------------------------------------------------------ */
/* Collecting the call graph.                                         */

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

/* The source function FNDECL stands for: clones and split parts lead back
   to the function the programmer wrote.  */
static tree
source_decl (tree fndecl)
{
  int guard = 0;
  while (DECL_ABSTRACT_ORIGIN (fndecl)
         && DECL_ABSTRACT_ORIGIN (fndecl) != fndecl && guard++ < 100)
    fndecl = DECL_ABSTRACT_ORIGIN (fndecl);
  return fndecl;
}

/* The name of source function DECL as the programmer wrote it.  */
static const char *
source_name (tree decl)
{
  if (DECL_NAME (decl))
    return IDENTIFIER_POINTER (DECL_NAME (decl));
  return lang_hooks.decl_printable_name (decl, 0);
}

/* The name of external function FNDECL as the program calls it: its
   symbol (GOMP_parallel, not __builtin_GOMP_parallel).  */
static const char *
external_name (tree fndecl)
{
  const char *name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (fndecl));
  return name[0] == '*' ? name + 1 : name;
}

/* The function number of FNDECL's source function in C.  */
static uint32_t
func_of (collector &c, tree fndecl)
{
  tree src = source_decl (fndecl);
  auto it = c.funcs.find (src);
  if (it != c.funcs.end ())
    return it->second;
  expanded_location xl = expand_location (DECL_SOURCE_LOCATION (src));
  uint32_t f = cce_graph_func (c.g, source_name (src),
                               xl.file ? xl.file : "", xl.line);
  c.funcs[src] = f;
  return f;
}

/* Is NAME one of the NULL-terminated list NAMES?  */
static bool
name_in (const char *name, const char *const *names)
{
  for (; *names; names++)
    if (strcmp (name, *names) == 0)
      return true;
  return false;
}

/* Does NAME belong to the allocator that the C library calls by name, so
   that a program's own definition replaces it inside the library too
   (glibc's manual, "Replacing malloc")?  */
static bool
allocator_name_p (const char *name)
{
  static const char *const names[] = {
    "malloc", "free", "calloc", "realloc", "aligned_alloc", "memalign",
    "posix_memalign", "valloc", "pvalloc", "malloc_usable_size", NULL
  };
  return name_in (name, names);
}

/* External functions that never allocate: with a replaced allocator, a
   `leaf' function of the C library may still call into the program (its
   malloc), but these do not.  */
static bool
never_allocates_p (const char *name)
{
  static const char *const names[] = {
    "memcpy", "memmove", "memset", "memcmp", "memchr", "memrchr",
    "mempcpy", "bcmp", "bzero", "strcpy", "strncpy", "stpcpy", "stpncpy",
    "strcat", "strncat", "strcmp", "strncmp", "strlen", "strnlen",
    "strchr", "strrchr", "strchrnul", "strstr", "strspn", "strcspn",
    "strpbrk", "__errno_location", "__ctype_b_loc", "__ctype_tolower_loc",
    "__ctype_toupper_loc", NULL
  };
  return name_in (name, names);
}

/* Functions of the C library that glibc declares without `leaf' but that
   never run code of the program: locks and wake-ups, none of them a
   cancellation point (cancellation runs the thread's cleanup handlers)
   and none allocating.  sqlite3 calls pthread_mutex_lock and _unlock
   around every use of shared state.  */
static bool
never_calls_back_p (const char *name)
{
  static const char *const names[] = {
    "pthread_mutex_lock", "pthread_mutex_trylock", "pthread_mutex_unlock",
    "pthread_mutex_timedlock", "pthread_mutex_clocklock",
    "pthread_rwlock_rdlock", "pthread_rwlock_tryrdlock",
    "pthread_rwlock_timedrdlock", "pthread_rwlock_clockrdlock",
    "pthread_rwlock_wrlock", "pthread_rwlock_trywrlock",
    "pthread_rwlock_timedwrlock", "pthread_rwlock_clockwrlock",
    "pthread_rwlock_unlock", "pthread_spin_lock", "pthread_spin_trylock",
    "pthread_spin_unlock", "pthread_cond_signal", "pthread_cond_broadcast",
    "sem_post", "sem_trywait", NULL
  };
  return name_in (name, names);
}

/* Can a call of the external function FNDECL (NULL: unknown) run code of
   the program before it returns?  glibc marks exit, raise and friends
   `leaf', so the attribute alone does not settle it.  Nor does it where
   the program replaces malloc (ALLOCATOR): glibc's `leaf' functions
   (strdup, qsort's buffer, stdio's buffers...) call the program's.  */
static bool
external_may_call_back (tree fndecl, gcall *call, bool allocator)
{
  static const char *const calls_back[] = {
    "exit", "quick_exit", "raise", "kill", "abort", "pthread_kill",
    "tgkill", "sigqueue", "killpg", "pthread_exit", "__libc_start_main",
    NULL
  };
  int flags = gimple_call_flags (call);

  if (!fndecl)
    return true;
  /* setjmp and friends: the code after a ccStack call restores the id and
     the ccStack depth, and it also runs when longjmp returns there.  */
  if (flags & ECF_RETURNS_TWICE)
    return true;
  const char *name = IDENTIFIER_POINTER (DECL_NAME (fndecl));
  if (name_in (name, calls_back))
    return true;
  if (flags & (ECF_CONST | ECF_PURE))
    return false;
  if (never_calls_back_p (name))
    return false;
  if (flags & ECF_LEAF)
    return allocator && !never_allocates_p (name);
  return true;
}

/* The function whose body holds block B (inlined into NODE): the origin
   of the next inlined-function scope above B, else NODE's own.  */
static tree
enclosing_function (tree b, cgraph_node *node)
{
  for (b = BLOCK_SUPERCONTEXT (b); b && TREE_CODE (b) == BLOCK;
       b = BLOCK_SUPERCONTEXT (b))
    if (inlined_function_outer_scope_p (b))
      {
        tree origin = block_ultimate_origin (b);
        if (origin && TREE_CODE (origin) == FUNCTION_DECL)
          return origin;
      }
  return node->decl;
}

/* Add the frames of the call STMT in NODE to site SITE: the node's own
   function first, then every function inlined on the way to STMT.  */
static void
add_frames (collector &c, cgraph_node *node, uint32_t site, gimple *stmt)
{
  struct fr { uint32_t func; location_t loc; };
  std::vector<fr> chain;
  location_t loc = gimple_location (stmt);

  for (tree b = gimple_block (stmt); b && TREE_CODE (b) == BLOCK;
       b = BLOCK_SUPERCONTEXT (b))
    if (inlined_function_outer_scope_p (b))
      {
        tree origin = block_ultimate_origin (b);
        if (!origin || TREE_CODE (origin) != FUNCTION_DECL)
          continue;
        /* A split part inlined back into its function: fnsplit's call of
           the part has no location of its own, and the inlined copy gets
           the function's declaration; a call in the source is never
           there.  Not a frame of its own.  */
        location_t bl = BLOCK_SOURCE_LOCATION (b);
        if ((bl == UNKNOWN_LOCATION
             || bl == DECL_SOURCE_LOCATION (source_decl (origin)))
            && source_decl (origin) == source_decl (enclosing_function (b,
                                                                   node)))
          continue;
        chain.push_back ({ func_of (c, origin), loc });
        loc = BLOCK_SOURCE_LOCATION (b);
      }
  chain.push_back ({ func_of (c, node->decl), loc });
  for (auto it = chain.rbegin (); it != chain.rend (); ++it)
    {
      expanded_location xl = expand_location (it->loc);
      cce_graph_frame (c.g, site, it->func, xl.file, xl.line, xl.column);
    }
}

/* Is FNDECL the public cce_log of <cce.h>?  */
static bool
is_cce_log (tree fndecl)
{
  return fndecl && DECL_NAME (fndecl) && TREE_PUBLIC (fndecl)
         && strcmp (IDENTIFIER_POINTER (DECL_NAME (fndecl)), CCE_SYM_LOG) == 0;
}

/* Is FNDECL one of the runtime's own entry points?  */
static bool
is_runtime (tree fndecl)
{
  const char *name = IDENTIFIER_POINTER (DECL_NAME (fndecl));
  return strncmp (name, "__cce_", 6) == 0;
}

/* Functions that return pointers to functions of any module.  */
static const char *const lookup_fns[] = { "dlsym", "dlvsym", NULL };

/* May the external function FNDECL be a function of another module built
   with cce (a shared library of the program), whose log sites this
   module cannot see?  Not a function GCC knows as a built-in, nor one
   declared in a system header: those are the C library's and its
   kind, never built with cce.  */
static bool
may_be_instrumented (tree fndecl)
{
  return !fndecl_built_in_p (fndecl) && !DECL_IN_SYSTEM_HEADER (fndecl)
         && !is_runtime (fndecl) && !is_cce_log (fndecl);
}

/* The name of FIELD (a FIELD_DECL) as "struct.field", the same for the
   same field in every unit; "" for a field without names.  */
static std::string
field_key (tree field)
{
  if (TREE_CODE (field) != FIELD_DECL || !DECL_NAME (field))
    return "";
  tree rec = TYPE_NAME (TYPE_MAIN_VARIANT (DECL_CONTEXT (field)));
  if (rec && TREE_CODE (rec) == TYPE_DECL)
    rec = DECL_NAME (rec);
  if (!rec || TREE_CODE (rec) != IDENTIFIER_NODE)
    return "";
  return std::string (IDENTIFIER_POINTER (rec)) + "."
         + IDENTIFIER_POINTER (DECL_NAME (field));
}

/* Note that the program stores the address VALUE in FIELD, if VALUE is
   that of a function of the program whose address is taken.  */
static void
note_field_target (collector &c, tree field, tree value)
{
  STRIP_NOPS (value);
  if (TREE_CODE (value) != ADDR_EXPR
      || TREE_CODE (TREE_OPERAND (value, 0)) != FUNCTION_DECL)
    return;
  std::string key = field_key (field);
  cgraph_node *t = cgraph_node::get (TREE_OPERAND (value, 0));
  if (key.empty () || !t)
    return;
  t = t->ultimate_alias_target ();
  if (!c.guessable.count (t))
    return;
  std::vector<cgraph_node *> &v = c.field_targets[key];
  if (std::find (v.begin (), v.end (), t) == v.end ())
    v.push_back (t);
}

/* The function addresses in the initializer INIT, a field's worth.  */
static void
note_initializer (collector &c, tree init)
{
  if (!init || TREE_CODE (init) != CONSTRUCTOR)
    return;
  unsigned HOST_WIDE_INT k;
  tree index, value;
  FOR_EACH_CONSTRUCTOR_ELT (CONSTRUCTOR_ELTS (init), k, index, value)
    if (index && TREE_CODE (index) == FIELD_DECL
        && TREE_CODE (value) != CONSTRUCTOR)
      note_field_target (c, index, value);
    else
      note_initializer (c, value);
}

/* Where the program stores function addresses into fields: in the
   initializers of its variables and in assignments of its bodies.  */
static void
collect_field_targets (collector &c)
{
  varpool_node *v;
  FOR_EACH_DEFINED_VARIABLE (v)
    if (!v->in_other_partition)
      note_initializer (c, v->get_constructor ());
  /* In the call graph's order, not by pointer: the guesses, their order
     and the dictionary are the same in every build.  */
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    {
      if (!c.nodes.count (node))
        continue;
      basic_block bb;
      FOR_EACH_BB_FN (bb, DECL_STRUCT_FUNCTION (node->decl))
        for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
             gsi_next (&gsi))
          {
            gimple *st = gsi_stmt (gsi);
            if (gimple_assign_single_p (st)
                && TREE_CODE (gimple_assign_lhs (st)) == COMPONENT_REF)
              note_field_target (c, TREE_OPERAND (gimple_assign_lhs (st), 1),
                                 gimple_assign_rhs1 (st));
          }
    }
}

/* The likely targets of the indirect call of SI: where its pointer is
   loaded from a field, the functions whose address the program stores in
   that field (collect_field_targets), else the functions of the program
   whose address is taken; of these, those whose type is the call's, if
   there are at most opt_guess of them (not the caller itself: that edge
   would only ever be a back edge).
   Each becomes a direct site of its own, with the call's frames.  Which
   of them is called is decided at run time by comparing addresses, so a
   wrong guess costs a compare, never a wrong context.  */
static void
add_guesses (collector &c, site_info &si)
{
  gcall *call = as_a<gcall *> (si.stmt);
  tree fntype = gimple_call_fntype (call);
  tree fn = gimple_call_fn (call);
  if (opt_guess <= 0 || !fntype || !fn || TREE_CODE (fn) != SSA_NAME
      || gimple_call_noreturn_p (call)
      || (gimple_call_flags (call) & ECF_RETURNS_TWICE))
    return;
  /* A pointer loaded from a field: the functions whose address the
     program stores in that field; else those of the call's type.  */
  std::vector<cgraph_node *> found;
  gimple *def = SSA_NAME_DEF_STMT (fn);
  const std::vector<cgraph_node *> *stored = NULL;
  if (gimple_assign_single_p (def)
      && TREE_CODE (gimple_assign_rhs1 (def)) == COMPONENT_REF)
    {
      auto it = c.field_targets.find (field_key (TREE_OPERAND
                                                   (gimple_assign_rhs1 (def),
                                                    1)));
      if (it != c.field_targets.end ())
        stored = &it->second;
    }
  for (cgraph_node *t : stored ? *stored : c.address_taken)
    if (t != si.node && types_compatible_p (TREE_TYPE (t->decl), fntype))
      {
        found.push_back (t);
        if (found.size () > (size_t) opt_guess)
          return;
      }
  if (found.empty ())
    return;
  /* Their weight is as small as can be: where a guessed edge closes a
     recursion through the pointer, the back edge chosen on it
     (mark_back_edges weighs edges by frequency) is that edge, unused,
     rather than a real call that would then push.  */
  for (cgraph_node *t : found)
    {
      uint32_t site = cce_graph_site (c.g, c.nodes[si.node], CCE_SITE_DIRECT,
                                      c.nodes[t], 0.0);
      add_frames (c, si.node, site, call);
      si.guesses.push_back ({ t, site });
      c.guess_of[site] = si.site;
    }
  c.guessed_sites++;
}

/* Record the call sites of NODE's body.  */
static void
collect_sites (collector &c, cgraph_node *node)
{
  function *fun = DECL_STRUCT_FUNCTION (node->decl);
  uint32_t n = c.nodes[node];
  basic_block bb;
  profile_count entry = ENTRY_BLOCK_PTR_FOR_FN (fun)->count;

  /* The entry of a traced function: a log site with the function's own
     frame, at its declaration.  A split part is not an entry.  */
  if (!opt_trace.empty () && !node->split_part)
    {
      tree src = source_decl (node->decl);
      if (trace_index (source_name (src)) >= 0)
        {
          uint32_t site = cce_graph_site (c.g, n, CCE_SITE_TRACE, CCE_NONE,
                                          1.0);
          expanded_location xl = expand_location (DECL_SOURCE_LOCATION (src));
          cce_graph_frame (c.g, site, func_of (c, node->decl), xl.file,
                           xl.line, xl.column);
          c.sites.push_back ({ node, NULL, site, {} });
        }
    }

  FOR_EACH_BB_FN (bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
         gsi_next (&gsi))
      {
        gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi));
        if (!call || gimple_call_internal_p (call))
          continue;
        tree fndecl = gimple_call_fndecl (call);
        char kind;
        uint32_t target = CCE_NONE;

        if (fndecl && is_runtime (fndecl))
          continue;
        if (is_cce_log (fndecl))
          kind = CCE_SITE_LOG;
        else if (!fndecl)
          kind = CCE_SITE_INDIRECT;
        else
          {
            cgraph_node *callee = cgraph_node::get (fndecl);
            enum availability avail = AVAIL_AVAILABLE;
            if (callee)
              callee = callee->ultimate_alias_target (&avail, node);
            auto it = callee ? c.nodes.find (callee) : c.nodes.end ();
            /* A function of a shared library that another module may
               interpose (default visibility, -fPIC; nothing interposes
               an executable's functions): the call may not reach this
               body; it is a call out of the module.  */
            if (it != c.nodes.end () && avail <= AVAIL_INTERPOSABLE
                && c.shared)
              {
                kind = CCE_SITE_EXTERNAL;
                target = cce_graph_string (c.g, external_name (fndecl));
              }
            else if (it != c.nodes.end ())
              {
                kind = CCE_SITE_DIRECT;
                target = it->second;
              }
            else if (external_may_call_back (fndecl, call,
                                             c.allocator_replaced))
              {
                kind = CCE_SITE_EXTERNAL;
                target = cce_graph_string (c.g, external_name (fndecl));
              }
            else
              continue;
          }

        double freq = 1.0;
        if (entry.initialized_p () && entry.nonzero_p ()
            && bb->count.initialized_p ())
          freq = bb->count.to_sreal_scale (entry).to_double ();
        uint32_t site = cce_graph_site (c.g, n, kind, target,
                                        freq);
        /* A call that may enter another module built with cce: by name,
           or through a pointer where this module may hold one of another
           module's functions.  */
        if (site != CCE_NONE
            && ((kind == CCE_SITE_EXTERNAL && may_be_instrumented (fndecl))
                || (kind == CCE_SITE_INDIRECT && c.foreign_pointers)))
          c.g->sites[site].may_log = 1;
        add_frames (c, node, site, call);
        c.sites.push_back ({ node, call, site, {} });
        if (kind == CCE_SITE_INDIRECT)
          add_guesses (c, c.sites.back ());
      }
}

/* ------------------------------------------------------------------ */
/* Instrumenting.                                                     */

static tree
u64_cst (uint64_t v)
{
  return build_int_cst (long_long_unsigned_type_node, v);
}

/* The edge on which control leaves the block of STMT when STMT returns
   normally (not an exception or abnormal edge), or NULL.  */
static edge
normal_succ_edge (gimple *stmt)
{
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, gimple_bb (stmt)->succs)
    if (!(e->flags & (EDGE_EH | EDGE_ABNORMAL)))
      return e;
  return NULL;
}

/* Insert SEQ after call STMT: right after it, or on its fall-through edge
   when the call ends its basic block.  Nothing follows a noreturn call.  */
static void
insert_after_call (gimple *stmt, gimple_seq seq)
{
  if (gimple_call_noreturn_p (stmt))
    return;
  if (!stmt_ends_bb_p (stmt))
    {
      gimple_stmt_iterator gsi = gsi_for_stmt (stmt);
      gsi_insert_seq_after (&gsi, seq, GSI_SAME_STMT);
      return;
    }
  if (edge e = normal_succ_edge (stmt))
    gsi_insert_seq_on_edge (e, seq);
}

/* COND, the last statement of its block so far: split the block after it,
   and put COLD in a new block, taken when COND is true (very unlikely),
   that falls through to the rest again.  Returns the cold block's edge
   into the rest; the other edge into it is the false edge of COND.  */
static edge
add_cold_branch (gcond *cond, gimple *cold)
{
  basic_block bb = gimple_bb (cond);
  edge fall = split_block (bb, cond);
  basic_block join = fall->dest;
  basic_block cold_bb = create_empty_bb (bb);
  fall->flags = EDGE_FALSE_VALUE;
  edge e = make_edge (bb, cold_bb, EDGE_TRUE_VALUE);
  e->probability = profile_probability::very_unlikely ();
  fall->probability = e->probability.invert ();
  cold_bb->count = bb->count.apply_probability (e->probability);
  edge back = make_single_succ_edge (cold_bb, join, EDGE_FALLTHRU);
  if (current_loops)
    add_bb_to_loop (cold_bb, bb->loop_father);
  gimple_stmt_iterator g = gsi_start_bb (cold_bb);
  gsi_insert_after (&g, cold, GSI_NEW_STMT);
  return back;
}

/* Insert before the call at *GSI the "before" half of a ccStack edge
   (cce-abi.h): take the slot at TOP, growing the stack on the cold path
   (where a TOP of 0 goes too), write (ID, SITE) into it and enter the
   callee's segment with ENTRY.  The call ends up in a new basic block;
   *GSI points at it again on return.  Returns the first statement of the
   push.  */
static gimple *
insert_push (gimple_stmt_iterator *gsi, tree id, tree top, uint64_t site,
             uint64_t entry)
{
  tree u64 = long_long_unsigned_type_node;
  gimple *call = gsi_stmt (*gsi);
  location_t loc = gimple_location (call);

  /* if (top - 1 >= T[LAST]) -- the grow branch, unsigned.  */
  tree last = make_ssa_name (u64);
  tree below = make_ssa_name (u64);
  gimple *ldlast = gimple_build_assign (last, tls_ref (CCE_TLS_LAST, true));
  gimple *sub = gimple_build_assign (below, MINUS_EXPR, top,
                                     build_int_cst (u64, 1));
  gcond *cond = gimple_build_cond (GE_EXPR, below, last, NULL_TREE,
                                   NULL_TREE);
  gimple_set_location (cond, loc);
  gsi_insert_before (gsi, ldlast, GSI_SAME_STMT);
  gsi_insert_before (gsi, sub, GSI_SAME_STMT);
  gsi_insert_before (gsi, cond, GSI_SAME_STMT);

  basic_block bb = gimple_bb (cond);
  tree grown = make_ssa_name (u64);
  gimple *grow = cold_grow (top, grown);
  gimple_set_location (grow, loc);
  edge back = add_cold_branch (cond, grow);
  basic_block join = back->dest;
  edge fall = find_edge (bb, join);

  /* slot = PHI <top, grown>  */
  tree slot = make_ssa_name (u64);
  gphi *phi = create_phi_node (slot, join);
  add_phi_arg (phi, top, fall, loc);
  add_phi_arg (phi, grown, back, loc);

  /* T[TOP] = slot + 1; slot->id = id; slot->site = site;
     T[ID] = entry.  */
  gimple_seq seq = NULL;
  tree next = make_ssa_name (u64);
  gimple_seq_add_stmt (&seq, gimple_build_assign (next, PLUS_EXPR, slot,
                                                  build_int_cst (u64, 16)));
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_ref (CCE_TLS_TOP,
                                                           true), next));
  tree ptype = build_pointer_type (u64);
  tree addr = make_ssa_name (ptype);
  gimple_seq_add_stmt (&seq, gimple_build_assign (addr, NOP_EXPR, slot));
  gimple_seq_add_stmt (&seq, gimple_build_assign (word_ref (addr, 0, true),
                                                  id));
  gimple_seq_add_stmt (&seq, gimple_build_assign (word_ref (addr, 8, true),
                                                  build_int_cst (u64, site)));
  gimple_seq_add_stmt (&seq, gimple_build_assign (tls_ref (CCE_TLS_ID, false),
                                                  build_int_cst (u64,
                                                                 entry)));
  for (gimple_stmt_iterator it = gsi_start (seq); !gsi_end_p (it);
       gsi_next (&it))
    gimple_set_location (gsi_stmt (it), loc);
  *gsi = gsi_for_stmt (call);
  gsi_insert_seq_before (gsi, seq, GSI_SAME_STMT);
  *gsi = gsi_for_stmt (call);
  return ldlast;
}

/* Is guess Q a branch of its indirect call's code?  Not where its edge
   became a back edge (it closes a recursion through the pointer).  */
static bool
guess_used (const struct cce_graph *g, const guess &q)
{
  return g->sites[q.site].kind == CCE_SITE_DIRECT;
}

/* Before the push that starts at FIRST (insert_push) of the indirect call
   SI (cce-abi.h): compare the pointer called with the address of each
   guessed target whose site has code or needs none, and where one is
   equal, skip the push and store the id that site gives its callee
   instead (nothing for an addition value of 0, or a callee no log site
   can be reached from), as a direct call would:

     if (FN == &A) { T[ID] = ID + AV(A); A (...); }
     else if (FN == &B) ...
     else { push; FN (...); restores; }

   Each guessed target gets a direct call of its own where nothing reads
   the id after the call before it is written again (not RESTORE_ID) and
   the call does not end its block (it cannot throw): a guessed callee is
   an entry function, which returns with the id and top it found, so that
   call needs no restore at all, and GCC may make it a tail call.
   Elsewhere the guesses only store and fall through to the one call and
   its restores (the top's restore writes back the value the callee
   kept): a copy that restores the id measured no better.  Returns the
   number of guesses taken.  */
static unsigned
insert_guesses (const struct cce_graph *g, const site_info &si,
                gimple *first, tree id, bool restore_id)
{
  tree u64 = long_long_unsigned_type_node;
  gcall *call = as_a<gcall *> (si.stmt);
  location_t loc = gimple_location (call);
  std::vector<const guess *> use;
  for (const guess &q : si.guesses)
    if (guess_used (g, q))
      use.push_back (&q);
  if (use.empty ())
    return 0;

  /* The call starts a block of its own (after the push's stores), and the
     push (its grow test) too.  */
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_prev (&gsi);
  basic_block call_bb = split_block (gimple_bb (call), gsi_stmt (gsi))->dest;
  /* Own copies: the join after the call, and a PHI there for its value.  */
  bool copies = !stmt_ends_bb_p (call) && !restore_id;
  basic_block join = NULL;
  /* The value of each call at the join, and the edge it comes in on: the
     PHI is made once every edge is there (a PHI made earlier would be
     reallocated, and its pointer left dangling, as edges are added).  */
  tree lhs = copies ? gimple_call_lhs (call) : NULL_TREE;
  if (lhs && TREE_CODE (lhs) != SSA_NAME)
    lhs = NULL_TREE;
  auto_vec<std::pair<tree, edge>> values;
  if (copies)
    {
      edge out = split_block (call_bb, call);
      join = out->dest;
      if (lhs)
        {
          gimple_call_set_lhs (call, copy_ssa_name (lhs, call));
          values.safe_push (std::make_pair (gimple_call_lhs (call), out));
        }
    }
  gsi = gsi_for_stmt (first);
  gsi_prev (&gsi);
  edge fe = gsi_end_p (gsi) ? split_block_after_labels (gimple_bb (first))
                            : split_block (gimple_bb (first), gsi_stmt (gsi));
  basic_block cur = fe->src;

  tree fn = make_ssa_name (u64);
  gimple *conv = gimple_build_assign (fn, NOP_EXPR, gimple_call_fn (call));
  gimple_set_location (conv, loc);
  gimple_stmt_iterator cg = gsi_last_bb (cur);
  gsi_insert_after (&cg, conv, GSI_NEW_STMT);
  for (size_t k = 0; k < use.size (); k++)
    {
      const struct cce_site *s = &g->sites[use[k]->site];
      tree addr = make_ssa_name (u64);
      gimple *ga = gimple_build_assign (addr, NOP_EXPR,
                                        build_fold_addr_expr (use[k]->node
                                                              ->decl));
      gcond *cond = gimple_build_cond (EQ_EXPR, fn, addr, NULL_TREE,
                                       NULL_TREE);
      gimple_set_location (ga, loc);
      gimple_set_location (cond, loc);
      cg = gsi_last_bb (cur);
      gsi_insert_after (&cg, ga, GSI_NEW_STMT);
      gsi_insert_after (&cg, cond, GSI_NEW_STMT);

      basic_block hit = create_empty_bb (cur);
      edge te = make_edge (cur, hit, EDGE_TRUE_VALUE);
      te->probability = k == 0 ? profile_probability::likely ()
                               : profile_probability::even ();
      fe->flags = EDGE_FALSE_VALUE;
      fe->probability = te->probability.invert ();
      hit->count = cur->count.apply_probability (te->probability);
      if (current_loops)
        add_bb_to_loop (hit, cur->loop_father);
      edge he = make_single_succ_edge (hit, copies ? join : call_bb,
                                       EDGE_FALLTHRU);
      gimple_stmt_iterator hg = gsi_start_bb (hit);
      bool stored = !s->dead && s->av != 0;
      if (stored)
        {
          tree sum = make_ssa_name (u64);
          gimple *add = gimple_build_assign (sum, PLUS_EXPR, id,
                                             u64_cst (s->av));
          gimple *st = gimple_build_assign (tls_ref (CCE_TLS_ID, false),
                                            sum);
          gimple_set_location (add, loc);
          gimple_set_location (st, loc);
          gsi_insert_after (&hg, add, GSI_NEW_STMT);
          gsi_insert_after (&hg, st, GSI_NEW_STMT);
        }
      if (copies)
        {
          gcall *copy = as_a<gcall *> (gimple_copy (call));
          /* Its memory state is new: update_ssa renames it (and makes
             the join's virtual PHI).  */
          gimple_set_vuse (copy, NULL_TREE);
          gimple_set_vdef (copy, NULL_TREE);
          gimple_call_set_fndecl (copy, use[k]->node->decl);
          if (lhs)
            {
              gimple_call_set_lhs (copy, copy_ssa_name (lhs, copy));
              values.safe_push (std::make_pair (gimple_call_lhs (copy), he));
            }
          gsi_insert_after (&hg, copy, GSI_NEW_STMT);
        }
      if (k + 1 < use.size ())
        {
          cur = split_edge (fe);
          fe = single_succ_edge (cur);
        }
    }
  if (lhs)
    {
      gphi *phi = create_phi_node (lhs, join);
      for (auto &v : values)
        add_phi_arg (phi, v.first, v.second, loc);
    }
  return (unsigned) use.size ();
}

/* Around the call STMT of back site SN folded into the id (cce-abi.h):
   the callee's id from ID before it, and on the cold path, where ID has
   reached the callee's fold limit, an out-of-line push before and pop
   after.  The restore of the id, if any, is left to the caller.  */
static void
insert_fold (const struct cce_graph *g, uint32_t sn, uint64_t word,
             gcall *call, tree id)
{
  tree u64 = long_long_unsigned_type_node;
  const struct cce_site *s = &g->sites[sn];
  const struct cce_node *t = &g->nodes[s->target];
  location_t loc = gimple_location (call);

  /* T[ID] = ID * NFOLD + (NUMCC + FOLD): computed even above the limit,
     where it wraps and the push overwrites it.  */
  gimple_seq before = NULL;
  tree scaled = id;
  if (t->nfold != 1)
    {
      scaled = make_ssa_name (u64);
      gimple_seq_add_stmt (&before, gimple_build_assign (scaled, MULT_EXPR,
                                                         id,
                                                         u64_cst (t->nfold)));
    }
  tree fid = make_ssa_name (u64);
  gimple_seq_add_stmt (&before, gimple_build_assign (fid, PLUS_EXPR, scaled,
                                                     u64_cst (t->numcc
                                                              + s->fold)));
  gimple_seq_add_stmt (&before, gimple_build_assign (tls_ref (CCE_TLS_ID,
                                                              false), fid));
  for (gimple_stmt_iterator it = gsi_start (before); !gsi_end_p (it);
       gsi_next (&it))
    gimple_set_location (gsi_stmt (it), loc);
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_insert_seq_before (&gsi, before, GSI_SAME_STMT);

  gcond *cond = gimple_build_cond (GE_EXPR, id, u64_cst (t->fold_lim),
                                   NULL_TREE, NULL_TREE);
  gimple_set_location (cond, loc);
  gsi = gsi_for_stmt (call);
  gsi_insert_before (&gsi, cond, GSI_SAME_STMT);
  gimple *push = cold_push (id, word, cce_site_entry (g, sn));
  gimple_set_location (push, loc);

  /* if (ID >= LIM) { push (ID, SITE, ENTRY); CALL'; pop (ID); } else CALL;
     -- where the call does not end its block: the cold path makes its own
     copy of the call, so that the hot path needs nothing of ID after the
     call, and need not keep it in a callee-saved register.  */
  if (!stmt_ends_bb_p (call))
    {
      edge cold_e = add_cold_branch (cond, push);
      basic_block cold_bb = cold_e->src;
      edge hot_e = split_block (gimple_bb (call), call);
      basic_block join = hot_e->dest;
      redirect_edge_succ (cold_e, join);
      gcall *copy = as_a<gcall *> (gimple_copy (call));
      /* Its memory state is new: update_ssa renames it (and makes the
         join's virtual PHI).  */
      gimple_set_vuse (copy, NULL_TREE);
      gimple_set_vdef (copy, NULL_TREE);
      tree lhs = gimple_call_lhs (call);
      if (lhs && TREE_CODE (lhs) == SSA_NAME)
        {
          gimple_call_set_lhs (call, copy_ssa_name (lhs, call));
          gimple_call_set_lhs (copy, copy_ssa_name (lhs, copy));
          gphi *phi = create_phi_node (lhs, join);
          add_phi_arg (phi, gimple_call_lhs (call), hot_e, loc);
          add_phi_arg (phi, gimple_call_lhs (copy), cold_e, loc);
        }
      gimple *pop = cold_pop (id);
      gimple_set_location (pop, loc);
      gimple_stmt_iterator cg = gsi_last_bb (cold_bb);
      gsi_insert_after (&cg, copy, GSI_NEW_STMT);
      gsi_insert_after (&cg, pop, GSI_NEW_STMT);
      return;
    }

  /* if (ID >= LIM) push (ID, SITE, ENTRY);  -- before the call.  */
  add_cold_branch (cond, push);

  /* if (ID >= LIM) pop (ID);  -- after it, on its fall-through edge when
     the call ends its block.  */
  cond = gimple_build_cond (GE_EXPR, id, u64_cst (t->fold_lim), NULL_TREE,
                            NULL_TREE);
  gimple_set_location (cond, loc);
  if (stmt_ends_bb_p (call))
    {
      edge fall = normal_succ_edge (call);
      if (!fall)
        return;     /* never returns normally: nothing to pop */
      basic_block nb = split_edge (fall);
      gsi = gsi_start_bb (nb);
      gsi_insert_after (&gsi, cond, GSI_NEW_STMT);
    }
  else
    {
      gsi = gsi_for_stmt (call);
      gsi_insert_after (&gsi, cond, GSI_NEW_STMT);
    }
  gimple *pop = cold_pop (id);
  gimple_set_location (pop, loc);
  add_cold_branch (cond, pop);
}

/* Is site S (call STMT) a back site folded into the id that gets the
   folding code: not a noreturn call, which takes the plain push, nor a
   call that returns twice, whose second return must find the top and the
   id its function had (restored absolutely, not popped).  */
static bool
folds (const struct cce_site *s, gimple *stmt)
{
  return s->kind == CCE_SITE_BACK && s->fold != CCE_NONE && stmt
         && !gimple_call_noreturn_p (stmt)
         && !(gimple_call_flags (stmt) & ECF_RETURNS_TWICE);
}

/* The functions instrumented, for cce_override_gate.  */
static hash_set<tree> instrumented_fns;

/* Does site S (call STMT, NULL for a trace site) of an observed node need
   code?  Not if no log site can be reached through it -- except a setjmp:
   the code after it restores the id and depth of its function when
   longjmp returns there.  */
static bool
site_has_code (const struct cce_site *s, gimple *stmt)
{
  if (!s->dead)
    return true;
  return stmt && (gimple_call_flags (stmt) & ECF_RETURNS_TWICE);
}

/* Does the code of site SI (call CALL, with code) compare the pointer
   with guessed targets (insert_guesses)?  Only where the push is inline,
   and only the guesses that stayed direct sites.  */
static bool
guesses_taken_p (const struct cce_graph *g, const site_info &si, gcall *call)
{
  const struct cce_site *s = &g->sites[si.site];
  if (!cce_kind_on_stack (s->kind) || folds (s, call)
      || gimple_call_noreturn_p (call) || opt_count)
    return false;
  for (const guess &q : si.guesses)
    if (guess_used (g, q))
      return true;
  return false;
}

/* What the code emitted for a site may do to the id and the top, as
   CCE_FLOW_* bits (cce-core.h): where the code has several paths, the
   union of what each may read and the intersection of what each surely
   writes.  Site SN, call STMT (NULL for a guessed target, which stands for
   the branch insert_guesses makes: a direct call of that target).  */
static uint8_t
site_effect_of (const struct cce_graph *g, uint32_t sn, gcall *call)
{
  const uint8_t both = CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP;
  const struct cce_site *t = &g->sites[sn];
  /* A guessed branch (no CALL) is a direct site without a call of its
     own: it has code unless it is dead.  */
  if (call ? !site_has_code (t, call) : t->dead)
    return 0;
  if (call && (gimple_call_flags (call) & ECF_RETURNS_TWICE))
    return both;
  /* A folded site leaves the top as it found it, also on its cold path
     (push, call, pop), which reads it.  */
  if (folds (t, call))
    return CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP;
  if (cce_kind_on_stack (t->kind))
    return gimple_call_noreturn_p (call) || opt_count
           ? CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP
           : CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP;
  if (t->kind == CCE_SITE_DIRECT && t->av != 0)
    return CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP;
  if (cce_site_clobbers (g, sn))
    return both | CCE_FLOW_DEF_ID;
  return both;
}

/* The effect of the code of site SI (call CALL) on every path it can
   take: an indirect call with guessed targets (insert_guesses) is the
   push, or one of the direct calls of its guesses.  */
static uint8_t
site_effect (const struct cce_graph *g, const site_info &si, gcall *call)
{
  uint8_t e = site_effect_of (g, si.site, call);
  if (!site_has_code (&g->sites[si.site], call)
      || !guesses_taken_p (g, si, call))
    return e;
  for (const guess &q : si.guesses)
    if (guess_used (g, q))
      e = cce_flow_either (e, site_effect_of (g, q.site, NULL));
  return e;
}

/* (8) Restores that nothing reads are left out: after a call, the id (the
   top) is put back only if, on some path, something reads it before a site
   stores it again (cce_flow_live_after).  What reads them: a free call and
   a log site (both), a direct site with an addition value (its callee may
   push: the top), an out-of-line push (the top), calls into the runtime,
   asm, an abnormal edge, and the return: both where the function restores
   the id, the top alone where it clobbers it (cce_node's clobbers).  What
   writes them: a direct site with an addition value (the id), a ccStack
   site (the id, and the top when it pushes inline), a landing pad (6), and
   a free call of a function that clobbers the id (the id: it reads both,
   then its restore is what a later read finds).  A call that no log site
   can be reached through, or one that cannot call back, does neither.
   Decided on the function as it is, before any code goes in; the loads (1)
   come before every call that changes the id and outside loops, so they
   are no reads here.  Sets KEEP_ID and KEEP_DEPTH of the sites
   SITES[FIRST .. LAST) (index I - FIRST).  In cfun.  */
static void
plan_restores (collector &c, size_t first, size_t last,
               std::vector<char> &keep_id, std::vector<char> &keep_depth)
{
  struct cce_graph *g = c.g;
  basic_block bb;
  hash_map<gimple *, unsigned> site_of;
  for (size_t i = first; i < last; i++)
    if (c.sites[i].stmt)
      site_of.put (c.sites[i].stmt, (unsigned) (i - first));
  auto effect = [&] (gimple *stmt) -> uint8_t {
    if (gimple_code (stmt) == GIMPLE_ASM)
      return CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP;
    gcall *call = dyn_cast<gcall *> (stmt);
    if (!call || gimple_call_internal_p (call))
      return 0;
    unsigned *k = site_of.get (stmt);
    if (!k)
      {
        tree fn = gimple_call_fndecl (call);
        return fn && is_runtime (fn) ? CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP
                                     : 0;
      }
    return site_effect (g, c.sites[first + *k], call);
  };
  std::vector<uint32_t> index (last_basic_block_for_fn (cfun), CCE_NONE);
  std::vector<uint32_t> ev_start, succ_start, succ;
  std::vector<uint8_t> ev;
  std::vector<unsigned> ev_site;
  uint32_t nb = 0;
  FOR_EACH_BB_FN (bb, cfun)
    index[bb->index] = nb++;
  FOR_EACH_BB_FN (bb, cfun)
    {
      ev_start.push_back ((uint32_t) ev.size ());
      succ_start.push_back ((uint32_t) succ.size ());
      if (bb_has_eh_pred (bb))
        {
          ev.push_back (CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP);
          ev_site.push_back (UINT_MAX);
        }
      for (gimple_stmt_iterator it = gsi_start_bb (bb); !gsi_end_p (it);
           gsi_next (&it))
        {
          uint8_t e = effect (gsi_stmt (it));
          unsigned *k = site_of.get (gsi_stmt (it));
          if (!e && !k)
            continue;
          ev.push_back (e);
          ev_site.push_back (k ? *k : UINT_MAX);
        }
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
        succ.push_back ((e->flags & EDGE_ABNORMAL) ? CCE_NONE
                        : e->dest == EXIT_BLOCK_PTR_FOR_FN (cfun)
                        ? CCE_FLOW_EXIT : index[e->dest->index]);
    }
  ev_start.push_back ((uint32_t) ev.size ());
  succ_start.push_back ((uint32_t) succ.size ());
  struct cce_flow f = { nb, ev_start.data (), ev.data (),
                        succ_start.data (), succ.data (),
                        (uint8_t) (g->nodes[c.nodes[c.sites[first].node]]
                                   .clobbers
                                   ? CCE_FLOW_USE_TOP
                                   : CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP) };
  std::vector<uint8_t> live (ev.size () + 1);
  if (cce_flow_live_after (&f, live.data ()) == 0)
    for (size_t e = 0; e < ev.size (); e++)
      if (ev_site[e] != UINT_MAX)
        {
          keep_id[ev_site[e]] = (live[e] & CCE_FLOW_USE_ID) != 0;
          keep_depth[ev_site[e]] = (live[e] & CCE_FLOW_USE_TOP) != 0;
        }
}

/* Is BB on a cycle of the CFG of cfun?  */
static bool
bb_on_cycle (basic_block bb)
{
  auto_sbitmap seen (last_basic_block_for_fn (cfun));
  bitmap_clear (seen);
  auto_vec<basic_block> work;
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, bb->succs)
    work.safe_push (e->dest);
  while (!work.is_empty ())
    {
      basic_block b = work.pop ();
      if (b == bb)
        return true;
      if (b == EXIT_BLOCK_PTR_FOR_FN (cfun) || bitmap_bit_p (seen, b->index))
        continue;
      bitmap_set_bit (seen, b->index);
      FOR_EACH_EDGE (e, ei, b->succs)
        work.safe_push (e->dest);
    }
  return false;
}

/* Instrument the sites SITES[FIRST .. LAST) of one node.  */
static void
instrument_function (collector &c, size_t first, size_t last)
{
  cgraph_node *node = c.sites[first].node;
  struct cce_graph *g = c.g;
  bool needed = false, stack_sites = false;
  tree u64 = long_long_unsigned_type_node;

  auto word = [&c] (uint32_t sn) { return CCE_SITE_WORD (c.key, sn); };
  /* A function from which no log site can be reached keeps its code as it
     is: nothing it does is ever observed.  */
  if (!g->nodes[c.nodes[node]].observed)
    return;
  bool clobber_sites = false;
  for (size_t i = first; i < last; i++)
    {
      const struct cce_site *s = &g->sites[c.sites[i].site];
      if (!site_has_code (s, c.sites[i].stmt))
        continue;
      if (s->kind != CCE_SITE_DIRECT || s->av != 0)
        needed = true;
      else if (cce_site_clobbers (g, c.sites[i].site))
        clobber_sites = true;
      if (cce_kind_on_stack (s->kind) && !folds (s, c.sites[i].stmt))
        stack_sites = true;
    }

  /* Landing pads: an exception (or pthread_exit, pthread_cancel) unwinding
     through this function skipped the code after its calls; the cleanup
     code it resumes in starts by restoring the id and depth (6).  */
  auto_vec<basic_block> pads;
  basic_block bb;
  FOR_EACH_BB_FN (bb, DECL_STRUCT_FUNCTION (node->decl))
    if (bb_has_eh_pred (bb))
      pads.safe_push (bb);
  if (!pads.is_empty ())
    needed = stack_sites = true;
  if (!needed && !clobber_sites)
    return;

  push_cfun (DECL_STRUCT_FUNCTION (node->decl));
  std::vector<char> keep_id (last - first, 1), keep_depth (last - first, 1);
  plan_restores (c, first, last, keep_id, keep_depth);
  /* Free calls of functions that clobber the id are all the code there
     would be: needed only where something reads the id after one.  */
  for (size_t i = first; i < last && !needed; i++)
    needed = c.sites[i].stmt && cce_site_clobbers (g, c.sites[i].site)
             && keep_id[i - first];
  if (!needed)
    {
      pop_cfun ();
      return;
    }
  instrumented_fns.add (node->decl);

  /* (1) Load the id, and the ccStack top if needed, where they are first
     needed, and before anything could have changed them: the loads go to
     the nearest common dominator of the sites that use them and of the
     free calls of functions that clobber the id, hoisted out of loops (and
     off any cycle of the CFG), so every path reaches them with both as
     they were at entry, and a path that uses neither (the leaf path of a
     recursive function, an early return) loads nothing.  At entry where a
     call is noreturn (GCC 12's sink pass crashes when it moves such a
     load into a block that ends in one, so there the loads are volatile
     and stay at entry), where a call returns twice, and where there are
     landing pads.  */
  bool pin = false;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb);
         !gsi_end_p (gsi) && !pin; gsi_next (&gsi))
      if (is_gimple_call (gsi_stmt (gsi))
          && gimple_call_noreturn_p (gsi_stmt (gsi)))
        pin = true;
  basic_block entry_bb = single_succ (ENTRY_BLOCK_PTR_FOR_FN (cfun));
  basic_block load_bb = NULL;
  bool at_entry = pin || !pads.is_empty ();
  if (!at_entry)
    {
      calculate_dominance_info (CDI_DOMINATORS);
      for (size_t i = first; i < last && !at_entry; i++)
        {
          gimple *stmt = c.sites[i].stmt;
          const struct cce_site *s = &g->sites[c.sites[i].site];
          if (!stmt || !site_has_code (s, stmt))
            continue;
          if (gimple_call_flags (stmt) & ECF_RETURNS_TWICE)
            at_entry = true;
          if (s->kind == CCE_SITE_LOG || s->kind == CCE_SITE_TRACE
              || (s->kind == CCE_SITE_DIRECT && s->av == 0
                  && !cce_site_clobbers (g, c.sites[i].site)))
            continue;
          basic_block b = gimple_bb (stmt);
          load_bb = load_bb ? nearest_common_dominator (CDI_DOMINATORS,
                                                        load_bb, b)
                            : b;
        }
      profile_count entry_count = entry_bb->count;
      while (!at_entry && load_bb && load_bb != entry_bb
             && ((current_loops && bb_loop_depth (load_bb) > 0)
                 || !load_bb->count.initialized_p ()
                 || !entry_count.initialized_p ()
                 || entry_count < load_bb->count))
        load_bb = get_immediate_dominator (CDI_DOMINATORS, load_bb);
      free_dominance_info (CDI_DOMINATORS);
      if (load_bb && bb_on_cycle (load_bb))
        load_bb = NULL;
    }
  if (at_entry || load_bb == entry_bb)
    load_bb = NULL;
  gimple_seq entry_seq = NULL, load_seq = NULL;
  tree id = make_ssa_name (u64);
  gimple_seq_add_stmt (&load_seq,
                       gimple_build_assign (id, tls_ref (CCE_TLS_ID, pin)));
  tree top = NULL_TREE;
  if (stack_sites)
    {
      top = make_ssa_name (u64);
      gimple_seq_add_stmt (&load_seq,
                           gimple_build_assign (top, tls_ref (CCE_TLS_TOP,
                                                            pin)));
    }
  if (load_bb)
    {
      gimple_stmt_iterator lg = gsi_after_labels (load_bb);
      gsi_insert_seq_before (&lg, load_seq, GSI_SAME_STMT);
    }
  else
    gimple_seq_add_seq (&entry_seq, load_seq);
  /* (7) The entry of a traced function logs.  */
  for (size_t i = first; i < last; i++)
    if (g->sites[c.sites[i].site].kind == CCE_SITE_TRACE)
      {
        tree src = source_decl (node->decl);
        gcall *log = gimple_build_call (log_at_decl, 2,
                                        build_int_cst (unsigned_type_node,
                                                       CCE_TAG_TRACE
                                                       + trace_index
                                                           (source_name
                                                              (src))),
                                        u64_cst (word (c.sites[i].site)));
        gimple_set_location (log, DECL_SOURCE_LOCATION (src));
        gimple_seq_add_stmt (&entry_seq, log);
      }
  gsi_insert_seq_on_edge_immediate (single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN
                                                      (cfun)), entry_seq);

  for (size_t i = first; i < last; i++)
    {
      if (!c.sites[i].stmt)
        continue;               /* a trace site, done above */
      gcall *call = as_a<gcall *> (c.sites[i].stmt);
      uint32_t sn = c.sites[i].site;
      const struct cce_site *s = &g->sites[sn];
      if (!site_has_code (s, call))
        continue;
      tree callee = gimple_call_fndecl (call);
      pin_site_stores = callee && fndecl_built_in_p (callee);
      gimple_seq before = NULL, after = NULL;
      bool restore_id = keep_id[i - first];
      bool restore_depth = keep_depth[i - first];
      gimple_stmt_iterator gsi = gsi_for_stmt (call);

      switch (s->kind)
        {
        case CCE_SITE_DIRECT:
          /* (2) Addition value 0: no code, but for the restore after a
             function that clobbers the id, where it is read again.  */
          if (s->av == 0)
            {
              if (!restore_id || !cce_site_clobbers (g, sn))
                continue;
              gimple_seq_add_stmt (&after,
                                   gimple_build_assign (tls_ref (CCE_TLS_ID,
                                                                 false),
                                                        id));
              break;
            }
          /* (3) Store id + av before, id after.  */
          {
            tree sum = make_ssa_name (u64);
            gimple_seq_add_stmt (&before,
                                 gimple_build_assign (sum, PLUS_EXPR, id,
                                                      u64_cst (s->av)));
            gimple_seq_add_stmt (&before,
                                 gimple_build_assign (tls_ref (CCE_TLS_ID,
                                                               false), sum));
            if (restore_id)
              gimple_seq_add_stmt (&after,
                                   gimple_build_assign (tls_ref (CCE_TLS_ID,
                                                                 false),
                                                        id));
          }
          break;
        case CCE_SITE_BACK:
          /* (4a) Recursion folded into the id: stores only, and a push
             and pop out of line where the id has reached the limit.  */
          if (folds (s, call))
            {
              insert_fold (g, sn, word (sn), call, id);
              if (restore_id)
                gimple_seq_add_stmt (&after,
                                     gimple_build_assign (tls_ref (CCE_TLS_ID,
                                                                   false),
                                                          id));
              gsi = gsi_for_stmt (call);
              break;
            }
          /* fall through */
        case CCE_SITE_INDIRECT:
        case CCE_SITE_EXTERNAL:
          /* (4) Carry the context on the ccStack.  A noreturn call runs
             at most once per call chain: it gets the out-of-line push, and
             no new blocks (with them, GCC 12's VRP crashes on blocks that
             end in a noreturn call).  */
          if (gimple_call_noreturn_p (call) || opt_count)
            {
              gimple *p = gimple_build_call (opt_count ? push_counted_decl
                                             : push_decl, 3, id,
                                             u64_cst (word (sn)),
                                             u64_cst (cce_site_entry (g,
                                                                      sn)));
              gimple_set_location (p, gimple_location (call));
              gsi_insert_before (&gsi, p, GSI_SAME_STMT);
              if (gimple_call_noreturn_p (call))
                continue;
            }
          else
            {
              gimple *first_push = insert_push (&gsi, id, top, word (sn),
                                                cce_site_entry (g, sn));
              if (guesses_taken_p (g, c.sites[i], call)
                  && insert_guesses (g, c.sites[i], first_push, id,
                                     restore_id))
                gsi = gsi_for_stmt (call);
            }
          if (restore_depth)
            gimple_seq_add_stmt (&after,
                                 gimple_build_assign (tls_ref (CCE_TLS_TOP,
                                                               true), top));
          if (restore_id)
            gimple_seq_add_stmt (&after,
                                 gimple_build_assign (tls_ref (CCE_TLS_ID,
                                                               false), id));
          break;
        case CCE_SITE_LOG:
          /* (5) Tell the runtime which log site this is.  */
          {
            tree tag = gimple_call_num_args (call) > 0
                       ? gimple_call_arg (call, 0)
                       : build_int_cst (unsigned_type_node, 0);
            if (!useless_type_conversion_p (unsigned_type_node,
                                            TREE_TYPE (tag)))
              {
                tree t = make_ssa_name (unsigned_type_node);
                gsi_insert_before (&gsi, gimple_build_assign (t, NOP_EXPR,
                                                              tag),
                                   GSI_SAME_STMT);
                tag = t;
              }
            gcall *repl = gimple_build_call (log_at_decl, 2, tag,
                                             u64_cst (word (sn)));
            gimple_set_location (repl, gimple_location (call));
            gimple_set_block (repl, gimple_block (call));
            gimple_call_set_lhs (repl, NULL_TREE);
            gsi_replace (&gsi, repl, false);
          }
          continue;
        default:
          continue;
        }
      for (gimple_stmt_iterator it = gsi_start (before); !gsi_end_p (it);
           gsi_next (&it))
        gimple_set_location (gsi_stmt (it), gimple_location (call));
      gsi_insert_seq_before (&gsi, before, GSI_SAME_STMT);
      for (gimple_stmt_iterator it = gsi_start (after); !gsi_end_p (it);
           gsi_next (&it))
        gimple_set_location (gsi_stmt (it), gimple_location (call));
      insert_after_call (call, after);
    }
  pin_site_stores = false;

  /* (6) Restore at each landing pad.  */
  for (basic_block pad : pads)
    {
      gimple_stmt_iterator gsi = gsi_after_labels (pad);
      gimple *s1 = gimple_build_assign (tls_ref (CCE_TLS_TOP, true), top);
      gimple *s2 = gimple_build_assign (tls_ref (CCE_TLS_ID, false), id);
      gsi_insert_before (&gsi, s1, GSI_SAME_STMT);
      gsi_insert_before (&gsi, s2, GSI_SAME_STMT);
    }

  gsi_commit_edge_inserts ();
  mark_virtual_operands_for_renaming (cfun);
  update_ssa (TODO_update_ssa);
  /* New blocks and split edges: what was computed of the CFG is stale.  */
  free_dominance_info (CDI_DOMINATORS);
  free_dominance_info (CDI_POST_DOMINATORS);
  if (current_loops)
    loops_state_set (LOOPS_NEED_FIXUP);
  cgraph_edge::rebuild_edges ();
  pop_cfun ();
}

/* ------------------------------------------------------------------ */
/* The dictionary.                                                    */

/* Is the output a shared object?  lto1 is told with -flinker-output, but
   lto-wrapper does not pass it on to the LTRANS: there, a PIC unit that
   defines no main is taken for one.  */
static bool
linking_shared_object (void)
{
  if (flag_lto_linker_output != LTO_LINKER_OUTPUT_UNKNOWN)
    return flag_lto_linker_output == LTO_LINKER_OUTPUT_DYN;
  if (!flag_pic || flag_pie)
    return false;
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    if (DECL_NAME (node->decl) && MAIN_NAME_P (DECL_NAME (node->decl))
        && TREE_PUBLIC (node->decl))
      return false;
  return true;
}

static void
emit_dictionary (const char *text, size_t len, bool shared)
{
  tree str = build_string (len, text);
  tree type = build_array_type_nelts (char_type_node, len);
  TREE_TYPE (str) = type;
  TREE_CONSTANT (str) = 1;
  TREE_READONLY (str) = 1;
  TREE_STATIC (str) = 1;

  tree decl = build_decl (UNKNOWN_LOCATION, VAR_DECL,
                          get_identifier (CCE_SYM_DICT), type);
  TREE_PUBLIC (decl) = 1;
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
  if (shared)
    {
      DECL_VISIBILITY (decl) = VISIBILITY_HIDDEN;
      DECL_VISIBILITY_SPECIFIED (decl) = 1;
    }
  DECL_ATTRIBUTES (decl) = tree_cons (get_identifier ("retain"), NULL_TREE,
                                      tree_cons (get_identifier ("used"),
                                                 NULL_TREE, NULL_TREE));
  varpool_node::finalize_decl (decl);
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
                 PRIu64, s->fold, cce_site_entry (g, (uint32_t) i));
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
  cgraph_node *node;
  char err[256];

  c.g = cce_graph_new ();
  if (!c.g)
    fatal_error (UNKNOWN_LOCATION, "cce: out of memory");
  c.shared = linking_shared_object ();
  if (!tls_decl)
    build_runtime_decls (c.shared);

  /* Step 1: nodes, then sites.  */
  FOR_EACH_DEFINED_FUNCTION (node)
    {
      if (!node->has_gimple_body_p () || node->in_other_partition
          || node->inlined_to)
        continue;
      node->get_body ();
      uint32_t flags = 0;
      if (node->address_taken || node->externally_visible
          || !node->local || DECL_STATIC_CONSTRUCTOR (node->decl)
          || DECL_STATIC_DESTRUCTOR (node->decl) || node->force_output
          || MAIN_NAME_P (DECL_NAME (node->decl)))
        flags |= CCE_NODE_ENTRY;
      /* main is entered once, by the C library's start-up code; no call
         out of the program enters it unless its address is taken.  */
      if (MAIN_NAME_P (DECL_NAME (node->decl)) && !node->address_taken
          && !c.shared)
        flags |= CCE_NODE_MAIN;
      if (node->split_part)
        flags |= CCE_NODE_SPLIT_PART;
      /* GCC's own wrapper of several constructors or destructors
         (_sub_I_65535_0): not a frame of the source.  */
      if (DECL_ARTIFICIAL (node->decl)
          && (DECL_STATIC_CONSTRUCTOR (node->decl)
              || DECL_STATIC_DESTRUCTOR (node->decl)))
        flags |= CCE_NODE_HIDDEN;
      uint32_t n = cce_graph_node (c.g, func_of (c, node->decl), flags);
      c.nodes[node] = n;
      if (TREE_PUBLIC (node->decl) && !node->split_part
          && allocator_name_p (external_name (node->decl)))
        c.allocator_replaced = true;
      /* A guessed target must be this very body whenever its address is
         the pointer's: not one another module may interpose.  */
      if (n != CCE_NONE && node->address_taken && !node->split_part
          && (!c.shared || node->get_availability () > AVAIL_INTERPOSABLE))
        {
          c.address_taken.push_back (node);
          c.guessable.insert (node);
        }
      /* GCC may move a caller's load of the id across a call of a const
         or pure function (no memory it writes): such a function returns
         with the id it found.  */
      if (n != CCE_NONE
          && (flags_from_decl_or_type (node->decl) & (ECF_CONST | ECF_PURE)))
        c.g->nodes[n].keeps_id = 1;
      /* The same for the program's own definition of a function GCC knows
         as a built-in (malloc, memcpy): GCC assumes it writes no memory
         but what its arguments point to.  */
      if (n != CCE_NONE && fndecl_built_in_p (node->decl))
        c.g->nodes[n].keeps_id = 1;
    }
  /* Whether a pointer this module calls may be another cce module's: it
     refers to a function that may be one (and so to a library that may
     hand out pointers to its functions), or looks functions up with
     dlsym.  */
  FOR_EACH_FUNCTION (node)
    if (!node->definition
        && (may_be_instrumented (node->decl)
            || name_in (IDENTIFIER_POINTER (DECL_NAME (node->decl)),
                        lookup_fns)))
      c.foreign_pointers = true;
  if (opt_guess > 0)
    collect_field_targets (c);
  FOR_EACH_DEFINED_FUNCTION (node)
    if (c.nodes.count (node))
      collect_sites (c, node);

  /* Step 2.  */
  struct cce_encode_stats st;
  c.g->observe_all = opt_observe_all;
  c.g->preserve_all = !opt_clobber;
  if (opt_fold >= 0)
    c.g->fold_max = opt_fold ? opt_fold : -1;
  if (cce_graph_encode (c.g, &st, err, sizeof err) < 0)
    fatal_error (UNKNOWN_LOCATION, "cce: cannot encode the call graph: %s",
                 err);
  if (dump_file)
    dump_decisions (dump_file, c, st);
  if (opt_dump)
    {
      std::string name;
      if (opt_dump_file)
        name = opt_dump_file;
      else
        {
          /* lto1's dump base is OUTPUT.ltransN.ltrans or OUTPUT.wpa.  */
          name = dump_base_name ? dump_base_name : "a.out";
          size_t p = name.find (".ltrans");
          if (p == std::string::npos)
            p = name.find (".wpa");
          if (p != std::string::npos)
            name.erase (p);
          name += ".cce";
        }
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
  if (opt_stats)
    fprintf (stderr, "cce: %zu functions, %zu sites: %zu direct "
             "(%zu free), %zu back edges (%zu folded), %zu overflow cuts, "
             "%zu indirect (%zu guessed), %zu external, %zu log; max numCC "
             "%" PRIu64 "; %zu sites unobserved; %zu functions return "
             "without restoring the id\n",
             c.g->nnodes, c.g->nsites, st.direct_sites, st.zero_sites,
             st.back_sites, st.folded_sites, st.overflow_sites,
             st.indirect_sites, c.guessed_sites,
             st.external_sites, st.log_sites, st.max_numcc, st.dead_sites,
             st.clobber_nodes);

  /* Step 4, first half: the dictionary text, whose stamp gives the module
     key in the site words of step 3.  */
  char *text;
  size_t len;
  if (cce_graph_write_dict (c.g, &text, &len) < 0)
    fatal_error (UNKNOWN_LOCATION, "cce: out of memory");
  c.key = cce_module_key (c.g->stamp);

  /* Step 3: sites are grouped by node in the order collected.  */
  for (size_t i = 0, j; i < c.sites.size (); i = j)
    {
      for (j = i; j < c.sites.size () && c.sites[j].node == c.sites[i].node;
           j++)
        ;
      instrument_function (c, i, j);
    }

  /* Step 4.  */
  emit_dictionary (text, len, c.shared);
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
  if (strcmp (current_pass->name, "icf") == 0
      || strcmp (current_pass->name, "tailr") == 0)
    *(bool *) gate_status = false;
  /* GCC 12's backward jump threader (pass "thread") can thread the entry
     edge past the first block of an instrumented function and drop the
     block's loads of the id and depth, then crash in update_ssa (bash's
     assign_compound_array_list at -O2).  The other threaders stay.  */
  if (strcmp (current_pass->name, "thread") == 0 && current_function_decl
      && instrumented_fns.contains (current_function_decl))
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
                      "cce: cannot trace always_inline function %qD", decl);
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

/* ------------------------------------------------------------------ */
/* Options: one table drives their parsing, their errors and the help.  */

enum option_kind
{
  OPTION_FLAG,          /* -fplugin-arg-cce-KEY */
  OPTION_BOOL,          /* KEY=0|1 */
  OPTION_NUMBER,        /* KEY=N, MIN <= N <= MAX */
  OPTION_FILE,          /* KEY or KEY=FILE: sets a flag, and the file */
  OPTION_LIST           /* KEY=A[,B...]: the trace list */
};

struct option_spec
{
  const char *key;
  enum option_kind kind;
  int min, max;         /* OPTION_NUMBER */
  void *var;            /* bool * (FLAG, BOOL, FILE), int * (NUMBER) */
  const char **file;    /* OPTION_FILE: the file, NULL if none */
  const char *usage;    /* what follows the key in the help */
  const char *help;     /* what it does; '\n' starts a new line */
  const char *values;   /* in an error: what the value means */
  const char *example;  /* in an error: a good value */
};

static const struct option_spec options[] = {
  { "stats", OPTION_FLAG, 0, 0, &opt_stats, NULL, "",
    "print a one-line summary of the plugin's decisions to stderr",
    NULL, NULL },
  { "dump", OPTION_FILE, 0, 0, &opt_dump, &opt_dump_file, "[=FILE]",
    "write the plugin's decisions (nodes, numCC, sites, addition\n"
    "values, back edges) to FILE, by default OUTPUT.cce", NULL, NULL },
  { "trace", OPTION_LIST, 0, 0, &opt_trace, NULL, "=F[,F...]",
    "log a record at every entry of each function F, with tag\n"
    "0xfff00000 + its position in the list (give it when compiling\n"
    "too: traced functions are not inlined)",
    "a list of functions", "F1,F2" },
  { "count", OPTION_FLAG, 0, 0, &opt_count, NULL, "",
    "count ccStack pushes (out of line; the runtime reports them at\n"
    "exit when CCE_STATS names a file)", NULL, NULL },
  { "observe-all", OPTION_FLAG, 0, 0, &opt_observe_all, NULL, "",
    "encode every call, as if every function logged", NULL, NULL },
  { "fold", OPTION_NUMBER, 0, 48, &opt_fold, NULL, "=N",
    "fold recursion into the id up to a limit of at most BASE * 2^N\n"
    "(default 32); 0: every back edge pushes",
    "a number of bits from 0 (no folding) to 48", "16" },
  { "keep", OPTION_BOOL, 0, 1, &opt_keep, NULL, "=0|1",
    "1 (default, x86-64): cold pushes, pops and grows keep every\n"
    "register; 0: plain calls", "0 (plain calls on cold paths) or 1", "0" },
  { "clobber", OPTION_BOOL, 0, 1, &opt_clobber, NULL, "=0|1",
    "1 (default): functions not callable from outside may return\n"
    "with the id their last call stored; 0: every function restores it",
    "0 (every function restores the id) or 1", "0" },
  { "guess", OPTION_NUMBER, 0, 8, &opt_guess, NULL, "=N",
    "an indirect call compares the pointer with at most N likely\n"
    "targets and calls a match directly (default 3; 0: none)",
    "the most targets an indirect call compares with, from 0 (none: "
    "every indirect call pushes) to 8", "1" },
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
        opt_trace.push_back (name);
      p = q + 1;
    }
  if (opt_trace.size () > 0xfffff)
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
    case OPTION_BOOL:
    case OPTION_NUMBER:
      {
        char *end;
        long n = value ? strtol (value, &end, 10) : -1;
        if (!value || !*value || *end || n < o->min || n > o->max)
          break;
        if (o->kind == OPTION_BOOL)
          *(bool *) o->var = n != 0;
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
  opt_keep = opt_keep && CCE_HAVE_KEEP;

  static std::string help = options_help ();
  cce_plugin_info.help = help.c_str ();
  register_callback (plugin_name_str, PLUGIN_INFO, NULL, &cce_plugin_info);

  /* 3. In WPA, ask for one partition so the pass sees the whole program.  */
  if (flag_wpa)
    flag_lto_partition = LTO_PARTITION_ONE;

  /* 4. No identical code folding, no tail recursion elimination.  */
  register_callback (plugin_name_str, PLUGIN_OVERRIDE_GATE,
                     cce_override_gate, NULL);

  /* 5. Check for -flto when compiling.  */
  register_callback (plugin_name_str, PLUGIN_START_UNIT, cce_start_unit,
                     NULL);

  /* 6. Keep traced functions out of line.  */
  if (!opt_trace.empty ())
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
  return 0;
}
