/* test-keep.c -- unit tests of libcce's register-keeping cold-path entry
   points (rt/keep.c, cce-abi.h): __cce_push_keep_v6, __cce_pop_keep_v6
   (and __cce_pop_entry_keep_v6, which takes the id from the entry) and
   __cce_grow_keep_v6 must do what __cce_push_v6, __cce_pop_v6 and
   __cce_grow_v6 do, and leave every register but r10, r11 (and rax for
   the grow's result) as they found it, the vector registers included,
   and the caller's red zone too, also when they grow the ccStack (a new
   thread's first push) and call into libc.  __cce_push_keep_reg_v6 and
   __cce_pop_entry_keep_reg_v6 do the same with the id in the register
   (CCE_IDREG) instead of the TLS word.  x86-64 only: elsewhere the
   plugin emits plain calls and this test is skipped.  */

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#define CCE_RUNTIME
#include "cce-abi.h"
#include "cce-format.h"

#if CCE_HAVE_KEEP

/* The registers the entry points must keep: rax rcx rdx rsi rdi r8 r9
   r15 (words 0-7), then xmm0-xmm15 (16 bytes each, from byte 64); and the
   bits of the caller's red zone that changed across the call (byte 320).  */
struct regs
{
  uint64_t gpr[8];
  unsigned char xmm[16][16];
  uint64_t redzone;
};
_Static_assert (offsetof (struct regs, redzone) == 320, "KEEP_CALL's offset");

static void
fill (struct regs *r, unsigned seed)
{
  for (int i = 0; i < 8; i++)
    r->gpr[i] = 0x0101010101010101ULL * (seed + i) ^ 0x5a5a00005a5aULL;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++)
      r->xmm[i][j] = (unsigned char) (seed * 31 + i * 16 + j);
}

#define LOAD_XMM(n) "movdqu " #n "*16+64(%%r12), %%xmm" #n "\n\t"
#define SAVE_XMM(n) "movdqu %%xmm" #n ", " #n "*16+64(%%r13)\n\t"
#define ALL_XMM(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) \
  M(10) M(11) M(12) M(13) M(14) M(15)
/* The 16 words of the red zone, below rsp: filled with r14, then
   compared with it into r12.  */
#define ALL_RZ(M) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) \
  M(11) M(12) M(13) M(14) M(15) M(16)
#define FILL_RZ(n) "movq %%r14, -" #n "*8(%%rsp)\n\t"
#define CHECK_RZ(n) "movq -" #n "*8(%%rsp), %%rax\n\t" \
  "xorq %%r14, %%rax\n\t" "orq %%rax, %%r12\n\t"

/* Fill the red zone, load IN into the registers, put A and B in rdi
   and r10, call the entry point named CALL as the plugin does (a jump
   through the GOT with the return address in r11), store the registers
   to OUT (OUT->gpr[0]: rax, the grow's result) and what changed in the
   red zone to OUT->redzone.  The functions that run this call others, so
   that GCC keeps nothing of theirs below rsp.  */
