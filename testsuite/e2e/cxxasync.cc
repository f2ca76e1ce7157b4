// cxxasync.cc -- std::async under cce, against gdb: a lambda run with
// std::launch::async (on a thread of its own: a root, as gdb shows it)
// and with std::launch::deferred (run by the thread that calls get(), in
// that call's context), and a function with its arguments.
#include <cce.h>
#include <future>

static volatile int sink;

__attribute__ ((noinline)) static int
leaf (int i)
{
  cce_log (1);
  return sink + i;
}

__attribute__ ((noinline)) static int
square (int x)
{
  cce_log (2);
  return leaf (x) * x;
}

// Waits for a deferred future: the task runs inside get().
__attribute__ ((noinline)) static int
collect (std::future<int> &f)
{
  cce_log (3);
  return f.get ();
}

int
main ()
{
  auto body = [] (int i) {
    cce_log (4);
    return leaf (i) + 1;
  };
  std::future<int> a = std::async (std::launch::async, body, 1);
  sink = a.get ();
  std::future<int> d = std::async (std::launch::deferred, body, 2);
  sink = collect (d);
  std::future<int> s = std::async (std::launch::deferred, square, 3);
  sink = s.get ();
  std::future<int> t = std::async (std::launch::async, square, 4);
  sink = collect (t);
  return 0;
}
