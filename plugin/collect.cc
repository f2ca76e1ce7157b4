/* collect.cc -- the cce plugin: collecting the call graph of the whole
   program, its call sites with their inlined frames, the likely targets
   of indirect calls, and what the C library's functions may do.  */

#include "cce-plugin.h"

/* The source function FNDECL stands for: clones and split parts lead back
   to the function the programmer wrote.  */
tree
source_decl (tree fndecl)
{
  int guard = 0;
  while (DECL_ABSTRACT_ORIGIN (fndecl)
         && DECL_ABSTRACT_ORIGIN (fndecl) != fndecl && guard++ < 100)
    fndecl = DECL_ABSTRACT_ORIGIN (fndecl);
  return fndecl;
}

/* The name of source function DECL as the programmer wrote it.  */
const char *
source_name (tree decl)
{
  if (DECL_NAME (decl))
    return IDENTIFIER_POINTER (DECL_NAME (decl));
  return lang_hooks.decl_printable_name (decl, 0);
}

/* If NAME is the symbol of a C++20 coroutine's actor or destroyer, the
   symbol of the coroutine (its ramp), else "".  GCC splits coroutine F
   (say _Z1Fv) into the ramp, which keeps F's symbol, and two functions
   F(F()::_Z1Fv.Frame*) with the suffix .actor (the body, resumed) and
   .destroy: "_Z1FPZ1FvE9_Z1Fv.Frame.actor".  Their frames are F's own at
   the source level (c++filt -p names them F too): the ramp's symbol is
   the identifier of the frame type, the one that ends in ".Frame" and
   whose length prefix covers ".Frame".  */
static std::string
coroutine_ramp_symbol (const char *name)
{
  static const char frame[] = ".Frame.";
  const char *dot = strstr (name, frame);
  if (!dot)
    return "";
  size_t end = dot - name + strlen (frame) - 1;   /* just after ".Frame" */
  for (size_t s = dot - name; s >= 3; s--)
    {
      if (name[s] != '_' || name[s + 1] != 'Z')
        continue;
      size_t b = s;
      while (b > 0 && ISDIGIT (name[b - 1]))
        b--;
      if (b < s && strtoul (name + b, NULL, 10) == end - s)
        return std::string (name + s, dot - (name + s));
    }
  return "";
}

/* The mangled C++ symbol that DECL's assembler name holds, without the
   suffix GCC adds to clones and local copies (".constprop.0", ".part.0",
   ".cold", ".lto_priv.0"), or "" if it has none set (a C function, or an
   abstract constructor no body was emitted for).  Mangled names contain
   no '.', but for the frame types of coroutines: a coroutine's actor and
   destroyer get the coroutine's symbol (coroutine_ramp_symbol).  */
static std::string
mangled_symbol (tree decl)
{
  if (!HAS_DECL_ASSEMBLER_NAME_P (decl) || !DECL_ASSEMBLER_NAME_SET_P (decl))
    return "";
  const char *name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME_RAW (decl));
  if (name[0] == '*')
    name++;
  if (strncmp (name, "_Z", 2) != 0)
    return "";
  std::string ramp = coroutine_ramp_symbol (name);
  if (!ramp.empty ())
    return ramp;
  return std::string (name, strcspn (name, "."));
}

/* Skip the call offset of a thunk's symbol at S[*P] (after its 'h' or
   'v'): "[n]N_" or "[n]N_[n]N_".  False if it is not one.  */
static bool
skip_call_offset (const std::string &s, size_t *p, char kind)
{
  for (int k = 0; k < (kind == 'v' ? 2 : 1); k++)
    {
      if (*p < s.size () && s[*p] == 'n')
        ++*p;
      size_t start = *p;
      while (*p < s.size () && ISDIGIT (s[*p]))
        ++*p;
      if (*p == start || *p >= s.size () || s[*p] != '_')
        return false;
      ++*p;
    }
  return true;
}

/* The function that FNDECL is a thunk of, if it is one: a C++ thunk
   adjusts the object pointer (_ZTh..., _ZTv...) or also the returned one
   (_ZTc...) and goes on to the function it stands for, whose symbol ends
   its own.  A thunk is no frame of its own; NULL_TREE if FNDECL is none
   or its function is not in the call graph.  */
tree
thunk_target (tree fndecl)
{
  std::string sym = mangled_symbol (fndecl);
  if (sym.size () < 5 || sym.compare (0, 3, "_ZT") != 0
      || !strchr ("hvc", sym[3]))
    return NULL_TREE;
  size_t p = 4;
  if (sym[3] == 'c')
    {
      for (int k = 0; k < 2; k++)
        {
          if (p >= sym.size () || (sym[p] != 'h' && sym[p] != 'v'))
            return NULL_TREE;
          char kind = sym[p++];
          if (!skip_call_offset (sym, &p, kind))
            return NULL_TREE;
        }
    }
  else if (!skip_call_offset (sym, &p, sym[3]))
    return NULL_TREE;
  std::string target = "_Z" + sym.substr (p);
  symtab_node *t = symtab_node::get_for_asmname (get_identifier
                                                   (target.c_str ()));
  cgraph_node *cn = t ? dyn_cast<cgraph_node *> (t) : NULL;
  if (!cn)
    return NULL_TREE;
  return cn->ultimate_alias_target ()->decl;
}

