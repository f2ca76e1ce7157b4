/* instrument.cc -- the cce plugin: the runtime's declarations and the
   code put around each kind of call site (cce-abi.h).  */

#include "cce-plugin.h"

/* ------------------------------------------------------------------ */
/* Declarations of the runtime ABI (cce-abi.h), built once per lto1.  */

/* The runtime's declarations, built once per lto1: trees kept across
   passes, so a root of GCC's garbage collector (cce_ggc_roots).  */
tree cce_rt[CCE_RT_MAX];

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
void
build_runtime_decls (bool shared, bool define)
{
  tree u64 = long_long_unsigned_type_node;
  tree type = build_array_type_nelts (u64, CCE_TLS_WORDS);

  cce_rt[CCE_RT_TLS] = build_decl (UNKNOWN_LOCATION, VAR_DECL,
                         get_identifier (CCE_SYM_TLS), type);
  TREE_PUBLIC (cce_rt[CCE_RT_TLS]) = 1;
  DECL_ARTIFICIAL (cce_rt[CCE_RT_TLS]) = 1;
  TREE_ADDRESSABLE (cce_rt[CCE_RT_TLS]) = 1;
  if (!shared && !define)
    {
      /* Another LTRANS partition of the executable defines the block
         (cce_primary_partition_p); the linker resolves this one's
         references to it, still at a fixed offset from the thread
         pointer.  */
      DECL_EXTERNAL (cce_rt[CCE_RT_TLS]) = 1;
      TREE_STATIC (cce_rt[CCE_RT_TLS]) = 0;
      set_decl_tls_model (cce_rt[CCE_RT_TLS], TLS_MODEL_LOCAL_EXEC);
      varpool_node::get_create (cce_rt[CCE_RT_TLS]);
    }
  else if (shared)
    {
      /* A shared object refers to the block through its GOT
         (initial-exec): libcce, loaded at start-up, defines it, or the
         executable does when it was built with cce.  */
      DECL_EXTERNAL (cce_rt[CCE_RT_TLS]) = 1;
      TREE_STATIC (cce_rt[CCE_RT_TLS]) = 0;
      set_decl_tls_model (cce_rt[CCE_RT_TLS], TLS_MODEL_INITIAL_EXEC);
      varpool_node::get_create (cce_rt[CCE_RT_TLS]);
    }
  else
    {
      /* An executable defines the block itself and reaches it at a fixed
         offset from the thread pointer (local-exec): no GOT load, and no
         register to hold its address.  The linker exports the definition,
         since libcce defines the same symbol, and the dynamic linker binds
         libcce's and every shared object's references to it (cce-abi.h,
         CCE_SYM_TLS).  */
      DECL_EXTERNAL (cce_rt[CCE_RT_TLS]) = 0;
      TREE_STATIC (cce_rt[CCE_RT_TLS]) = 1;
      TREE_USED (cce_rt[CCE_RT_TLS]) = 1;
      DECL_PRESERVE_P (cce_rt[CCE_RT_TLS]) = 1;
      SET_DECL_ALIGN (cce_rt[CCE_RT_TLS], CCE_TLS_WORDS * 64);
      DECL_USER_ALIGN (cce_rt[CCE_RT_TLS]) = 1;
      set_decl_tls_model (cce_rt[CCE_RT_TLS], TLS_MODEL_LOCAL_EXEC);
      varpool_node::finalize_decl (cce_rt[CCE_RT_TLS]);
      /* Even where no function of this partition refers to it.  */
      varpool_node::get (cce_rt[CCE_RT_TLS])->force_output = 1;
    }

  cce_rt[CCE_RT_GROW] = build_runtime_fn (CCE_SYM_GROW,
                                build_function_type_list (u64, u64,
                                                          NULL_TREE));
  tree push_type = build_function_type_list (void_type_node, u64, u64, u64,
                                             NULL_TREE);
  cce_rt[CCE_RT_PUSH] = build_runtime_fn (CCE_SYM_PUSH, push_type);
  cce_rt[CCE_RT_PUSH_COUNTED] = build_runtime_fn (CCE_SYM_PUSH_COUNTED, push_type);
  cce_rt[CCE_RT_POP] = build_runtime_fn (CCE_SYM_POP,
                               build_function_type_list (void_type_node, u64,
                                                         NULL_TREE));
  cce_rt[CCE_RT_LOG_AT] = build_runtime_fn (CCE_SYM_LOG_AT,
                                  build_function_type_list (void_type_node,
                                                            unsigned_type_node,
                                                            u64, NULL_TREE));
  cce_rt[CCE_RT_COUNT_AT] = build_runtime_fn (CCE_SYM_COUNT_AT,
                                  build_function_type_list (void_type_node,
                                                            unsigned_type_node,
                                                            u64, u64,
                                                            NULL_TREE));
  cce_rt[CCE_RT_LOG_ID] = build_runtime_fn (CCE_SYM_LOG_ID,
                                  build_function_type_list (void_type_node,
                                                            unsigned_type_node,
                                                            u64, u64,
                                                            NULL_TREE));
  cce_rt[CCE_RT_COUNT_ID] = build_runtime_fn (CCE_SYM_COUNT_ID,
                                  build_function_type_list (void_type_node,
                                                            unsigned_type_node,
                                                            u64, u64, u64,
                                                            NULL_TREE));
  if (cce_opts.idreg)
    {
      /* A global register variable: GCC allocates the register to
         nothing else, takes every call for a use and a change of it, and
         never deletes a store of it.  */
      tree reg = build_decl (UNKNOWN_LOCATION, VAR_DECL,
                             get_identifier ("__cce_idreg"), u64);
      DECL_REGISTER (reg) = 1;
      DECL_HARD_REGISTER (reg) = 1;
      TREE_STATIC (reg) = 1;
      TREE_USED (reg) = 1;
      DECL_ARTIFICIAL (reg) = 1;
      set_user_assembler_name (reg, CCE_IDREG);
      make_decl_rtl (reg);
      cce_rt[CCE_RT_IDREG] = reg;
    }
}

/* A cold-path call of the runtime's register-keeping entry point NAME
   (cce-abi.h, __cce_*_keep): an asm that runs SETUP (instructions with
   constant operands, or "") and jumps to NAME through the GOT (no lazy
   PLT binding in between) with the return address in r11, with IN (if
   any) in rdi and the result (if OUT) in rax, clobbering memory, the
   flags, r10 and r11 only.  The constants are in the template, not
   operands, so that GCC does not keep them in registers across the hot
   path.  GCC does not see the transfer, so the function may be a leaf
   that keeps data in the red zone below its stack pointer (when the
   instrumented call is expanded inline, as __builtin_setjmp is, or
   deleted after this pass), and its CFA may be rsp- or rbp-based: the
   asm's own instructions move neither rsp nor rbp and store nothing, so
   that the function's call frame information holds at each of them, and
   the entry point steps over the red zone itself.  */
static gimple *
keep_call (const char *name, const std::string &setup, tree in, tree out,
           bool sets_idreg = false)
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
  static const char *const clob[] = { "memory", "r10", "r11", CCE_IDREG };
  for (size_t i = 0; i < (sets_idreg ? 4 : 3); i++)
    vec_safe_push (clobbers, build_tree_list (NULL_TREE,
                                              build_string (strlen (clob[i]),
                                                            clob[i])));
  std::string text = setup + "leaq 1f(%%rip), %%r11\n\tjmp *" + name
                     + "@GOTPCREL(%%rip)\n1:";
  gasm *a = gimple_build_asm_vec (ggc_strdup (text.c_str ()), inputs,
                                  outputs, clobbers, NULL);
  gimple_asm_set_volatile (a, true);
  if (out)
    SSA_NAME_DEF_STMT (out) = a;
  return a;
}

/* Is K a factor that an x86-64 lea applies to a register (the index
   scale K - 1 added to the base)?  */
static bool
lea_factor_p (uint64_t k)
{
  return k == 2 || k == 3 || k == 5 || k == 9;
}

/* The cold push of a folded site: __cce_push (ID, WORD, ENTRY).  The
   keeping push takes WORD and ENTRY from a pair of words in .rodata whose
   address is in r10; REG: its callee takes its id in the register, which
   the push sets (__cce_push_keep_reg).  */
static gimple *
cold_push (tree id, uint64_t word, uint64_t entry, bool reg)
{
  tree u64 = long_long_unsigned_type_node;
  if (cce_opts.count || !cce_opts.keep)
    return gimple_build_call (cce_opts.count ? cce_rt[CCE_RT_PUSH_COUNTED] : cce_rt[CCE_RT_PUSH], 3,
                              id, build_int_cst (u64, word),
                              build_int_cst (u64, entry));
  char setup[160];
  snprintf (setup, sizeof setup,
            "leaq 2f(%%%%rip), %%%%r10\n\t"
            ".pushsection .rodata\n\t.p2align 3\n"
            "2:\t.quad %#" PRIx64 ", %#" PRIx64 "\n\t.popsection\n\t",
            word, entry);
  return keep_call (reg ? CCE_SYM_PUSH_KEEP_REG : CCE_SYM_PUSH_KEEP, setup,
                    id, NULL_TREE, reg);
}

/* The cold pop of a folded site: __cce_pop (ID); with the keeping entry
   points, the pop that takes the id from the entry its push wrote, so
   that ID need not live across the call; REG: back into the register,
   where the function keeps its id (__cce_pop_entry_keep_reg).  */
static gimple *
cold_pop (tree id, bool reg)
{
  if (!cce_opts.keep)
    return gimple_build_call (cce_rt[CCE_RT_POP], 1, id);
  return keep_call (reg ? CCE_SYM_POP_ENTRY_KEEP_REG : CCE_SYM_POP_ENTRY_KEEP,
                    "", NULL_TREE, NULL_TREE, reg);
}

