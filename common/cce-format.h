/* cce-format.h -- the one specification of cce's two file formats: the
   decoding dictionary the plugin writes into a program, and the event log
   the runtime writes.  Included by the plugin, the runtime and the
   decoder.

   ========================================================================
   1. Dictionary (version CCE_DICT_VERSION)
   ========================================================================
   Stored as the bytes of the symbol __cce_dict in section "cce_dict"
   (see cce-abi.h).  It is text, one entry per line, fields separated by
   one space; every line ends in '\n'.  The first line is the header:

     cce-dict VERSION STAMP

   VERSION is decimal; STAMP is 16 lowercase hex digits, the FNV-1a 64
   hash (cce_fnv1a64 below) of every byte after the header line.  A log
   carries the stamp of the dictionary of the program that wrote it; the
   decoder refuses a log whose stamp differs.

   Then, in this order, each group possibly empty, entries numbered from 0
   within their group by order of appearance:

     s TEXT                  string; TEXT runs to the end of the line,
                             with '\\' written "\\\\" and newline "\\n".
     f NAME FILE LINE        source-level function: NAME and FILE are
                             string numbers, LINE decimal (0 = unknown).
                             NAME is the function's symbol: the plain
                             name of a C function, the mangled (assembler)
                             name of a C++ one ("_Z..."), without the
                             suffix of a clone (".constprop.0", ".part.0",
                             ".cold"), one of its variants' for a
                             constructor or destructor (C1, C2, D0...: all
                             demangle to the same name).  The decoder
                             shows a mangled NAME demangled: without its
                             parameter list in records and folded
                             (Sq::area, twice<int>), with it in text.
     n FUNC FLAGS NUMCC ROOT node of the call graph (a function body GCC
                             emitted, clones included): FUNC its source
                             function, FLAGS hex (CCE_NODE_*), NUMCC the
                             number of its acyclic contexts (decimal
                             uint64), ROOT the id it starts a segment with
                             (decimal) or '-' if it never starts one.
     c NODE KIND TARGET N FUNC FILE LINE COL...
                             call site in node NODE.  KIND is one letter
                             (CCE_SITE_*).  TARGET: the callee node for
                             'd' and 'b', a string number naming the
                             external callee for 'x', '-' otherwise.
                             N >= 1 frames follow, 4 numbers each, outermost
                             first: the source function (first one is the
                             node's own FUNC), and the file (string
                             number), line and column in that function of
                             the call to the next frame; the last frame's
                             location is the call site itself.  Frames after
                             the first are inlined.
     e NODE SITE AV          incoming edge of NODE through direct site SITE
                             with addition value AV (decimal uint64).
                             The root edge of a node is not listed: it is
                             [ROOT, ROOT + 1).  A direct site without an
                             'e' line is no edge: no log site can be
                             reached through it, so it has no code.
     r NODE LIM K SITE...    recursion folded into the id: the K back
                             sites ('b') SITE_0 .. SITE_K-1 calling NODE
                             are folded, with limit LIM (decimal uint64,
                             >= 1).  Site J, called with the caller's id
                             I < LIM, enters NODE with id
                             NUMCC + I * K + J instead of pushing; with
                             I >= LIM it pushes like any ccStack site.
                             The ids of NODE are then [0, WIDTH), WIDTH =
                             NUMCC + K * LIM, and WIDTH is also what an
                             edge from NODE to its callees carries.  At
                             most one 'r' line per node.

   Site words.  The plugin numbers sites within one dictionary; the
   program's code, the ccStack and the log carry *site words*:

     word = (KEY << 32) | INDEX

   INDEX is the site's number in its dictionary and KEY the module key of
   that dictionary, cce_module_key (STAMP) below, so that the executable
   and each shared library built with cce (each a module with its own
   dictionary) can be told apart in one ccStack.  KEY is never 0 and never
   0xffffffff: the words of CCE_SITE_NONE and the other special sites of
   cce-abi.h have the key half 0xffffffff, and a word with key half 0
   names site INDEX of the main program's dictionary, the first in the
   executable's cce_dict section: the code of an executable's first
   LTRANS partition writes its site words so (one instruction with a
   32-bit immediate stores one), as do hand-written logs and tests.

   Decoding a segment that ends in node N with id I: if N has a root value
   and I == ROOT, the segment starts at N.  If N has an 'r' line and
   I >= NUMCC, N was entered through folded site SITE_J, J = (I - NUMCC)
   mod K; continue in the caller of that site with (I - NUMCC) / K.
   Otherwise exactly one edge E of N has AV <= I < AV + WIDTH (caller of
   E); continue in the caller of E with I - AV.

   ========================================================================
   2. Event log (version CCE_LOG_VERSION)
   ========================================================================
   Binary, in the byte order of the machine that wrote it (the decoder
   checks the magic).  The runtime writes it so that a record is in the
   file, for the kernel to keep, the moment cce_log returns: whatever
   kills the process afterwards, the record is there.

   The header: a struct cce_log_header, then NMODULES module entries: each
   a struct cce_log_module and PATHLEN bytes of the path of a shared object
   loaded in the process when the log was opened (no NUL), padded with
   NULs to a multiple of 8 bytes; then NULs up to HEADER_SIZE, a multiple
   of CHUNK_SIZE.  The decoder looks for the dictionaries of the modules
   that records name in these files.

   The rest of the file is chunks of CHUNK_SIZE bytes (a power of two, at
   least 4096: the page size of the machine that wrote it), grouped in
   spans.  A span is CHUNKS consecutive chunks that one thread writes
   into, at one signal nesting level: it starts with a struct
   cce_log_span, whose MARK is CCE_LOG_SPAN_MARK, and records follow it
   back to back (each a multiple of 8 bytes) until the span ends or the
   next record's first word is 0.  A chunk that starts with a word of 0
   is not used (space given out just before the process died): the next
   span starts at the next chunk.

   A record is a struct cce_log_record followed by NSTACK struct
   cce_log_frame, the thread's ccStack bottom first.  It is written while
   its MARK is 0, and made valid by one final store of CCE_LOG_RECORD_MARK
   into MARK.  A record whose MARK is 0 but which has other bytes than 0
   was torn: the process died, or the thread was taken away, while
   writing it.  It is the last record of its span, and the decoder skips
   it with a count; it never decodes it.

   Order: the spans of one thread at one level are in the file in the
   order the thread wrote them, and so are the records in them.  Records
   of different threads interleave by span.  A record made by a signal
   handler that interrupted cce_log on the same thread goes to a span of
   the next level; it may appear before records its thread made earlier.

   A record of cce_count (cce.h) carries its value: its MARK is
   CCE_LOG_VALUE_MARK instead of CCE_LOG_RECORD_MARK (stored last the
   same way), and one uint64_t, the value, comes between the struct
   cce_log_record and the frames.  A version-3 log has no such record.

   Tables (CCE_MODE=aggregate, cce(3)).  A thread that aggregates keeps
   one entry per distinct (tag, site, id, ccStack, value or not) in the
   log file, and updates it in place at each event: the table lives in
   table spans, whose header is a struct cce_log_span with the MARK
   CCE_LOG_TABLE_MARK and, in LEVEL, the number of counters N of the
   thread's table (CCE_MAX_CONTEXTS).  A table span holds entries back
   to back, each a struct cce_log_entry followed by NSTACK struct
   cce_log_frame, then unused room up to SIZE bytes; an entry whose SIZE
   is 0 ends the entries of the span.  The runtime writes an entry so:

     SIZE first (it never changes afterwards, so the entries of a span
     can always be walked), then the context, COUNT, VALUE, ERROR and
     FLAGS while MARK is 0, then CCE_LOG_ENTRY_MARK into MARK, last.
     An event adds 1 to COUNT and its value to VALUE, in place.
     Replacing the context of an entry (Space-Saving, below) stores 0
     into MARK first, writes the new context, then the mark again; an
     entry whose new context does not fit gets CCE_LOG_DEAD_MARK (it
     holds nothing) and the context a new entry with more room.

   So an entry whose MARK is 0 was torn by the death of the process; the
   decoder skips it with a count (an entry with SIZE 0 but other bytes
   than 0 is torn the same way and ends the span); it never decodes it.
   A valid entry's COUNT and VALUE may be one event apart when the
   process died between the two stores.  Each valid entry stands for
   COUNT events of its context, whose values sum to VALUE when FLAGS has
   CCE_ENTRY_VALUE.

   Space-Saving (Metwally et al.).  A thread's table has at most N
   entries in use.  Past N distinct contexts, the context of an event
   that has no entry takes the entry of the least count M: COUNT becomes
   M + 1 and ERROR M, the most COUNT may be over the true count of the
   context (VALUE starts again at the event's value).  With T events of
   the thread, every context of more than T / N events has an entry, and
   every COUNT is at most T / N over the truth; ERROR is 0 for every
   entry of a table that never had more than N contexts, whose counts are
   exact.

   Heap profile (CCE_HEAP, rt/heap.c).  Table spans whose MARK is
   CCE_LOG_HEAP_MARK hold the heap profile of a thread: entries as
   above, in groups of three with the same context, one after the other
   (each with room for the context's ccStack): CCE_TAG_HEAP_ALLOC (COUNT
   blocks allocated, VALUE bytes), CCE_TAG_HEAP_FREE (COUNT of them
   freed, VALUE bytes, by any thread: atomic adds) and CCE_TAG_HEAP_PEAK
   (COUNT blocks and VALUE bytes of the context live at the last
   snapshot of the heap's peak).  Blocks live now are ALLOC minus FREE.
   FLAGS has CCE_ENTRY_VALUE, ERROR is 0.  SITE is the PC word, with
   CCE_PC_CALLER, of the program's call of the allocator (or of the C
   library function that allocated: strdup...); CCE_PC_EXTERNAL for
   allocations the runtime could not place, and for those past the
   table's limit.  The span's LEVEL is the sampling interval in bytes
   (CCE_HEAP_SAMPLE), 0 when every allocation is counted; with an
   interval the counts are of the sampled blocks, which the decoder
   weights (1 / (1 - exp (-AVG / INTERVAL)), AVG the average size of the
   context's blocks).  Heap spans are never reused or unmapped while the
   process runs, so the entries stay where blocks point to them.

   A log written to something else than a regular file (a pipe, a
   terminal) has no chunks: its header ends after the module table
   (HEADER_SIZE says where, CHUNK_SIZE is 0) and records, each with its
   MARK set, follow back to back, each written whole by one write.

   Records of interrupted instructions.  A record whose TAG is
   CCE_TAG_SIGNAL + a signal number (a thread died of that signal) or
   CCE_TAG_SAMPLE (a tick of the CPU-time sampler) stands for the
   instruction the thread was stopped at, not for a call of cce_log: its
   SITE is the *PC word* of that instruction (below), and ID and the
   ccStack are the thread's at that instruction, whatever the code there
   was doing with them.  A ccStack entry pushed by the signal trampoline
   for a signal that interrupted the thread asynchronously carries the PC
   word of the interrupted instruction the same way (cce-abi.h).

   PC words.

     word = (KEY << 32) | CCE_PC_FLAG | ADDR
     word = (KEY << 32) | CCE_PC_FLAG | CCE_PC_CALLER | ADDR

   KEY is the module key of the module (executable or shared library
   built with cce) that holds the instruction, ADDR the instruction's
   link-time address in that module (its run-time address minus the
   module's load bias), below 2^30.  A site word's INDEX never has bit 31
   set.  The decoder finds the instruction's function, its inlined frames
   and the state of the id there in the module's PC map (3. below).

   With CCE_PC_CALLER, the thread was stopped in code outside every
   module with a dictionary (the C library, the vDSO, libcce), which the
   module called: ADDR is the return address of that call, the first one
   into the module that the runtime found by unwinding from the stopped
   instruction.  The state of the call instruction (at ADDR - 1) holds
   while the code it called runs, which leaves the id and the ccStack as
   it found them (it is outside the program; what it calls back restores
   them), and the path ends at the call, then a frame of the function it
   called (named from the call instruction when the decoder can, as the
   program calls it).  An instruction the runtime cannot place gives
   CCE_PC_EXTERNAL (cce-abi.h).

   ========================================================================
   3. PC map (version CCE_PCMAP_VERSION)
   ========================================================================
   Section "cce_pcmap" of a module, not loaded (no SHF_ALLOC): the linker
   resolves its addresses to link-time ones and adds no run-time
   relocation (strip keeps it; objcopy --remove-section=cce_pcmap drops
   it).  The plugin writes it for every function body it compiles.  It
   is a sequence of blocks, each a multiple of 8 bytes, one per function
   body:

     struct cce_pcmap_block, NRANGES struct cce_pcmap_range in the order
     of the compiler's code (a cold part may be linked before its hot
     part), then the location strings, NULs up to SIZE.

   A range covers [START, START + LEN) of the body's code (a hot and a
   cold part are ranges of the same block), where the instructions share
   a state of the id and a source location; LEN may be 0 (instructions
   that became no code).  The ranges of all blocks are disjoint; an
   address in none of them is not code of the module's bodies (padding,
   PLT, hand-written assembler): the decoder treats it as external.

   LOC is the offset from the block's start of the range's source
   location, 0 if none is known: a NUL-terminated string of frames
   separated by '\n', outermost first, each

     NAME '\t' FILE '\t' LINE '\t' COL

   NAME is a function's symbol, as the 'f' lines of the dictionary name
   it (mangled for C++).  The first frame is the body's source function,
   as the dictionary names it ('f' line of the node), with the location
   in it of the call to the
   next frame; the frames after it are inlined; the last frame's location
   is the instruction's own.  The same text as the frames of a 'c' line.

   STATE says where the thread's id and ccStack are, at an instruction of
   the range, relative to the function's own (the id and ccStack its
   caller gave it).  The decoder turns a PC word's (ID, ccStack) into the
   function's own by it:

     CCE_PC_OWN       they are the function's own.
     CCE_PC_CALLEE    the id is an id of node CALLEE, which this function
                      calls directly with id arithmetic: the id was stored
                      for the call and the call has not been made yet, or
                      it returned and the id is not restored yet.  The
                      edge of CALLEE whose range holds the id is a site of
                      this function; the function's id is the id minus
                      that edge's AV (or the caller's id of the folded
                      site that holds it).  A CALLEE that is not the
                      function itself may return with the id of the
                      deepest level of its recursion, where its self tail
                      calls became jumps to its top: the levels that its
                      own folded sites hold are undone first.  The
                      ccStack is the function's.
     CCE_PC_PUSHING   the function is writing a ccStack entry: the top
                      entry is not valid yet (drop it); the id is the
                      function's.
     CCE_PC_PUSHED    the top ccStack entry is the function's push for a
                      call of one of its sites: its id is the function's
                      id, the entries below it the function's ccStack;
                      the id word is the callee's or what it returned
                      with.
     CCE_PC_POPPING   the id is the function's again, the top entry is its
                      push still (drop it).
     CCE_PC_UNKNOWN   not known at this instruction: the path is exact
                      from the function's frame on and incomplete below
                      it.

   NODE is the body's node in the module's dictionary, CCE_PCMAP_NO_NODE
   if it has none; CALLEE a node index for CCE_PC_CALLEE, else
   CCE_PCMAP_NO_NODE.  FLAGS has CCE_PCMAP_ASYNC when the module was built
   with -fplugin-arg-cce-async, whose code keeps the protocol that lets
   the plugin place every instruction; without it, instructions after the
   function's first store of the id or the first call that may change it
   are CCE_PC_UNKNOWN.  KEY is the module key of the module's dictionary,
   so that the decoder can tell a PC map from a stale one.
*/

