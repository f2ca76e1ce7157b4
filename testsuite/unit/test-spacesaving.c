/* test-spacesaving.c -- cmocka tests of the Space-Saving counters of
   rt/spacesaving.c, against exact counts.

   Streams of keys drawn from Zipf-like distributions (P(rank r) ~ 1/r^s)
   with several skews s and seeds go through the core as libcce's tables
   use it (the test maps keys to slots and back).  The guarantees of
   Metwally et al. are checked with N counters, epsilon = 1/N, over a
   stream of L events:
   - every count is at least the key's true count, and at most its error
     over it, and every error is at most L / N;
   - no false negative: every key of more than L / N events has a slot,
     and every phi-hot key (more than phi * L events, phi > epsilon) is
     reported by the query "count >= phi * L";
   and, as D'Elia et al. (PLDI 2011) measure it, the precision of that
   query (true hot keys among those reported), its recall (always 1),
   and the counters' error (the mean and largest overestimate of the hot
   keys' counts, relative to their true counts) are printed in the test
   log.  Small cases check the structure itself: exact counts while the
   keys fit, the least count replaced, ties.  */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

/* The core itself, as libcce builds it.  */
#include "spacesaving.c"

#define NIL UINT32_C (0xffffffff)

/* A summary and the map between keys and its slots.  */
struct model
{
  struct cce_ss ss;
  void *mem;
  uint32_t nkeys;
  uint32_t *slot_of;            /* per key, NIL if none */
  uint32_t *key_of;             /* per slot */
  uint64_t *truth;              /* per key */
  uint64_t events;
};

static void
model_init (struct model *m, uint32_t cap, uint32_t nkeys)
{
  m->mem = malloc (cce_ss_bytes (cap));
  assert_non_null (m->mem);
  cce_ss_init (&m->ss, cap, m->mem);
  m->nkeys = nkeys;
  m->slot_of = malloc (nkeys * sizeof *m->slot_of);
  m->key_of = malloc (cap * sizeof *m->key_of);
  m->truth = calloc (nkeys, sizeof *m->truth);
  assert_true (m->slot_of && m->key_of && m->truth);
  for (uint32_t k = 0; k < nkeys; k++)
    m->slot_of[k] = NIL;
  m->events = 0;
}

static void
model_free (struct model *m)
{
  free (m->mem);
  free (m->slot_of);
  free (m->key_of);
  free (m->truth);
}

static void
model_event (struct model *m, uint32_t key)
{
  m->truth[key]++;
  m->events++;
  uint32_t s = m->slot_of[key];
  if (s != NIL)
    {
      cce_ss_hit (&m->ss, s);
      return;
    }
  int replaced;
  s = cce_ss_take (&m->ss, &replaced);
  if (replaced)
    m->slot_of[m->key_of[s]] = NIL;
  else
    assert_int_equal (s, m->ss.used - 1);
  m->key_of[s] = key;
  m->slot_of[key] = s;
}

/* xorshift64*.  */
static uint64_t
rnd (uint64_t *st)
{
  uint64_t x = *st;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *st = x;
  return x * UINT64_C (2685821657736338717);
}

/* The guarantees, and the measures of the phi-hot query.  */
static void
check_model (struct model *m, const char *what)
{
  const struct cce_ss *ss = &m->ss;
  uint32_t cap = ss->cap;
  double bound = (double) m->events / cap;
  uint64_t sum = 0;
  for (uint32_t s = 0; s < ss->used; s++)
    {
      uint64_t t = m->truth[m->key_of[s]];
      assert_true (ss->count[s] >= t);
      assert_true (ss->count[s] - t <= ss->error[s]);
      assert_true ((double) ss->error[s] <= bound);
      sum += ss->count[s];
    }
  /* The counts add up to the events: each event adds 1 somewhere.  */
  assert_int_equal (sum, m->events);
  for (uint32_t k = 0; k < m->nkeys; k++)
    if ((double) m->truth[k] > bound)
      assert_int_not_equal (m->slot_of[k], NIL);

  static const double phis[] = { 0.05, 0.03, 0.01, 0.005, 0.002 };
  for (size_t i = 0; i < sizeof phis / sizeof *phis; i++)
    {
      double phi = phis[i];
      if (phi <= 1.0 / cap)
        continue;
      double thr = phi * (double) m->events;
      uint64_t hot = 0, reported = 0, both = 0;
      double err_sum = 0, err_max = 0;
      for (uint32_t k = 0; k < m->nkeys; k++)
        {
          int is_hot = (double) m->truth[k] >= thr;
          uint32_t s = m->slot_of[k];
          int rep = s != NIL && (double) ss->count[s] >= thr;
          hot += is_hot;
          reported += rep;
          both += is_hot && rep;
          if (is_hot)
            {
              /* A hot key has a slot (phi > epsilon).  */
              assert_int_not_equal (s, NIL);
              double e = (double) (ss->count[s] - m->truth[k])
                         / (double) m->truth[k];
              err_sum += e;
              if (e > err_max)
                err_max = e;
            }
        }
      assert_int_equal (both, hot);     /* recall 1 */
      printf ("# %s phi=%g: hot %llu reported %llu precision %.3f"
              " recall %.3f counter error mean %.5f max %.5f\n",
              what, phi, (unsigned long long) hot,
              (unsigned long long) reported,
              reported ? (double) both / (double) reported : 1.0,
              hot ? (double) both / (double) hot : 1.0,
              hot ? err_sum / (double) hot : 0.0, err_max);
    }
}

/* A stream of EVENTS keys of NKEYS, Zipf-like with skew S, through N
   counters.  Keys are numbered in a shuffled order, so that rank and key
   number differ.  */