/* The cold grow of an inline push: GROWN = __cce_grow (TOP).  */
static gimple *
cold_grow (tree top, tree grown)
{
  if (!cce_opts.keep)
    {
      gcall *g = gimple_build_call (cce_rt[CCE_RT_GROW], 1, top);
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

/* A reference to word K of the TLS block, volatile if VOLATILE_P.  */
static tree
tls_ref (unsigned k, bool volatile_p)
{
  return word_ref (build_fold_addr_expr (cce_rt[CCE_RT_TLS]), 8 * k,
                   volatile_p);
}

/* Where the function's own id is (cce-abi.h): the register with idreg,
   else the TLS word (volatile if VOLATILE_P).  */
static tree
own_id_ref (bool volatile_p)
{
  return cce_opts.idreg ? cce_rt[CCE_RT_IDREG]
                        : tls_ref (CCE_TLS_ID, volatile_p);
}

/* The store of VALUE to the id at DEST (own_id_ref, callee_id_ref).
   Under async a store of the register is an asm (CCE_ASM_IDREG) that
   clobbers it: GCC deletes a store of a register that the next store
   overwrites before anything it knows of reads it (a restore before the
   next call's store), which the PC map must find where it was put.  */
static gimple *
id_store (tree dest, tree value)
{
  if (dest != cce_rt[CCE_RT_IDREG] || !cce_opts.async)
    return gimple_build_assign (dest, value);
  vec<tree, va_gc> *inputs = NULL, *clobbers = NULL;
  auto input = [&] (const char *constraint, tree v) {
    vec_safe_push (inputs,
                   build_tree_list (build_tree_list (NULL_TREE,
                                                     build_string
                                                     (strlen (constraint),
                                                      constraint)), v));
  };
  /* An id plus an addition value that fits an immediate: one lea.  */
  const char *text = CCE_ASM_IDREG;
  gimple *def = TREE_CODE (value) == SSA_NAME ? SSA_NAME_DEF_STMT (value)
                                              : NULL;
  if (def && is_gimple_assign (def)
      && gimple_assign_rhs_code (def) == PLUS_EXPR
      && TREE_CODE (gimple_assign_rhs2 (def)) == INTEGER_CST
      && tree_fits_uhwi_p (gimple_assign_rhs2 (def))
      && tree_to_uhwi (gimple_assign_rhs2 (def)) < ((uint64_t) 1 << 31))
    {
      tree x = gimple_assign_rhs1 (def);
      gimple *mul = TREE_CODE (x) == SSA_NAME ? SSA_NAME_DEF_STMT (x) : NULL;
      uint64_t k = 0;
      if (mul && is_gimple_assign (mul)
          && gimple_assign_rhs_code (mul) == MULT_EXPR
          && TREE_CODE (gimple_assign_rhs2 (mul)) == INTEGER_CST
          && tree_fits_uhwi_p (gimple_assign_rhs2 (mul)))
        k = tree_to_uhwi (gimple_assign_rhs2 (mul));
      if (lea_factor_p (k))
        {
          /* A folded id (folded_id): one lea from the id itself.  */
          text = CCE_ASM_IDREG_SCALE;
          input ("r", gimple_assign_rhs1 (mul));
          input ("i", gimple_assign_rhs2 (def));
          input ("i", build_int_cst (long_long_unsigned_type_node, k - 1));
        }
      else
        {
          text = CCE_ASM_IDREG_ADD;
          input ("r", x);
          input ("i", gimple_assign_rhs2 (def));
        }
    }
  else
    input ("rme", value);
  vec_safe_push (clobbers, build_tree_list (NULL_TREE,
                                            build_string (strlen (CCE_IDREG),
                                                          CCE_IDREG)));
  gasm *a = gimple_build_asm_vec (text, inputs, NULL, clobbers, NULL);
  gimple_asm_set_volatile (a, true);
  return a;
}

/* The load into LHS (an SSA name) of the id from SRC (own_id_ref).
   Under async a load of the register is an asm too (CCE_ASM_IDREG_LOAD):
   GCC may move a load of a variable across an asm that stores it but
   does not say it writes memory, and keeps volatile asms in order.  */
static gimple *
id_load (tree lhs, tree src)
{
  if (src != cce_rt[CCE_RT_IDREG] || !cce_opts.async)
    return gimple_build_assign (lhs, src);
  vec<tree, va_gc> *outputs = NULL;
  vec_safe_push (outputs,
                 build_tree_list (build_tree_list (NULL_TREE,
                                                   build_string (2, "=r")),
                                  lhs));
  gasm *a = gimple_build_asm_vec (CCE_ASM_IDREG_LOAD, NULL, outputs, NULL,
                                  NULL);
  gimple_asm_set_volatile (a, true);
  SSA_NAME_DEF_STMT (lhs) = a;
  return a;
}

/* With idreg under async: the asm TEMPLATE (CCE_ASM_IDREG_PLUS or
   CCE_ASM_IDREG_MINUS) that adds AV to the register or takes it off, in
   place, as a store of the id.  */
static gimple *
id_shift (const char *templ, uint64_t av)
{
  vec<tree, va_gc> *inputs = NULL, *clobbers = NULL;
  vec_safe_push (inputs,
                 build_tree_list (build_tree_list (NULL_TREE,
                                                   build_string (2, "re")),
                                  build_int_cst (long_long_unsigned_type_node,
                                                 av)));
  vec_safe_push (clobbers, build_tree_list (NULL_TREE,
                                            build_string (strlen (CCE_IDREG),
                                                          CCE_IDREG)));
  vec_safe_push (clobbers, build_tree_list (NULL_TREE, build_string (2, "cc")));
  gasm *a = gimple_build_asm_vec (templ, inputs, NULL, clobbers, NULL);
  gimple_asm_set_volatile (a, true);
  return a;
}

/* Does node N of G take its id in the register (idreg): a node no code
   outside the program enters, or the body of one that has a stub
   (stub.cc).  */
static bool
reg_entered_p (const struct cce_graph *g, uint32_t n)
{
  return cce_opts.idreg && n != CCE_NONE
         && (!(g->nodes[n].flags & CCE_NODE_ENTRY) || cce_stubbed_p (n));
}

/* Does the callee of site SN of G take its id in the register: a call
   of a node (not a pointer, nor code outside) that takes it there.  A
   guessed target whose guess calls through the pointer enters a stub.  */
static bool
site_reg_entered_p (const struct cce_graph *g, uint32_t sn)
{
  const struct cce_site *s = &g->sites[sn];
  return (s->kind == CCE_SITE_DIRECT || s->kind == CCE_SITE_BACK)
         && reg_entered_p (g, s->target) && !cce_guess_through_pointer_p (sn);
}

/* Does the code of site SN of G change the function's own id, so that
   a restore may follow it: not with idreg where the callee takes its id
   from the TLS word, and gives the register back as it found it.  */
static bool
site_sets_own_id (const struct cce_graph *g, uint32_t sn)
{
  return !cce_opts.idreg || site_reg_entered_p (g, sn);
}

/* Does site SN of G store its callee's id where the function's own id
   is, just before its call, and restore it after (emit_direct): a direct
   call with an addition value and code, of a callee that returns with
   the id it found?  */
static bool
stored_direct_p (const struct cce_graph *g, uint32_t sn)
{
  const struct cce_site *s = &g->sites[sn];
  return s->kind == CCE_SITE_DIRECT && s->av != 0 && !s->dead
         && site_sets_own_id (g, sn) && !cce_site_clobbers (g, sn);
}

/* ... and does its call CALL return once, to the code after it?  */
static bool
stored_call_p (const struct cce_graph *g, uint32_t sn, gimple *call)
{
  return stored_direct_p (g, sn)
         && !(gimple_call_flags (call) & (ECF_RETURNS_TWICE | ECF_NORETURN));
}

/* Under async, may site SN of G (call CALL) add its addition value to
   the id in place before the call and take it off after (emit_direct:
   the register with idreg, else the TLS word), with no copy of the id:
   a stored_call_p site, whose callee takes its id where the function
   keeps its own and returns with the id it found, as every function
   does under async but one that clobbers (whose self tail calls became
   jumps: it returns with the id of its deepest level).  Under async
   every restore before such a site is kept, so the id is the
   function's own there.  The copy it saves would stay in a
   callee-saved register across the function's calls, or be spilled in
   a large one (lua5.4's lua_geti and lua_seti, jq's jq_next, sqlite3's
   sqlite3VdbeExec).  A value wider than an immediate takes a scratch
   register each way.  Not the calls of a loop that chain_loops chains
   (in_place_p).  */
static bool
rel_site_p (const struct cce_graph *g, uint32_t sn, gimple *call)
{
  uint32_t t = g->sites[sn].target;
  return cce_opts.async && call && stored_call_p (g, sn, call)
         && t < g->nnodes && !g->nodes[t].clobbers;
}

/* Where a call at site SN of G stores the id its callee starts with:
   the register for a callee that takes it there, else the TLS word
   (volatile if VOLATILE_P).  */
static tree
callee_id_ref (const struct cce_graph *g, uint32_t sn, bool volatile_p)
{
  return site_reg_entered_p (g, sn) ? cce_rt[CCE_RT_IDREG]
                                    : tls_ref (CCE_TLS_ID, volatile_p);
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

/* Drop SEQ, statements that never went into the function.  A sequence
   built with gimple_seq_add_stmt has its operands scanned already: each
   SSA name it uses (the id, say) has the statements on its list of
   immediate uses, which they must leave, or a pass that walks that list
   (VRP's update_ssa, when it puts an assertion on the id) meets a
   statement with no basic block.  */
static void
discard_seq (gimple_seq seq)
{
  for (gimple_stmt_iterator it = gsi_start (seq); !gsi_end_p (it);
       gsi_next (&it))
    delink_stmt_imm_use (gsi_stmt (it));
}

/* Insert SEQ after call STMT: right after it, or on its fall-through edge
   when the call ends its basic block.  Nothing follows a noreturn call,
   nor a call that never returns normally: there SEQ is dropped.  */
static void
insert_after_call (gimple *stmt, gimple_seq seq)
{
  if (gimple_call_noreturn_p (stmt))
    {
      discard_seq (seq);
      return;
    }
  if (!stmt_ends_bb_p (stmt))
    {
      gimple_stmt_iterator gsi = gsi_for_stmt (stmt);
      gsi_insert_seq_after (&gsi, seq, GSI_SAME_STMT);
      return;
    }
  if (edge e = normal_succ_edge (stmt))
    gsi_insert_seq_on_edge (e, seq);
  else
    discard_seq (seq);
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
   callee's segment with ENTRY, stored to DEST (callee_id_ref).  The
   call ends up in a new basic block; *GSI points at it again on return.
   Returns the first statement of the push.  */
static gimple *
insert_push (gimple_stmt_iterator *gsi, tree id, tree top, uint64_t site,
             uint64_t entry, tree dest)
{
  tree u64 = long_long_unsigned_type_node;
  gimple *call = gsi_stmt (*gsi);
  location_t loc = gimple_location (call);

  /* if (top >= T[LIMIT]) -- the grow branch, unsigned.  The load is not
     volatile, so that GCC makes it the compare's memory operand: LIMIT
     changes only inside libcce's calls (cce-abi.h).  */
  tree limit = make_ssa_name (u64);
  gimple *ldlimit = gimple_build_assign (limit, tls_ref (CCE_TLS_LIMIT,
                                                         false));
  gcond *cond = gimple_build_cond (GE_EXPR, top, limit, NULL_TREE,
                                   NULL_TREE);
  gimple_set_location (cond, loc);
  gsi_insert_before (gsi, ldlimit, GSI_SAME_STMT);
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
  gimple_seq_add_stmt (&seq, id_store (dest, build_int_cst (u64, entry)));
  for (gimple_stmt_iterator it = gsi_start (seq); !gsi_end_p (it);
       gsi_next (&it))
    gimple_set_location (gsi_stmt (it), loc);
  *gsi = gsi_for_stmt (call);
  gsi_insert_seq_before (gsi, seq, GSI_SAME_STMT);
  *gsi = gsi_for_stmt (call);
  return ldlimit;
}

/* Add to V an asm operand X with CONSTRAINT.  */
static void
asm_operand (vec<tree, va_gc> **v, const char *constraint, tree x)
{
  vec_safe_push (*v, build_tree_list (build_tree_list
                                      (NULL_TREE,
                                       build_string (strlen (constraint),
                                                     constraint)), x));
}

/* The templates of id_adjust, by [CHAIN][ADD][WIDE].  */
static const char *const adjust_templates[2][2][2] = {
  { { CCE_ASM_ADJUST ("subq", CCE_ASM_IDREG_MARK),
      CCE_ASM_ADJUST_WIDE ("subq", CCE_ASM_IDREG_MARK) },
    { CCE_ASM_ADJUST ("addq", CCE_ASM_IDREG_MARK),
      CCE_ASM_ADJUST_WIDE ("addq", CCE_ASM_IDREG_MARK) } },
  { { CCE_ASM_ADJUST ("subq", CCE_ASM_ID_CHAIN_MARK),
      CCE_ASM_ADJUST_WIDE ("subq", CCE_ASM_ID_CHAIN_MARK) },
    { CCE_ASM_ADJUST ("addq", CCE_ASM_ID_CHAIN_MARK),
      CCE_ASM_ADJUST_WIDE ("addq", CCE_ASM_ID_CHAIN_MARK) } } };

/* The id word plus V (ADD) or minus V, in place (CCE_ASM_ADJUST, one
   instruction; a value that is no 32-bit immediate goes through a
   scratch register, which the asm sets, so that GCC does not keep the
   constant in a saved register across the call); with the chain mark
   where CHAIN (merge_adjusts), the mark alone for 0.  */
static gimple *
id_adjust (bool add, uint64_t v, bool chain = false)
{
  bool wide = v >= (uint64_t) 1 << 31;
  vec<tree, va_gc> *inputs = NULL, *outputs = NULL, *clobbers = NULL;
  asm_operand (&outputs, "=m", tls_ref (CCE_TLS_ID, true));
  tree scratch = NULL_TREE;
  if (wide)
    {
      scratch = make_ssa_name (long_long_unsigned_type_node);
      asm_operand (&outputs, "=&r", scratch);
    }
  asm_operand (&inputs, "m", tls_ref (CCE_TLS_ID, true));
  asm_operand (&inputs, wide ? "i" : "e", u64_cst (v));
  vec_safe_push (clobbers, build_tree_list (NULL_TREE, build_string (2, "cc")));
  const char *templ = chain && v == 0 ? CCE_ASM_ID_CHAIN_MARK
                      : adjust_templates[chain][add][wide];
  gasm *a = gimple_build_asm_vec (templ, inputs, outputs, clobbers, NULL);
  gimple_asm_set_volatile (a, true);
  if (scratch)
    SSA_NAME_DEF_STMT (scratch) = a;
  return a;
}

/* The restore of the id word as ID - SUB, from the word itself.  */
static gimple *
id_sub (uint64_t sub)
{
  return id_adjust (false, sub);
}

/* Is guess Q a branch of its indirect call's code?  Not where its edge
   became a back edge (it closes a recursion through the pointer).  */
static bool
guess_used (const struct cce_graph *g, const guess &q)
{
  return g->sites[q.site].kind == CCE_SITE_DIRECT;
}

/* Under async, do the guesses of the indirect call CALL each get a call
   of their own (insert_guesses: the call does not end its block) that
   adds its value to the id word in place (not with idreg)?  Then only
   the push reads the id and the top (mark_local_sites).  */
static bool
guesses_in_place_p (gcall *call)
{
  return cce_opts.async && !cce_opts.idreg && !stmt_ends_bb_p (call);
}

/* Would CALL, made a direct call of FNDECL, be dead code: no value,
   no side effect, no exception (what GCC's DCE deletes)?  */
static bool
dead_call_p (gcall *call, tree fndecl)
{
  int flags = flags_from_decl_or_type (fndecl);
  return !gimple_call_lhs (call) && (flags & (ECF_CONST | ECF_PURE))
         && !(flags & ECF_LOOPING_CONST_OR_PURE) && TREE_NOTHROW (fndecl);
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
   call needs no restore at all, and GCC may make it a tail call.  Under
   async every guess has its call, and adds its value to the id word in
   place before it and takes it off after, as a direct call does
   (in_place_p), so that only the push reads the id (mark_local_sites).
   Elsewhere the guesses only store and fall through to the one call and
   its restores (the top's restore writes back the value the callee
   kept): a copy that restores the id measured no better.  PIN: the
   stores of the id are volatile (pin_stores_p).  Returns the number of
   guesses taken.  */
static unsigned
insert_guesses (const struct cce_graph *g, const site_info &si,
                gimple *first, tree id, bool restore_id, bool pin)
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
  /* Own copies: the join after the call, and a PHI there for its value.
     Under async always (guesses_taken_p), each copy followed by the
     restore of the id where its guess stored one: every path then
     reaches the join with the function's own id and top.  */
  bool copies = !restore_id || cce_opts.async;
  /* A guess of a function with a stub calls its body, with the id in the
     register (where the call can throw, site_reg_entered_p is false: the
     guess enters the stub through the pointer).  */
  for (const guess *q : use)
    copies |= site_reg_entered_p (g, q->site);
  copies &= !stmt_ends_bb_p (call);
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

  /* The pointer called: a virtual call's is the OBJ_TYPE_REF's.  */
  tree callee = gimple_call_fn (call);
  if (TREE_CODE (callee) == OBJ_TYPE_REF)
    callee = OBJ_TYPE_REF_EXPR (callee);
  tree fn = make_ssa_name (u64);
  gimple *conv = gimple_build_assign (fn, NOP_EXPR, callee);
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
      /* A copy that calls a function with no side effects, for nothing
         (sqlite3's mutex functions that do nothing, where it is built
         without threads), is left out, with its code: GCC would delete
         the call and leave the code to change the id around nothing.  */
      bool dead = copies && dead_call_p (call, use[k]->node->decl);
      bool stored = !s->dead && s->av != 0 && !dead;
      /* Under async the guess's own call adds its value in place, as a
         direct call does (in_place_p): a guessed callee is an entry
         function, which returns with the id it found.  */
      bool in_place = stored && guesses_in_place_p (call);
      if (in_place)
        gsi_insert_after (&hg, id_adjust (true, s->av), GSI_NEW_STMT);
      else if (stored)
        {
          tree sum = make_ssa_name (u64);
          gimple *add = gimple_build_assign (sum, PLUS_EXPR, id,
                                             u64_cst (s->av));
          gimple *st = id_store (callee_id_ref (g, use[k]->site, pin),
                                 sum);
          gimple_set_location (add, loc);
          gimple_set_location (st, loc);
          gsi_insert_after (&hg, add, GSI_NEW_STMT);
          gsi_insert_after (&hg, st, GSI_NEW_STMT);
        }
      if (copies && !dead)
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
          if (stored && restore_id && site_sets_own_id (g, use[k]->site))
            {
              gimple *back = in_place ? id_sub (s->av)
                                      : id_store (own_id_ref (pin), id);
              gimple_set_location (back, loc);
              gsi_insert_after (&hg, back, GSI_NEW_STMT);
            }
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

/* The constant V for the code in SEQ of a folded site: an immediate
   operand where it fits one (x86-64 sign-extends 32 bits) or where
   PLAIN, else a volatile asm's movabs, which GCC neither hoists out of a
   loop nor moves above a call.  A hoisted constant, or a sum computed
   early with it, takes a callee-saved register, saved and restored at
   every entry of the function, also on the paths that never reach the
   site (jq's jvp_array_free frees its elements in a loop only when the
   last reference goes; fib's pong computed its second call's id before
   its first call).  The sum's addend is never plain; the fold limit is
   plain outside loops, so that GCC knows that two sites of one callee
   with the same id take the same branch, and compares once.  */
static tree
fold_cst (gimple_seq *seq, uint64_t v, bool plain)
{
  if (v < ((uint64_t) 1 << 31) || plain)
    return u64_cst (v);
  tree u64 = long_long_unsigned_type_node;
  tree x = make_ssa_name (u64);
  vec<tree, va_gc> *inputs = NULL, *outputs = NULL;
  asm_operand (&outputs, "=r", x);
  asm_operand (&inputs, "i", u64_cst (v));
  gasm *a = gimple_build_asm_vec (CCE_ASM_FOLD_CONST, inputs, outputs,
                                  NULL, NULL);
  gimple_asm_set_volatile (a, true);
  SSA_NAME_DEF_STMT (x) = a;
  gimple_seq_add_stmt (seq, a);
  return x;
}

/* Append to SEQ the computation of ID * K + ADD, a folded site's id (K
   above 1), and return it.  The folded sites of a function all multiply
   its id by the same factor: computed plainly, GCC would multiply once,
   ahead of the first site, and keep the product in a callee-saved
   register across the calls in between (one more register saved and
   restored on every entry of the function, the leaf paths included),
   where each site's own multiply-add from the id, which the function
   keeps anyway, is one instruction.  So GCC does not see the product:
   with a factor and a value an lea can take, the whole value is one asm
   (or, where STORE_ASM, the asm that stores it into the register,
   id_store, takes the multiply-add apart itself); else the product is
   of a copy of the id that an empty asm makes.  Both asms are volatile,
   so that GCC does not hoist them out of a loop either, into registers
   saved on every entry (jq's block_count_refs, whose two folded sites
   are in a loop, would keep both values).  */
static tree
folded_id (gimple_seq *seq, tree id, uint64_t k, uint64_t add,
           bool store_asm)
{
  tree u64 = long_long_unsigned_type_node;
  tree fid = make_ssa_name (u64);
  vec<tree, va_gc> *inputs = NULL, *outputs = NULL;
  bool lea = lea_factor_p (k) && add < ((uint64_t) 1 << 31);
  if (lea && !store_asm)
    {
      asm_operand (&outputs, "=r", fid);
      asm_operand (&inputs, "r", id);
      asm_operand (&inputs, "i", u64_cst (add));
      asm_operand (&inputs, "i", u64_cst (k - 1));
      gasm *a = gimple_build_asm_vec (CCE_ASM_FOLD_LEA, inputs,
                                      outputs, NULL, NULL);
      gimple_asm_set_volatile (a, true);
      SSA_NAME_DEF_STMT (fid) = a;
      gimple_seq_add_stmt (seq, a);
      return fid;
    }
  tree x = id;
  if (!lea)
    {
      x = make_ssa_name (u64);
      asm_operand (&outputs, "=r", x);
      asm_operand (&inputs, "0", id);
      gasm *a = gimple_build_asm_vec (CCE_ASM_FOLD_COPY, inputs, outputs,
                                      NULL, NULL);
      gimple_asm_set_volatile (a, true);
      SSA_NAME_DEF_STMT (x) = a;
      gimple_seq_add_stmt (seq, a);
    }
  tree scaled = make_ssa_name (u64);
  gimple_seq_add_stmt (seq, gimple_build_assign (scaled, MULT_EXPR, x,
                                                 u64_cst (k)));
  tree addend = fold_cst (seq, add, false);
  gimple_seq_add_stmt (seq, gimple_build_assign (fid, PLUS_EXPR, scaled,
                                                 addend));
  return fid;
}

/* Append to SEQ the test ID >= LIM of a folded site at LOC, in a loop
   if IN_LOOP (fold_cst), and return it.  */
static gcond *
limit_test (gimple_seq *seq, tree id, uint64_t lim, bool in_loop,
            location_t loc)
{
  tree bound = fold_cst (seq, lim, !in_loop);
  gcond *cond = gimple_build_cond (GE_EXPR, id, bound, NULL_TREE, NULL_TREE);
  gimple_seq_add_stmt (seq, cond);
  for (gimple_stmt_iterator it = gsi_start (*seq); !gsi_end_p (it);
       gsi_next (&it))
    gimple_set_location (gsi_stmt (it), loc);
  return cond;
}

/* Around the call STMT of back site SN folded into the id (cce-abi.h):
   the callee's id from ID before it, and on the cold path, where ID has
   reached the callee's fold limit, an out-of-line push before and pop
   after.  The restore of the id, if any, is left to the caller.  PIN:
   the store of the id is volatile (pin_stores_p).  */
static void
insert_fold (const struct cce_graph *g, uint32_t sn, uint64_t word,
             gcall *call, tree id, bool pin)
{
  tree u64 = long_long_unsigned_type_node;
  const struct cce_site *s = &g->sites[sn];
  const struct cce_node *t = &g->nodes[s->target];
  location_t loc = gimple_location (call);

  /* T[ID] = ID * NFOLD + (NUMCC + FOLD): computed even above the limit,
     where it wraps and the push overwrites it.  */
  gimple_seq before = NULL;
  tree dest = callee_id_ref (g, sn, pin);
  uint64_t add = t->numcc + s->fold;
  bool in_loop = current_loops && bb_loop_depth (gimple_bb (call)) > 0;
  tree fid;
  if (t->nfold != 1)
    fid = folded_id (&before, id, t->nfold, add,
                     dest == cce_rt[CCE_RT_IDREG] && cce_opts.async);
  else
    {
      fid = make_ssa_name (u64);
      tree addend = fold_cst (&before, add, false);
      gimple_seq_add_stmt (&before, gimple_build_assign (fid, PLUS_EXPR, id,
                                                         addend));
    }
  gimple *store = id_store (dest, fid);
  gimple_set_location (store, loc);
  if (!cce_opts.async)
    gimple_seq_add_stmt (&before, store);
  for (gimple_stmt_iterator it = gsi_start (before); !gsi_end_p (it);
       gsi_next (&it))
    gimple_set_location (gsi_stmt (it), loc);
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_insert_seq_before (&gsi, before, GSI_SAME_STMT);

  gimple_seq lim_seq = NULL;
  gcond *cond = limit_test (&lim_seq, id, t->fold_lim, in_loop, loc);
  gsi = gsi_for_stmt (call);
  gsi_insert_seq_before (&gsi, lim_seq, GSI_SAME_STMT);
  /* Under async the hot path alone stores the folded id (folds: the call
     does not end its block): the cold path's id stays the function's
     until its push, so that every instruction of it is placeable.  */
  if (cce_opts.async)
    gsi_insert_before (&gsi, store, GSI_SAME_STMT);
  bool reg = site_reg_entered_p (g, sn);
  gimple *push = cold_push (id, word, cce_site_entry (g, sn), reg);
  gimple_set_location (push, loc);
  /* The plain push stores the callee's segment start in the TLS word; a
     callee that takes its id in the register takes it there too.  */
  gimple *entry_reg = NULL;
  if (reg && (cce_opts.count || !cce_opts.keep))
    {
      entry_reg = id_store (cce_rt[CCE_RT_IDREG],
                            u64_cst (cce_site_entry (g, sn)));
      gimple_set_location (entry_reg, loc);
    }
  /* And the plain pop restores the TLS word: the register is the
     function's id again after it.  */
  gimple *own_reg = NULL;
  if (reg && !cce_opts.keep)
    {
      own_reg = id_store (cce_rt[CCE_RT_IDREG], id);
      gimple_set_location (own_reg, loc);
    }

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
      gimple *pop = cold_pop (id, reg);
      gimple_set_location (pop, loc);
      gimple_stmt_iterator cg = gsi_last_bb (cold_bb);
      if (entry_reg)
        gsi_insert_after (&cg, entry_reg, GSI_NEW_STMT);
      gsi_insert_after (&cg, copy, GSI_NEW_STMT);
      gsi_insert_after (&cg, pop, GSI_NEW_STMT);
      if (own_reg)
        gsi_insert_after (&cg, own_reg, GSI_NEW_STMT);
      return;
    }

  /* if (ID >= LIM) push (ID, SITE, ENTRY);  -- before the call.  */
  edge pushed = add_cold_branch (cond, push);
  if (entry_reg)
    {
      gimple_stmt_iterator cg = gsi_last_bb (pushed->src);
      gsi_insert_after (&cg, entry_reg, GSI_NEW_STMT);
    }

  /* if (ID >= LIM) pop (ID);  -- after it, on its fall-through edge when
     the call ends its block.  */
  lim_seq = NULL;
  cond = limit_test (&lim_seq, id, t->fold_lim, in_loop, loc);
  if (stmt_ends_bb_p (call))
    {
      edge fall = normal_succ_edge (call);
      if (!fall)
        return;     /* never returns normally: nothing to pop */
      basic_block nb = split_edge (fall);
      gsi = gsi_start_bb (nb);
      gsi_insert_seq_after (&gsi, lim_seq, GSI_NEW_STMT);
    }
  else
    {
      gsi = gsi_for_stmt (call);
      gsi_insert_seq_after (&gsi, lim_seq, GSI_NEW_STMT);
    }
  gimple *pop = cold_pop (id, reg);
  gimple_set_location (pop, loc);
  edge popped = add_cold_branch (cond, pop);
  if (own_reg)
    {
      gimple_stmt_iterator cg = gsi_last_bb (popped->src);
      gsi_insert_after (&cg, own_reg, GSI_NEW_STMT);
    }
}

/* Is site S (call STMT) a back site folded into the id that gets the
   folding code: not a noreturn call, which takes the plain push, nor a
   call that returns twice, whose second return must find the top and the
   id its function had (restored absolutely, not popped), nor under async
   a call that ends its block, whose cold path could not have a call of
   its own (insert_fold).  */
static bool
folds (const struct cce_site *s, gimple *stmt)
{
  return s->kind == CCE_SITE_BACK && s->fold != CCE_NONE && stmt
         && !gimple_call_noreturn_p (stmt)
         && !(gimple_call_flags (stmt) & ECF_RETURNS_TWICE)
         && !(cce_opts.async && stmt_ends_bb_p (stmt));
}

/* Does site S (call STMT, NULL for a trace site) of an observed node need
   code?  Not if no log site can be reached through it -- except a setjmp:
   the code after it restores the id and top of its function when
   longjmp returns there.  */
static bool
site_has_code (const struct cce_site *s, gimple *stmt)
{
  if (!s->dead)
    return true;
  return stmt && is_gimple_call (stmt)
         && (gimple_call_flags (stmt) & ECF_RETURNS_TWICE);
}

/* Does the code of site SI (call CALL, with code) compare the pointer
   with guessed targets (insert_guesses)?  Only where the push is inline,
   and only the guesses that stayed direct sites.  */
static bool
guesses_taken_p (const struct cce_graph *g, const site_info &si, gcall *call)
{
  const struct cce_site *s = &g->sites[si.site];
  /* Under async only with a call of its own per guess (insert_guesses):
     a call shared by the guesses and the push would merge their states,
     which the PC map cannot place.  */
  if (!cce_kind_on_stack (s->kind) || folds (s, call)
      || gimple_call_noreturn_p (call) || cce_opts.count
      || (cce_opts.async && stmt_ends_bb_p (call)))
    return false;
  for (const guess &q : si.guesses)
    if (guess_used (g, q))
      return true;
  return false;
}

/* What the code emitted for a site may do to the id and the top, as
   CCE_FLOW_* bits (cce-core.h): where the code has several paths, the
   union of what each may read and the intersection of what each surely
   writes, with the id in the TLS word.  Site SN, call STMT (NULL for a
   guessed target, which stands for the branch insert_guesses makes: a
   direct call of that target).  */
static uint8_t
site_effect_in_tls (const struct cce_graph *g, uint32_t sn, gcall *call)
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
    return gimple_call_noreturn_p (call) || cce_opts.count
           ? CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP
           : CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP;
  if (t->kind == CCE_SITE_DIRECT && t->av != 0)
    return CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP;
  if (cce_site_clobbers (g, sn))
    return both | CCE_FLOW_DEF_ID;
  return both;
}

/* site_effect_in_tls, with idreg: a callee that takes its id from the
   TLS word gives the register back as it found it, so its site does not
   write the id.  */
static uint8_t
site_effect_of (const struct cce_graph *g, uint32_t sn, gcall *call)
{
  uint8_t e = site_effect_in_tls (g, sn, call);
  const struct cce_site *t = &g->sites[sn];
  if (!site_sets_own_id (g, sn) && !(t->kind == CCE_SITE_DIRECT && t->av == 0))
    e &= (uint8_t) ~CCE_FLOW_DEF_ID;
  return e;
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

/* Fill SITE_OF with the call statements of SITES[FIRST .. LAST), each
   mapped to its index less FIRST.  */
static void
map_sites (const collector &c, size_t first, size_t last,
           hash_map<gimple *, unsigned> &site_of)
{
  for (size_t i = first; i < last; i++)
    if (c.sites[i].stmt)
      site_of.put (c.sites[i].stmt, (unsigned) (i - first));
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
   are no reads here.  Sets KEEP_ID and KEEP_TOP of the sites
   SITES[FIRST .. LAST) (index I - FIRST).  In cfun.  */
static void
plan_restores (collector &c, size_t first, size_t last,
               const std::vector<char> &local,
               std::vector<char> &keep_id, std::vector<char> &keep_top)
{
  struct cce_graph *g = c.g;
  basic_block bb;
  hash_map<gimple *, unsigned> site_of;
  map_sites (c, first, last, site_of);
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
    /* A site that reads the id and top where it is (mark_local_sites)
       reads both before it writes.  */
    return site_effect (g, c.sites[first + *k], call)
           | (local[*k] ? CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP : 0);
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
          keep_top[ev_site[e]] = (live[e] & CCE_FLOW_USE_TOP) != 0;
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

/* Where loads for a block BB in a loop can go, outside every loop: the
   one edge that enters BB's outermost loop from outside, when that edge
   is in no cycle and runs no more often than the entry (ENTRY_COUNT),
   else NULL.  Climbing the dominators out of the loop instead stops at
   the loop's header's dominator, which may be far above a loop that
   only a rare branch enters (jq's jvp_array_free frees its elements in
   a loop when the count drops to 0, else returns).  */
static edge
loop_entry_edge (basic_block bb, profile_count entry_count)
{
  if (!current_loops || bb_loop_depth (bb) == 0)
    return NULL;
  class loop *l = bb->loop_father;
  while (loop_depth (l) > 1)
    l = loop_outer (l);
  edge in = NULL, e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, l->header->preds)
    if (!flow_bb_inside_loop_p (l, e->src))
      {
        if (in)
          return NULL;
        in = e;
      }
  if (!in || (in->flags & (EDGE_ABNORMAL | EDGE_EH))
      || bb_loop_depth (in->src) > 0
      || !in->count ().initialized_p () || !entry_count.initialized_p ()
      || entry_count < in->count () || bb_on_cycle (in->src))
    return NULL;
  return in;
}

/* Does the code around CALL need volatile stores of the id?  Where GCC
   knows the callee as a built-in (the program's own malloc, free,
   memcpy...): GCC assumes such a call reads no memory of ours, and would
   delete our stores before it as dead.  */
static bool
pin_stores_p (gcall *call)
{
  tree callee = gimple_call_fndecl (call);
  return callee && fndecl_built_in_p (callee);
}

/* The code of one site, as its emitter builds it.  */
struct site_code
{
  const struct cce_graph *g;
  const site_info *si;
  gcall *call;
  uint32_t sn;                  /* its site */
  uint64_t word;                /* its site word (CCE_SITE_WORD) */
  tree id, top;                 /* the function's id and top (1) */
  bool restore_id, restore_top;   /* plan_restores */
  bool pin;                     /* pin_stores_p */
  gimple_stmt_iterator gsi;     /* at the call */
  gimple_seq before, after;     /* what goes before and after the call */
  gimple *restore;              /* a restore that may take SUB off the id
                                   word (subtract_restores), or NULL */
  uint64_t sub;
  bool loop_stored;             /* the loop's entry stores its id
                                   (chain_loops) */
  uint64_t scale;               /* with SUB: the word holds
                                   ID * SCALE + SUB (a folded site);
                                   0 or 1: ID + SUB */
  bool local;                   /* reads the id and top where it is
                                   (mark_local_sites) */
  bool in_place;                /* in_place_p */
  gimple *first_load;           /* of a local site: the first of its
                                   loads, or NULL */
  bool compact;                 /* its push is out of line
                                   (compact_push_p) */
};

/* Add to SEQ the store of VALUE to the function's own id (a restore),
   for the site of SC.  */
static void
store_id (const site_code &sc, gimple_seq *seq, tree value)
{
  gimple_seq_add_stmt (seq, id_store (own_id_ref (sc.pin), value));
}

/* Add to SEQ the store of VALUE to where the callee of SC takes its id
   (callee_id_ref).  */
static void
store_callee_id (const site_code &sc, gimple_seq *seq, tree value)
{
  gimple_seq_add_stmt (seq, id_store (callee_id_ref (sc.g, sc.sn, sc.pin),
                                      value));
}

/* Add to SEQ the sum ID + AV; returns it.  */
static tree
id_plus (gimple_seq *seq, tree id, uint64_t av)
{
  tree sum = make_ssa_name (long_long_unsigned_type_node);
  gimple_seq_add_stmt (seq, gimple_build_assign (sum, PLUS_EXPR, id,
                                                 u64_cst (av)));
  return sum;
}

/* Does the callee of direct or folded site SN of G return with the id
   it found, in the TLS word (the id's word without idreg)?  */
static bool
returns_id_p (const struct cce_graph *g, uint32_t sn)
{
  uint32_t t = g->sites[sn].target;
  return !cce_opts.idreg && t < g->nnodes && !g->nodes[t].clobbers;
}

/* SC's restore, the last statement of its AFTER, stores ID where the id
   word holds ID * SCALE + SUB when its call returns (returns_id_p; SCALE
   above 1 after a folded site): note it for subtract_restores.  */
static void
note_restore (site_code &sc, uint64_t sub, uint64_t scale = 1)
{
  sc.restore = gimple_seq_last_stmt (sc.after);
  sc.sub = sub;
  sc.scale = scale;
}

/* (2) A direct call with addition value 0: no code, but for the restore
   after a function that clobbers the id, where it is read again.
   (3) Any other direct call: store id + av before, id after; under
   async (in_place_p) the id word += av before and -= av after, or r15
   with idreg.  */
static bool
emit_direct (site_code &sc)
{
  const struct cce_site *s = &sc.g->sites[sc.sn];
  if (s->av == 0)
    {
      if (!sc.restore_id || !cce_site_clobbers (sc.g, sc.sn))
        return false;
      store_id (sc, &sc.after, sc.id);
      return true;
    }
  if (sc.in_place)
    {
      gimple_seq_add_stmt (&sc.before,
                           cce_opts.idreg ? id_shift (CCE_ASM_IDREG_PLUS,
                                                      s->av)
                                          : id_adjust (true, s->av));
      if (sc.restore_id)
        gimple_seq_add_stmt (&sc.after,
                             cce_opts.idreg ? id_shift (CCE_ASM_IDREG_MINUS,
                                                        s->av)
                                            : id_sub (s->av));
      return true;
    }
  if (!sc.loop_stored)
    store_callee_id (sc, &sc.before, id_plus (&sc.before, sc.id, s->av));
  if (sc.restore_id && site_sets_own_id (sc.g, sc.sn))
    {
      store_id (sc, &sc.after, sc.id);
      if (returns_id_p (sc.g, sc.sn))
        note_restore (sc, s->av);
    }
  return true;
}

/* (4a) A back edge of recursion folded into the id: stores only, and a
   push and pop out of line where the id has reached the limit.  */
static bool
emit_folded (site_code &sc)
{
  insert_fold (sc.g, sc.sn, sc.word, sc.call, sc.id, sc.pin);
  if (sc.restore_id && site_sets_own_id (sc.g, sc.sn))
    {
      store_id (sc, &sc.after, sc.id);
      /* Under async the restore is on the hot path alone, after the
         call that the folded id was stored for (insert_fold).  */
      const struct cce_site *s = &sc.g->sites[sc.sn];
      const struct cce_node *t = &sc.g->nodes[s->target];
      if (cce_opts.async && returns_id_p (sc.g, sc.sn))
        note_restore (sc, t->numcc + s->fold, t->nfold);
    }
  sc.gsi = gsi_for_stmt (sc.call);
  return true;
}

/* Add to SEQ, after a call that pushed, what the push's entry says: the
   top it was pushed on into *TOP, and the id it carries into *ID (unless
   ID is NULL).  The callee returns with the top it found, the one above
   the entry (every function restores the top before it returns, and
   entry points do for code outside the program), so nothing of the
   function needs to stay live across the call: a site that reads the id
   and top where it is (mark_local_sites), in a cold branch, then keeps
   no copy of either in a callee-saved register, which the function
   would save and restore on its hot path too.  */
static void
pop_operands (gimple_seq *seq, tree *id, tree *top)
{
  tree u64 = long_long_unsigned_type_node;
  tree above = make_ssa_name (u64);
  gimple_seq_add_stmt (seq, gimple_build_assign (above,
                                                 tls_ref (CCE_TLS_TOP,
                                                          true)));
  *top = make_ssa_name (u64);
  gimple_seq_add_stmt (seq, gimple_build_assign (*top, MINUS_EXPR, above,
                                                 build_int_cst (u64, 16)));
  if (!id)
    return;
  tree addr = make_ssa_name (build_pointer_type (u64));
  gimple_seq_add_stmt (seq, gimple_build_assign (addr, NOP_EXPR, *top));
  *id = make_ssa_name (u64);
  gimple_seq_add_stmt (seq, gimple_build_assign (*id, word_ref (addr, 0,
                                                                true)));
}

/* (4) Carry the context on the ccStack: an indirect call (its guessed
   targets first), a call out of the module, a back edge, an overflow
   cut.  A noreturn call runs at most once per call chain: it gets the
   out-of-line push, and no new blocks (with them, GCC 12's VRP crashes on
   blocks that end in a noreturn call), and nothing after it.  */
static bool
emit_stack (site_code &sc)
{
  gcall *call = sc.call;
  /* A push in a block that GCC optimizes for size: the keeping push
     and the pop that takes the id and the top back from its entry, both
     out of line (compact_push_p).  */
  if (sc.compact)
    {
      gimple_seq_add_stmt (&sc.before,
                           cold_push (sc.id, sc.word,
                                      cce_site_entry (sc.g, sc.sn), false));
      gimple_seq_add_stmt (&sc.after, cold_pop (sc.id, false));
      return true;
    }
  if (gimple_call_noreturn_p (call) || cce_opts.count)
    {
      gimple *p = gimple_build_call (cce_opts.count ? cce_rt[CCE_RT_PUSH_COUNTED]
                                     : cce_rt[CCE_RT_PUSH], 3, sc.id,
                                     u64_cst (sc.word),
                                     u64_cst (cce_site_entry (sc.g, sc.sn)));
      gimple_set_location (p, gimple_location (call));
      /* The push stores the callee's id in the TLS word; a callee that
         takes it in the register takes it there, stored first, so that
         the PC map never finds the function's push on top with another
         id than the function's in between (it is UNKNOWN there).  */
      if (site_reg_entered_p (sc.g, sc.sn))
        {
          gimple *r = id_store (cce_rt[CCE_RT_IDREG],
                                u64_cst (cce_site_entry (sc.g, sc.sn)));
          gimple_set_location (r, gimple_location (call));
          gsi_insert_before (&sc.gsi, r, GSI_SAME_STMT);
        }
      gsi_insert_before (&sc.gsi, p, GSI_SAME_STMT);
      if (gimple_call_noreturn_p (call))
        return false;
    }
  else
    {
      gimple *first_push = insert_push (&sc.gsi, sc.id, sc.top, sc.word,
                                        cce_site_entry (sc.g, sc.sn),
                                        callee_id_ref (sc.g, sc.sn, sc.pin));
      /* A local site's loads are the push's, after the compares.  */
      if (guesses_taken_p (sc.g, *sc.si, call)
          && insert_guesses (sc.g, *sc.si,
                             sc.first_load ? sc.first_load : first_push,
                             sc.id, sc.restore_id, sc.pin))
        sc.gsi = gsi_for_stmt (call);
    }
  tree id = sc.id, top = sc.top;
  if (sc.local && !cce_opts.idreg && (sc.restore_id || sc.restore_top))
    pop_operands (&sc.after, sc.restore_id ? &id : NULL, &top);
  /* Under async the id first: in between, the id is the function's
     and the top entry still its push (CCE_PC_POPPING); the other way
     round the id would be lost for an instruction.  */
  if (sc.restore_id && cce_opts.async)
    store_id (sc, &sc.after, id);
  if (sc.restore_top)
    gimple_seq_add_stmt (&sc.after,
                         gimple_build_assign (tls_ref (CCE_TLS_TOP, true),
                                              top));
  if (sc.restore_id && !cce_opts.async && site_sets_own_id (sc.g, sc.sn))
    store_id (sc, &sc.after, id);
  return true;
}

/* The argument I of CALL converted to TYPE (0 if CALL has none), with
   the conversion put before SC's call.  */
static tree
log_arg (site_code &sc, gcall *call, unsigned i, tree type)
{
  tree a = gimple_call_num_args (call) > i ? gimple_call_arg (call, i)
                                           : build_int_cst (type, 0);
  if (!useless_type_conversion_p (type, TREE_TYPE (a)))
    {
      tree t = make_ssa_name (type);
      gsi_insert_before (&sc.gsi, gimple_build_assign (t, NOP_EXPR, a),
                         GSI_SAME_STMT);
      a = t;
    }
  return a;
}

/* The value of the id's register, read into an SSA name by a statement
   added to SEQ, at LOC.  */
static tree
read_idreg (gimple_seq *seq, location_t loc)
{
  tree v = make_ssa_name (long_long_unsigned_type_node);
  gimple *rd = id_load (v, cce_rt[CCE_RT_IDREG]);
  gimple_set_location (rd, loc);
  gimple_seq_add_stmt (seq, rd);
  return v;
}

/* The call that logs TAG (with VALUE, if not NULL: cce_count) at the
   site of site word WORD: __cce_log_at or __cce_count_at, or with idreg
   __cce_log_id or __cce_count_id with the register read by a statement
   added to PRE (at LOC).  */
static gcall *
log_call (tree tag, tree value, uint64_t word, gimple_seq *pre,
          location_t loc)
{
  if (value && cce_opts.idreg)
    return gimple_build_call (cce_rt[CCE_RT_COUNT_ID], 4, tag, value,
                              u64_cst (word), read_idreg (pre, loc));
  if (value)
    return gimple_build_call (cce_rt[CCE_RT_COUNT_AT], 3, tag, value,
                              u64_cst (word));
  if (cce_opts.idreg)
    return gimple_build_call (cce_rt[CCE_RT_LOG_ID], 3, tag, u64_cst (word),
                              read_idreg (pre, loc));
  return gimple_build_call (cce_rt[CCE_RT_LOG_AT], 2, tag, u64_cst (word));
}

/* (5) A log site: cce_log (TAG) becomes __cce_log_at (TAG, WORD), and
   cce_count (TAG, VALUE) __cce_count_at (TAG, VALUE, WORD), which tell
   the runtime which site it is (with idreg __cce_log_id and
   __cce_count_id, which take the id too).  Where the program declared the function
   to return a value and uses it (autoconf's probe of cce_log does), the
   value is 0.  Nothing else goes before or after.  */
static bool
emit_log (site_code &sc)
{
  gcall *call = sc.call;
  tree lhs = gimple_call_lhs (call);
  tree fndecl = gimple_call_fndecl (call);
  bool count = fndecl && DECL_NAME (fndecl)
               && strcmp (IDENTIFIER_POINTER (DECL_NAME (fndecl)),
                          CCE_SYM_COUNT) == 0;
  tree tag = log_arg (sc, call, 0, unsigned_type_node);
  tree value = count ? log_arg (sc, call, 1, long_long_unsigned_type_node)
                     : NULL_TREE;
  gimple_seq pre = NULL;
  gcall *repl = log_call (tag, value, sc.word, &pre, gimple_location (call));
  gsi_insert_seq_before (&sc.gsi, pre, GSI_SAME_STMT);
  gimple_set_location (repl, gimple_location (call));
  gimple_set_block (repl, gimple_block (call));
  gimple_call_set_lhs (repl, NULL_TREE);
  gsi_replace (&sc.gsi, repl, false);
  if (lhs)
    {
      gimple *zero = gimple_build_assign (lhs,
                                          build_zero_cst (TREE_TYPE (lhs)));
      gimple_set_location (zero, gimple_location (repl));
      insert_after_call (repl, zero);
    }
  return false;
}

/* The code of site SC, one emitter per kind of site.  True if SC's
   before and after sequences are to be inserted around the call.  */
static bool
emit_site (site_code &sc)
{
  const struct cce_site *s = &sc.g->sites[sc.sn];
  switch (s->kind)
    {
    case CCE_SITE_DIRECT:
      return emit_direct (sc);
    case CCE_SITE_BACK:
      return folds (s, sc.call) ? emit_folded (sc) : emit_stack (sc);
    case CCE_SITE_INDIRECT:
    case CCE_SITE_EXTERNAL:
      return emit_stack (sc);
    case CCE_SITE_LOG:
      return emit_log (sc);
    default:
      return false;
    }
}

/* Give the statements of SEQ the location LOC.  */
static void
set_locations (gimple_seq seq, location_t loc)
{
  for (gimple_stmt_iterator it = gsi_start (seq); !gsi_end_p (it);
       gsi_next (&it))
    gimple_set_location (gsi_stmt (it), loc);
}

/* The code of one function: its sites SITES[FIRST .. LAST), and what
   their code shares.  */
struct function_code
{
  collector &c;
  size_t first, last;
  cgraph_node *node;
  bool needed;                  /* code beyond restores after free calls */
  bool clobber_sites;           /* free calls of functions that clobber
                                   the id */
  bool stack_sites;             /* code that uses the top */
  auto_vec<basic_block> pads;   /* landing pads (6) */
  std::vector<char> keep_id, keep_top;   /* plan_restores */
  std::vector<char> local;      /* mark_local_sites: 1, or 2 where the
                                   push is out of line (compact_push_p) */
  bool pinned;                  /* loads_pinned_p */
  bool reentry;                 /* self tail calls that may become jumps
                                   to the top (self_tail_jumps) */
  tree id, top;                 /* the id and top, as loaded (1) */
  bool tls_entry;               /* idreg: an ENTRY node, which takes its
                                   id from the TLS word into the register
                                   and gives the register back (9) */
  tree outer;                   /* the register as it was entered */
  struct sub_restore
  {
    gimple *stmt;               /* the restore: tls[ID] = ID */
    uint64_t sub;               /* the id word holds ID * SCALE + SUB */
    tree id;                    /* ID */
    uint64_t scale;
  };
  std::vector<sub_restore> subs;   /* note_restore */
  struct loop_chain
  {
    basic_block header, body, latch;
    gimple *last;               /* the last call */
    uint32_t callee;            /* its callee, a node of the graph */
    uint64_t av;                /* its addition value */
    bool single;                /* the loop's one call, whose callee
                                   returns with the id it found: no store
                                   before it either, and the exit takes
                                   AV off the id word */
  };
  std::vector<loop_chain> loops;   /* chain_loops */
  std::vector<char> loop_stored;   /* sites whose id the loop's entry
                                      stores (chain_loops) */
  std::vector<char> chained;    /* calls of the loops chain_loops
                                   chains, which store the id */

  function_code (collector &c_, size_t first_, size_t last_)
    : c (c_), first (first_), last (last_), node (c_.sites[first_].node),
      needed (false), clobber_sites (false), stack_sites (false),
      keep_id (last_ - first_, 1), keep_top (last_ - first_, 1),
      loop_stored (last_ - first_, 0), chained (last_ - first_, 0),
      local (last_ - first_, 0), pinned (false), reentry (false),
      id (NULL_TREE), top (NULL_TREE), tls_entry (false),
      outer (NULL_TREE)
  {
  }
};

/* Does site I of FC (an index into its collector's sites) add its value
   to the id in place (rel_site_p): not a call of a loop that chain_loops
   chains, which stores the id.  */
static bool
in_place_p (const function_code &fc, size_t i)
{
  return !fc.chained[i - fc.first]
         && rel_site_p (fc.c.g, fc.c.sites[i].site, fc.c.sites[i].stmt);
}

/* Must the loads of FN's id and top stay at its entry, volatile: where
   a resx ends a block (place_loads).  */
static bool
loads_pinned_p (function *fn)
{
  basic_block bb;
  FOR_EACH_BB_FN (bb, fn)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
         gsi_next (&gsi))
      if (gimple_code (gsi_stmt (gsi)) == GIMPLE_RESX)
        return true;
  return false;
}

/* What the sites of FC need, before restores are planned: FC's needed,
   clobber_sites, stack_sites, pads and pinned.  */
static void
survey_sites (function_code &fc)
{
  const struct cce_graph *g = fc.c.g;
  for (size_t i = fc.first; i < fc.last; i++)
    {
      const site_info &si = fc.c.sites[i];
      const struct cce_site *s = &g->sites[si.site];
      if (!site_has_code (s, si.stmt))
        continue;
      if (s->kind != CCE_SITE_DIRECT || s->av != 0)
        fc.needed = true;
      else if (cce_site_clobbers (g, si.site))
        fc.clobber_sites = true;
      if (cce_kind_on_stack (s->kind) && !folds (s, si.stmt))
        fc.stack_sites = true;
    }

  /* Landing pads: an exception (or pthread_exit, pthread_cancel) unwinding
     through this function skipped the code after its calls; the cleanup
     code it resumes in starts by restoring the id and top (6).  */
  basic_block bb;
  FOR_EACH_BB_FN (bb, DECL_STRUCT_FUNCTION (fc.node->decl))
    if (bb_has_eh_pred (bb))
      fc.pads.safe_push (bb);
  if (!fc.pads.is_empty ())
    fc.needed = fc.stack_sites = true;
  fc.pinned = loads_pinned_p (DECL_STRUCT_FUNCTION (fc.node->decl));
}

/* (9) With idreg, the start of a function that code outside the program
   may call, added to SEQ: OUTER = r15; ID = tls[ID]; r15 = ID (the load
   volatile if PIN).  Returns OUTER.  */
static tree
load_id_from_tls (gimple_seq *seq, tree id, bool pin)
{
  tree outer = make_ssa_name (long_long_unsigned_type_node);
  gimple_seq_add_stmt (seq, id_load (outer, cce_rt[CCE_RT_IDREG]));
  gimple_seq_add_stmt (seq, gimple_build_assign (id, tls_ref (CCE_TLS_ID,
                                                              pin)));
  gimple_seq_add_stmt (seq, id_store (cce_rt[CCE_RT_IDREG], id));
  return outer;
}

/* Does the code of site SN of G (call STMT, with code) read the id as
   the function loaded it (1): not a log or trace site (they read it where
   they are), a free call of a function that does not clobber it, nor an
   in_place_p one.  */
static bool
site_uses_id (const function_code &fc, size_t i)
{
  const struct cce_graph *g = fc.c.g;
  uint32_t sn = fc.c.sites[i].site;
  const struct cce_site *s = &g->sites[sn];
  return !(s->kind == CCE_SITE_LOG || s->kind == CCE_SITE_TRACE
           || (s->kind == CCE_SITE_DIRECT && s->av == 0
               && !cce_site_clobbers (g, sn))
           || in_place_p (fc, i));
}

static bool tail_position_p (gcall *call);
static bool returns_call_value_p (gcall *call);

/* Does the push of ccStack site S (call CALL), a plain one (no guesses,
   not folded), go out of line: in a block that GCC optimizes for size
   (by GCC's estimate less than a thousandth as often as the function's
   entry, an error path; less than two thirds in a function run once;
   with a profile, below its hot threshold), the keeping push and the
   pop of its entry (cold_push, cold_pop), about a third of the inline
   push's code, which such a block does not run often enough to pay
   for.  Not a call that ends its block, after
   which the pop could not follow on one path, nor one that returns
   twice or never, nor where the cold entry points are not the keeping
   ones, nor with idreg.  Such a site is local (mark_local_sites): it
   reads the id where it is, and the pop puts back the id and the top
   as they were.  */
/* Is BB, of cfun, a block whose pushes go out of line (compact): one
   that GCC optimizes for size, with the option on.  */
bool
cce_rare_block_p (basic_block bb)
{
  return cce_opts.compact && optimize_bb_for_size_p (bb);
}

static bool
compact_push_p (const struct cce_site *s, gcall *call)
{
  return cce_opts.keep && !cce_opts.count
         && !cce_opts.idreg && cce_kind_on_stack (s->kind) && !folds (s, call)
         && !gimple_call_noreturn_p (call)
         && !(gimple_call_flags (call) & ECF_RETURNS_TWICE)
         && !stmt_ends_bb_p (call)
         && cce_rare_block_p (gimple_bb (call));
}

/* Sites in cold blocks read the id and the top where they are, as log
   sites do, instead of the copies the function loads (1): a cold call
   (an error message, a verbose trace) would otherwise hold the loads
   at a dominator on the hot path, with a saved register for each copy.
   A cold block runs less than half as often as the function's entry
   (GCC's estimate or the profile), and is in no loop (where the
   function's copies are loaded once, outside).  Only a direct site with
   an addition value (not an in-place one), a folded one into another
   function (a function's folded calls of itself share the copy: fib
   stores ID * 2 + NUMCC and ID * 2 + NUMCC + 1 from it, with no restore
   in between) and a ccStack site whose push is plain or inline, with no
   guesses: their code uses the id and the top at the call alone.  Not
   where the loads stay at the entry anyway (landing pads, an ENTRY node
   with idreg, a resx), nor a call in tail position whose restore would
   keep GCC from making it a jump (without async, or a folded call of the
   function itself that may become a jump to its top: under async every
   other call keeps its restore anyway).
   Sites in branches are local too where all of the sites that would
   read the copies can be, and their blocks run less often together
   than the blocks' nearest common dominator, out of any loop (jq's
   jv_free frees an array or an object, and returns at once for the
   other kinds): there the one load per path that calls would be a load
   on every path.  Then a noreturn direct call (it stores its callee's
   id, nothing after) and a function's one folded call of itself may be
   among them.  The id and
   the top there are the function's own: every restore before such a
   site is kept (plan_restores counts it as a read of both;
   chain_restores does not leave out the one before it).  And since such
   a site may come before the loads of the copies on a path, its own
   restores are all kept (instrument_function), so that the loads find
   the function's id and top.
   Under async (without idreg) an indirect call with guesses is local
   wherever it is, where its call does not end its block: its guesses
   add their values in place (insert_guesses), so only its push reads
   the id and top, on the path where no guess matched.  So are all the
   pushes of a function with cce_opts.local_pushes of them or more.  Sets FC's local,
   and recounts stack_sites without them.  In cfun.  */
static void
mark_local_sites (function_code &fc)
{
  const struct cce_graph *g = fc.c.g;
  if (fc.tls_entry || !fc.pads.is_empty () || fc.pinned)
    return;
  profile_count entry = single_succ (ENTRY_BLOCK_PTR_FOR_FN (cfun))->count;
  if (!entry.initialized_p () || !entry.nonzero_p ())
    return;
  /* Folded calls of the function itself with code.  */
  unsigned self_folds = 0;
  for (size_t i = fc.first; i < fc.last; i++)
    {
      const site_info &si = fc.c.sites[i];
      const struct cce_site *s = &g->sites[si.site];
      if (si.stmt && is_gimple_call (si.stmt) && site_has_code (s, si.stmt)
          && folds (s, si.stmt) && s->target == s->node)
        self_folds++;
    }
  bool any = false;
  /* Under async, the pushes that could read the id where they are.  */
  std::vector<size_t> pushes;
  /* The sites that would read the copies, if they can all read the id
     where they are (SPREAD), the count of their blocks and those
     blocks' nearest common dominator.  */
  bool spread = true;
  std::vector<size_t> readers;
  profile_count sum = profile_count::zero ();
  basic_block common = NULL;
  calculate_dominance_info (CDI_DOMINATORS);
  for (size_t i = fc.first; i < fc.last; i++)
    {
      const site_info &si = fc.c.sites[i];
      const struct cce_site *s = &g->sites[si.site];
      if (!si.stmt || !site_has_code (s, si.stmt))
        continue;
      gcall *call = dyn_cast<gcall *> (si.stmt);
      bool reads = !call || site_uses_id (fc, i)
                   || (cce_kind_on_stack (s->kind) && !folds (s, call));
      /* A noreturn direct call only stores the id for its callee.  */
      bool noreturn = call && gimple_call_noreturn_p (call);
      if (!call
          || (gimple_call_flags (call) & ECF_RETURNS_TWICE)
          || (noreturn && s->kind != CCE_SITE_DIRECT)
          || (tail_position_p (call) && returns_call_value_p (call)
              && (!cce_opts.async || s->tail_jump)))
        {
          spread &= !reads;
          continue;
        }
      /* Under async, an indirect call whose guesses add their values in
         place (insert_guesses) reads the id and top only where it
         pushes: there, after the compares, it reads them where it is,
         and its restores take them back from its entry.  */
      if (!noreturn && guesses_taken_p (g, si, call)
          && guesses_in_place_p (call))
        {
          fc.local[i - fc.first] = any = true;
          continue;
        }
      bool self_fold = folds (s, call) && s->target == s->node;
      bool simple = s->kind == CCE_SITE_DIRECT
                    ? s->av != 0 && !rel_site_p (g, si.site, call)
                    : folds (s, call) ? !self_fold
                    : cce_kind_on_stack (s->kind)
                      && !guesses_taken_p (g, si, call);
      basic_block b = gimple_bb (call);
      profile_count n = b->count;
      bool in_loop = current_loops && bb_loop_depth (b) > 0;
      if (simple && !noreturn && cce_kind_on_stack (s->kind)
          && !folds (s, call))
        pushes.push_back (i);
      if (simple && compact_push_p (s, call))
        {
          fc.local[i - fc.first] = 2;
          any = true;
          continue;
        }
      if (simple && !noreturn && n.initialized_p ()
          && n.apply_scale (2, 1) < entry && !in_loop)
        fc.local[i - fc.first] = any = true;
      else if (reads)
        {
          if (!(simple || (self_fold && self_folds == 1))
              || !n.initialized_p () || in_loop)
            spread = false;
          else
            {
              readers.push_back (i);
              sum += n;
              common = common ? nearest_common_dominator (CDI_DOMINATORS,
                                                          common, b)
                              : b;
            }
        }
    }
  free_dominance_info (CDI_DOMINATORS);
  /* Sites in branches that not every path takes (jq's jv_free frees an
     array or an object, and returns at once for the other kinds): where
     their loads run less often, all together, than one load at their
     common dominator would, each reads the id where it is, and the
     function keeps no copy.  */
  if (spread && readers.size () > 1 && common->count.initialized_p ()
      && !(current_loops && bb_loop_depth (common) > 0)
      && sum < common->count)
    for (size_t i : readers)
      fc.local[i - fc.first] = any = true;
  /* A function with many pushes (an interpreter's dispatch loop,
     cce_opts.local_pushes or more) would keep its copies in two saved
     registers across all of its code, and spill what the plain build
     keeps in them.  Under async its direct calls use no copy, and each
     push reads the id and top where it is and takes them back from its
     entry after the call.  */
  if (cce_opts.async && !cce_opts.idreg && cce_opts.local_pushes > 0
      && pushes.size () >= (size_t) cce_opts.local_pushes)
    for (size_t i : pushes)
      {
        if (!fc.local[i - fc.first])
          fc.local[i - fc.first] = 1;
        any = true;
      }
  if (!any)
    return;
  fc.stack_sites = false;
  for (size_t i = fc.first; i < fc.last; i++)
    {
      const site_info &si = fc.c.sites[i];
      const struct cce_site *s = &g->sites[si.site];
      if (!fc.local[i - fc.first] && site_has_code (s, si.stmt)
          && cce_kind_on_stack (s->kind) && !folds (s, si.stmt))
        fc.stack_sites = true;
    }
}

/* Does any code of FC read the id as the function loads it (1): not
   where every site with code is a log, a free call, an in_place_p one or
   one that reads the id where it is (mark_local_sites).  */
static bool
shared_id_p (const function_code &fc)
{
  const struct cce_graph *g = fc.c.g;
  if (fc.tls_entry || !fc.pads.is_empty ())
    return true;
  for (size_t i = fc.first; i < fc.last; i++)
    {
      gimple *stmt = fc.c.sites[i].stmt;
      const struct cce_site *s = &g->sites[fc.c.sites[i].site];
      if (stmt && site_has_code (s, stmt) && !fc.local[i - fc.first]
          && (!is_gimple_call (stmt)
              || site_uses_id (fc, i)))
        return true;
    }
  return false;
}

/* (1) Load the id, and the ccStack top if needed, where they are first
   needed, and before anything could have changed them: the loads go to
   the nearest common dominator of the sites that use them and of the
   free calls of functions that clobber the id, hoisted out of loops (and
   off any cycle of the CFG), so every path reaches them with both as they
   were at entry, and a path that uses neither (the leaf path of a
   recursive function, an early return) loads nothing.  At entry, and
   volatile, where a resx ends a block; at entry where a call returns
   twice, and where there are landing pads.  Sets FC's id and top; loads
   that go at entry are added to ENTRY_SEQ.  In cfun.  */
static void
place_loads (function_code &fc, gimple_seq *entry_seq)
{
  const struct cce_graph *g = fc.c.g;
  bool pin = fc.pinned;
  basic_block entry_bb = single_succ (ENTRY_BLOCK_PTR_FOR_FN (cfun));
  basic_block load_bb = NULL;
  edge load_edge = NULL;
  bool at_entry = pin || !fc.pads.is_empty ();
  if (!at_entry)
    {
      calculate_dominance_info (CDI_DOMINATORS);
      for (size_t i = fc.first; i < fc.last && !at_entry; i++)
        {
          gimple *stmt = fc.c.sites[i].stmt;
          const struct cce_site *s = &g->sites[fc.c.sites[i].site];
          if (!stmt || !site_has_code (s, stmt))
            continue;
          if (!is_gimple_call (stmt)
              || (gimple_call_flags (stmt) & ECF_RETURNS_TWICE))
            at_entry = true;
          if (!site_uses_id (fc, i) || fc.local[i - fc.first])
            continue;
          basic_block b = gimple_bb (stmt);
          load_bb = load_bb ? nearest_common_dominator (CDI_DOMINATORS,
                                                        load_bb, b)
                            : b;
        }
      profile_count entry_count = entry_bb->count;
      if (!at_entry && load_bb)
        load_edge = loop_entry_edge (load_bb, entry_count);
      while (!at_entry && !load_edge && load_bb && load_bb != entry_bb
             && ((current_loops && bb_loop_depth (load_bb) > 0)
                 || !load_bb->count.initialized_p ()
                 || !entry_count.initialized_p ()
                 || entry_count < load_bb->count))
        load_bb = get_immediate_dominator (CDI_DOMINATORS, load_bb);
      free_dominance_info (CDI_DOMINATORS);
      if (load_bb && !load_edge && bb_on_cycle (load_bb))
        load_bb = NULL;
    }
  if (at_entry || load_bb == entry_bb || fc.tls_entry)
    {
      load_bb = NULL;
      load_edge = NULL;
    }
  bool need_id = shared_id_p (fc);
  tree u64 = long_long_unsigned_type_node;
  gimple_seq load_seq = NULL;
  if (need_id)
    {
      fc.id = make_ssa_name (u64);
      if (fc.tls_entry)
        fc.outer = load_id_from_tls (&load_seq, fc.id, pin);
      else
        gimple_seq_add_stmt (&load_seq, id_load (fc.id, own_id_ref (pin)));
    }
  if (fc.stack_sites)
    {
      fc.top = make_ssa_name (u64);
      gimple_seq_add_stmt (&load_seq,
                           gimple_build_assign (fc.top,
                                                tls_ref (CCE_TLS_TOP, pin)));
    }
  if (load_edge)
    gsi_insert_seq_on_edge_immediate (load_edge, load_seq);
  else if (load_bb)
    {
      gimple_stmt_iterator lg = gsi_after_labels (load_bb);
      gsi_insert_seq_before (&lg, load_seq, GSI_SAME_STMT);
    }
  else
    gimple_seq_add_seq (entry_seq, load_seq);
}

/* (7) The entry of a traced function logs: add the calls to ENTRY_SEQ.  */
static void
emit_trace_entries (function_code &fc, gimple_seq *entry_seq)
{
  for (size_t i = fc.first; i < fc.last; i++)
    if (fc.c.g->sites[fc.c.sites[i].site].kind == CCE_SITE_TRACE)
      {
        tree src = source_decl (fc.node->decl);
        unsigned tag = CCE_TAG_TRACE + trace_index (source_name (src));
        uint64_t word = CCE_SITE_WORD (fc.c.word_key, fc.c.sites[i].site);
        gcall *log = log_call (build_int_cst (unsigned_type_node, tag),
                               NULL_TREE, word, entry_seq,
                               DECL_SOURCE_LOCATION (src));
        gimple_set_location (log, DECL_SOURCE_LOCATION (src));
        gimple_seq_add_stmt (entry_seq, log);
      }
}

/* (2)-(5) The code around each call site of FC.  */
static void
emit_sites (function_code &fc)
{
  for (size_t i = fc.first; i < fc.last; i++)
    {
      const site_info &si = fc.c.sites[i];
      if (!si.stmt)
        continue;               /* a trace site (7) */
      if (!is_gimple_call (si.stmt))
        {
          /* A resx that becomes a call out of the program (collect.cc,
             resx_callee): the push of a noreturn call before it.  */
          if (site_has_code (&fc.c.g->sites[si.site], si.stmt))
            {
              uint64_t word = CCE_SITE_WORD (fc.c.word_key, si.site);
              gimple *p = gimple_build_call (cce_rt[CCE_RT_PUSH], 3, fc.id,
                                             u64_cst (word),
                                             u64_cst (cce_site_entry
                                                      (fc.c.g, si.site)));
              gimple_set_location (p, gimple_location (si.stmt));
              gimple_stmt_iterator gsi = gsi_for_stmt (si.stmt);
              gsi_insert_before (&gsi, p, GSI_SAME_STMT);
            }
          continue;
        }
      gcall *call = as_a<gcall *> (si.stmt);
      if (!site_has_code (&fc.c.g->sites[si.site], call))
        continue;
      tree id = fc.id, top = fc.top;
      gimple *first_load = NULL;
      if (fc.local[i - fc.first])
        {
          /* mark_local_sites: the id and top, read right before.  */
          gimple_stmt_iterator at = gsi_for_stmt (call);
          id = make_ssa_name (long_long_unsigned_type_node);
          gimple *l = id_load (id, own_id_ref (false));
          gimple_set_location (l, gimple_location (call));
          gsi_insert_before (&at, l, GSI_SAME_STMT);
          first_load = l;
          if (cce_kind_on_stack (fc.c.g->sites[si.site].kind)
              && !folds (&fc.c.g->sites[si.site], call)
              && fc.local[i - fc.first] != 2)
            {
              top = make_ssa_name (long_long_unsigned_type_node);
              l = gimple_build_assign (top, tls_ref (CCE_TLS_TOP, false));
              gimple_set_location (l, gimple_location (call));
              gsi_insert_before (&at, l, GSI_SAME_STMT);
            }
        }
      site_code sc = { fc.c.g, &si, call, si.site,
                       CCE_SITE_WORD (fc.c.word_key, si.site), id, top,
                       fc.keep_id[i - fc.first] != 0,
                       fc.keep_top[i - fc.first] != 0,
                       pin_stores_p (call) || cce_opts.async,
                       gsi_for_stmt (call), NULL, NULL, NULL, 0,
                       fc.loop_stored[i - fc.first] != 0, 0,
                       fc.local[i - fc.first] != 0, in_place_p (fc, i),
                       first_load, fc.local[i - fc.first] == 2 };
      if (!emit_site (sc))
        {
          discard_seq (sc.before);
          discard_seq (sc.after);
          continue;
        }
      set_locations (sc.before, gimple_location (call));
      gsi_insert_seq_before (&sc.gsi, sc.before, GSI_SAME_STMT);
      set_locations (sc.after, gimple_location (call));
      insert_after_call (call, sc.after);
      if (sc.restore)
        fc.subs.push_back ({ sc.restore, sc.sub, id, sc.scale });
      if (sc.compact)
        fc.c.compact_pushes++;
    }
}

/* The restore of the id word as (WORD - SUB) / SCALE, from the word
   itself, where the word holds ID * SCALE + SUB, a folded site's id
   below the fold limit, so that the division is exact: a shift by
   SCALE's factors of 2 and a product with the inverse of its odd part
   modulo 2^64 (CCE_ASM_ID_UNFOLD_*).  Four to seven instructions, in
   scratch registers that the asm sets, and no copy of the id.  */
static gimple *
id_unfold (uint64_t sub, uint64_t scale)
{
  unsigned shift = __builtin_ctzll (scale);
  uint64_t odd = scale >> shift, inv = odd;
  /* Newton's iteration: each step doubles the low bits of INV that are
     right (odd * odd == 1 modulo 8 to start with).  */
  for (int i = 0; i < 5; i++)
    inv *= 2 - odd * inv;
  gcc_assert (odd * inv == 1);
  bool wide = sub >= (uint64_t) 1 << 31;
  std::string templ = wide ? CCE_ASM_ID_UNFOLD_HEAD_WIDE
                           : CCE_ASM_ID_UNFOLD_HEAD;
  if (shift)
    templ += CCE_ASM_ID_UNFOLD_SHIFT;
  if (odd != 1)
    templ += CCE_ASM_ID_UNFOLD_ODD;
  templ += CCE_ASM_ID_UNFOLD_TAIL;
  tree u64 = long_long_unsigned_type_node;
  vec<tree, va_gc> *inputs = NULL, *outputs = NULL, *clobbers = NULL;
  asm_operand (&outputs, "=m", tls_ref (CCE_TLS_ID, true));
  tree s1 = make_ssa_name (u64), s2 = make_ssa_name (u64);
  asm_operand (&outputs, "=&r", s1);
  asm_operand (&outputs, "=&r", s2);
  asm_operand (&inputs, "m", tls_ref (CCE_TLS_ID, true));
  asm_operand (&inputs, wide ? "i" : "e", u64_cst (sub));
  asm_operand (&inputs, "i", u64_cst (shift));
  asm_operand (&inputs, "i", u64_cst (inv));
  vec_safe_push (clobbers, build_tree_list (NULL_TREE, build_string (2, "cc")));
  gasm *a = gimple_build_asm_vec (templ.c_str (), inputs, outputs, clobbers,
                                  NULL);
  gimple_asm_set_volatile (a, true);
  SSA_NAME_DEF_STMT (s1) = a;
  SSA_NAME_DEF_STMT (s2) = a;
  return a;
}

/* Does STMT name NAME among its operands, or load the id word (a site
   that reads the id where it is, mark_local_sites: GCC may take the
   value a plain restore stored for it)?  */
static bool
names_p (gimple *stmt, tree name)
{
  if (is_gimple_debug (stmt))
    return false;
  if (gimple_assign_load_p (stmt))
    {
      tree ref = gimple_assign_rhs1 (stmt);
      if (TREE_CODE (ref) == MEM_REF
          && TREE_CODE (TREE_OPERAND (ref, 0)) == ADDR_EXPR
          && TREE_OPERAND (TREE_OPERAND (ref, 0), 0) == cce_rt[CCE_RT_TLS]
          && integer_zerop (TREE_OPERAND (ref, 1)))
        return true;
    }
  for (unsigned i = 0; i < gimple_num_ops (stmt); i++)
    {
      tree op = gimple_op (stmt, i);
      if (op == name
          || (op && TREE_CODE (op) == TREE_LIST && TREE_VALUE (op) == name))
        return true;
    }
  return false;
}

/* A restore after a call whose callee returns with the id it found
   (note_restore) can be the id word less the site's value, where the
   word is: one instruction (two for a value that is no 32-bit
   immediate), with no copy of the id; after a folded site of a callee
   with more folded sites, the word's fold undone (id_unfold).  That pays where it leaves the
   copy dead across every call of the function: GCC then keeps it in no
   saved register, and the function saves and restores none for it on
   every path (jq's jv_free: a push, a pop and the stack's alignment on
   each call, for the restores after its calls in tail position).  So
   the restores of a copy become subtractions all together or not at
   all.  After the code is in, its edge insertions committed.  In
   cfun.  */
static void
subtract_restores (function_code &fc)
{
  hash_set<gimple *> subs;
  for (const function_code::sub_restore &r : fc.subs)
    if (gimple_bb (r.stmt))     /* not after a noreturn call: dropped */
      subs.add (r.stmt);
  std::vector<char> done (fc.subs.size (), 0);
  for (size_t k = 0; k < fc.subs.size (); k++)
    {
      tree name = fc.subs[k].id;
      if (done[k] || !gimple_bb (fc.subs[k].stmt))
        continue;
      for (size_t j = k; j < fc.subs.size (); j++)
        done[j] |= fc.subs[j].id == name;
      /* What reads the copy (but the restores in question): the blocks
         from whose start something that does can be reached.  */
      auto reads = [&] (gimple *stmt) {
        return !subs.contains (stmt) && names_p (stmt, name);
      };
      std::vector<char> reach (last_basic_block_for_fn (cfun), 0);
      auto_vec<basic_block> work;
      basic_block b;
      FOR_EACH_BB_FN (b, cfun)
        {
          bool r = false;
          for (gphi_iterator pi = gsi_start_phis (b); !gsi_end_p (pi) && !r;
               gsi_next (&pi))
            for (unsigned a = 0; a < gimple_phi_num_args (pi.phi ()); a++)
              r |= gimple_phi_arg_def (pi.phi (), a) == name;
          for (gimple_stmt_iterator gsi = gsi_start_bb (b);
               !gsi_end_p (gsi) && !r; gsi_next (&gsi))
            r = reads (gsi_stmt (gsi));
          if (r)
            {
              reach[b->index] = 1;
              work.safe_push (b);
            }
        }
      while (!work.is_empty ())
        {
          b = work.pop ();
          edge e;
          edge_iterator ei;
          FOR_EACH_EDGE (e, ei, b->preds)
            if (e->src != ENTRY_BLOCK_PTR_FOR_FN (cfun)
                && !reach[e->src->index])
              {
                reach[e->src->index] = 1;
                work.safe_push (e->src);
              }
        }
      /* Is the copy read after any call?  Backwards through each block:
         LIVE is whether something after the statement reads it.  */
      bool across = false;
      FOR_EACH_BB_FN (b, cfun)
        {
          bool live = false;
          edge e;
          edge_iterator ei;
          FOR_EACH_EDGE (e, ei, b->succs)
            live |= e->dest != EXIT_BLOCK_PTR_FOR_FN (cfun)
                    && reach[e->dest->index];
          for (gimple_stmt_iterator gsi = gsi_last_bb (b);
               !gsi_end_p (gsi) && !across; gsi_prev (&gsi))
            {
              gimple *stmt = gsi_stmt (gsi);
              across = live && is_gimple_call (stmt)
                       && !gimple_call_internal_p (stmt);
              live |= reads (stmt);
            }
          if (across)
            break;
        }
      if (across)
        continue;
      for (const function_code::sub_restore &r : fc.subs)
        if (r.id == name && gimple_bb (r.stmt))
          {
            gimple_stmt_iterator gsi = gsi_for_stmt (r.stmt);
            gsi_replace (&gsi, r.scale > 1 ? id_unfold (r.sub, r.scale)
                                           : id_sub (r.sub), false);
          }
    }
}

/* Remove STMT from its block, with its definitions.  */
static void
drop_stmt (gimple *stmt)
{
  gimple_stmt_iterator gsi = gsi_for_stmt (stmt);
  unlink_stmt_vdef (stmt);
  gsi_remove (&gsi, true);
  release_defs (stmt);
}

/* Is STMT an in-place change of the id word (id_adjust)?  Its value in
   *V, negated for a subtraction (modulo 2^64).  */
static bool
adjust_of (gimple *stmt, uint64_t *v)
{
  gasm *a = dyn_cast<gasm *> (stmt);
  if (!a || gimple_asm_ninputs (a) != 2)
    return false;
  const char *t = gimple_asm_string (a);
  tree c = TREE_VALUE (gimple_asm_input_op (a, 1));
  for (int add = 0; add < 2; add++)
    for (int wide = 0; wide < 2; wide++)
      if (!strcmp (t, adjust_templates[0][add][wide])
          && TREE_CODE (c) == INTEGER_CST)
        {
          *v = add ? tree_to_uhwi (c) : -tree_to_uhwi (c);
          return true;
        }
  return false;
}

/* walk_tree callback: is *TP the TLS block?  */
static tree
tls_named (tree *tp, int *walk_subtrees, void *)
{
  if (*tp == cce_rt[CCE_RT_TLS])
    return *tp;
  if (TYPE_P (*tp))
    *walk_subtrees = 0;
  return NULL_TREE;
}

/* Under async, without idreg: where one in-place site's call (in_place_p)
   is followed in its block by another's, with nothing in between that
   reads or writes the TLS block (no other call, no asm), the first's
   subtraction and the second's addition become one change of the id
   word by the difference of their values (CCE_ASM_ID_CHAIN_MARK: jq's
   interpreter loop pops twice, then frees).  Between the two the id is
   the first callee's, which returns with the id it found; after the
   change it is the second's, whose edge (its value's range) tells the
   site.  The PC map follows the change's mark.  (Moving the
   subtraction down the branches, to chain with a call in one of them,
   measured no better: the calls that follow one another across a branch
   mostly do so through a join.)  In cfun.  */
static void
merge_adjusts (function_code &fc)
{
  const struct cce_graph *g = fc.c.g;
  hash_map<gimple *, unsigned> site_of;
  map_sites (fc.c, fc.first, fc.last, site_of);
  /* The value of the in-place site of STMT, a call, or 0.  */
  auto in_place_av = [&] (gimple *stmt) -> uint64_t {
    unsigned *k = is_gimple_call (stmt) ? site_of.get (stmt) : NULL;
    return k && in_place_p (fc, fc.first + *k)
           ? g->sites[fc.c.sites[fc.first + *k].site].av : 0;
  };
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      /* The block's calls, asms and statements that name the TLS block,
         in order; not the calls that are none (__builtin_expect,
         internal functions).  */
      auto_vec<gimple *> ev;
      for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
           gsi_next (&gsi))
        {
          gimple *stmt = gsi_stmt (gsi);
          if (is_gimple_debug (stmt)
              || (is_gimple_call (stmt)
                  && (gimple_call_internal_p (stmt)
                      || gimple_call_builtin_p (stmt, BUILT_IN_EXPECT)
                      || gimple_call_builtin_p
                           (stmt, BUILT_IN_EXPECT_WITH_PROBABILITY))))
            continue;
          bool named = is_gimple_call (stmt)
                       || gimple_code (stmt) == GIMPLE_ASM;
          for (unsigned i = 0; i < gimple_num_ops (stmt) && !named; i++)
            named = gimple_op (stmt, i)
                    && walk_tree (gimple_op_ptr (stmt, i), tls_named, NULL,
                                  NULL);
          if (named)
            ev.safe_push (stmt);
        }
      for (unsigned i = 0; i + 3 < ev.length (); i++)
        {
          uint64_t a = in_place_av (ev[i]), sub, add;
          if (!a || !adjust_of (ev[i + 1], &sub) || sub != -a
              || !adjust_of (ev[i + 2], &add)
              || add != in_place_av (ev[i + 3]) || add == 0)
            continue;
          uint64_t d = add - a;
          bool up = d < (uint64_t) 1 << 63;
          gimple *m = id_adjust (up, up ? d : -d, true);
          gimple_set_location (m, gimple_location (ev[i + 2]));
          gimple_stmt_iterator gsi = gsi_for_stmt (ev[i + 2]);
          gsi_insert_before (&gsi, m, GSI_SAME_STMT);
          drop_stmt (ev[i + 1]);
          drop_stmt (ev[i + 2]);
          i += 2;
        }
    }
}

/* (6) Restore the id and the top at each landing pad of FC.  */
static void
restore_at_pads (function_code &fc)
{
  for (basic_block pad : fc.pads)
    {
      gimple_stmt_iterator gsi = gsi_after_labels (pad);
      gimple *s1 = gimple_build_assign (tls_ref (CCE_TLS_TOP, true), fc.top);
      gimple *s2 = id_store (own_id_ref (cce_opts.async), fc.id);
      gsi_insert_before (&gsi, s1, GSI_SAME_STMT);
      gsi_insert_before (&gsi, s2, GSI_SAME_STMT);
    }
}

/* (9) With idreg, an ENTRY node returns with the TLS id it found, for
   the next call from outside (code outside calls back with the same id),
   and with the register its caller had: before each return of FC,
     tls[ID] = ID; r15 = OUTER.  */
static void
restore_at_returns (tree id, tree outer)
{
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, EXIT_BLOCK_PTR_FOR_FN (cfun)->preds)
    {
      gimple_stmt_iterator gsi = gsi_last_bb (e->src);
      if (gsi_end_p (gsi) || gimple_code (gsi_stmt (gsi)) != GIMPLE_RETURN)
        continue;
      location_t loc = gimple_location (gsi_stmt (gsi));
      gimple *s1 = gimple_build_assign (tls_ref (CCE_TLS_ID, false), id);
      gimple *s2 = id_store (cce_rt[CCE_RT_IDREG], outer);
      gimple_set_location (s1, loc);
      gimple_set_location (s2, loc);
      gsi_insert_before (&gsi, s1, GSI_SAME_STMT);
      gsi_insert_before (&gsi, s2, GSI_SAME_STMT);
    }
}

/* Does FC take its id from the TLS word into the register (9): with
   idreg, an ENTRY node with a site that is not dead (its callees and its
   log sites read the register).  */
static bool
tls_entry_p (const function_code &fc)
{
  const struct cce_graph *g = fc.c.g;
  uint32_t n = fc.c.nodes[fc.node];
  if (!cce_opts.idreg || reg_entered_p (g, n))
    return false;
  for (size_t i = fc.first; i < fc.last; i++)
    if (!g->sites[fc.c.sites[i].site].dead)
      return true;
  return false;
}

/* Bring cfun's SSA form, dominators, loops and call graph edges up to
   date after code went in.  */
static void
update_function (void)
{
  gsi_commit_edge_inserts ();
  /* New blocks and split edges: what was computed of the CFG is stale,
     and update_ssa would walk dominators it finds available.  */
  free_dominance_info (CDI_DOMINATORS);
  free_dominance_info (CDI_POST_DOMINATORS);
  mark_virtual_operands_for_renaming (cfun);
  update_ssa (TODO_update_ssa);
  free_dominance_info (CDI_DOMINATORS);
  if (current_loops)
    loops_state_set (LOOPS_NEED_FIXUP);
  cgraph_edge::rebuild_edges ();
}

/* The functions instrumented, for cce_instrumented_p: decls of the
   symbol table, which outlives them.  */
static hash_set<tree> instrumented_fns;

bool
cce_instrumented_p (tree fndecl)
{
  return instrumented_fns.contains (fndecl);
}

/* Is CALL in tail position: nothing but a return after it?  */
static bool
tail_position_p (gcall *call)
{
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_next_nondebug (&gsi);
  if (!gsi_end_p (gsi))
    return gimple_code (gsi_stmt (gsi)) == GIMPLE_RETURN;
  basic_block bb = gimple_bb (call);
  if (!single_succ_p (bb))
    return false;
  basic_block dest = single_succ (bb);
  if (dest->index == EXIT_BLOCK)
    return true;
  gsi = gsi_start_nondebug_after_labels_bb (dest);
  return !gsi_end_p (gsi) && gimple_code (gsi_stmt (gsi)) == GIMPLE_RETURN;
}

/* Does CALL, in tail position, return what its function returns: its
   value, or nothing?  */
static bool
returns_call_value_p (gcall *call)
{
  gimple_stmt_iterator gsi = gsi_for_stmt (call);
  gsi_next_nondebug (&gsi);
  edge e = NULL;
  if (gsi_end_p (gsi))
    {
      e = single_succ_edge (gimple_bb (call));
      if (e->dest->index == EXIT_BLOCK)
        return true;
      gsi = gsi_start_nondebug_after_labels_bb (e->dest);
    }
  greturn *ret = dyn_cast<greturn *> (gsi_stmt (gsi));
  tree rv = ret ? gimple_return_retval (ret) : NULL_TREE;
  tree lhs = gimple_call_lhs (call);
  if (!rv)
    return true;
  if (!lhs || TREE_CODE (rv) != SSA_NAME)
    return false;
  if (rv == lhs)
    return true;
  gphi *phi = dyn_cast<gphi *> (SSA_NAME_DEF_STMT (rv));
  return e && phi && gimple_bb (phi) == e->dest
         && PHI_ARG_DEF_FROM_EDGE (phi, e) == lhs;
}

/* Under async, may the self call CALL become a jump to the top of its
   function (cce_site's tail_jump): GCC's tail recursion pass runs
   (-foptimize-sibling-calls), and it is a call in tail position whose
   value its function returns, which can be folded into the id there
   (folds)?  */
bool
self_tail_jump_p (gcall *call)
{
  return cce_opts.async && flag_optimize_sibling_calls
         && !stmt_ends_bb_p (call)
         && !gimple_call_noreturn_p (call)
         && !(gimple_call_flags (call) & ECF_RETURNS_TWICE)
         && tail_position_p (call) && returns_call_value_p (call);
}

/* Under async: every call out of the program (a function with no body
   here: the C library's malloc, memcpy...) that is in tail position gets
   an empty volatile asm after it, so that it stays a call.  A thread
   stopped in such a function is placed by its return address (rt/pc.c),
   which a tail call would make its caller's caller's, with the frame of
   the function that made it gone.  */
void
keep_calls_out (tree decl)
{
  function *fn = DECL_STRUCT_FUNCTION (decl);
  if (!fn || !fn->cfg)
    return;
  push_cfun (fn);
  bool changed = false;
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb (bb); !gsi_end_p (gsi);
         gsi_next (&gsi))
      {
        gcall *call = dyn_cast<gcall *> (gsi_stmt (gsi));
        if (!call || gimple_call_internal_p (call) || stmt_ends_bb_p (call))
          continue;
        tree callee = gimple_call_fndecl (call);
        if (!callee || is_runtime (callee))
          continue;
        cgraph_node *n = cgraph_node::get (callee);
        if ((n && n->has_gimple_body_p ()) || !tail_position_p (call))
          continue;
        gasm *a = gimple_build_asm_vec ("", NULL, NULL, NULL, NULL);
        gimple_asm_set_volatile (a, true);
        gimple_set_location (a, gimple_location (call));
        gsi_insert_after (&gsi, a, GSI_NEW_STMT);
        changed = true;
      }
  if (changed)
    {
      mark_virtual_operands_for_renaming (cfun);
      update_ssa (TODO_update_ssa);
      /* Not kept: the instrumentation changes the CFG next.  */
      free_dominance_info (CDI_DOMINATORS);
    }
  pop_cfun ();
}