#ifndef CCE_FORMAT_H
#define CCE_FORMAT_H

#include <stdint.h>

#define CCE_DICT_VERSION 4
#define CCE_DICT_MAGIC "cce-dict"

/* Node flags.  */
#define CCE_NODE_ENTRY 0x1      /* may be entered from outside the program
                                   or through a pointer: ROOT is 0 */
#define CCE_NODE_SPLIT_PART 0x2 /* a part split off its source function
                                   (f.part.N): not a frame of its own */
#define CCE_NODE_HIDDEN 0x4     /* made by GCC, not in the source (the
                                   wrapper of several constructors, a C++
                                   unit's static initialization): its
                                   frames are left out of paths */
#define CCE_NODE_MAIN 0x8       /* an entry only as the program's start
                                   (main, its address never taken): no
                                   call out of the program enters it */
#define CCE_NODE_ACROSS 0x10    /* an entry only for the calls of the
                                   program's other LTRANS partitions (each
                                   a module of its own): no call out of
                                   the program enters it */

/* Site kinds.  */
#define CCE_SITE_DIRECT 'd'   /* direct call, id arithmetic */
#define CCE_SITE_BACK 'b'     /* direct call carried on the ccStack
                                 (back edge or overflow cut) */
#define CCE_SITE_INDIRECT 'i' /* call through a pointer, on the ccStack */
#define CCE_SITE_EXTERNAL 'x' /* call out of the program that may call
                                 back, on the ccStack */
