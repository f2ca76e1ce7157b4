/* pcmap.cc -- the cce plugin's PC map (cce-format.h, 3.): for every
   instruction of every body, its node, its source location with the
   inlined frames, and where the id and the ccStack are there relative to
   the function's own, so that the decoder can place a record of an
   interrupted instruction (a crash, a sample) exactly.

   An RTL pass, late: after register allocation and scheduling, when the
   order of the instructions is final, and while the CFG is still there
   (before "alignments").  It finds the stores of the TLS block that the
   instrumentation made, follows the protocol of cce-abi.h over the CFG,
   puts a label (a deleted-label note, which changes no instruction)
   wherever the state or the location changes, and writes the block of
   the function to the assembler output, in section cce_pcmap, which is
   not loaded.

   Sound by construction: what the pass cannot place is CCE_PC_UNKNOWN.
   With -fplugin-arg-cce-async the instrumentation keeps the protocol
   that makes every instruction placeable: every id store is volatile and
   kept, every call is followed by its restores (the id first), and no
   function returns with another id than it found.  Without it, restores
   are left out where nothing reads them and functions may return with
   another id: from a call's return to the next store of the id the id
   is the callee's (placeable if the callee keeps it) or unknown, and
   that store is taken for the next call's, which it is, or a restore
   that a free call of the same function reads; pushes and folded
   recursion leave more unknown.

   With idreg (cce-abi.h, CCE_IDREG) the id is the register: a store of
   it, or the asm that stores it under async, is the store of the id;
   a store of the TLS id word is a callee's that takes its id from there
   and gives the register back, which leaves the state as it was but for
   completing a push.  A function that code outside the program may call
   has its id in the TLS word until it loads the register (K_ENTRY),
   unless it has a stub that loads it (stub.cc).  */

#include "cce-plugin.h"

#include "memmodel.h"
#include "rtl.h"
#include "rtl-iter.h"
#include "emit-rtl.h"
#include "cfgrtl.h"
#include "insn-config.h"
#include "recog.h"

#include <string>
#include <unordered_map>

struct pc_node
{
  uint32_t index;
  bool observed;
  bool logs;            /* cce_node's logs: its callers' stores of the
                           id are never dead to GCC */
  bool clobbers;
  bool entry;           /* CCE_NODE_ENTRY, without a stub */
};

/* What cce_execute leaves for the pass.  */
static struct
{
  bool valid;
  uint32_t key;
  std::map<tree, pc_node> nodes;
  std::set<uint64_t> unstored;  /* collector's */
} pcm;

void
pcmap_note_graph (const collector &c)
{
  pcm.valid = true;
  pcm.key = c.key;
  pcm.nodes.clear ();
  pcm.unstored = c.unstored;
  for (const auto &n : c.nodes)
    {
      const struct cce_node *node = &c.g->nodes[n.second];
      pcm.nodes[n.first->decl] = { n.second, node->observed != 0,
                                   node->logs != 0, node->clobbers != 0,
                                   (node->flags & CCE_NODE_ENTRY) != 0
                                   && !cce_stubbed_p (n.second) };
    }
}

static const pc_node *
node_of (tree decl)
{
  if (!decl)
    return NULL;
  auto it = pcm.nodes.find (decl);
  return it == pcm.nodes.end () ? NULL : &it->second;
}

/* ------------------------------------------------------------------ */
/* The states.                                                        */

enum pc_kind
{
  K_TOP,        /* not reached yet */
  K_OWN,
  K_PRE,        /* the id is stored for the next call, CALLEE's
                   (store_callee; CCE_PCMAP_NO_NODE: not known) */
  K_POST,       /* after that call: the id is its callee's */
  K_PUSHING,
  K_PUSHED,
  K_POPPING,
  K_LOST_ID,    /* the id is not the function's, the ccStack is: the
                   next store of the id restores it (without async: or
                   stores the next call's) */
  K_LOST_TOP,   /* the ccStack top is not the function's, the id is: the
                   next store of the top restores it */
  K_LOST_BOTH,  /* both, and the next stores of each restore them (at a
                   landing pad or after a call that returns twice) */
  K_ENTRY,      /* at the top of a function that takes its id from the
                   TLS word into the register (idreg): the next store of
                   the id is that load, which makes it OWN */
  K_REENTRY,    /* at the top of a function whose self tail calls became
                   jumps there: the id is the function's own, or stored
                   for the level the jump starts; the reentry asm
                   (CCE_ASM_REENTRY) makes it the own id of either */
  K_UNKNOWN
};

struct pc_state
{
  uint8_t kind;
  uint32_t callee;      /* K_POST: the callee's node, else
                           CCE_PCMAP_NO_NODE */
  bool operator== (const pc_state &o) const
  {
    return kind == o.kind && callee == o.callee;
  }
  bool operator!= (const pc_state &o) const { return !(*this == o); }
};

