/* stub.cc -- second entry points (idreg).

   With the id in a register (cce-abi.h, CCE_IDREG), a function that code
   outside the program may call (an ENTRY node) cannot trust the
   register at its start, and takes its id from the TLS word.  Where the
   program also calls such a function directly, that costs every one of
   those calls a store to the TLS block, and the function a save, a load
   and two restores.  So the function gets two entry points:

     - its body, renamed SYM.cce (hidden), which takes its id in the
       register like any other node: the program's direct calls go there;
     - a stub at the public symbol SYM, which is the function's address
       everywhere (every &SYM of the partition is rewritten to it, and
       other modules and partitions know the function by SYM):

         SYM: push %r15                   # the caller's register
              mov  %fs:tls[ID], %r15      # the id code outside left
              push %r15; sub $8, %rsp     # kept, the stack aligned
              call SYM.cce
              mov  8(%rsp), %rcx          # the TLS id as it was found,
              mov  %rcx, %fs:tls[ID]      # for the next call from outside
              add  $16, %rsp
              pop  %r15
              ret

       with call frame information (the caller's r15 is restored by an
       unwinder), in section CCE_STUB_SECTION.  The PC map has no range
       for a stub: an instruction there is incomplete from the caller on.

   The stub moves no argument, so only functions whose arguments all
   travel in registers get one; and none where something else may name
   the body's symbol (aliases, constructors, comdat and weak functions,
   an explicit section, another calling convention), nor where GCC may
   call the symbol by its name (a function of the C library's that the
   program defines, such as malloc: GCC knows it as a built-in).  C++
   constructors and destructors, whose variants the dictionary names
   alike, keep their one entry point.  */

#include "cce-plugin.h"

#include "target.h"
#include "rtl.h"

/* By node index of the partition's graph: does the node have a stub.  */
static std::vector<bool> stubbed;
/* By site index: a guessed target of an indirect call that can throw,
   whose guess only stores the id and falls through to the call through
   the pointer (instrument.cc, insert_guesses): it enters the stub.  */
static std::vector<bool> through_pointer;

bool
cce_stubbed_p (uint32_t n)
{
  return n < stubbed.size () && stubbed[n];
}

bool
cce_guess_through_pointer_p (uint32_t site)
{
  return site < through_pointer.size () && through_pointer[site];
}

/* Do all arguments of FNDECL (and a hidden pointer for its result)
   travel in registers, by the x86-64 SysV convention, as simple scalars
   the stub does not touch.  */
static bool
register_args_p (tree fndecl)
{
  tree type = TREE_TYPE (fndecl);
  if (stdarg_p (type) || DECL_STATIC_CHAIN (fndecl)
      || lookup_attribute ("ms_abi", TYPE_ATTRIBUTES (type))
      || lookup_attribute ("sysv_abi", TYPE_ATTRIBUTES (type)))
    return false;
  int ints = 0, sses = 0;
  tree res = DECL_RESULT (fndecl);
  if (res && aggregate_value_p (res, fndecl))
    ints++;
  for (tree a = DECL_ARGUMENTS (fndecl); a; a = DECL_CHAIN (a))
    {
      tree t = TREE_TYPE (a);
      if ((INTEGRAL_TYPE_P (t) || POINTER_TYPE_P (t))
          && TYPE_PRECISION (t) <= 64)
        ints++;
      else if (SCALAR_FLOAT_TYPE_P (t)
               && (TYPE_MODE (t) == SFmode || TYPE_MODE (t) == DFmode))
        sses++;
      else
        return false;
    }
  return ints <= 6 && sses <= 8;
}

/* May NODE (node N of C's graph) get a stub.  */
static bool
stub_candidate_p (const collector &c, cgraph_node *node, uint32_t n)
{
  const struct cce_node *cn = &c.g->nodes[n];
  tree decl = node->decl;
  if (!(cn->flags & CCE_NODE_ENTRY) || (cn->flags & CCE_NODE_MAIN)
      || !cn->observed)
    return false;
  if (!node->definition || node->alias || node->thunk
      || node->ifunc_resolver || node->has_aliases_p ()
      || node->same_comdat_group || node->get_comdat_group ()
      || !gimple_has_body_p (decl))
    return false;
  if (DECL_WEAK (decl) || DECL_COMDAT (decl) || DECL_ONE_ONLY (decl)
      || DECL_STATIC_CONSTRUCTOR (decl) || DECL_STATIC_DESTRUCTOR (decl)
      || DECL_CXX_CONSTRUCTOR_P (decl) || DECL_CXX_DESTRUCTOR_P (decl)
      || fndecl_built_in_p (decl)
      || DECL_SECTION_NAME (decl)
      || (DECL_NAME (decl) && MAIN_NAME_P (DECL_NAME (decl)))
      || lookup_attribute ("naked", DECL_ATTRIBUTES (decl))
      || lookup_attribute ("ifunc", DECL_ATTRIBUTES (decl))
      || lookup_attribute ("target_clones", DECL_ATTRIBUTES (decl)))
    return false;
  return register_args_p (decl);
}