#define CCE_SITE_LOG 'l'      /* a cce_log call */
#define CCE_SITE_TRACE 't'    /* the entry of a function traced with
                                 -fplugin-arg-cce-trace: a log site whose
                                 innermost frame is the traced function */

/* Tags of the records of traced functions: CCE_TAG_TRACE + the position
   (0, 1, ...) of the function in the trace list.  The decoder names such
   a record by its function, from the site.  */
#define CCE_TAG_TRACE UINT32_C (0xfff00000)

/* Tags of the records of interrupted instructions: the thread died of
   signal SIG (CCE_TAG_SIGNAL + SIG, SIG < 256), or a CPU-time sample.
   Their SITE is a PC word.  */
#define CCE_TAG_SIGNAL UINT32_C (0xffe00000)
#define CCE_TAG_SAMPLE UINT32_C (0xffe00100)
/* Tags of the entries of the heap profile (CCE_HEAP): allocations, frees
   and the blocks live at the heap's peak.  Their SITE is a PC word.  */
#define CCE_TAG_HEAP_ALLOC UINT32_C (0xffe00200)
#define CCE_TAG_HEAP_FREE UINT32_C (0xffe00201)
#define CCE_TAG_HEAP_PEAK UINT32_C (0xffe00202)
#define CCE_TAG_IS_HEAP(tag) \
  ((uint32_t) (tag) >= CCE_TAG_HEAP_ALLOC \
   && (uint32_t) (tag) <= CCE_TAG_HEAP_PEAK)