static const pc_state S_TOP = { K_TOP, CCE_PCMAP_NO_NODE };
static const pc_state S_OWN = { K_OWN, CCE_PCMAP_NO_NODE };
static const pc_state S_UNKNOWN = { K_UNKNOWN, CCE_PCMAP_NO_NODE };

static pc_state
st (uint8_t kind)
{
  return { kind, CCE_PCMAP_NO_NODE };
}

/* The node of the function the pass is at, or CCE_PCMAP_NO_NODE.  */
static uint32_t self_index;

/* Is S the state after a store of the id for a self call of the
   function (or a jump to its top that was one)?  */
static bool
pre_self_p (pc_state s)
{
  return s.kind == K_PRE && s.callee != CCE_PCMAP_NO_NODE
         && s.callee == self_index;
}

static pc_state
meet (pc_state a, pc_state b)
{
  if (a.kind == K_TOP)
    return b;
  if (b.kind == K_TOP)
    return a;
  /* The top of a function whose self tail calls became jumps there,
     reached from its entry and from such a jump.  */
  if ((a.kind == K_OWN || a.kind == K_REENTRY || pre_self_p (a))
      && (b.kind == K_OWN || b.kind == K_REENTRY || pre_self_p (b))
      && a != b)
    return st (K_REENTRY);
  /* After calls of different callees (their restores merged into one
     block): the id is some callee's, not placeable, but the next store
     of the id still restores it.  */
  if (a.kind == K_POST && b.kind == K_POST)
    return { K_POST, a.callee == b.callee ? a.callee : CCE_PCMAP_NO_NODE };
  return a == b ? a : S_UNKNOWN;
}

/* ------------------------------------------------------------------ */
/* What an instruction does to the TLS block.                         */

enum tls_effect
{
  E_NONE,
  E_ID,         /* stores the id: the id word, or with idreg the
                   register */
  E_TLS_ID,     /* with idreg, stores the id word: a callee's that takes
                   it from there */
  E_TOP,        /* stores the top word */
  E_OTHER       /* stores another word, or a TLS word it cannot name */
};

/* Does X mention the symbol named NAME, or an UNSPEC (TLS addresses are
   made of them)?  */
static bool
mentions (const_rtx x, const char *name, bool *unspec)
{
  subrtx_iterator::array_type array;
  FOR_EACH_SUBRTX (iter, array, x, ALL)
    {
      const_rtx y = *iter;
      if (GET_CODE (y) == SYMBOL_REF && strcmp (XSTR (y, 0), name) == 0)
        return true;
      if (GET_CODE (y) == UNSPEC || GET_CODE (y) == UNSPEC_VOLATILE)
        *unspec = true;
    }
  return false;
}

/* The constant added in address X, or -1 if there is none to find.  */
static HOST_WIDE_INT
address_offset (const_rtx x)
{
  if (GET_CODE (x) == CONST)
    x = XEXP (x, 0);
  if (GET_CODE (x) == PLUS && CONST_INT_P (XEXP (x, 1)))
    return INTVAL (XEXP (x, 1));
  if (GET_CODE (x) == UNSPEC || GET_CODE (x) == SYMBOL_REF)
    return 0;
  return -1;
}

/* The effect of storing to MEM.  */
static tls_effect
mem_effect (const_rtx mem)
{
  tree tls = cce_rt[CCE_RT_TLS];
  tree expr = MEM_EXPR (mem);
  HOST_WIDE_INT off = -1;
  bool unspec = false;

  if (expr)
    {
      tree base = get_base_address (expr);
      if (base && TREE_CODE (base) == MEM_REF
          && TREE_CODE (TREE_OPERAND (base, 0)) == ADDR_EXPR)
        base = TREE_OPERAND (TREE_OPERAND (base, 0), 0);
      if (base != tls)
        return E_NONE;
      if (TREE_CODE (expr) != MEM_REF || !MEM_OFFSET_KNOWN_P (mem)
          || !MEM_OFFSET (mem).is_constant ())
        return E_OTHER;
      off = mem_ref_offset (expr).force_shwi ().to_constant ()
            + MEM_OFFSET (mem).to_constant ();
    }
  else if (mentions (XEXP (mem, 0), CCE_SYM_TLS, &unspec))
    off = address_offset (XEXP (mem, 0));
  else
    /* A TLS store that lost the expression it had: it may be ours.  */
    return unspec ? E_OTHER : E_NONE;
  if (maybe_ne (GET_MODE_SIZE (GET_MODE (mem)), 8))
    return E_OTHER;
  if (off == 8 * CCE_TLS_ID)
    return cce_opts.idreg ? E_TLS_ID : E_ID;
  if (off == 8 * CCE_TLS_TOP)
    return E_TOP;
  return E_OTHER;
}