/* The symbols of the source functions named so far, so that the
   dictionary and the PC map name each one alike.  */
static std::map<tree, std::string> symbols;

/* The mangled symbols of the source functions of every function the
   call graph knows, for those whose own declaration carries none: a
   constructor's declaration stands for its complete and base variants
   (C1, C2), each a function with its own symbol.  */
static std::map<tree, std::string> variant_symbols;

/* Make the symbol SYM of a constructor or destructor the same whichever
   of its variants it is (C1, C2, C3 and D0, D1, D2 demangle to one
   name): the first ctor-dtor-name of it becomes C1 or D1.  Partitions
   that know different variants of a function then name it alike.  */
static void
canonical_structor (std::string &sym)
{
  for (size_t i = 3; i + 2 < sym.size (); i++)
    if ((sym[i] == 'C' || sym[i] == 'D') && ISDIGIT (sym[i + 1])
        && strchr ("EIB", sym[i + 2])
        && (ISALNUM (sym[i - 1]) || sym[i - 1] == '_'))
      {
        sym[i + 1] = '1';
        return;
      }
}

/* The name the dictionary gives the source function of FNDECL (a body's
   decl or an inlined function's): a C++ function's mangled symbol, for
   the decoder to demangle, else its name as the programmer wrote it.
   Constructors and destructors get one of their variants' symbols: all
   of them demangle to the one source name.  */
const char *
func_symbol (tree fndecl)
{
  if (tree t = thunk_target (fndecl))
    fndecl = t;
  tree src = source_decl (fndecl);
  auto it = symbols.find (src);
  if (it != symbols.end ())
    return it->second.c_str ();
  std::string sym = mangled_symbol (src);
  int guard = 0;
  for (tree d = fndecl; sym.empty () && d && guard++ < 100;
       d = DECL_ABSTRACT_ORIGIN (d) != d ? DECL_ABSTRACT_ORIGIN (d) : NULL)
    sym = mangled_symbol (d);
  if (sym.empty ())
    {
      if (variant_symbols.empty ())
        {
          cgraph_node *node;
          FOR_EACH_FUNCTION (node)
            {
              std::string v = mangled_symbol (node->decl);
              tree s = source_decl (node->decl);
              if (!v.empty () && !variant_symbols.count (s))
                variant_symbols[s] = v;
            }
          variant_symbols[NULL_TREE] = "";
        }
      auto v = variant_symbols.find (src);
      if (v != variant_symbols.end ())
        sym = v->second;
    }
  if (sym.empty ())
    sym = source_name (src);
  /* A clone whose origin this unit does not have (a function of another
     LTRANS partition) still has its suffix.  (GCC's outlined functions,
     f._omp_fn.0, are functions of their own.)  */
  if (sym.compare (0, 2, "_Z") != 0)
    {
      static const char *const suffixes[] = {
        ".constprop", ".isra", ".part", ".cold", ".lto_priv", ".localalias",
        NULL
      };
      size_t cut = sym.size ();
      for (const char *const *s = suffixes; *s; s++)
        cut = std::min (cut, sym.find (*s));
      sym.erase (cut);
    }
  else if (DECL_CXX_CONSTRUCTOR_P (fndecl) || DECL_CXX_DESTRUCTOR_P (fndecl))
    canonical_structor (sym);
  return symbols.emplace (src, sym).first->second.c_str ();
}

/* Is FNDECL a function GCC made to run the static initializers of a
   C++ unit (__static_initialization_and_destruction_0), or a wrapper of
   such (_GLOBAL__sub_I_...): no frame of the source.  */