static void
zipf_run (double s, uint64_t seed, uint32_t nkeys, uint32_t n,
          uint64_t events)
{
  double *cdf = malloc (nkeys * sizeof *cdf);
  uint32_t *perm = malloc (nkeys * sizeof *perm);
  assert_true (cdf && perm);
  uint64_t st = seed * UINT64_C (0x9e3779b97f4a7c15) + 1;
  double tot = 0;
  for (uint32_t r = 0; r < nkeys; r++)
    {
      tot += 1.0 / pow ((double) (r + 1), s);
      cdf[r] = tot;
      perm[r] = r;
    }
  for (uint32_t r = nkeys; r-- > 1;)
    {
      uint32_t j = (uint32_t) (rnd (&st) % (r + 1));
      uint32_t t = perm[r];
      perm[r] = perm[j];
      perm[j] = t;
    }
  struct model m;
  uint32_t *stream = malloc (events * sizeof *stream);
  assert_non_null (stream);
  model_init (&m, n, nkeys);
  for (uint64_t i = 0; i < events; i++)
    {
      double u = (double) (rnd (&st) >> 11) / 9007199254740992.0 * tot;
      uint32_t lo = 0, hi = nkeys - 1;
      while (lo < hi)
        {
          uint32_t mid = lo + (hi - lo) / 2;
          if (cdf[mid] < u)
            lo = mid + 1;
          else
            hi = mid;
        }
      stream[i] = perm[lo];
    }
  /* The time of an event: the summary and the test's map of keys.  */
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  for (uint64_t i = 0; i < events; i++)
    model_event (&m, stream[i]);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  double ns = ((double) (t1.tv_sec - t0.tv_sec) * 1e9
               + (double) (t1.tv_nsec - t0.tv_nsec)) / (double) events;
  free (stream);
  char what[128];
  snprintf (what, sizeof what, "zipf s=%.1f seed=%llu N=%u keys=%u L=%llu"
            " (%.1f ns/event)", s, (unsigned long long) seed, n, nkeys,
            (unsigned long long) events, ns);
  check_model (&m, what);
  model_free (&m);
  free (cdf);
  free (perm);
}

static void
test_zipf (void **state)
{
  (void) state;
  static const double skews[] = { 0.6, 0.8, 1.0, 1.2, 1.5, 2.0 };
  for (size_t i = 0; i < sizeof skews / sizeof *skews; i++)
    for (uint64_t seed = 1; seed <= 3; seed++)
      {
        zipf_run (skews[i], seed, 20000, 1000, 300000);
        zipf_run (skews[i], seed + 10, 5000, 250, 100000);
        zipf_run (skews[i], seed + 20, 5000, 40, 100000);
      }
}

/* Uniform keys, the worst case for Space-Saving: still within bounds.  */
static void
test_uniform (void **state)
{
  (void) state;
  struct model m;
  uint64_t st = 7;
  model_init (&m, 64, 1000);
  for (int i = 0; i < 100000; i++)
    model_event (&m, (uint32_t) (rnd (&st) % 1000));
  check_model (&m, "uniform N=64 keys=1000");
  model_free (&m);
}

/* While the keys fit, counts are exact and errors 0.  */
static void
test_exact (void **state)
{
  (void) state;
  struct model m;
  uint64_t st = 3;
  model_init (&m, 100, 100);
  for (int i = 0; i < 50000; i++)
    model_event (&m, (uint32_t) (rnd (&st) % 100));
  for (uint32_t s = 0; s < m.ss.used; s++)
    {
      assert_int_equal (m.ss.count[s], m.truth[m.key_of[s]]);
      assert_int_equal (m.ss.error[s], 0);
    }
  assert_false (m.ss.summary);
  model_free (&m);
}

/* The least count is the one replaced, and the newcomer inherits it.  */
static void
test_replace_min (void **state)
{
  (void) state;
  struct model m;
  model_init (&m, 3, 10);
  for (int i = 0; i < 5; i++)
    model_event (&m, 0);
  for (int i = 0; i < 2; i++)
    model_event (&m, 1);
  for (int i = 0; i < 4; i++)
    model_event (&m, 2);
  model_event (&m, 3);          /* takes key 1's slot: count 3, error 2 */
  assert_int_equal (m.slot_of[1], NIL);
  uint32_t s = m.slot_of[3];
  assert_int_equal (m.ss.count[s], 3);
  assert_int_equal (m.ss.error[s], 2);
  assert_int_equal (cce_ss_min (&m.ss), 3);
  model_event (&m, 4);          /* takes key 3's: count 4, error 3 */
  assert_int_equal (m.slot_of[3], NIL);
  s = m.slot_of[4];
  assert_int_equal (m.ss.count[s], 4);
  assert_int_equal (m.ss.error[s], 3);
  /* Ties at 4: keys 2 and 4; key 0 (5) stays.  */
  model_event (&m, 5);
  assert_int_not_equal (m.slot_of[0], NIL);
  assert_int_equal (cce_ss_min (&m.ss), 4);
  check_model (&m, "replace-min");
  model_free (&m);
}

/* One counter: the last key holds every event as its count.  */
static void
test_one_counter (void **state)
{
  (void) state;
  struct model m;
  model_init (&m, 1, 5);
  for (uint32_t i = 0; i < 20; i++)
    model_event (&m, i % 5);
  assert_int_equal (m.ss.count[0], 20);
  assert_int_equal (m.key_of[0], 4);
  assert_int_equal (m.ss.error[0], 19);
  model_free (&m);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_exact),
    cmocka_unit_test (test_replace_min),
    cmocka_unit_test (test_one_counter),
    cmocka_unit_test (test_uniform),
    cmocka_unit_test (test_zipf),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
