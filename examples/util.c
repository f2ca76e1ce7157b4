/* util.c -- second translation unit of the cce example.  With -flto the
   plugin sees both files as one program: the calls between them are plain
   direct edges of the call graph.  */

#include <cce.h>

/* A direct chain: main -> chain_a -> chain_b -> chain_c.  chain_c is also
   called from main directly, so its log site has two contexts.  */
void
chain_c (void)
{
  cce_log (1);
}

void
chain_b (void)
{
  chain_c ();
}

void
chain_a (void)
{
  chain_b ();
}

/* Recursion a few levels deep.  Two recursive calls, so that GCC cannot
   turn it into a loop: the back edge goes through the ccStack.  */
unsigned
walk (unsigned n)
{
  if (n < 2)
    {
      cce_log (2);
      return 1;
    }
  return walk (n - 1) + walk (n - 2);
}

/* Only ever called through a function pointer.  */
void
by_pointer (void)
{
  cce_log (3);
}