bool
hidden_function_p (tree fndecl)
{
  fndecl = source_decl (fndecl);
  if (!DECL_ARTIFICIAL (fndecl))
    return false;
  if (DECL_STATIC_CONSTRUCTOR (fndecl) || DECL_STATIC_DESTRUCTOR (fndecl))
    return true;
  return DECL_NAME (fndecl)
         && startswith (IDENTIFIER_POINTER (DECL_NAME (fndecl)),
                        "__static_initialization_and_destruction");
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
  if (tree t = thunk_target (fndecl))
    fndecl = t;
  tree src = source_decl (fndecl);
  auto it = c.funcs.find (src);
  if (it != c.funcs.end ())
    return it->second;
  expanded_location xl = expand_location (DECL_SOURCE_LOCATION (src));
  uint32_t f = cce_graph_func (c.g, func_symbol (fndecl),
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

/* The attributes WPA gives every symbol of a program (mark_program)
   that defines malloc, and of one in which no function that may be
   entered from outside reaches a log (mark_unobserved).  */
static const char allocator_attr[] = "cce allocator";
static const char entries_unobserved_attr[] = "cce entries unobserved";

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

/* Is NODE the program's own definition of a function of the allocator
   (allocator_name_p)?  */
static bool
defines_allocator_p (cgraph_node *node)
{
  return node->definition && TREE_PUBLIC (node->decl) && !node->split_part
         && !node->inlined_to
         && allocator_name_p (external_name (node->decl));
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
external_may_call_back (tree fndecl, int flags, bool allocator)
{
  static const char *const calls_back[] = {
    "exit", "quick_exit", "raise", "kill", "abort", "pthread_kill",
    "tgkill", "sigqueue", "killpg", "pthread_exit", "__libc_start_main",
    NULL
  };
  if (!fndecl)
    return true;
  /* setjmp and friends: the code after a ccStack call restores the id and
     the ccStack top, and it also runs when longjmp returns there.  */
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

/* The frames at LOC in BLOCK of NODE's body, outermost first: NODE's own
   function, then every function inlined on the way to LOC, each with the
   location in it of the call to the next (the last one's is LOC).  */
std::vector<cce_frame_at>
frames_at (cgraph_node *node, tree block, location_t loc)
{
  std::vector<cce_frame_at> chain;

  for (tree b = block; b && TREE_CODE (b) == BLOCK; b = BLOCK_SUPERCONTEXT (b))
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
        /* GCC's static initialization of a unit, inlined into its
           wrapper: no frame of the source.  */
        if (hidden_function_p (origin))
          continue;
        chain.push_back ({ origin, loc });
        loc = BLOCK_SOURCE_LOCATION (b);
      }
  chain.push_back ({ node->decl, loc });
  std::reverse (chain.begin (), chain.end ());
  /* A thunk is its function's frame (func_of): the function inlined into
     it is that frame, not another one.  */
  tree target = thunk_target (node->decl);
  if (target && chain.size () >= 2
      && source_decl (chain[1].fn) == source_decl (target))
    {
      chain[1].fn = node->decl;
      chain.erase (chain.begin ());
    }
  return chain;
}

/* Add the frames of the call STMT in NODE to site SITE.  */
static void
add_frames (collector &c, cgraph_node *node, uint32_t site, gimple *stmt)
{
  std::vector<cce_frame_at> chain = frames_at (node, gimple_block (stmt),
                                               gimple_location (stmt));
  /* Functions are numbered innermost first, as they are met.  */
  std::vector<uint32_t> funcs (chain.size ());
  for (size_t i = chain.size (); i-- > 0;)
    funcs[i] = func_of (c, chain[i].fn);
  for (size_t i = 0; i < chain.size (); i++)
    {
      expanded_location xl = expand_location (chain[i].loc);
      cce_graph_frame (c.g, site, funcs[i], xl.file, xl.line, xl.column);
    }
}

/* Is FNDECL the public cce_log or cce_count of <cce.h>: a log site?  */
bool
is_cce_log (tree fndecl)
{
  if (!fndecl || !DECL_NAME (fndecl) || !TREE_PUBLIC (fndecl))
    return false;
  const char *name = IDENTIFIER_POINTER (DECL_NAME (fndecl));
  return strcmp (name, CCE_SYM_LOG) == 0 || strcmp (name, CCE_SYM_COUNT) == 0;
}

/* Is FNDECL one of the runtime's own entry points?  */
bool
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

/* The tag or typedef name of the struct, union or enum TYPE, NULL for
   one without a name.  */
static tree
type_tag (tree type)
{
  tree name = TYPE_NAME (TYPE_MAIN_VARIANT (type));
  if (name && TREE_CODE (name) == TYPE_DECL)
    name = DECL_NAME (name);
  return name && TREE_CODE (name) == IDENTIFIER_NODE ? name : NULL_TREE;
}

/* The name of FIELD (a FIELD_DECL) as "struct.field", the same for the
   same field in every unit; "" for a field without names.  */
static std::string
field_key (tree field)
{
  if (TREE_CODE (field) != FIELD_DECL || !DECL_NAME (field))
    return "";
  tree rec = type_tag (DECL_CONTEXT (field));
  if (!rec)
    return "";
  return std::string (IDENTIFIER_POINTER (rec)) + "."
         + IDENTIFIER_POINTER (DECL_NAME (field));
}

/* Whether A and B are the same type as the source declares them, but for
   qualifiers: types_compatible_p at link time takes any two pointers for
   the same type (GCC's LTO merges the canonical types of pointers), so
   that the functions of a call's type are then all those with as many
   scalar arguments.  Here a pointer is compared by what it points to, a
   struct, union or enum by its name.  DEPTH bounds the walk.  */
static bool
same_source_type_p (tree a, tree b, int depth = 0)
{
  a = TYPE_MAIN_VARIANT (a);
  b = TYPE_MAIN_VARIANT (b);
  if (a == b)
    return true;
  if (TREE_CODE (a) != TREE_CODE (b) || depth > 8)
    return false;
  switch (TREE_CODE (a))
    {
    case POINTER_TYPE:
    case REFERENCE_TYPE:
      return same_source_type_p (TREE_TYPE (a), TREE_TYPE (b), depth + 1);
    case RECORD_TYPE:
    case UNION_TYPE:
    case ENUMERAL_TYPE:
      {
        tree ta = type_tag (a), tb = type_tag (b);
        return ta && tb ? ta == tb : types_compatible_p (a, b);
      }
    case INTEGER_TYPE:
    case REAL_TYPE:
    case BOOLEAN_TYPE:
      return TYPE_PRECISION (a) == TYPE_PRECISION (b)
             && TYPE_UNSIGNED (a) == TYPE_UNSIGNED (b);
    case VOID_TYPE:
      return true;
    case FUNCTION_TYPE:
    case METHOD_TYPE:
      {
        if (!same_source_type_p (TREE_TYPE (a), TREE_TYPE (b), depth + 1))
          return false;
        tree pa = TYPE_ARG_TYPES (a), pb = TYPE_ARG_TYPES (b);
        if (!pa || !pb)
          return false;
        for (; pa && pb; pa = TREE_CHAIN (pa), pb = TREE_CHAIN (pb))
          if (!same_source_type_p (TREE_VALUE (pa), TREE_VALUE (pb),
                                   depth + 1))
            return false;
        return !pa && !pb;
      }
    default:
      return types_compatible_p (a, b);
    }
}

/* Add T to the candidates V, once.  */
static void
add_candidate (std::vector<cgraph_node *> &v, cgraph_node *t)
{
  if (std::find (v.begin (), v.end (), t) == v.end ())
    v.push_back (t);
}

/* The key of VAR's FIELD in var_field_targets: the variable fixes the
   struct, so the field's name is enough (a struct without a tag, as
   `typedef struct { ... } T;` declares, has no field_key).  */
static std::pair<tree, std::string>
var_field_key (tree var, tree field)
{
  return { var, DECL_NAME (field) ? IDENTIFIER_POINTER (DECL_NAME (field))
                                  : "" };
}

/* Note that the program stores the address VALUE in FIELD, of the
   variable VAR if VAR is not NULL_TREE, if VALUE is that of a function of
   the program whose address is taken.  */
static void
note_field_target (collector &c, tree field, tree value,
                   tree var = NULL_TREE)
{
  STRIP_NOPS (value);
  if (TREE_CODE (value) != ADDR_EXPR
      || TREE_CODE (TREE_OPERAND (value, 0)) != FUNCTION_DECL)
    return;
  cgraph_node *t = cgraph_node::get (TREE_OPERAND (value, 0));
  if (!t)
    return;
  t = t->ultimate_alias_target ();
  if (!c.guessable.count (t))
    return;
  std::string key = field_key (field);
  if (!key.empty ())
    add_candidate (c.field_targets[key], t);
  if (var && DECL_NAME (field))
    add_candidate (c.var_field_targets[var_field_key (var, field)], t);
}

/* The variable of the program whose field REF (a COMPONENT_REF) is,
   NULL_TREE for a field of anything else (an array element, an object
   reached through a pointer).  */
static tree
field_variable (tree ref)
{
  tree base = TREE_OPERAND (ref, 0);
  return VAR_P (base) && is_global_var (base) ? base : NULL_TREE;
}

/* The function addresses in the initializer INIT, a field's worth; VAR
   the variable INIT initializes, where its fields are INIT's own.  */
static void
note_initializer (collector &c, tree init, tree var = NULL_TREE)
{
  if (!init || TREE_CODE (init) != CONSTRUCTOR)
    return;
  unsigned HOST_WIDE_INT k;
  tree index, value;
  FOR_EACH_CONSTRUCTOR_ELT (CONSTRUCTOR_ELTS (init), k, index, value)
    if (index && TREE_CODE (index) == FIELD_DECL
        && TREE_CODE (value) != CONSTRUCTOR)
      note_field_target (c, index, value, var);
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
      note_initializer (c, v->get_constructor (), v->decl);
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
            if (!gimple_assign_single_p (st))
              continue;
            tree lhs = gimple_assign_lhs (st);
            if (TREE_CODE (lhs) == COMPONENT_REF)
              note_field_target (c, TREE_OPERAND (lhs, 1),
                                 gimple_assign_rhs1 (st),
                                 field_variable (lhs));
          }
    }
}

/* What pick_guesses found.  */
enum { PICK_NONE, PICK_TOO_MANY, PICK_OK };

/* Of CANDS, the functions that a call of type FNTYPE in CALLER may guess,
   into FOUND: those of the very type the source declares, if there are
   any and no more than cce_opts.guess; else any of a compatible type, if
   they are few enough.  PICK_NONE if none has a compatible type.  */
static int
pick_guesses (cgraph_node *caller, tree fntype,
              const std::vector<cgraph_node *> &cands,
              std::vector<cgraph_node *> &found)
{
  std::vector<cgraph_node *> same, compatible;
  for (cgraph_node *t : cands)
    if (t != caller && types_compatible_p (TREE_TYPE (t->decl), fntype))
      {
        compatible.push_back (t);
        if (same_source_type_p (TREE_TYPE (t->decl), fntype))
          same.push_back (t);
        /* Then more of a compatible type too: no guess.  */
        if (same.size () > (size_t) cce_opts.guess)
          return PICK_TOO_MANY;
      }
  if (!same.empty ())
    found = same;
  else if (compatible.empty ())
    return PICK_NONE;
  else if (compatible.size () <= (size_t) cce_opts.guess)
    found = compatible;
  else
    return PICK_TOO_MANY;
  return PICK_OK;
}

/* The likely targets of the indirect call of SI: for a C++ virtual call
   (OBJ_TYPE_REF), the methods of its vtable slot in the classes of the
   program (possible_polymorphic_call_targets); where its pointer is
   loaded from a field, the functions whose address the program stores in
   that field (collect_field_targets; where there are too many, those it
   stores in that field of the variable the pointer is loaded from), else
   the functions of the program
   whose address is taken; of these, those whose type is the call's, if
   there are at most cce_opts.guess of them (not the caller itself: that edge
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
  if (cce_opts.guess <= 0 || !fntype || !fn
      || (TREE_CODE (fn) != SSA_NAME && TREE_CODE (fn) != OBJ_TYPE_REF)
      || gimple_call_noreturn_p (call)
      || (gimple_call_flags (call) & ECF_RETURNS_TWICE))
    return;
  std::vector<cgraph_node *> found;
  if (TREE_CODE (fn) == OBJ_TYPE_REF)
    {
      /* A virtual call: the methods of its slot, those with a body of the
         program (the others are never guessed: the push calls them).
         Their 'this' is a derived class's, so no type to compare.  */
      if (!virtual_method_call_p (fn)
          || TREE_CODE (OBJ_TYPE_REF_EXPR (fn)) != SSA_NAME
          || !tree_fits_uhwi_p (OBJ_TYPE_REF_TOKEN (fn)))
        return;
      build_type_inheritance_graph ();
      tree otr_type = obj_type_ref_class (fn);
      if (!otr_type || !TYPE_BINFO (otr_type))
        return;
      /* Any object of the class or one derived from it: no context of
         the call (that would need the caller's body as cfun).  */
      bool final;
      vec<cgraph_node *> targets
        = possible_polymorphic_call_targets (otr_type,
                                             tree_to_uhwi
                                               (OBJ_TYPE_REF_TOKEN (fn)),
                                             ipa_polymorphic_call_context (),
                                             &final);
      for (cgraph_node *t : targets)
        {
          t = t->ultimate_alias_target ();
          if (t == si.node || !c.guessable.count (t)
              || std::find (found.begin (), found.end (), t) != found.end ())
            continue;
          found.push_back (t);
          if (found.size () > (size_t) cce_opts.guess)
            return;
        }
    }
  else
    {
      /* A pointer loaded from a field: the functions whose address the
         program stores in that field, those it stores in that field of
         the very variable first; else those of the call's type.  */
      gimple *def = SSA_NAME_DEF_STMT (fn);
      std::vector<cgraph_node *> stored, own;
      if (gimple_assign_single_p (def)
          && TREE_CODE (gimple_assign_rhs1 (def)) == COMPONENT_REF)
        {
          tree ref = gimple_assign_rhs1 (def);
          tree field = TREE_OPERAND (ref, 1);
          tree var = field_variable (ref);
          if (var && TREE_CODE (field) == FIELD_DECL)
            {
              auto vit = c.var_field_targets.find (var_field_key (var,
                                                                  field));
              if (vit != c.var_field_targets.end ())
                own = vit->second;
            }
          auto it = c.field_targets.find (field_key (field));
          stored = own;
          if (it != c.field_targets.end ())
            for (cgraph_node *t : it->second)
              add_candidate (stored, t);
        }
      /* The field's, if few enough; else those of the variable's own
         field (another value is stored there through a pointer, or by
         copying a whole struct, if ever: a wrong guess costs a compare,
         never a wrong context); where the field only ever receives
         pointers of other types (stored through a cast, or from a
         parameter), the functions of the call's type.  */
      int r = pick_guesses (si.node, fntype, stored, found);
      if (r == PICK_TOO_MANY && !own.empty ())
        r = pick_guesses (si.node, fntype, own, found);
      if (r == PICK_NONE)
        r = pick_guesses (si.node, fntype, c.address_taken, found);
      if (r != PICK_OK)
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
      c.g->sites[site].guess = 1;
      si.guesses.push_back ({ t, site });
      c.guess_of[site] = si.site;
    }
  c.guessed_sites++;
}

