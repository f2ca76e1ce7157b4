/* event.c -- the cost of capturing one calling context, at a chosen call
   depth, by one of several methods (one binary per method, chosen at
   compile time):

     -DM_CCE    built with cce; "log" mode: cce_log (the full call, with the
                record appended to the per-thread buffer, or with
                CCE_MODE=aggregate one more event of its table entry);
                "count" mode: cce_count, the same with a value; "raw"
                mode: what cce_log captures, read directly: the id and the
                ccStack depth from libcce's TLS block and a copy of the
                ccStack entries.
     -DM_BT     glibc backtrace ()
     -DM_UNW    libunwind unw_backtrace ()
     -DM_FP     a walk of the frame-pointer chain (-fno-omit-frame-pointer)
     -DM_CYG    a shadow stack kept by -finstrument-functions hooks; the
                capture is a copy of it (function and call site per frame)
     -DM_HEAP   a malloc of 32 bytes and its free: built plain, the C
                library's allocator (under heaptrack, its cost); built
                with cce, libcce's (with CCE_HEAP=1, the heap profile's
                cost per allocation)
     -DM_NONE   no capture: the timing loop alone

   Usage: event DEPTH SHAPE [MODE]
     DEPTH  frames of the program on the stack at the capture, main and
            the capturing function included (at least 3)
     SHAPE  "distinct": a chain of distinct functions (chain.c, generated);
            "recursive": one function calling itself
     MODE   for M_CCE: "log", "count" or "raw"
   Prints "NS_PER_EVENT FRAMES": the median over 7 rounds (each at least
   20 ms of thread CPU time) of the thread CPU time per capture, and the
   number of frames (or ccStack entries, for cce) the last capture held.  */

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXF 2048

#if defined M_CCE
#include <cce.h>
extern __thread uint64_t __cce_tls[4]
  __attribute__ ((tls_model ("initial-exec")));
/* Indices as in common/cce-abi.h: id, ccStack top (0: empty), last
   entry with room, base.  */
#define TLS(i) (((volatile uint64_t *) __cce_tls)[i])
#define TLS_DEPTH() (TLS (1) ? (TLS (1) - TLS (3)) / 16 : 0)
static int raw_mode, count_mode;
static struct
{
  uint64_t id, depth;
  uint64_t frames[MAXF][2];
} cap;
#elif defined M_HEAP
static void *block;
#elif defined M_BT
#include <execinfo.h>
static void *pcs[MAXF];
#elif defined M_UNW
#define UNW_LOCAL_ONLY
#include <libunwind.h>
static void *pcs[MAXF];
#elif defined M_FP
static void *pcs[MAXF];
static void **stop_fp;
#elif defined M_CYG
#define NOI __attribute__ ((no_instrument_function))
struct shadow_ent
{
  void *fn, *site;
};
static __thread struct shadow_ent shadow[MAXF]
  __attribute__ ((tls_model ("initial-exec")));
static __thread unsigned shadow_depth
  __attribute__ ((tls_model ("initial-exec")));
static struct shadow_ent copy[MAXF];
void __cyg_profile_func_enter (void *fn, void *site) NOI;
void __cyg_profile_func_exit (void *fn, void *site) NOI;
void
__cyg_profile_func_enter (void *fn, void *site)
{
  unsigned d = shadow_depth;
  if (d < MAXF)
    {
      shadow[d].fn = fn;
      shadow[d].site = site;
    }
  shadow_depth = d + 1;
}
void
__cyg_profile_func_exit (void *fn, void *site)
{
  (void) fn;
  (void) site;
  shadow_depth--;
}
#endif

#ifndef NOI
#define NOI
#endif

static volatile uint64_t sink;
static long frames_seen;

/* One capture; inlined into bottom so that the context captured is
   bottom's.  */
static inline __attribute__ ((always_inline)) void
capture (void)
{
#if defined M_CCE
  if (raw_mode)
    {
      uint64_t d = TLS_DEPTH ();
      cap.id = TLS (0);
      cap.depth = d;
      if (d)
        memcpy (cap.frames, (const void *) (uintptr_t) TLS (3),
                (d < MAXF ? d : MAXF) * sizeof cap.frames[0]);
      __asm__ volatile ("" : : "m" (cap) : "memory");
      frames_seen = (long) d;
    }
  else if (count_mode)
    {
      cce_count (7, 64);
      frames_seen = (long) TLS_DEPTH ();
    }
  else
    {
      cce_log (7);
      frames_seen = (long) TLS_DEPTH ();
    }
#elif defined M_HEAP
  block = malloc (32);
  __asm__ volatile ("" : : "r" (block) : "memory");
  free (block);
  frames_seen = 0;
#elif defined M_BT
  frames_seen = backtrace (pcs, MAXF);
  __asm__ volatile ("" : : "m" (pcs) : "memory");
#elif defined M_UNW
  frames_seen = unw_backtrace (pcs, MAXF);
  __asm__ volatile ("" : : "m" (pcs) : "memory");
#elif defined M_FP
  void **fp = __builtin_frame_address (0);
  long n = 0;
  while (fp && fp != stop_fp && n < MAXF)
    {
      pcs[n++] = fp[1];
      fp = (void **) fp[0];
    }
  frames_seen = n;
  __asm__ volatile ("" : : "m" (pcs) : "memory");
#elif defined M_CYG
  unsigned d = shadow_depth;
  memcpy (copy, shadow, (d < MAXF ? d : MAXF) * sizeof copy[0]);
  frames_seen = d;
  __asm__ volatile ("" : : "m" (copy) : "memory");
#else
  sink = sink + 1;
#endif
}

static double
now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

#define ROUNDS 7

int __attribute__ ((noinline, noclone)) NOI bottom (void);

int __attribute__ ((noinline, noclone))
bottom (void)
{
  long n = 16;
  double per[ROUNDS];
  capture ();                   /* warm up (backtrace loads libgcc_s) */
  for (;;)
    {
      double t0 = now ();
      for (long i = 0; i < n; i++)
        capture ();
      double t = now () - t0;
      if (t >= 0.02 || n >= (1L << 40))
        break;
      n *= t > 0.002 ? (long) (0.025 / t) + 1 : 16;
    }
  for (int r = 0; r < ROUNDS; r++)
    {
      double t0 = now ();
      for (long i = 0; i < n; i++)
        capture ();
      per[r] = (now () - t0) / (double) n * 1e9;
    }
  qsort (per, ROUNDS, sizeof per[0], cmp_double);
  printf ("%.2f %ld\n", per[ROUNDS / 2], frames_seen);
  return 1;
}

/* chain.c: int chain_0 (int left) ... chain_N (int left), each calling
   the next while LEFT > 0, then bottom.  */
int chain_0 (int left);

int __attribute__ ((noinline, noclone))
rec (int left)
{
  if (left == 0)
    return bottom () + 1;       /* not a tail call: keep the frame */
  return rec (left - 1) + 1;
}

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr,
               "usage: event DEPTH distinct|recursive [log|count|raw]\n");
      return 2;
    }
  int depth = atoi (argv[1]);
  int recursive = argv[2][0] == 'r';
#if defined M_CCE
  raw_mode = argc > 3 && strcmp (argv[3], "raw") == 0;
  count_mode = argc > 3 && strcmp (argv[3], "count") == 0;
#elif defined M_FP
  stop_fp = __builtin_frame_address (0);
#endif
  if (depth < 3)
    depth = 3;
  /* main, chain_0 .. chain_L (L + 1 frames), bottom: L + 3 frames.  */
  int r = recursive ? rec (depth - 3) : chain_0 (depth - 3);
  return r > 0 ? 0 : 1;
}
