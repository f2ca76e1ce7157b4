/* hello.c -- the cce example: cce_log from several distinct calling
   contexts.  Build it with
       gcc $(pkg-config --cflags cce) -O2 -o hello hello.c util.c \
           $(pkg-config --libs cce)
   run it with CCE_LOG=hello.log ./hello and decode the log with
       cce-decode hello hello.log
   ("make demo" in the build tree does all three).  */

#include <stdio.h>
#include <stdlib.h>
#include <cce.h>

/* util.c */
void chain_a (void);
void chain_c (void);
unsigned walk (unsigned n);
void by_pointer (void);
unsigned workload (unsigned long n);

/* Small and static: GCC inlines it into its callers; each inlined copy is
   a distinct context, reported with the inlined frame.  */
static inline void
note (unsigned tag)
{
  cce_log (tag);
}

/* volatile: keep the call indirect instead of letting GCC resolve it.  */
static void (*volatile callback) (void) = by_pointer;

static void
run_callback (void)
{
  callback ();
}

int
main (int argc, char **argv)
{
  /* "hello N": run the call-heavy workload N steps instead (see util.c);
     "make ratio" times it against an uninstrumented build.  */
  if (argc > 1)
    {
      printf ("%u\n", workload (strtoul (argv[1], NULL, 10)));
      return 0;
    }
  chain_a ();           /* main > chain_a > chain_b > chain_c: tag 1 */
  chain_c ();           /* main > chain_c: tag 1 */
  walk (3);             /* main > walk > walk ...: tag 2, several depths */
  run_callback ();      /* main > run_callback > (pointer) by_pointer: 3 */
  note (4);             /* main > note (inlined): tag 4 */
  run_callback ();
  note (5);
  printf ("hello: done; decode the log with cce-decode\n");
  return 0;
}