void
choose_stubs (const collector &c)
{
  stubbed.assign (c.g->nnodes, false);
  through_pointer.assign (c.g->nsites, false);
  if (!cce_opts.idreg || !cce_opts.stub)
    return;
  for (const site_info &si : c.sites)
    if (!si.guesses.empty () && si.stmt)
      {
        push_cfun (DECL_STRUCT_FUNCTION (si.node->decl));
        bool ends = stmt_ends_bb_p (si.stmt);
        pop_cfun ();
        if (ends)
          for (const guess &q : si.guesses)
            through_pointer[q.site] = true;
      }
  /* Only where the program calls the function directly: a function
     reached only through pointers or from outside gains nothing.  */
  std::vector<bool> called (c.g->nnodes, false);
  for (size_t i = 0; i < c.g->nsites; i++)
    {
      const struct cce_site *s = &c.g->sites[i];
      if ((s->kind == CCE_SITE_DIRECT || s->kind == CCE_SITE_BACK)
          && !s->dead && s->target < c.g->nnodes)
        called[s->target] = true;
    }
  for (const auto &n : c.nodes)
    if (called[n.second] && stub_candidate_p (c, n.first, n.second))
      stubbed[n.second] = true;
}

/* ------------------------------------------------------------------ */
/* Making them.                                                       */

/* Body decl -> its stub's decl.  */
static std::map<tree, tree> stub_of;

/* walk_tree callback: an address of a stubbed body becomes its stub's.  */
static tree
redirect_address (tree *tp, int *walk_subtrees, void *changed)
{
  if (TYPE_P (*tp))
    {
      *walk_subtrees = 0;
      return NULL_TREE;
    }
  if (TREE_CODE (*tp) != ADDR_EXPR
      || TREE_CODE (TREE_OPERAND (*tp, 0)) != FUNCTION_DECL)
    return NULL_TREE;
  auto it = stub_of.find (TREE_OPERAND (*tp, 0));
  if (it != stub_of.end ())
    {
      /* A new node: invariant addresses may be shared.  */
      *tp = build_fold_addr_expr_with_type (it->second, TREE_TYPE (*tp));
      *(bool *) changed = true;
    }
  *walk_subtrees = 0;
  return NULL_TREE;
}

/* Redirect the addresses of stubbed bodies in the tree at *TP; true if
   one changed.  */
static bool
redirect_in (tree *tp)
{
  bool changed = false;
  if (*tp)
    walk_tree (tp, redirect_address, &changed, NULL);
  return changed;
}

/* Every &BODY in the functions of the partition but their direct calls'
   callees, and in its variables' initializers, becomes &STUB.  */
static void
redirect_addresses (void)
{
  cgraph_node *node;
  FOR_EACH_FUNCTION_WITH_GIMPLE_BODY (node)
    {
      function *fn = DECL_STRUCT_FUNCTION (node->decl);
      if (node->in_other_partition || !fn || !fn->cfg)
        continue;
      push_cfun (fn);
      basic_block bb;
      FOR_EACH_BB_FN (bb, fn)
        {
          for (gphi_iterator pi = gsi_start_phis (bb); !gsi_end_p (pi);
               gsi_next (&pi))
            for (unsigned i = 0; i < gimple_phi_num_args (pi.phi ()); i++)
              redirect_in (gimple_phi_arg_def_ptr (pi.phi (), i));
          for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
               gsi_next (&gsi))
            {
              gimple *stmt = gsi_stmt (gsi);
              bool changed = false;
              /* A direct call's callee (operand 1) stays the body.  */
              for (unsigned i = 0; i < gimple_num_ops (stmt); i++)
                if (!(is_gimple_call (stmt) && i == 1))
                  changed |= redirect_in (gimple_op_ptr (stmt, i));
              if (changed)
                update_stmt (stmt);
            }
        }
      pop_cfun ();
    }
  varpool_node *vnode;
  FOR_EACH_DEFINED_VARIABLE (vnode)
    if (!vnode->in_other_partition
        && vnode->get_constructor () != error_mark_node)
      redirect_in (&DECL_INITIAL (vnode->decl));
}

/* The symbol of DECL as the assembler writes it.  */
static std::string
asm_symbol (tree decl)
{
  const char *name = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl));
  return std::string (user_label_prefix) + targetm.strip_name_encoding (name);
}

/* Write the stub SYM of body BODY, declared DECL (cce-abi.h,
   CCE_STUB_SECTION).  */