/* With idreg under async, NODE, a node with no site, that code outside
   the program may call (a callback of the C library, say): it takes its
   id from the TLS word into the register and gives the caller's back
   (9), so that the PC map can place its instructions.  */
void
instrument_entry (collector &c, cgraph_node *node)
{
  auto it = c.nodes.find (node);
  if (it == c.nodes.end ())
    return;
  const struct cce_node *n = &c.g->nodes[it->second];
  function *fn = DECL_STRUCT_FUNCTION (node->decl);
  if (reg_entered_p (c.g, it->second) || !n->observed || !fn || !fn->cfg)
    return;
  push_cfun (fn);
  tree id = make_ssa_name (long_long_unsigned_type_node);
  gimple_seq seq = NULL;
  tree outer = load_id_from_tls (&seq, id, false);
  set_locations (seq, DECL_SOURCE_LOCATION (node->decl));
  gsi_insert_seq_on_edge_immediate (single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN
                                                      (cfun)), seq);
  restore_at_returns (id, outer);
  instrumented_fns.add (node->decl);
  update_function ();
  pop_cfun ();
}

/* Under async: the self calls of FC folded into the id that may become
   jumps to the top of the function (cce_site's tail_jump, where it made
   the function clobber the id) keep no restore after them, so that GCC's
   tail recursion pass can make them so, as it does without async.  The
   store of the folded id before such a jump is the id of the new level;
   an empty volatile asm at the top (CCE_ASM_REENTRY) tells the PC map
   where a level starts (pcmap.cc).  A call that stays a call returns
   with the id of the deepest level, as a clobbering function may.  */