/* The function that the resx statement STMT (the end of a cleanup, whose
   exception goes on) becomes a call of when GCC lowers it after this
   pass: _Unwind_Resume where the exception leaves the function, the
   failure function (std::terminate) of the must-not-throw region it is
   in; NULL for any other statement, and for a resx that becomes a jump to
   another landing pad of the function.  Such a call is one out of the
   program that calls back: the unwinder runs the cleanups of the callers
   (which restore their own id at their landing pads) and may call
   std::terminate, whose handler runs in the function's context.  */
static const char *
resx_callee (gimple *stmt)
{
  if (gimple_code (stmt) != GIMPLE_RESX)
    return NULL;
  int lp = lookup_stmt_eh_lp (stmt);
  tree fn = NULL_TREE;
  if (lp == 0)
    fn = builtin_decl_explicit (BUILT_IN_UNWIND_RESUME);
  else if (lp < 0)
    {
      eh_region r = get_eh_region_from_lp_number (lp);
      if (r && r->type == ERT_MUST_NOT_THROW)
        fn = r->u.must_not_throw.failure_decl;
    }
  return fn ? external_name (fn) : NULL;
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
  if (!cce_opts.trace.empty () && !node->split_part)
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
        if (const char *resume = resx_callee (gsi_stmt (gsi)))
          {
            uint32_t site = cce_graph_site (c.g, n, CCE_SITE_EXTERNAL,
                                            cce_graph_string (c.g, resume),
                                            0.0);
            add_frames (c, node, site, gsi_stmt (gsi));
            c.sites.push_back ({ node, gsi_stmt (gsi), site, {} });
            continue;
          }
        gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi));
        if (!call || gimple_call_internal_p (call))
          continue;
        tree fndecl = gimple_call_fndecl (call);
        char kind;
        uint32_t target = CCE_NONE;
        bool other_partition = false;

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
            /* A function of the program that another LTRANS partition
               compiles: a call into another module of the same program
               (cce_primary_partition_p), which enters it at its root.
               The site names the callee as that module's dictionary
               names its function, so that the decoder puts no external
               frame between them.  A callee WPA found unobserved
               (mark_unobserved) needs no site unless every call is
               encoded.  */
            else if (callee && callee->in_other_partition)
              {
                other_partition = true;
                if (unobserved_p (callee->decl) && !cce_opts.observe_all)
                  continue;
                kind = CCE_SITE_EXTERNAL;
                target = cce_graph_string (c.g, func_symbol (callee->decl));
              }
            else if (external_may_call_back (fndecl,
                                             gimple_call_flags (call),
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
            && ((kind == CCE_SITE_EXTERNAL
                 && (may_be_instrumented (fndecl) || other_partition))
                || (kind == CCE_SITE_INDIRECT && c.foreign_pointers)))
          c.g->sites[site].may_log = 1;
        if (site != CCE_NONE && kind == CCE_SITE_DIRECT && target == n)
          {
            /* What may throw is known of the body's function.  */
            push_cfun (fun);
            c.g->sites[site].tail_jump = self_tail_jump_p (call);
            pop_cfun ();
          }
        add_frames (c, node, site, call);
        c.sites.push_back ({ node, call, site, {} });
        /* No guesses where the push goes out of line anyway
           (instrument.cc, compact_push_p): a block that GCC optimizes
           for size runs too rarely to pay for the compares and the
           calls of their own.  */
        if (kind == CCE_SITE_INDIRECT)
          {
            push_cfun (fun);
            bool small = cce_rare_block_p (bb);
            pop_cfun ();
            if (!small)
              add_guesses (c, c.sites.back ());
          }
      }
}

