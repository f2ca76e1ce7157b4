/* cxx_c.c -- the C unit of the cxx test: calls back into C++ through an
   extern "C" function pointer, and is called from C++.  */
#include <cce.h>

typedef int (*cxx_cb) (int);

int
c_apply (cxx_cb f, int x)
{
  cce_log (40);
  return f (x) + 1;
}

int
c_side (int x)
{
  cce_log (41);
  return x * 3;
}