#define CCE_TAG_IS_PC(tag) \
  (((uint32_t) (tag) >= CCE_TAG_SIGNAL && (uint32_t) (tag) <= CCE_TAG_SAMPLE) \
   || CCE_TAG_IS_HEAP (tag))

#define CCE_LOG_MAGIC "CCE-LOG"   /* 8 bytes with the trailing NUL */
#define CCE_LOG_VERSION 4
/* The oldest version the decoder reads: version 3 is version 4 without
   value records and tables.  */
#define CCE_LOG_VERSION_MIN 3

/* MARK of a span header and of a record that is complete: "CCES" and
   "CCER" in little-endian byte order.  */
#define CCE_LOG_SPAN_MARK UINT32_C (0x53454343)
#define CCE_LOG_RECORD_MARK UINT32_C (0x52454343)
/* MARK of a record with a value ("CCEV"), of a table span ("CCET"), of a
   valid table entry ("CCEE") and of an entry that holds nothing
   ("CCED").  */
#define CCE_LOG_VALUE_MARK UINT32_C (0x56454343)
#define CCE_LOG_TABLE_MARK UINT32_C (0x54454343)
#define CCE_LOG_ENTRY_MARK UINT32_C (0x45454343)
#define CCE_LOG_DEAD_MARK UINT32_C (0x44454343)
/* MARK of a table span of the heap profile ("CCEH").  */
#define CCE_LOG_HEAP_MARK UINT32_C (0x48454343)

