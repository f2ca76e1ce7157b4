/* torn.c -- logs N records from two call paths (the tag says which),
   then one more; torn.sh kills it under gdb just before that last record
   is made valid.  */
#include <stdlib.h>
#include <cce.h>

static void __attribute__ ((noinline))
leaf (unsigned tag)
{
  cce_log (tag);
}

static void __attribute__ ((noinline))
left (unsigned tag)
{
  leaf (tag);
}

static void __attribute__ ((noinline))
right (unsigned tag)
{
  leaf (tag);
}

int
main (int argc, char **argv)
{
  unsigned n = argc > 1 ? (unsigned) atoi (argv[1]) : 100;
  for (unsigned i = 0; i < n; i++)
    (i % 2 ? right : left) (i);
  left (n);
  return 0;
}