/* GCC takes a function for const or pure where what it does before it
   ends the program does not count (it logs, then exits).  A call of such
   a function of another LTRANS partition that can reach a log
   (mark_unobserved) is a ccStack call, whose stores must not be taken
   for dead: the function is made an ordinary one here, and the calls of
   it in the bodies of this partition get their virtual operands.  */
static void
unconst_other_partitions (void)
{
  hash_set<tree> changed;
  cgraph_node *node;
  FOR_EACH_FUNCTION (node)
    if (node->in_other_partition && !unobserved_p (node->decl)
        && (TREE_READONLY (node->decl) || DECL_PURE_P (node->decl)))
      {
        TREE_READONLY (node->decl) = 0;
        DECL_PURE_P (node->decl) = 0;
        DECL_LOOPING_CONST_OR_PURE_P (node->decl) = 0;
        changed.add (node->decl);
      }
  if (changed.is_empty ())
    return;
  FOR_EACH_DEFINED_FUNCTION (node)
    {
      if (!node->has_gimple_body_p () || node->in_other_partition
          || node->inlined_to)
        continue;
      node->get_body ();
      function *fun = DECL_STRUCT_FUNCTION (node->decl);
      bool any = false;
      basic_block bb;
      push_cfun (fun);
      FOR_EACH_BB_FN (bb, fun)
        for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
             gsi_next (&gsi))
          {
            gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi));
            tree fn = call ? gimple_call_fndecl (call) : NULL_TREE;
            if (fn && changed.contains (fn))
              {
                update_stmt (call);
                any = true;
              }
          }
      if (any)
        {
          mark_virtual_operands_for_renaming (fun);
          update_ssa (TODO_update_ssa_only_virtuals);
        }
      pop_cfun ();
    }
}