/* FLAGS of a table entry: VALUE sums the values of cce_count events.  */
#define CCE_ENTRY_VALUE 0x1

struct cce_log_header
{
  char magic[8];          /* CCE_LOG_MAGIC */
  uint32_t version;       /* CCE_LOG_VERSION */
  uint32_t header_size;   /* bytes of the header, module table and
                             padding: where the first chunk starts */
  uint64_t stamp;         /* stamp of the program's dictionary; 0 if the
                             program has none */
  uint64_t pid;           /* process that wrote the log */
  uint32_t nmodules;      /* module entries that follow */
  uint32_t chunk_size;    /* bytes of a chunk; 0: no chunks */
};

struct cce_log_module
{
  uint32_t pathlen;       /* bytes of the path that follows */
  uint32_t reserved;      /* 0 */
};

struct cce_log_span
{
  uint32_t mark;          /* CCE_LOG_SPAN_MARK */
  uint32_t thread;        /* the thread that writes the span */
  uint32_t chunks;        /* chunks in the span, >= 1 */
  uint32_t level;         /* signal nesting level: 0 for the records the
                             thread makes itself, 1 for those of a signal
                             handler that interrupted its cce_log, ... */
};

struct cce_log_record
{
  uint32_t mark;          /* CCE_LOG_RECORD_MARK once the record is
                             complete, 0 before */
  uint32_t tag;           /* the argument of cce_log */
  uint64_t site;          /* site word of the log call, or CCE_SITE_NONE */
  uint64_t id;            /* __cce_id at the log call */
  uint32_t nstack;        /* ccStack entries that follow */
  uint32_t thread;        /* 1, 2, ... in order of each thread's first
                             record */
};

