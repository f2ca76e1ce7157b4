/* cxx.h -- a template and an inline function instantiated in two units
   of the cxx test (cxx.cc, cxx_b.cc): one COMDAT copy each.  */
#ifndef CXX_H
#define CXX_H

#include <cce.h>

template <typename T>
struct Box
{
  T v;
  explicit Box (T x) : v (x) {}
  T get () const
  {
    cce_log (30);
    return v;
  }
};

inline int
shared_inline (int x)
{
  cce_log (31);
  return x + 1;
}

int in_b (int x);

extern "C" {
typedef int (*cxx_cb) (int);
int c_apply (cxx_cb f, int x);      /* cxx_c.c, a C unit */
int c_side (int x);
}

#endif