/* Collect the call graph of the whole program into C: its nodes (the
   functions with bodies), what may call into it from outside, then the
   sites of every body.  */
void
collect_graph (collector &c)
{
  cgraph_node *node;

  unconst_other_partitions ();

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
      /* In an LTRANS unit, a public function that is local to the program
         is public for the calls of another partition (WPA made it so),
         and entered by them only.  */
      else if (flag_ltrans && TREE_PUBLIC (node->decl))
        flags |= CCE_NODE_ENTRY | CCE_NODE_ACROSS;
      /* main is entered once, by the C library's start-up code; no call
         out of the program enters it unless its address is taken.  */
      if (MAIN_NAME_P (DECL_NAME (node->decl)) && !node->address_taken
          && !c.shared)
        flags |= CCE_NODE_MAIN;
      if (node->split_part)
        flags |= CCE_NODE_SPLIT_PART;
      /* GCC's own wrapper of several constructors or destructors
         (_sub_I_65535_0), a C++ unit's static initialization: not a
         frame of the source.  */
      if (hidden_function_p (node->decl))
        flags |= CCE_NODE_HIDDEN;
      /* A thunk that calls its function: that call is the frame.  (One
         that holds a copy of it, or has it inlined, is the frame.)  */
      if (tree target = thunk_target (node->decl))
        for (cgraph_edge *e = node->callees; e; e = e->next_callee)
          if (e->callee->ultimate_alias_target ()->decl == target)
            flags |= CCE_NODE_HIDDEN;
      uint32_t n = cce_graph_node (c.g, func_of (c, node->decl), flags);
      c.nodes[node] = n;
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
  /* Whether the program defines malloc, in this partition or another
     (mark_unobserved found it in WPA).  */
  FOR_EACH_DEFINED_FUNCTION (node)
    if (defines_allocator_p (node))
      c.allocator_replaced = true;
  if (program_marked_p (allocator_attr))
    c.allocator_replaced = true;
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
  if (cce_opts.guess > 0)
    collect_field_targets (c);
  FOR_EACH_DEFINED_FUNCTION (node)
    if (c.nodes.count (node))
      collect_sites (c, node);
}

