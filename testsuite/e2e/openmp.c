/* openmp.c -- an OpenMP parallel region (-fopenmp) whose body logs and
   calls a function that logs, on the master thread and on one pool
   thread, in two regions (the second reuses the pool thread).  GCC
   outlines the body into run._omp_fn.0, which libgomp's GOMP_parallel
   calls on the master thread (main;run;GOMP_parallel;run._omp_fn.0;work)
   and the pool thread's start routine calls on the other
   (run._omp_fn.0;work).  Compared per thread (run-e2e.sh threads mode):
   which OS thread logs first is not fixed, the tags each thread logs
   are (omp_get_thread_num).  */
#include <omp.h>
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

static volatile int sink;

NOINLINE static void
work (unsigned tag)
{
  cce_log (tag);
  sink++;
}

NOINLINE static void
run (unsigned base)
{
#pragma omp parallel num_threads(2)
  {
    unsigned me = (unsigned) omp_get_thread_num ();
    cce_log (base + me);
    work (base + 10 + me);
  }
  cce_log (base + 20);
}

int
main (void)
{
  /* Without a second processor, libgomp may still start two threads
     (num_threads asks for them), but dynamic adjustment must be off.  */
  omp_set_dynamic (0);
  cce_log (1);
  run (100);
  run (200);
  cce_log (2);
  return 0;
}