/* A table entry (tables, above).  */
struct cce_log_entry
{
  uint32_t mark;          /* CCE_LOG_ENTRY_MARK, CCE_LOG_DEAD_MARK, or 0
                             while written */
  uint32_t size;          /* bytes of the entry and its room, a multiple
                             of 8; 0 ends the span's entries */
  uint32_t tag;
  uint32_t nstack;        /* ccStack entries that follow */
  uint64_t site;
  uint64_t id;
  uint64_t count;         /* events of the context */
  uint64_t value;         /* the sum of their values (CCE_ENTRY_VALUE) */
  uint64_t error;         /* COUNT is at most this over the truth */
  uint32_t flags;         /* CCE_ENTRY_* */
  uint32_t thread;        /* the span's thread */
};

struct cce_log_frame
{
  uint64_t id;            /* the caller's id at the ccStack call */
  uint64_t site;          /* the ccStack call site */
};

/* The layouts above are the format: every compiler that includes this
   header checks them (C and C++).  */
#ifdef __cplusplus
#define CCE_STATIC_ASSERT(cond, msg) static_assert (cond, msg)
#else
#define CCE_STATIC_ASSERT(cond, msg) _Static_assert (cond, msg)
#endif
CCE_STATIC_ASSERT (sizeof (struct cce_log_header) == 40, "log header layout");
CCE_STATIC_ASSERT (sizeof (struct cce_log_module) == 8, "log module layout");
CCE_STATIC_ASSERT (sizeof (struct cce_log_span) == 16, "log span layout");
CCE_STATIC_ASSERT (sizeof (struct cce_log_record) == 32, "log record layout");
CCE_STATIC_ASSERT (sizeof (struct cce_log_entry) == 64, "log entry layout");