/* ------------------------------------------------------------------ */
/* Which functions no log can be reached from, decided in WPA.        */

/* Give DECL the attribute ATTR, once.  */
static void
add_mark (tree decl, const char *attr)
{
  if (!lookup_attribute (attr, DECL_ATTRIBUTES (decl)))
    DECL_ATTRIBUTES (decl) = tree_cons (get_identifier (attr), NULL_TREE,
                                        DECL_ATTRIBUTES (decl));
}

/* In WPA: give ATTR (a name with a space, which no source can write) to
   every function and variable the program defines, so that every LTRANS
   partition finds it on the symbols it has.  */
void
mark_program (const char *attr)
{
  symtab_node *node;
  FOR_EACH_SYMBOL (node)
    if (node->definition)
      add_mark (node->decl, attr);
}

/* In an LTRANS, did WPA mark_program with ATTR?  */
bool
program_marked_p (const char *attr)
{
  symtab_node *node;
  FOR_EACH_SYMBOL (node)
    if (lookup_attribute (attr, DECL_ATTRIBUTES (node->decl)))
      return true;
  return false;
}

/* The attribute WPA gives the functions of the program from which no
   log site can be reached (mark_unobserved); a space keeps it out of any
   source.  */
static const char unobserved_attr[] = "cce unobserved";

/* In WPA, over the whole program's call graph: give unobserved_attr to
   every function from which no log site can be reached, as the core
   decides it (cce_graph_encode, step 0) but before inlining and for the
   whole program, so that an LTRANS partition knows it of the functions
   of the others.  Conservative: any call through a pointer or out of
   the program counts once some function that may be entered from
   outside reaches a log, and a call of a function another module may
   define counts as a log.  */
void
mark_unobserved (void)
{
  cgraph_node *node;
  bool allocator = false, foreign = false;

  FOR_EACH_FUNCTION (node)
    {
      if (!DECL_NAME (node->decl))
        continue;
      const char *name = IDENTIFIER_POINTER (DECL_NAME (node->decl));
      if (defines_allocator_p (node))
        allocator = true;
      if (!node->definition
          && (may_be_instrumented (node->decl) || name_in (name, lookup_fns)))
        foreign = true;
    }

  if (allocator)
    mark_program (allocator_attr);

  /* Seeds: the functions with a log site, a traced function, a call of
     another module's function (may_log); with an entry observed, the
     functions with a call through a pointer or out of the program.  */
  hash_set<cgraph_node *> observed;
  auto_vec<cgraph_node *> work;
  auto observe = [&] (cgraph_node *n) {
    if (!observed.add (n))
      work.safe_push (n);
  };
  auto calls_out = [&] (cgraph_node *n) {
    if (n->indirect_calls)
      return true;
    for (cgraph_edge *e = n->callees; e; e = e->next_callee)
      {
        cgraph_node *callee = e->callee->ultimate_alias_target ();
        if (!callee->definition
            && external_may_call_back (callee->decl,
                                       flags_from_decl_or_type (callee->decl),
                                       allocator))
          return true;
      }
    return false;
  };
  FOR_EACH_FUNCTION (node)
    {
      if (!node->definition)
        continue;
      if (!cce_opts.trace.empty ()
          && trace_index (source_name (source_decl (node->decl))) >= 0)
        observe (node);
      if (foreign && node->indirect_calls)
        observe (node);
      for (cgraph_edge *e = node->callees; e; e = e->next_callee)
        {
          tree callee = e->callee->ultimate_alias_target ()->decl;
          if (is_cce_log (callee)
              || (!e->callee->ultimate_alias_target ()->definition
                  && may_be_instrumented (callee)))
            observe (node);
        }
    }
  bool entry_observed = false;
  for (;;)
    {
      while (!work.is_empty ())
        {
          cgraph_node *n = work.pop ();
          if ((n->address_taken || n->externally_visible
               || DECL_STATIC_CONSTRUCTOR (n->decl)
               || DECL_STATIC_DESTRUCTOR (n->decl) || n->force_output)
              && !(MAIN_NAME_P (DECL_NAME (n->decl)) && !n->address_taken))
            entry_observed = true;
          for (cgraph_edge *e = n->callers; e; e = e->next_caller)
            observe (e->caller);
          /* Calls of an alias of N.  */
          ipa_ref *ref;
          for (unsigned i = 0; n->iterate_direct_aliases (i, ref); i++)
            if (cgraph_node *alias = dyn_cast<cgraph_node *> (ref->referring))
              observe (alias);
        }
      if (!entry_observed)
        break;
      FOR_EACH_FUNCTION (node)
        if (node->definition && !observed.contains (node) && calls_out (node))
          observe (node);
      if (work.is_empty ())
        break;
    }

  if (!entry_observed)
    mark_program (entries_unobserved_attr);
  FOR_EACH_FUNCTION (node)
    if (node->definition && !observed.contains (node))
      add_mark (node->decl, unobserved_attr);
}