static void
note_one_store (rtx dest, const_rtx, void *data)
{
  tls_effect *e = (tls_effect *) data;
  tls_effect x;
  if (REG_P (dest) && cce_opts.idreg
      && REGNO (dest) == REGNO (DECL_RTL (cce_rt[CCE_RT_IDREG])))
    x = E_ID;
  else if (!MEM_P (dest))
    return;
  else
    x = mem_effect (dest);
  if (x == E_NONE)
    return;
  *e = *e == E_NONE ? x : E_OTHER;
}

static tls_effect
store_effect (rtx_insn *insn)
{
  tls_effect e = E_NONE;
  note_stores (insn, note_one_store, &e);
  return e;
}

/* The function a call insn calls, or NULL.  */
static tree
call_target (rtx_insn *insn)
{
  rtx call = get_call_rtx_from (insn);
  if (!call)
    return NULL_TREE;
  rtx addr = XEXP (XEXP (call, 0), 0);
  if (GET_CODE (addr) != SYMBOL_REF)
    return NULL_TREE;
  return SYMBOL_REF_DECL (addr);
}

static const char *
decl_symbol (tree decl)
{
  if (!decl || !DECL_ASSEMBLER_NAME_SET_P (decl))
    return "";
  const char *s = IDENTIFIER_POINTER (DECL_ASSEMBLER_NAME (decl));
  return s[0] == '*' ? s + 1 : s;
}

/* The template of an asm insn, or NULL: also for the asms of a folded
   site's multiply-add, which touch registers only (CCE_ASM_FOLD_MARK).  */
static const char *
asm_template (rtx_insn *insn)
{
  rtx pat = PATTERN (insn);
  if (GET_CODE (pat) == ASM_INPUT)
    return XSTR (pat, 0);
  rtx op = extract_asm_operands (pat);
  const char *t = op ? ASM_OPERANDS_TEMPLATE (op) : NULL;
  return t && strstr (t, CCE_ASM_FOLD_MARK) ? NULL : t;
}

/* ------------------------------------------------------------------ */
/* The transfer function.                                             */

static bool async_p;

/* For each store of the id: the node of the call it can be for, the
   first call after it on every path with no other store of the id and
   no asm in between (next_stores), or CCE_PCMAP_NO_NODE.  */
static std::unordered_map<rtx_insn *, uint32_t> store_callee;

static uint32_t
callee_of_store (rtx_insn *insn)
{
  auto it = store_callee.find (insn);
  return it == store_callee.end () ? CCE_PCMAP_NO_NODE : it->second;
}

/* Does a call of node N return with the id of its deepest level, which
   the decoder can undo (cce-format.h, CCE_PC_CALLEE): under async the
   only clobbering nodes are those whose self tail calls became jumps
   (self_tail_jumps), and for a call of another function the levels its
   own folded sites made are all of them.  */
static bool
deepest_levels_p (const pc_node *n)
{
  return async_p && n->clobbers && n->index != self_index;
}

/* Under async: is INSN, a store of the id after a call, the store for
   the next call, whose restore chain_restores (instrument.cc) left out:
   the next call on every path, with no other store in between, is of a
   node whose every call in this function stores its id before it
   (cce_unstored_calls).  A restore followed by such a call cannot be:
   that call's own store would follow it.  */
static bool
chained_store_p (rtx_insn *insn)
{
  uint32_t callee = callee_of_store (insn);
  return callee != CCE_PCMAP_NO_NODE && self_index != CCE_PCMAP_NO_NODE
         && !pcm.unstored.count ((uint64_t) self_index << 32 | callee);
}

/* Is INSN the change of the id word from one call's value to the next
   call's (instrument.cc, merge_adjusts)?  */
static bool
chain_asm_p (rtx_insn *insn)
{
  const char *t = asm_template (insn);
  return t && strstr (t, CCE_ASM_ID_CHAIN_MARK);
}