static void
self_tail_jumps (function_code &fc)
{
  const struct cce_graph *g = fc.c.g;
  if (!g->nodes[fc.c.nodes[fc.node]].clobbers)
    return;
  for (size_t i = fc.first; i < fc.last; i++)
    {
      const site_info &si = fc.c.sites[i];
      const struct cce_site *s = &g->sites[si.site];
      gcall *call = si.stmt ? dyn_cast<gcall *> (si.stmt) : NULL;
      if (!call || !s->tail_jump || !folds (s, call)
          || !site_has_code (s, call))
        continue;
      fc.keep_id[i - fc.first] = 0;
      fc.reentry = true;
    }
}

/* The pairs (NODE << 32 | CALLEE) of G where some call of node CALLEE in
   node NODE is no stored_direct_p site: a guess, a fold, a free call.  */
std::set<uint64_t>
cce_unstored_calls (const struct cce_graph *g)
{
  std::set<uint64_t> out;
  for (uint32_t sn = 0; sn < g->nsites; sn++)
    {
      const struct cce_site *s = &g->sites[sn];
      if ((s->kind == CCE_SITE_DIRECT || s->kind == CCE_SITE_BACK)
          && s->target != CCE_NONE && !stored_direct_p (g, sn))
        out.insert ((uint64_t) s->node << 32 | s->target);
    }
  return out;
}

