/* test-flow.c -- cmocka unit tests of where cce restores the id and the
   top after a call (common/flow.c, cce_flow_live_after).  */

#include "core-tests.h"

/* Restores (cce_flow_live_after).  Events: D = a direct site with an
   addition value (stores the id; its callee reads the top), P = an inline
   push (stores both), U = a use of both (a free call, a log, the load).  */
#define EV_D (CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP)
#define EV_P (CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP)
#define EV_U (CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP)
#define LIVE_BOTH (CCE_FLOW_USE_ID | CCE_FLOW_USE_TOP)

/* Straight line: D D P D, then return.  The id is dead after each site but
   the last; the top is read by each direct site's callee, and dead after
   the first site only when the next one pushes.  */
static void
test_restore_needed_only_before_a_reader_in_a_block (void **state)
{
  (void) state;
  const uint32_t ev_start[] = { 0, 4 };
  const uint8_t ev[] = { EV_D, EV_P, EV_D, EV_D };
  const uint32_t succ_start[] = { 0, 1 };
  const uint32_t succ[] = { CCE_NONE };
  struct cce_flow f = { 1, ev_start, ev, succ_start, succ };
  uint8_t live[4];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], 0);                   /* P writes both */
  assert_int_equal (live[1], CCE_FLOW_USE_TOP);    /* D's callee reads top */
  assert_int_equal (live[2], CCE_FLOW_USE_TOP);
  assert_int_equal (live[3], LIVE_BOTH);           /* the return */
}

/* Across blocks: after D in block 0, one branch (1) stores both before any
   read, the other (2) makes a free call: both must be restored.  After the
   push in 1, block 3 only returns: both live.  An empty block passes
   liveness through.  */
static void
test_restore_needed_when_any_path_reads_first (void **state)
{
  (void) state;
  /* 0: D -> 1, 2;  1: P -> 3;  2: U -> 4;  4: (empty) -> 3;  3: -> exit */
  const uint32_t ev_start[] = { 0, 1, 2, 3, 3, 3 };
  const uint8_t ev[] = { EV_D, EV_P, EV_U };
  const uint32_t succ_start[] = { 0, 2, 3, 4, 5, 6 };
  const uint32_t succ[] = { 1, 2, 3, 4, CCE_NONE, 3 };
  struct cce_flow f = { 5, ev_start, ev, succ_start, succ };
  uint8_t live[3];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);
  assert_int_equal (live[1], LIVE_BOTH);
  assert_int_equal (live[2], LIVE_BOTH);

  /* With block 2 pushing too, nothing after D reads before writing.  */
  const uint8_t ev2[] = { EV_D, EV_P, EV_P };
  f.ev = ev2;
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], 0);
}

/* A site whose code takes one of two paths (an indirect call that pushes,
   or calls a guessed target directly) reads the top if either path does:
   after an external call X (a push, P) the top must be restored before
   the guessed call G = either (P, D), though its push path writes it.  */
static void
test_restore_needed_before_a_site_with_a_reading_path (void **state)
{
  (void) state;
  uint8_t g = cce_flow_either (EV_P, EV_D);
  assert_int_equal (g, CCE_FLOW_DEF_ID | CCE_FLOW_USE_TOP);
  assert_int_equal (cce_flow_either (EV_P, EV_P), EV_P);
  assert_int_equal (cce_flow_either (EV_D, EV_U), LIVE_BOTH);
  assert_int_equal (cce_flow_either (EV_P, 0), 0);
  const uint32_t ev_start[] = { 0, 2 };
  const uint8_t ev[] = { EV_P, g };
  const uint32_t succ_start[] = { 0, 1 };
  const uint32_t succ[] = { CCE_NONE };
  struct cce_flow f = { 1, ev_start, ev, succ_start, succ };
  uint8_t live[2];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], CCE_FLOW_USE_TOP);
}

/* Loops: block 1 is a loop whose body ends in D and goes back to its head.
   If the head starts with D, the id after it is dead on both ways out; if
   the head starts with a free call, the id after the last D is live
   through the back edge.  A landing pad (a block that starts by storing
   both) and an abnormal edge (CCE_NONE) behave as written.  */