static pc_state
step (pc_state s, rtx_insn *insn)
{
  if (!NONDEBUG_INSN_P (insn) || s.kind == K_TOP || s.kind == K_UNKNOWN)
    return s;

  const char *t = asm_template (insn);
  /* The store on a loop's entry edge of the id its last call is made
     with (instrument.cc, chain_loops): as after that call.  */
  if (t && strstr (t, CCE_ASM_LOOP_MARK))
    {
      rtx op = extract_asm_operands (PATTERN (insn));
      rtx n = op && ASM_OPERANDS_INPUT_LENGTH (op) == 2
              ? ASM_OPERANDS_INPUT (op, 1) : NULL_RTX;
      return s.kind == K_OWN && n && CONST_INT_P (n)
             ? pc_state { K_POST, (uint32_t) INTVAL (n) } : S_UNKNOWN;
    }
  /* The store of the id's register under async (id_store) is a store.  */
  if (t && strstr (t, CCE_ASM_IDREG_MARK))
    t = NULL;
  if (t)
    {
      /* The register-keeping cold calls (cce-abi.h): a grow leaves the
         id and top alone.  The push of a folded site (its function's
         id, which async keeps on the cold path, and the site's word)
         and the pop of that entry, which restores the id, each commit
         in one store of the top (rt/keep.c): the runtime places a thread
         stopped inside them at the jump before the store, after the asm
         after it.  Any other push or pop is not followed.  */
      if (strstr (t, CCE_SYM_PUSH_KEEP) || strstr (t, CCE_SYM_PUSH_KEEP_REG))
        return s.kind == K_OWN ? st (K_PUSHED) : S_UNKNOWN;
      if (strstr (t, CCE_SYM_POP_ENTRY_KEEP)
          || strstr (t, CCE_SYM_POP_ENTRY_KEEP_REG))
        return s.kind == K_PUSHED ? S_OWN : S_UNKNOWN;
      if (strstr (t, "__cce_push") || strstr (t, "__cce_pop"))
        return S_UNKNOWN;
      /* Where a level of the function's recursion starts: at its entry,
         or after the store of the id for a self tail call that became a
         jump here (self_tail_jumps), which is the new level's own.  */
      if (strstr (t, CCE_ASM_REENTRY))
        return s.kind == K_OWN || s.kind == K_REENTRY || pre_self_p (s)
               ? S_OWN : S_UNKNOWN;
      if (s.kind == K_REENTRY)
        return S_UNKNOWN;
      return s;
    }

  if (CALL_P (insn))
    {
      tree fn = call_target (insn);
      const char *sym = decl_symbol (fn);
      const pc_node *n = node_of (fn);
      pc_state r;
      if (strcmp (sym, CCE_SYM_PUSH) == 0
          || strcmp (sym, CCE_SYM_PUSH_COUNTED) == 0)
        r = s.kind == K_OWN ? st (K_PUSHED) : S_UNKNOWN;
      else if (strcmp (sym, CCE_SYM_POP) == 0)
        r = s.kind == K_PUSHED ? S_OWN : S_UNKNOWN;
      else if (strcmp (sym, CCE_SYM_LOG_AT) == 0
               || strcmp (sym, CCE_SYM_COUNT_AT) == 0
               || strcmp (sym, CCE_SYM_LOG_ID) == 0
               || strcmp (sym, CCE_SYM_COUNT_ID) == 0
               || strcmp (sym, CCE_SYM_GROW) == 0)
        r = s;
      else if (s.kind == K_PRE
               || (s.kind == K_POST && n && n->index == s.callee))
        {
          /* The call the id was stored for: the callee returns with the
             id it found unless it clobbers it.  After such a call, a
             call of the same function with no store in between is made
             with the same id: a loop's one call, whose id its entry
             stored (instrument.cc, chain_loops).  */
          r = !n || n->index != s.callee ? S_UNKNOWN
              : n->clobbers && !deepest_levels_p (n)
              ? st (K_LOST_ID) : pc_state { K_POST, n->index };
        }
      else if (s.kind == K_PUSHED)
        r = s;
      /* A call out of the program (a libcall GCC made) after a call
         whose restore was left out: it leaves the id alone.  */
      else if (s.kind == K_POST && !n)
        r = s;
      else if (s.kind == K_OWN)
        {
          /* A call with no code around it: the callee returns with the
             id it found, unless it is a node that clobbers it.  Code
             outside the program leaves the TLS block alone, and what it
             calls back restores it (entry nodes do).  */
          r = !n || !n->clobbers || !n->observed ? S_OWN
              : deepest_levels_p (n) ? pc_state { K_POST, n->index }
              : st (K_LOST_ID);
        }
      else
        r = S_UNKNOWN;
      if (find_reg_note (insn, REG_SETJMP, NULL) && r.kind != K_UNKNOWN)
        r = st (K_LOST_BOTH);
      return r;
    }

  switch (store_effect (insn))
    {
    case E_NONE:
      return s;
    case E_OTHER:
      return S_UNKNOWN;
    /* With idreg the id word is the callee's of a call of a function
       that takes its id from there, which gives the register back: the
       function's id stays in the register.  A push stores the id
       there or in the register, for its callee.  */
    case E_TLS_ID:
      return s.kind == K_PUSHING ? st (K_PUSHED) : s;
    case E_ID:
      /* The id was the first call's, and is the next call's.  */
      if (chain_asm_p (insn))
        return s.kind == K_POST ? pc_state { K_PRE, callee_of_store (insn) }
                                : S_UNKNOWN;
      switch (s.kind)
        {
        case K_ENTRY:
          return S_OWN;
        case K_OWN:
          return { K_PRE, callee_of_store (insn) };
        /* The first store of the id after a call.  Under async it is
           the restore, volatile, never merged, but where the restore was
           left out for the store of the next call (chained_store_p).
           Without async a restore may have been left out (nothing read
           the id before the next call stored it), so it is the restore
           or the next call's store, and either way the id is then one
           the next call is made with: F's own id is F's own id plus the
           addition value 0 of a free call, which is what a kept restore
           is for (cce_flow_live_after: only a free call, a log, the
           return or asm read the id; the last three are no call of a
           node, and K_PRE then gives UNKNOWN).  */
        case K_POST:
          return async_p && !chained_store_p (insn)
                 ? S_OWN : pc_state { K_PRE, callee_of_store (insn) };
        case K_LOST_ID:
          return async_p ? S_OWN : pc_state { K_PRE, callee_of_store (insn) };
        /* Without async, a store after a store: the first was a restore
           (or a store that became dead); this one is for the next
           call, or a restore as above.  */
        case K_PRE:
          return async_p ? S_UNKNOWN
                         : pc_state { K_PRE, callee_of_store (insn) };
        case K_PUSHING:
          return st (K_PUSHED);
        case K_PUSHED:
          return async_p ? st (K_POPPING) : S_UNKNOWN;
        case K_LOST_BOTH:
          return async_p ? st (K_LOST_TOP) : S_UNKNOWN;
        default:
          return S_UNKNOWN;
        }
    case E_TOP:
      switch (s.kind)
        {
        case K_OWN:
          return st (K_PUSHING);
        case K_POPPING:
        case K_LOST_TOP:
          return S_OWN;
        /* The restore of the top after a ccStack call (volatile, so
           kept where the plugin put it); without async it may also be
           the next push's store of the top, whose store of the id then
           leads to a call that is no node's, or a back edge's call
           with the callee's root value, which no edge holds: UNKNOWN.  */
        case K_PUSHED:
        case K_LOST_BOTH:
          return st (K_LOST_ID);
        default:
          return S_UNKNOWN;
        }
    }
  return S_UNKNOWN;
}