/* Under async, in the loops that chain_loops chains: a restore after a
   call that the store for the next call of the same block would
   overwrite, with nothing in between that can read the id (no other
   call, no asm), is left out, where both calls are stored_direct_p
   sites and every call of the second's callee in the function is one.
   (Elsewhere such calls add their values in place, in_place_p, which
   needs the restore before.)  Between the two the id is the first callee's, which
   returns with the id it found (pcmap.cc, K_POST).  A store of the id
   after a call, with a call of such a callee next, is then that call's:
   its function has no other call of it that a restore could be for
   (cce_unstored_calls), and pcmap.cc takes it so.  */
static void
chain_restores (function_code &fc)
{
  if (fc.loops.empty ())
    return;
  const struct cce_graph *g = fc.c.g;
  const std::set<uint64_t> &unstored = fc.c.unstored;
  uint32_t self = fc.c.nodes[fc.node];
  hash_map<gimple *, unsigned> site_of;
  map_sites (fc.c, fc.first, fc.last, site_of);
  basic_block bb;
  FOR_EACH_BB_FN (bb, cfun)
    {
      unsigned prev = UINT_MAX; /* a stored site, nothing after it */
      for (gimple_stmt_iterator it = gsi_start_bb (bb); !gsi_end_p (it);
           gsi_next (&it))
        {
          gimple *stmt = gsi_stmt (it);
          if (is_gimple_debug (stmt)
              || (!is_gimple_call (stmt) && gimple_code (stmt) != GIMPLE_ASM))
            continue;
          unsigned *k = site_of.get (stmt);
          uint32_t sn = k ? fc.c.sites[fc.first + *k].site : CCE_NONE;
          bool st = k && fc.chained[*k] && stored_call_p (g, sn, stmt)
                    && !fc.local[*k];
          if (st && prev != UINT_MAX
              && !unstored.count ((uint64_t) self << 32 | g->sites[sn].target))
            fc.keep_id[prev] = 0;
          prev = st ? *k : UINT_MAX;
        }
    }
}