/* FNV-1a, 64 bits, of LEN bytes at DATA.  */
static inline uint64_t
cce_fnv1a64 (const void *data, unsigned long len)
{
  const unsigned char *p = (const unsigned char *) data;
  uint64_t h = UINT64_C (0xcbf29ce484222325);
  unsigned long i;
  for (i = 0; i < len; i++)
    {
      h ^= p[i];
      h *= UINT64_C (0x100000001b3);
    }
  return h;
}

/* The module key of a dictionary with stamp STAMP: never 0 or
   0xffffffff.  */
static inline uint32_t
cce_module_key (uint64_t stamp)
{
  uint32_t k = (uint32_t) stamp;
  if (k == 0 || k == UINT32_C (0xffffffff))
    k = (uint32_t) (stamp >> 32) | 1;
  if (k == UINT32_C (0xffffffff))
    k = UINT32_C (0x7fffffff);
  return k;
}

#define CCE_SITE_WORD(key, index) \
  (((uint64_t) (key) << 32) | (uint64_t) (uint32_t) (index))
#define CCE_SITE_KEY(word) ((uint32_t) ((word) >> 32))
#define CCE_SITE_INDEX(word) ((uint32_t) (word))

#define CCE_PC_FLAG UINT32_C (0x80000000)
#define CCE_PC_CALLER UINT32_C (0x40000000)
#define CCE_PC_ADDR_LIMIT UINT32_C (0x40000000)
#define CCE_PC_WORD(key, addr) \
  (((uint64_t) (key) << 32) | CCE_PC_FLAG | ((uint64_t) (addr) & 0x3fffffff))
#define CCE_PC_ADDR(word) ((uint32_t) (word) & (CCE_PC_ADDR_LIMIT - 1))
#define CCE_PC_IS_CALLER(word) (((uint32_t) (word) & CCE_PC_CALLER) != 0)
/* Is WORD a PC word (not a site word, nor a special word of cce-abi.h,
   whose key half is 0xffffffff)?  */
#define CCE_IS_PC_WORD(word) \
  (((uint32_t) (word) & CCE_PC_FLAG) != 0 \
   && CCE_SITE_KEY (word) != UINT32_C (0xffffffff))

#define CCE_PCMAP_SECTION "cce_pcmap"
#define CCE_PCMAP_VERSION 1
#define CCE_PCMAP_MARK UINT32_C (0x50454343)   /* "CCEP" */
#define CCE_PCMAP_ASYNC 0x1
#define CCE_PCMAP_NO_NODE UINT32_C (0xffffffff)

/* The states of cce_pcmap_range.  */
#define CCE_PC_OWN 0
#define CCE_PC_CALLEE 1
#define CCE_PC_PUSHING 2
#define CCE_PC_PUSHED 3
#define CCE_PC_POPPING 4
#define CCE_PC_UNKNOWN 5

struct cce_pcmap_block
{
  uint32_t mark;          /* CCE_PCMAP_MARK */
  uint16_t version;       /* CCE_PCMAP_VERSION */
  uint16_t flags;         /* CCE_PCMAP_* */
  uint32_t size;          /* bytes of the block, a multiple of 8 */
  uint32_t key;           /* module key of the module's dictionary */
  uint32_t node;          /* the body's node, or CCE_PCMAP_NO_NODE */
  uint32_t nranges;       /* ranges that follow */
};

struct cce_pcmap_range
{
  uint64_t start;         /* link-time address of the first byte */
  uint32_t len;           /* bytes */
  uint32_t state;         /* CCE_PC_* */
  uint32_t callee;        /* node for CCE_PC_CALLEE, else
                             CCE_PCMAP_NO_NODE */
  uint32_t loc;           /* offset of the location from the block's
                             start, 0 if none */
};

CCE_STATIC_ASSERT (sizeof (struct cce_pcmap_block) == 24, "pcmap block");
CCE_STATIC_ASSERT (sizeof (struct cce_pcmap_range) == 24, "pcmap range");

#endif /* CCE_FORMAT_H */