#define KEEP_CALL(name, in_, out_, a_, b_)                                 \
  __asm__ volatile (                                                        \
    "movq %[in], %%r12\n\t"                                                 \
    "movq %[out], %%r13\n\t"                                                \
    "movabsq $0x5edc0de5edc0de5e, %%r14\n\t"                                \
    ALL_RZ (FILL_RZ)                                                        \
    ALL_XMM (LOAD_XMM)                                                      \
    "movq 0(%%r12), %%rax\n\t"                                              \
    "movq 8(%%r12), %%rcx\n\t"                                              \
    "movq 16(%%r12), %%rdx\n\t"                                             \
    "movq 24(%%r12), %%rsi\n\t"                                             \
    "movq 40(%%r12), %%r8\n\t"                                              \
    "movq 48(%%r12), %%r9\n\t"                                              \
    "movq 56(%%r12), %%r15\n\t"                                             \
    "movq %[a], %%rdi\n\t"                                                  \
    "movq %[b], %%r10\n\t"                                                  \
    "leaq 1f(%%rip), %%r11\n\t"                                             \
    "jmp *" name "@GOTPCREL(%%rip)\n"                                       \
    "1:\n\t"                                                                \
    "movq %%rax, 0(%%r13)\n\t"                                              \
    "movq %%rcx, 8(%%r13)\n\t"                                              \
    "movq %%rdx, 16(%%r13)\n\t"                                             \
    "movq %%rsi, 24(%%r13)\n\t"                                             \
    "movq %%rdi, 32(%%r13)\n\t"                                             \
    "movq %%r8, 40(%%r13)\n\t"                                              \
    "movq %%r9, 48(%%r13)\n\t"                                              \
    "movq %%r15, 56(%%r13)\n\t"                                             \
    ALL_XMM (SAVE_XMM)                                                      \
    "xorl %%r12d, %%r12d\n\t"                                               \
    ALL_RZ (CHECK_RZ)                                                       \
    "movq %%r12, 320(%%r13)\n\t"                                            \
    :                                                                       \
    : [in] "m" (in_), [out] "m" (out_), [a] "m" (a_), [b] "m" (b_)          \
    : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12",   \
      "r13", "r14", "r15", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",  \
      "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",   \
      "xmm14", "xmm15", "memory", "cc")

/* The registers of OUT are those of IN, except word SKIP (-1: none);
   rdi (word 4) must hold RDI; the red zone is as it was.  */
static void
assert_kept (const struct regs *in, const struct regs *out, int skip,
             uint64_t rdi)
{
  for (int i = 0; i < 8; i++)
    if (i == 4)
      assert_int_equal (out->gpr[i], rdi);
    else if (i != skip)
      assert_int_equal (out->gpr[i], in->gpr[i]);
  for (int i = 0; i < 16; i++)
    assert_memory_equal (out->xmm[i], in->xmm[i], 16);
  assert_int_equal (out->redzone, 0);
}

/* Push (ID, SITE) entering ENTRY, check the ccStack and the registers.
   REG: the push that enters ENTRY in the register.  */
static void
push_and_check (uint64_t id, uint64_t site, uint64_t entry, unsigned seed,
                int reg)
{
  struct regs in, out;
  struct regs *pin = &in, *pout = &out;
  fill (&in, seed);
  memset (&out, 0, sizeof out);
  uint64_t top0 = __cce_tls[CCE_TLS_TOP], id0 = __cce_tls[CCE_TLS_ID];
  uint64_t pair[2] = { site, entry };
  uint64_t *ppair = pair;
  if (reg)
    {
      KEEP_CALL (CCE_SYM_PUSH_KEEP_REG, pin, pout, id, ppair);
      assert_kept (&in, &out, 7, id);
      assert_int_equal (out.gpr[7], entry);
    }
  else
    {
      KEEP_CALL (CCE_SYM_PUSH_KEEP, pin, pout, id, ppair);
      assert_kept (&in, &out, -1, id);
    }
  uint64_t top = __cce_tls[CCE_TLS_TOP];
  assert_true (top != 0);
  if (top0)
    assert_int_equal (top, top0 + sizeof (struct cce_log_frame));
  const struct cce_log_frame *slot
    = (const struct cce_log_frame *) (uintptr_t) top - 1;
  assert_int_equal (slot->id, id);
  assert_int_equal (slot->site, site);
  assert_int_equal (__cce_tls[CCE_TLS_ID], reg ? id0 : entry);
}

/* Pop back to ID, check the ccStack and the registers.  With
   FROM_ENTRY, the pop that takes the id from the entry, called with
   another value in rdi; REG: the one that puts it in the register.  */
