// cxxthread.cc -- std::thread under cce, against gdb: a lambda that
// captures a std::function and runs it on another thread, a member
// function as a thread's body.
#include <cce.h>
#include <functional>
#include <thread>

static volatile int sink;

struct Worker
{
  int n;
  explicit Worker (int x) : n (x) {}
  void run ()
  {
    cce_log (1);
    sink = n;
  }
};

__attribute__ ((noinline)) static void
step (int i)
{
  cce_log (2);
  sink = i;
}

int
main ()
{
  std::function<void (int)> f = [] (int i) {
    cce_log (3);
    step (i);
  };
  std::thread t1 ([f] () {
    for (int i = 0; i < 2; i++)
      f (i);
  });
  t1.join ();
  Worker w (4);
  std::thread t2 (&Worker::run, &w);
  t2.join ();
  f (9);
  return 0;
}