/* Under async, without idreg: a loop whose iterations each end with
   a direct call with an addition value (S_LAST) and start with another
   (S_FIRST, maybe the same), keeps no restore after S_LAST: the
   next iteration's S_FIRST stores its own id over the one S_LAST's
   callee returned with (CALLEE at the loop's head, as between two
   chained calls, chain_restores).  So that the head is CALLEE on its
   entry edge too, that edge stores the id S_LAST is made with
   (CCE_ASM_LOOP_ID, which names S_LAST's callee for the PC map), and
   the loop's exit edge restores the id.  lua5.4's tremove moves a
   table's elements with lua_geti and lua_seti in such a loop: one store
   less per element.  The loop, in the form it has here: a header with
   no call, whose two successors are the loop's one exit and the block
   that holds every call of the loop, each a stored_call_p site whose
   call does not end the block; that block dominates the latch; the
   first call's callee has all its calls in the function stored
   (cce_unstored_calls), as chained_store_p wants.  Where the loop
   makes one call, of a function that returns with the id it found
   (returns_id_p), the id word holds that call's id at the head on
   both edges already: the call keeps no store before it either, and
   the exit takes its addition value off the id word (id_sub), so that
   the function's copy of its id is dead past the entry edge (jq's
   jvp_array_free then saves no more registers than without cce, on the
   path that frees nothing too).  Sets FC's keep_id, loop_stored and
   loops.  In cfun.  */