/* ------------------------------------------------------------------ */
/* The dataflow.                                                      */

/* The state at the start of every block of cfun: OWN at the entry of a
   node whose id its callers keep, LOST_BOTH where an exception or an
   abnormal edge enters (the landing pad restores both; a receiver of a
   nonlocal goto or of setjmp may too), the meet of the predecessors'
   end states elsewhere.  */
static void
block_states (pc_state entry, std::vector<pc_state> &in)
{
  basic_block bb;
  in.assign (last_basic_block_for_fn (cfun), S_TOP);
  auto_vec<basic_block> work;
  auto_sbitmap queued (last_basic_block_for_fn (cfun));
  bitmap_clear (queued);

  FOR_EACH_BB_FN (bb, cfun)
    {
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->preds)
        {
          if (e->src == ENTRY_BLOCK_PTR_FOR_FN (cfun))
            in[bb->index] = meet (in[bb->index], entry);
          if (e->flags & (EDGE_EH | EDGE_ABNORMAL))
            in[bb->index] = meet (in[bb->index], st (K_LOST_BOTH));
        }
      if (in[bb->index].kind != K_TOP)
        {
          work.safe_push (bb);
          bitmap_set_bit (queued, bb->index);
        }
    }
  while (!work.is_empty ())
    {
      bb = work.pop ();
      bitmap_clear_bit (queued, bb->index);
      pc_state s = in[bb->index];
      rtx_insn *insn;
      FOR_BB_INSNS (bb, insn)
        s = step (s, insn);
      edge e;
      edge_iterator ei;
      FOR_EACH_EDGE (e, ei, bb->succs)
        {
          if (e->dest == EXIT_BLOCK_PTR_FOR_FN (cfun)
              || (e->flags & (EDGE_EH | EDGE_ABNORMAL)))
            continue;
          pc_state m = meet (in[e->dest->index], s);
          if (m != in[e->dest->index])
            {
              in[e->dest->index] = m;
              if (!bitmap_bit_p (queued, e->dest->index))
                {
                  work.safe_push (e->dest);
                  bitmap_set_bit (queued, e->dest->index);
                }
            }
        }
    }
}

/* The node of the first call reached from every point of cfun on every
   path: per block, at its start (NEXT_IN).  CCE_PCMAP_NO_NODE: not a
   node, or calls of different functions, or none.  */
