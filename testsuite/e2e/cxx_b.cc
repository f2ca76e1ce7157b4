// cxx_b.cc -- the second C++ unit of the cxx test: the same template and
// inline function as cxx.cc, instantiated here too.
#include "cxx.h"

int
in_b (int x)
{
  Box<int> b (x);
  return b.get () + shared_inline (x);
}
