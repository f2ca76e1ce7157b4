/* test-graph.c -- cmocka unit tests of building the call graph in cce's
   core (common/graph.c).  */

#include "core-tests.h"

static void
test_string_interning_returns_one_number_per_string (void **state)
{
  struct cce_graph *g = cce_graph_new ();
  uint32_t a, b, c, d;

  (void) state;
  assert_non_null (g);
  a = cce_graph_string (g, "qsort");
  b = cce_graph_string (g, "printf");
  c = cce_graph_string (g, "qsort");
  d = cce_graph_string (g, "");
  assert_int_equal (a, c);
  assert_int_not_equal (a, b);
  assert_int_not_equal (d, a);
  assert_int_equal (g->nstrings, 3);
  assert_string_equal (g->strings[b], "printf");
  cce_graph_free (g);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_string_interning_returns_one_number_per_string),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
