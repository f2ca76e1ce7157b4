// cxxexc.cc -- exceptions under cce, against gdb: thrown through several
// frames, caught, rethrown, destructors run by the unwinder, and
// std::terminate when an exception leaves a noexcept function after a
// destructor ran (the terminate handler must not decode as a path that
// had already returned).
#include <cce.h>
#include <cstdlib>
#include <exception>
#include <stdexcept>

static volatile int sink;

struct Guard
{
  int tag;
  explicit Guard (int t) : tag (t) {}
  ~Guard () { cce_log (tag); }
};

__attribute__ ((noinline)) static void
thrower (int depth)
{
  Guard g (10 + depth);
  if (depth == 0)
    {
      cce_log (1);
      throw std::runtime_error ("deep");
    }
  thrower (depth - 1);
  sink = sink + 1;
}

__attribute__ ((noinline)) static void
catcher ()
{
  try
    {
      thrower (3);
    }
  catch (const std::exception &)
    {
      cce_log (2);
    }
}

__attribute__ ((noinline)) static void
rethrower ()
{
  try
    {
      thrower (1);
    }
  catch (...)
    {
      cce_log (3);
      throw;
    }
}

__attribute__ ((noinline)) static void
outer ()
{
  try
    {
      rethrower ();
    }
  catch (const std::runtime_error &)
    {
      cce_log (4);
    }
}

/* A chain that returns before the terminate: its id must not be what the
   handler sees.  */
__attribute__ ((noinline)) static void
probe (int n)
{
  cce_log (5);
  sink = n;
}

__attribute__ ((noinline)) static void
deep (int n)
{
  if (n > 0)
    deep (n - 1);
  else
    probe (n);
  sink = sink + 1;
}

__attribute__ ((noinline)) static void
boom ()
{
  Guard g (20);
  deep (2);
  throw std::logic_error ("terminate");
}

__attribute__ ((noinline)) static void
no_throw () noexcept
{
  Guard g (21);
  boom ();
}

static void
on_terminate ()
{
  cce_log (6);
  std::_Exit (0);
}

int
main ()
{
  catcher ();
  outer ();
  std::set_terminate (on_terminate);
  no_throw ();
  return 1;
}