/* Did WPA find that no log site can be reached from FNDECL?  */
bool
unobserved_p (tree fndecl)
{
  return lookup_attribute (unobserved_attr, DECL_ATTRIBUTES (fndecl));
}

/* In an LTRANS: may a function of the program that may be entered from
   outside (of this partition or another) reach a log, so that every
   call through a pointer or out of the program is observed, in every
   partition?  Unless WPA found that none does.  (Without WPA, in the
   single lto1 of -flto-partition=none, the core sees the whole program
   and decides.)  */
bool
entry_observed_p (void)
{
  return flag_ltrans && !program_marked_p (entries_unobserved_attr);
}

/* ------------------------------------------------------------------ */
/* The order of functions for the LTRANS partitions, in WPA.          */

/* FNDECL's optimization options with -fprofile-reorder-functions on.  */
static tree
reorder_options (tree fndecl, hash_map<tree, tree> &cache)
{
  tree old = DECL_FUNCTION_SPECIFIC_OPTIMIZATION (fndecl);
  if (!old)
    old = optimization_default_node;
  if (tree *done = cache.get (old))
    return *done;
  struct gcc_options opts, opts_set;
  init_options_struct (&opts, NULL);
  memset (&opts_set, 0, sizeof opts_set);
  cl_optimization_restore (&opts, &opts_set, TREE_OPTIMIZATION (old));
  opts.x_flag_profile_reorder_functions = 1;
  tree node = build_optimization_node (&opts, &opts_set);
  cache.put (old, node);
  return node;
}

/* GCC's balanced partitioner takes the functions in the order of their
   first run in a time profile (tp_first_run, under
   -fprofile-reorder-functions), else of the source, and cuts the
   sequence where few calls cross.  Without a time profile, give the
   functions the order cce_layout_order finds, hot calls within clusters
   of at most half a partition, as if it were one, so that the cuts fall
   between clusters: a call into another partition goes through the
   ccStack.  In the LTRANS, the same order is the order of the
   functions in the output.  */
void
order_for_partitions (void)
{
  if (flag_lto_partition != LTO_PARTITION_BALANCED
      || param_lto_partitions < 2)
    return;
  auto_vec<cgraph_node *> nodes;
  cgraph_node *node;
  FOR_EACH_DEFINED_FUNCTION (node)
    {
      if (node->tp_first_run)
        return;                 /* a real time profile */
      if (node->get_partitioning_class () == SYMBOL_PARTITION
          && !node->no_reorder && !node->alias && !node->inlined_to)
        nodes.safe_push (node);
    }
  if (nodes.length () < 2)
    return;
  nodes.qsort ([] (const void *a, const void *b) {
    int x = (*(cgraph_node *const *) a)->order;
    int y = (*(cgraph_node *const *) b)->order;
    return x < y ? -1 : x > y;
  });

  hash_map<cgraph_node *, unsigned> index;
  std::vector<uint64_t> size (nodes.length ());
  uint64_t total = 0;
  for (unsigned i = 0; i < nodes.length (); i++)
    {
      index.put (nodes[i], i);
      ipa_size_summary *s = ipa_size_summaries
                            ? ipa_size_summaries->get (nodes[i]) : NULL;
      size[i] = s && s->size > 0 ? s->size : 1;
      total += size[i];
    }
  std::vector<cce_layout_edge> edges;
  for (unsigned i = 0; i < nodes.length (); i++)
    for (cgraph_edge *e = nodes[i]->callees; e; e = e->next_callee)
      {
        unsigned *to = index.get (e->callee->ultimate_alias_target ());
        if (!to || *to == i)
          continue;
        profile_count c = e->count.ipa ();
        double w = c.initialized_p () && c.nonzero_p ()
                   ? (double) c.to_gcov_type ()
                   : e->sreal_frequency ().to_double ();
        edges.push_back ({ i, *to, w });
      }

  uint64_t part = total / param_lto_partitions;
  part = MAX (part, (uint64_t) param_min_partition_size);
  std::vector<uint32_t> order (nodes.length ());
  if (cce_layout_order (nodes.length (), size.data (), edges.data (),
                        edges.size (), part / 2, order.data ()) < 0)
    return;
  hash_map<tree, tree> cache;
  for (unsigned i = 0; i < nodes.length (); i++)
    {
      cgraph_node *n = nodes[order[i]];
      n->tp_first_run = i + 1;
      DECL_FUNCTION_SPECIFIC_OPTIMIZATION (n->decl)
        = reorder_options (n->decl, cache);
    }
}