static const uint32_t NEXT_TOP = UINT32_MAX - 1;

/* The node a call insn calls, as the callee of a store of the id before
   it.  Without async only a node whose callers' stores GCC never takes
   for dead (cce_node's logs) is one: a store before a call of any other
   may have been deleted, and what looks like its store is a restore.  */
static uint32_t
call_node (rtx_insn *insn)
{
  const pc_node *n = node_of (call_target (insn));
  return n && (async_p || n->logs) ? n->index : CCE_PCMAP_NO_NODE;
}

static uint32_t
next_meet (uint32_t a, uint32_t b)
{
  if (a == NEXT_TOP)
    return b;
  if (b == NEXT_TOP)
    return a;
  return a == b ? a : CCE_PCMAP_NO_NODE;
}

/* The next call's node at the end of BB, from NEXT_IN.  */
static uint32_t
next_at_end (basic_block bb, const std::vector<uint32_t> &next_in)
{
  uint32_t n = NEXT_TOP;
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE (e, ei, bb->succs)
    if (!(e->flags & (EDGE_EH | EDGE_ABNORMAL)))
      n = next_meet (n, e->dest == EXIT_BLOCK_PTR_FOR_FN (cfun)
                        ? CCE_PCMAP_NO_NODE : next_in[e->dest->index]);
  return n;
}

/* The next call's node before INSN, N after it: a call is its own; a
   store to the TLS block or an asm (which may read the id) stops the
   search.  */
static uint32_t
next_before (rtx_insn *insn, uint32_t n)
{
  if (CALL_P (insn))
    return call_node (insn);
  if (!NONDEBUG_INSN_P (insn))
    return n;
  /* The top of a level of the function's recursion, where a self tail
     call that became a jump goes, is as a call of the function; any
     other asm may read the id.  */
  if (const char *t = asm_template (insn))
    return async_p && strstr (t, CCE_ASM_REENTRY) ? self_index
                                                  : CCE_PCMAP_NO_NODE;
  if (store_effect (insn) != E_NONE)
    return CCE_PCMAP_NO_NODE;
  return n;
}