static void
emit_stub (FILE *f, const std::string &sym, const std::string &body,
           tree decl)
{
  const char *s = sym.c_str ();
  const unsigned id = 8 * CCE_TLS_ID;
  fprintf (f, "\t.pushsection\t" CCE_STUB_SECTION ",\"ax\",@progbits\n"
           "\t.p2align 4\n");
  if (TREE_PUBLIC (decl))
    {
      fprintf (f, "\t.globl\t%s\n", s);
      if (DECL_VISIBILITY (decl) == VISIBILITY_HIDDEN
          || DECL_VISIBILITY (decl) == VISIBILITY_INTERNAL)
        fprintf (f, "\t.hidden\t%s\n", s);
      else if (DECL_VISIBILITY (decl) == VISIBILITY_PROTECTED)
        fprintf (f, "\t.protected\t%s\n", s);
    }
  fprintf (f, "\t.type\t%s, @function\n%s:\n\t.cfi_startproc\n", s, s);
  if (flag_cf_protection & CF_BRANCH)
    fprintf (f, "\tendbr64\n");
  fprintf (f,
           "\tpushq\t%%" CCE_IDREG "\n"
           "\t.cfi_def_cfa_offset 16\n"
           "\t.cfi_offset %%" CCE_IDREG ", -16\n"
           "\tmovq\t%%fs:" CCE_SYM_TLS "@tpoff+%u, %%" CCE_IDREG "\n"
           "\tpushq\t%%" CCE_IDREG "\n"
           "\t.cfi_def_cfa_offset 24\n"
           "\tsubq\t$8, %%rsp\n"
           "\t.cfi_def_cfa_offset 32\n"
           "\tcall\t%s\n"
           "\tmovq\t8(%%rsp), %%rcx\n"
           "\tmovq\t%%rcx, %%fs:" CCE_SYM_TLS "@tpoff+%u\n"
           "\taddq\t$16, %%rsp\n"
           "\t.cfi_def_cfa_offset 16\n"
           "\tpopq\t%%" CCE_IDREG "\n"
           "\t.cfi_restore %%" CCE_IDREG "\n"
           "\t.cfi_def_cfa_offset 8\n"
           "\tret\n"
           "\t.cfi_endproc\n"
           "\t.size\t%s, .-%s\n"
           "\t.popsection\n", id, body.c_str (), id, s, s);
}

void
make_stubs (const collector &c)
{
  stub_of.clear ();
  struct made
  {
    std::string sym, body;
    tree stub;
  };
  std::vector<made> out;
  for (const auto &n : c.nodes)
    {
      if (!cce_stubbed_p (n.second))
        continue;
      tree decl = n.first->decl;
      std::string sym = asm_symbol (decl);
      std::string body = sym + ".cce";

      /* The stub: the function's old symbol, defined by the asm below.
         A copy of the declaration, which passes such as devirtualization
         may look at as at the function's (its class, virtual...), but
         without a body.  */
      tree stub = copy_node (decl);
      DECL_EXTERNAL (stub) = 1;
      DECL_ARTIFICIAL (stub) = 1;
      TREE_USED (stub) = 1;
      DECL_STRUCT_FUNCTION (stub) = NULL;
      DECL_SAVED_TREE (stub) = NULL_TREE;
      DECL_INITIAL (stub) = NULL_TREE;
      DECL_ARGUMENTS (stub) = NULL_TREE;
      DECL_RESULT (stub) = NULL_TREE;
      DECL_ABSTRACT_ORIGIN (stub) = NULL_TREE;
      DECL_FUNCTION_SPECIFIC_TARGET (stub) = NULL_TREE;
      DECL_FUNCTION_SPECIFIC_OPTIMIZATION (stub) = NULL_TREE;
      SET_DECL_RTL (stub, NULL_RTX);

      /* The body: renamed, and hidden from other modules.  */
      tree old = DECL_ASSEMBLER_NAME (decl);
      symtab->change_decl_assembler_name (decl, get_identifier (body.c_str ()));
      if (DECL_RTL_SET_P (decl))
        SET_DECL_RTL (decl, NULL_RTX);
      if (TREE_PUBLIC (decl))
        {
          DECL_VISIBILITY (decl) = VISIBILITY_HIDDEN;
          DECL_VISIBILITY_SPECIFIED (decl) = 1;
        }
      n.first->force_output = 1;
      SET_DECL_ASSEMBLER_NAME (stub, old);
      cgraph_node::get_create (stub);
      stub_of[decl] = stub;
      out.push_back ({ sym, body, stub });
    }
  if (out.empty ())
    return;
  redirect_addresses ();
  for (const made &m : out)
    emit_stub (asm_out_file, m.sym, m.body, m.stub);
}
