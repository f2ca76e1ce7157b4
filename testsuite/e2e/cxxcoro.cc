// cxxcoro.cc -- C++20 coroutines under cce, against gdb: a generator
// resumed from main and from another function, and a task that suspends
// on an awaiter and is resumed by a scheduler.  A coroutine's body runs
// in GCC's actor function (foo.actor), called by the ramp (the first
// call, up to the first suspension) or by coroutine_handle::resume; its
// frame is the coroutine's own name, under whoever resumed it.
#include <cce.h>
#include <coroutine>

static volatile int sink;

__attribute__ ((noinline)) static void
leaf (int i)
{
  cce_log (1);
  sink = i;
}

struct Gen
{
  struct promise_type
  {
    int value = 0;
    Gen get_return_object ()
    {
      return Gen{std::coroutine_handle<promise_type>::from_promise (*this)};
    }
    std::suspend_always initial_suspend () noexcept { return {}; }
    std::suspend_always final_suspend () noexcept { return {}; }
    std::suspend_always yield_value (int v)
    {
      value = v;
      return {};
    }
    void return_void () {}
    void unhandled_exception () {}
  };
  std::coroutine_handle<promise_type> h;
  explicit Gen (std::coroutine_handle<promise_type> c) : h (c) {}
  Gen (Gen &&o) : h (o.h) { o.h = nullptr; }
  ~Gen ()
  {
    if (h)
      h.destroy ();
  }
  __attribute__ ((noinline)) bool next ()
  {
    h.resume ();
    return !h.done ();
  }
  int value () const { return h.promise ().value; }
};

// A local of a coroutine lives in its frame: destroying a suspended
// coroutine runs its destructor, in the coroutine's destroy function.
struct Guard
{
  int n;
  ~Guard ()
  {
    cce_log (6);
    sink = n;
  }
};

Gen
counter (int n)
{
  Guard guard{n};
  cce_log (2);
  for (int i = 0; i < n; i++)
    {
      leaf (i);
      co_yield i;
      cce_log (3);
    }
}

// A member coroutine, and a coroutine template.
struct Source
{
  int base;
  Gen items (int n)
  {
    for (int i = 0; i < n; i++)
      {
        leaf (base + i);
        co_yield base + i;
      }
  }
};

template <typename T>
Gen
twice (T x)
{
  leaf (int (x));
  co_yield int (x);
  leaf (int (x) * 2);
  co_yield int (x) * 2;
}

// Resumes a generator that main made.
__attribute__ ((noinline)) static int
drain (Gen &&g)
{
  int s = 0;
  while (g.next ())
    s += g.value ();
  cce_log (4);
  return s;
}

// A task that runs eagerly until it awaits, then is resumed by the
// scheduler.
struct Task
{
  struct promise_type
  {
    Task get_return_object ()
    {
      return Task{std::coroutine_handle<promise_type>::from_promise (*this)};
    }
    std::suspend_never initial_suspend () noexcept { return {}; }
    std::suspend_always final_suspend () noexcept { return {}; }
    void return_void () {}
    void unhandled_exception () {}
  };
  std::coroutine_handle<promise_type> h;
};

static std::coroutine_handle<> waiting;

struct Wait
{
  bool await_ready () const noexcept { return false; }
  void await_suspend (std::coroutine_handle<> c) noexcept { waiting = c; }
  void await_resume () const noexcept { cce_log (5); }
};

Task
worker (int x)
{
  leaf (x);
  co_await Wait{};
  leaf (x + 1);
}

__attribute__ ((noinline)) static void
scheduler ()
{
  std::coroutine_handle<> c = waiting;
  waiting = nullptr;
  c.resume ();
}

int
main ()
{
  Gen g = counter (3);
  g.next ();
  sink = g.value ();
  sink = drain (static_cast<Gen &&> (g));
  {
    Gen early = counter (5);
    early.next ();
  }
  Source src{20};
  sink = drain (src.items (2)) + drain (twice<long> (7));
  Task t = worker (10);
  scheduler ();
  t.h.destroy ();
  return 0;
}
