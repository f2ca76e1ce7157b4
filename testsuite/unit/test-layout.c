/* test-layout.c -- cmocka unit tests of the order of functions for LTO
   partitions (common/layout.c, cce_layout_order).  */

#include "core-tests.h"

/* Position of function F in ORDER (N functions).  */
static size_t
pos (const uint32_t *order, size_t n, uint32_t f)
{
  for (size_t i = 0; i < n; i++)
    if (order[i] == f)
      return i;
  fail_msg ("function %u missing from the order", f);
  return n;
}

/* Two hot pairs far apart in the source (0-3 and 1-2) end up next to
   each other, caller first; a third call cannot join a full cluster;
   the order is a permutation.  */
static void
test_hot_calls_become_neighbours (void **state)
{
  (void) state;
  const uint64_t size[] = { 10, 10, 10, 10, 10 };
  const struct cce_layout_edge e[] = {
    { 0, 3, 100.0 }, { 1, 2, 50.0 }, { 0, 4, 0.5 },
  };
  uint32_t order[5];
  assert_int_equal (cce_layout_order (5, size, e, 3, 20, order), 0);
  assert_int_equal (pos (order, 5, 3), pos (order, 5, 0) + 1);
  assert_int_equal (pos (order, 5, 2), pos (order, 5, 1) + 1);
  assert_int_equal (order[0], 0);
  assert_int_equal (order[4], 4);
  int seen[5] = { 0 };
  for (int i = 0; i < 5; i++)
    seen[order[i]]++;
  for (int i = 0; i < 5; i++)
    assert_int_equal (seen[i], 1);
}

/* With no calls, or calls of weight 0, the source's order stays; a call
   of a function with itself changes nothing.  */
static void
test_no_hot_calls_keep_the_source_order (void **state)
{
  (void) state;
  const uint64_t size[] = { 1, 2, 3, 4 };
  const struct cce_layout_edge e[] = { { 2, 2, 9.0 }, { 0, 3, 0.0 } };
  uint32_t order[4];
  assert_int_equal (cce_layout_order (4, size, e, 2, 100, order), 0);
  for (uint32_t i = 0; i < 4; i++)
    assert_int_equal (order[i], i);
  assert_int_equal (cce_layout_order (4, size, NULL, 0, 100, order), 0);
  for (uint32_t i = 0; i < 4; i++)
    assert_int_equal (order[i], i);
}

/* Clusters join whole: 0-1 (hottest), then 2-3, then 1-2 joins the two
   into 0 1 2 3 when the limit allows, and not when it does not.  A
   cluster is named by its first function: {4, 1} comes after {2}.  */
static void
test_clusters_join_whole (void **state)
{
  (void) state;
  const uint64_t size[] = { 5, 5, 5, 5, 5 };
  const struct cce_layout_edge e[] = {
    { 1, 2, 3.0 }, { 0, 1, 9.0 }, { 2, 3, 7.0 }, { 4, 0, 1.0 },
  };
  uint32_t order[5];
  const uint32_t want[] = { 0, 1, 2, 3, 4 };
  assert_int_equal (cce_layout_order (5, size, e, 4, 20, order), 0);
  assert_memory_equal (order, want, sizeof want);
  assert_int_equal (cce_layout_order (5, size, e, 4, 10, order), 0);
  assert_memory_equal (order, want, sizeof want);
  const struct cce_layout_edge e2[] = { { 4, 1, 9.0 }, { 0, 3, 8.0 } };
  const uint32_t want2[] = { 0, 3, 2, 4, 1 };
  assert_int_equal (cce_layout_order (5, size, e2, 2, 10, order), 0);
  assert_memory_equal (order, want2, sizeof want2);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_hot_calls_become_neighbours),
    cmocka_unit_test (test_no_hot_calls_keep_the_source_order),
    cmocka_unit_test (test_clusters_join_whole),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