static void
test_restore_needed_through_a_back_edge (void **state)
{
  (void) state;
  /* 0: U (the load) -> 1;  1: x, D -> 1, 2;  2: D -> exit */
  const uint32_t ev_start[] = { 0, 1, 3, 4 };
  uint8_t ev[] = { EV_U, EV_D, EV_D, EV_D };
  const uint32_t succ_start[] = { 0, 1, 3, 4 };
  const uint32_t succ[] = { 1, 1, 2, CCE_NONE };
  struct cce_flow f = { 3, ev_start, ev, succ_start, succ };
  uint8_t live[4];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0] & CCE_FLOW_USE_ID, 0);
  assert_int_equal (live[2] & CCE_FLOW_USE_ID, 0);
  assert_int_equal (live[3], LIVE_BOTH);

  ev[1] = EV_U;
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);
  assert_int_equal (live[2], LIVE_BOTH);

  /* 0: P -> 1 (a landing pad: stores both), CCE_NONE (abnormal) */
  const uint32_t ev_start2[] = { 0, 1, 3 };
  const uint8_t ev2[] = { EV_P, CCE_FLOW_DEF_ID | CCE_FLOW_DEF_TOP, EV_U };
  const uint32_t succ_start2[] = { 0, 1, 1 };
  const uint32_t succ2[] = { 1 };
  struct cce_flow pad = { 2, ev_start2, ev2, succ_start2, succ2 };
  assert_int_equal (cce_flow_live_after (&pad, live), 0);
  assert_int_equal (live[0], 0);
  const uint32_t succ_start3[] = { 0, 2, 2 };
  const uint32_t succ3[] = { 1, CCE_NONE };
  pad.succ_start = succ_start3;
  pad.succ = succ3;
  assert_int_equal (cce_flow_live_after (&pad, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);
}

/* A function that clobbers the id: its return reads the top alone
   (CCE_FLOW_EXIT with exit_use), so the id after its last site is dead;
   a free call of another clobbering function (C: reads both, then
   defines the id) needs a restore after it only where something reads
   the id before it is stored again.  An abnormal edge still reads
   both.  */
static void
test_restore_of_a_clobbering_function (void **state)
{
  (void) state;
  /* 0: D C U C D -> exit */
  const uint8_t EV_C = EV_U | CCE_FLOW_DEF_ID;
  const uint32_t ev_start[] = { 0, 5 };
  const uint8_t ev[] = { EV_D, EV_C, EV_U, EV_C, EV_D };
  const uint32_t succ_start[] = { 0, 1 };
  uint32_t succ[] = { CCE_FLOW_EXIT };
  struct cce_flow f = { 1, ev_start, ev, succ_start, succ,
                        CCE_FLOW_USE_TOP };
  uint8_t live[5];
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[0], LIVE_BOTH);         /* C reads both */
  assert_int_equal (live[1], LIVE_BOTH);         /* U reads both */
  assert_int_equal (live[2], LIVE_BOTH);         /* the second C */
  assert_int_equal (live[3], CCE_FLOW_USE_TOP);  /* D writes the id */
  assert_int_equal (live[4], CCE_FLOW_USE_TOP);  /* the return */
  f.exit_use = LIVE_BOTH;                        /* one that restores */
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[4], LIVE_BOTH);
  f.exit_use = CCE_FLOW_USE_TOP;
  succ[0] = CCE_NONE;                            /* abnormal: both */
  assert_int_equal (cce_flow_live_after (&f, live), 0);
  assert_int_equal (live[4], LIVE_BOTH);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_restore_needed_only_before_a_reader_in_a_block),
    cmocka_unit_test (test_restore_needed_when_any_path_reads_first),
    cmocka_unit_test (test_restore_needed_before_a_site_with_a_reading_path),
    cmocka_unit_test (test_restore_needed_through_a_back_edge),
    cmocka_unit_test (test_restore_of_a_clobbering_function),
  };
  signal (SIGALRM, on_alarm);
  alarm (240);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