static void
pop_and_check (uint64_t id, unsigned seed, int from_entry, int reg)
{
  struct regs in, out;
  struct regs *pin = &in, *pout = &out;
  uint64_t zero = 0, rdi = from_entry || reg ? ~id : id;
  fill (&in, seed);
  uint64_t top0 = __cce_tls[CCE_TLS_TOP], id0 = __cce_tls[CCE_TLS_ID];
  if (reg)
    KEEP_CALL (CCE_SYM_POP_ENTRY_KEEP_REG, pin, pout, rdi, zero);
  else if (from_entry)
    KEEP_CALL (CCE_SYM_POP_ENTRY_KEEP, pin, pout, rdi, zero);
  else
    KEEP_CALL (CCE_SYM_POP_KEEP, pin, pout, rdi, zero);
  assert_kept (&in, &out, reg ? 7 : -1, rdi);
  assert_int_equal (__cce_tls[CCE_TLS_TOP],
                    top0 - sizeof (struct cce_log_frame));
  if (reg)
    {
      assert_int_equal (out.gpr[7], id);
      assert_int_equal (__cce_tls[CCE_TLS_ID], id0);
    }
  else
    assert_int_equal (__cce_tls[CCE_TLS_ID], id);
}

/* Interposed on libc's: libcce's grow calls it before it blocks signals
   and maps memory.  It clobbers every vector register, as any libc
   function may, so that a grow that does not save them fails the test.  */
#define ZERO_XMM(n) "pxor %%xmm" #n ", %%xmm" #n "\n\t"
int
sigfillset (sigset_t *set)
{
  __asm__ volatile (ALL_XMM (ZERO_XMM)
                    ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
                        "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
                        "xmm12", "xmm13", "xmm14", "xmm15");
  memset (set, 0xff, sizeof *set);
  return 0;
}

/* libcce's pthread_create starts a thread with its creator's ccStack;
   glibc's own starts it with none, so that its first push grows it.  */
typedef int (*create_fn) (pthread_t *, const pthread_attr_t *,
                          void *(*) (void *), void *);

static void
run_bare_thread (void *(*fn) (void *))
{
  void *libc = dlopen ("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  assert_non_null (libc);
  create_fn create = (create_fn) dlsym (libc, "pthread_create");
  assert_non_null (create);
  pthread_t t;
  assert_int_equal (create (&t, NULL, fn, NULL), 0);
  assert_int_equal (pthread_join (t, NULL), 0);
  dlclose (libc);
}

/* A thread's first push grows its ccStack (mmap, sigprocmask: libc);
   then pushes past the first chunk grow it again.  cmocka's assertions
   are not for other threads: a failure there exits the process (status
   255), which fails the test all the same.  */
static void *
push_pop_thread (void *arg)
{
  (void) arg;
  assert_int_equal (__cce_tls[CCE_TLS_TOP], 0);
  enum { N = 20000 };   /* more than the first chunk of entries */
  /* Every fourth push and pop keep the id in the register.  */
  for (uint64_t i = 0; i < N; i++)
    push_and_check (i * 3, 0xffffffff00000000ULL | i, i & 1, (unsigned) i,
                    (i & 3) == 3);
  for (uint64_t i = N; i-- > 0;)
    pop_and_check (i * 3, (unsigned) i + 7, (int) (i & 1), (i & 3) == 3);
  assert_int_equal (__cce_tls[CCE_TLS_TOP], __cce_tls[CCE_TLS_BASE]);
  return NULL;
}

static void
test_push_pop (void **state)
{
  (void) state;
  run_bare_thread (push_pop_thread);
}

/* The grow of an inline push: TOP 0 in a new thread gives the base.  */
static void *
grow_thread (void *arg)
{
  (void) arg;
  struct regs in, out;
  struct regs *pin = &in, *pout = &out;
  uint64_t top = 0, zero = 0;
  fill (&in, 99);
  assert_int_equal (__cce_tls[CCE_TLS_BASE], 0);
  KEEP_CALL (CCE_SYM_GROW_KEEP, pin, pout, top, zero);
  assert_kept (&in, &out, 0, 0);
  assert_true (__cce_tls[CCE_TLS_BASE] != 0);
  assert_int_equal (out.gpr[0], __cce_tls[CCE_TLS_BASE]);
  return NULL;
}

static void
test_grow (void **state)
{
  (void) state;
  run_bare_thread (grow_thread);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_push_pop),
    cmocka_unit_test (test_grow),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}

#else /* !CCE_HAVE_KEEP */

#include <stdio.h>

int
main (void)
{
  puts ("SKIP: the register-keeping entry points exist only on x86-64");
  return 77;
}

#endif