/* NEXT_IN, and STORE_CALLEE for every store of the id of cfun.  */
static void
next_calls (std::vector<uint32_t> &next_in)
{
  basic_block bb;
  next_in.assign (last_basic_block_for_fn (cfun), NEXT_TOP);
  bool changed = true;
  while (changed)
    {
      changed = false;
      FOR_EACH_BB_REVERSE_FN (bb, cfun)
        {
          uint32_t n = next_at_end (bb, next_in);
          rtx_insn *insn;
          FOR_BB_INSNS_REVERSE (bb, insn)
            n = next_before (insn, n);
          if (n != next_in[bb->index])
            {
              next_in[bb->index] = n;
              changed = true;
            }
        }
    }
  store_callee.clear ();
  FOR_EACH_BB_FN (bb, cfun)
    {
      uint32_t n = next_at_end (bb, next_in);
      rtx_insn *insn;
      FOR_BB_INSNS_REVERSE (bb, insn)
        {
          if (NONDEBUG_INSN_P (insn) && !CALL_P (insn)
              && store_effect (insn) == E_ID)
            store_callee[insn] = n == NEXT_TOP ? CCE_PCMAP_NO_NODE : n;
          n = next_before (insn, n);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Locations.                                                         */

static void
add_escaped (std::string &out, const char *s)
{
  for (; s && *s; s++)
    if (*s == '\t' || *s == '\n')
      out += ' ';
    else
      out += *s;
}

/* The location text (cce-format.h) of LOCUS in BLOCK of NODE's body.  */
static std::string
location_text (cgraph_node *node, tree block, location_t locus)
{
  std::string out;
  for (const cce_frame_at &f : frames_at (node, block, locus))
    {
      expanded_location xl = expand_location (f.loc);
      if (!out.empty ())
        out += '\n';
      add_escaped (out, func_symbol (f.fn));
      out += '\t';
      add_escaped (out, xl.file ? xl.file : "");
      out += '\t';
      out += std::to_string (xl.line);
      out += '\t';
      out += std::to_string (xl.column);
    }
  return out;
}

/* ------------------------------------------------------------------ */
/* The pass.                                                          */

struct pc_range
{
  std::string start, end;       /* labels */
  pc_state state;
  unsigned loc;                 /* index in LOCS + 1, 0 for none */
};

/* A label right before INSN, or right after it (AFTER), where it ends
   its block: outside the block then, so that the block still ends in
   INSN.  A deleted-label note: final prints it as .L<N>, and no pass
   after this one moves it or an instruction across it.  (Emitting the
   note kind directly is refused by make_note_raw.)  */
static std::string
new_label (rtx_insn *insn, bool after)
{
  rtx_code_label *l = gen_label_rtx ();
  rtx_note *n;
  if (after)
    {
      basic_block bb = BLOCK_FOR_INSN (insn);
      rtx_insn *end = bb ? BB_END (bb) : NULL;
      n = emit_note_after (NOTE_INSN_DELETED, insn);
      if (bb && end == insn)
        {
          BB_END (bb) = end;
          set_block_for_insn (n, NULL);
        }
    }
  else
    n = emit_note_before (NOTE_INSN_DELETED, insn);
  NOTE_KIND (n) = NOTE_INSN_DELETED_LABEL;
  NOTE_DELETED_LABEL_NAME (n) = NULL;
  CODE_LABEL_NUMBER (n) = CODE_LABEL_NUMBER (l);
  char buf[64];
  ASM_GENERATE_INTERNAL_LABEL (buf, "L", CODE_LABEL_NUMBER (l));
  return buf[0] == '*' ? buf + 1 : buf;
}

static void
write_string (FILE *f, const std::string &s)
{
  fputs ("\t.string \"", f);
  for (unsigned char ch : s)
    if (ch == '"' || ch == '\\')
      fprintf (f, "\\%c", ch);
    else if (ch < 0x20 || ch >= 0x7f)
      fprintf (f, "\\%03o", ch);
    else
      fputc (ch, f);
  fputs ("\"\n", f);
}

static unsigned block_counter;

static void
write_block (const pc_node *self, const std::vector<pc_range> &ranges,
             const std::vector<std::string> &locs)
{
  FILE *f = asm_out_file;
  unsigned b = block_counter++;
  fprintf (f, "\t.pushsection\t%s,\"\",@progbits\n\t.p2align\t3\n",
           CCE_PCMAP_SECTION);
  fprintf (f, ".Lcce_pm%u:\n", b);
  fprintf (f, "\t.long\t%#x\n\t.value\t%d, %d\n", (unsigned) CCE_PCMAP_MARK,
           CCE_PCMAP_VERSION, async_p ? CCE_PCMAP_ASYNC : 0);
  fprintf (f, "\t.long\t.Lcce_pme%u-.Lcce_pm%u\n", b, b);
  fprintf (f, "\t.long\t%#x\n\t.long\t%#x\n\t.long\t%u\n", (unsigned) pcm.key,
           self ? self->index : (unsigned) CCE_PCMAP_NO_NODE,
           (unsigned) ranges.size ());
  for (const pc_range &r : ranges)
    {
      uint32_t state;
      switch (r.state.kind)
        {
        case K_OWN: state = CCE_PC_OWN; break;
        case K_PRE:
        case K_POST:
          state = r.state.callee == CCE_PCMAP_NO_NODE ? CCE_PC_UNKNOWN
                                                      : CCE_PC_CALLEE;
          break;
        case K_PUSHING: state = CCE_PC_PUSHING; break;
        case K_PUSHED: state = CCE_PC_PUSHED; break;
        case K_POPPING: state = CCE_PC_POPPING; break;
        default: state = CCE_PC_UNKNOWN; break;
        }
      fprintf (f, "\t.quad\t%s\n\t.long\t%s-%s\n\t.long\t%u\n\t.long\t%#x\n",
               r.start.c_str (), r.end.c_str (), r.start.c_str (), state,
               state == CCE_PC_CALLEE ? r.state.callee
                                      : (unsigned) CCE_PCMAP_NO_NODE);
      if (r.loc)
        fprintf (f, "\t.long\t.Lcce_pms%u_%u-.Lcce_pm%u\n", b, r.loc - 1, b);
      else
        fputs ("\t.long\t0\n", f);
    }
  for (size_t i = 0; i < locs.size (); i++)
    {
      fprintf (f, ".Lcce_pms%u_%u:\n", b, (unsigned) i);
      write_string (f, locs[i]);
    }
  fprintf (f, "\t.p2align\t3\n.Lcce_pme%u:\n\t.popsection\n", b);
}

static unsigned int
pcmap_execute (void)
{
  cgraph_node *cnode = cgraph_node::get (current_function_decl);
  const pc_node *self = node_of (current_function_decl);
  if (!cnode)
    return 0;
  self_index = self ? self->index : CCE_PCMAP_NO_NODE;

  /* The id at entry is the function's own if its callers keep it: the
     node is observed (calls into a node nothing logs through have no
     code), and without async its callers' stores are never dead to GCC
     (cce_node's logs; a call of a const function may have lost its).  */
  pc_state entry = self && (async_p ? self->observed : self->logs)
                   ? S_OWN : S_UNKNOWN;
  /* With idreg the id of a function that code outside the program may
     call is in the TLS word until it loads the register from there
     (cce-abi.h), which one that has no code never does.  */
  if (entry == S_OWN && cce_opts.idreg && self->entry)
    entry = st (K_ENTRY);
  std::vector<pc_state> in;
  std::vector<uint32_t> next_in;
  /* The callee of every store first: the forward states use it.  */
  next_calls (next_in);
  block_states (entry, in);

  /* The state before each instruction, in the order of the code.  */
  struct item
  {
    rtx_insn *insn;
    pc_state state;
    int partition;
    location_t loc;             /* the locus */
    tree block;
  };
  /* Locations as the debug information has them (final.cc,
     reemit_insn_block_notes): an instruction, or a statement marker (-g),
     with a scope opens it; one with a location but no scope is in the
     function's outermost scope; one with neither keeps the scope before
     it.  A locus holds until the next one, as in the line table.  */
  std::vector<item> items;
  basic_block bb;
  location_t locus = DECL_SOURCE_LOCATION (current_function_decl);
  tree scope = NULL_TREE;
  FOR_EACH_BB_FN (bb, cfun)
    {
      pc_state s = in[bb->index];
      rtx_insn *insn;
      FOR_BB_INSNS (bb, insn)
        {
          bool active = NONDEBUG_INSN_P (insn)
                        && GET_CODE (PATTERN (insn)) != USE
                        && GET_CODE (PATTERN (insn)) != CLOBBER;
          if (active || DEBUG_MARKER_INSN_P (insn))
            {
              location_t l = INSN_LOCATION (insn);
              if (LOCATION_LOCUS (l) != UNKNOWN_LOCATION)
                locus = LOCATION_LOCUS (l);
              if (LOCATION_BLOCK (l))
                scope = LOCATION_BLOCK (l);
              else if (l != UNKNOWN_LOCATION)
                scope = NULL_TREE;
            }
          if (active)
            items.push_back ({ insn, s.kind == K_TOP ? S_UNKNOWN : s,
                               BB_PARTITION (bb), locus, scope });
          s = step (s, insn);
        }
    }
  if (items.empty ())
    return 0;

  /* Ranges: a label before every instruction whose state, location or
     section differs from its predecessor's, and after the last of each
     section.  */
  std::vector<pc_range> ranges;
  std::vector<std::string> locs;
  std::map<std::string, unsigned> loc_index;
  std::map<std::pair<location_t, tree>, unsigned> by_loc;
  for (size_t i = 0; i < items.size (); i++)
    {
      const item &x = items[i];
      unsigned li;
      auto bl = by_loc.find ({ x.loc, x.block });
      if (bl != by_loc.end ())
        li = bl->second;
      else
        {
          std::string text = location_text (cnode, x.block, x.loc);
          auto it = loc_index.find (text);
          if (it == loc_index.end ())
            {
              locs.push_back (text);
              it = loc_index.emplace (text, (unsigned) locs.size ()).first;
            }
          li = it->second;
          by_loc[{ x.loc, x.block }] = li;
        }
      bool new_part = i == 0 || items[i - 1].partition != x.partition;
      if (new_part || ranges.back ().state != x.state
          || ranges.back ().loc != li)
        {
          std::string l = new_label (x.insn, false);
          if (!new_part)
            ranges.back ().end = l;
          ranges.push_back ({ l, "", x.state, li });
        }
      if (i + 1 == items.size () || items[i + 1].partition != x.partition)
        ranges.back ().end = new_label (x.insn, true);
    }
  write_block (self, ranges, locs);
  return 0;
}

static const pass_data pass_data_cce_pcmap = {
  RTL_PASS,        /* type */
  "cce_pcmap",     /* name */
  OPTGROUP_NONE,   /* optinfo_flags */
  TV_NONE,         /* tv_id */
  0,               /* properties_required */
  0,               /* properties_provided */
  0,               /* properties_destroyed */
  0,               /* todo_flags_start */
  0,               /* todo_flags_finish */
};

class pass_cce_pcmap : public rtl_opt_pass
{
public:
  pass_cce_pcmap (gcc::context *ctxt)
    : rtl_opt_pass (pass_data_cce_pcmap, ctxt)
  {
  }
  bool gate (function *) final override
  {
    return pcm.valid && in_lto_p && !flag_wpa;
  }
  unsigned int execute (function *) final override
  {
    return pcmap_execute ();
  }
};

void
pcmap_register (const char *plugin_name, bool async)
{
  async_p = async;
  struct register_pass_info info;
  info.pass = new pass_cce_pcmap (g);
  info.reference_pass_name = "alignments";
  info.ref_pass_instance_number = 1;
  info.pos_op = PASS_POS_INSERT_BEFORE;
  register_callback (plugin_name, PLUGIN_PASS_MANAGER_SETUP, NULL, &info);
}