static void
chain_loops (function_code &fc)
{
  if (cce_opts.idreg || !current_loops)
    return;
  const struct cce_graph *g = fc.c.g;
  uint32_t self = fc.c.nodes[fc.node];
  hash_map<gimple *, unsigned> site_of;
  map_sites (fc.c, fc.first, fc.last, site_of);
  calculate_dominance_info (CDI_DOMINATORS);
  for (auto loop : loops_list (cfun, 0))
    {
      basic_block h = loop->header, latch = loop->latch;
      if (!latch || latch == h || EDGE_COUNT (h->preds) != 2
          || EDGE_COUNT (h->succs) != 2)
        continue;
      edge to_body = NULL, out = NULL, e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, h->succs)
        if (flow_bb_inside_loop_p (loop, e->dest))
          to_body = e;
        else
          out = e;
      if (!to_body || !out || (out->flags & (EDGE_EH | EDGE_ABNORMAL))
          || (to_body->flags & (EDGE_EH | EDGE_ABNORMAL)))
        continue;
      basic_block body = to_body->dest;
      if (body == h || !dominated_by_p (CDI_DOMINATORS, latch, body))
        continue;
      bool ok = true;
      unsigned first = UINT_MAX, last = UINT_MAX;
      std::vector<unsigned> calls;
      basic_block *bbs = get_loop_body (loop);
      for (unsigned k = 0; k < loop->num_nodes && ok; k++)
        {
          basic_block b = bbs[k];
          FOR_EACH_EDGE (e, ei, b->succs)
            ok &= e == out || flow_bb_inside_loop_p (loop, e->dest);
          for (gimple_stmt_iterator gsi = gsi_start_bb (b);
               !gsi_end_p (gsi) && ok; gsi_next (&gsi))
            {
              gimple *stmt = gsi_stmt (gsi);
              if (gimple_code (stmt) == GIMPLE_ASM)
                ok = false;
              if (!is_gimple_call (stmt))
                continue;
              unsigned *kk = site_of.get (stmt);
              ok = b == body && kk && !fc.local[*kk]
                   && stored_call_p (g, fc.c.sites[fc.first + *kk].site,
                                     stmt)
                   && !stmt_ends_bb_p (stmt);
              if (ok)
                {
                  if (first == UINT_MAX)
                    first = *kk;
                  last = *kk;
                  calls.push_back (*kk);
                }
            }
        }
      free (bbs);
      if (!ok || first == UINT_MAX || !fc.keep_id[last])
        continue;
      const struct cce_site *sf = &g->sites[fc.c.sites[fc.first + first].site];
      const struct cce_site *sl = &g->sites[fc.c.sites[fc.first + last].site];
      if (fc.c.unstored.count ((uint64_t) self << 32 | sf->target))
        continue;
      fc.keep_id[last] = 0;
      for (unsigned k : calls)
        fc.chained[k] = 1;
      bool single = first == last
                    && returns_id_p (g, fc.c.sites[fc.first + last].site);
      fc.loop_stored[last] = single;
      fc.loops.push_back ({ h, body, latch, fc.c.sites[fc.first + last].stmt,
                            sl->target, sl->av, single });
    }
  free_dominance_info (CDI_DOMINATORS);
}

