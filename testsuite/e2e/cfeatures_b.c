/* cfeatures_b.c -- the second static "helper" of cfeatures (see
   cfeatures.c).  */
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

void b_entry (int k);

NOINLINE static void
helper (int k)
{
  cce_log (450 + k);
}

NOINLINE static void
b_mid (int k)
{
  helper (k);
  helper (k + 1);
}

void
b_entry (int k)
{
  b_mid (k);
  helper (k + 2);
}