/* The code chain_loops planned: the store on each loop's entry edge and
   the restore on its exit edge, as pending edge insertions; where the
   loop no longer has that shape, the restore after its last call.  */
static void
emit_loop_chains (function_code &fc)
{
  for (const function_code::loop_chain &l : fc.loops)
    {
      edge in = NULL, out = NULL, e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, l.header->preds)
        if (e->src != l.latch)
          in = e;
      FOR_EACH_EDGE (e, ei, l.header->succs)
        if (e->dest != l.body)
          out = e;
      if (!in || !out || EDGE_COUNT (l.header->preds) != 2
          || EDGE_COUNT (l.header->succs) != 2)
        {
          /* The code of an unchained call: its store too, if left out.  */
          gimple_stmt_iterator gsi = gsi_for_stmt (l.last);
          if (l.single)
            {
              gimple_seq seq = NULL;
              tree sum = id_plus (&seq, fc.id, l.av);
              gimple_seq_add_stmt (&seq, id_store (own_id_ref (true), sum));
              set_locations (seq, gimple_location (l.last));
              gsi_insert_seq_before (&gsi, seq, GSI_SAME_STMT);
            }
          gimple *r = id_store (own_id_ref (true), fc.id);
          gimple_set_location (r, gimple_location (l.last));
          gsi_insert_after (&gsi, r, GSI_SAME_STMT);
          continue;
        }
      location_t loc = gimple_location (last_stmt (l.header)
                                        ? last_stmt (l.header)
                                        : gsi_stmt (gsi_start_bb (l.body)));
      gimple_seq seq = NULL;
      tree sum = id_plus (&seq, fc.id, l.av);
      vec<tree, va_gc> *inputs = NULL, *outputs = NULL;
      asm_operand (&outputs, "=m", tls_ref (CCE_TLS_ID, true));
      asm_operand (&inputs, "r", sum);
      asm_operand (&inputs, "i", build_int_cst (unsigned_type_node,
                                                l.callee));
      gasm *a = gimple_build_asm_vec (CCE_ASM_LOOP_ID, inputs, outputs, NULL,
                                      NULL);
      gimple_asm_set_volatile (a, true);
      gimple_seq_add_stmt (&seq, a);
      set_locations (seq, loc);
      gsi_insert_seq_on_edge (in, seq);
      /* A single call's callee returns with the id it found, so the
         exit finds ID + AV: taking AV off leaves the function's copy
         dead after the entry, in no saved register.  */
      gimple *r = l.single ? id_sub (l.av) : id_store (own_id_ref (true),
                                                        fc.id);
      gimple_set_location (r, loc);
      gsi_insert_on_edge (out, r);
    }
}

/* Instrument the sites SITES[FIRST .. LAST) of one node.  */
void
instrument_function (collector &c, size_t first, size_t last)
{
  function_code fc (c, first, last);

  /* A function from which no log site can be reached keeps its code as it
     is: nothing it does is ever observed.  */
  if (!c.g->nodes[c.nodes[fc.node]].observed)
    return;
  /* The survey asks whether calls end their blocks (folds), which needs
     the function.  */
  push_cfun (DECL_STRUCT_FUNCTION (fc.node->decl));
  survey_sites (fc);
  fc.tls_entry = tls_entry_p (fc);
  mark_local_sites (fc);
  if (!fc.needed && !fc.clobber_sites && !fc.tls_entry)
    {
      pop_cfun ();
      return;
    }

  /* Under async every restore stays (pcmap.cc follows them), but for
     the self tail calls that may become loops and a restore that the
     next call's store overwrites at once.  */
  if (!cce_opts.async)
    plan_restores (c, first, last, fc.local, fc.keep_id, fc.keep_top);
  else
    {
      self_tail_jumps (fc);
      chain_loops (fc);
      chain_restores (fc);
    }
  /* A site that reads the id and top where it is may come before the
     function's loads of its copies (1) on a path: it puts both back,
     where the function has copies.  */
  if (fc.stack_sites || shared_id_p (fc))
    for (size_t i = 0; i < fc.local.size (); i++)
      if (fc.local[i])
        fc.keep_id[i] = fc.keep_top[i] = 1;
  /* Free calls of functions that clobber the id are all the code there
     would be: needed only where something reads the id after one.  */
  for (size_t i = first; i < last && !fc.needed; i++)
    fc.needed = c.sites[i].stmt && cce_site_clobbers (c.g, c.sites[i].site)
                && fc.keep_id[i - first];
  if (!fc.needed && !fc.tls_entry)
    {
      pop_cfun ();
      return;
    }
  instrumented_fns.add (fc.node->decl);

  gimple_seq entry_seq = NULL;
  if (fc.reentry)
    {
      gasm *a = gimple_build_asm_vec (CCE_ASM_REENTRY, NULL, NULL, NULL,
                                      NULL);
      gimple_asm_set_volatile (a, true);
      gimple_set_location (a, DECL_SOURCE_LOCATION (fc.node->decl));
      gimple_seq_add_stmt (&entry_seq, a);
    }
  place_loads (fc, &entry_seq);
  emit_trace_entries (fc, &entry_seq);
  gsi_insert_seq_on_edge_immediate (single_succ_edge (ENTRY_BLOCK_PTR_FOR_FN
                                                      (cfun)), entry_seq);
  emit_sites (fc);
  restore_at_pads (fc);
  if (fc.tls_entry)
    restore_at_returns (fc.id, fc.outer);
  emit_loop_chains (fc);
  gsi_commit_edge_inserts ();
  subtract_restores (fc);
  if (cce_opts.async && !cce_opts.idreg)
    merge_adjusts (fc);
  update_function ();
  pop_cfun ();
}
