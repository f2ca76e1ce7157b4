// cxx.cc -- C++ under cce, against gdb: virtual calls, std::function,
// std::sort with a lambda, function templates, constructors and
// destructors (complete, base, deleting), a class's operator new and
// delete and the program's own global ones, static initialization and the
// destructors of static objects at exit, a virtual call through a second
// base (a thunk), a template and an inline function of a header in two
// units, and a C unit calling back through an extern "C" pointer.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <new>
#include <vector>

#include "cxx.h"

static volatile int sink;

struct Shape
{
  Shape () { cce_log (1); }
  virtual ~Shape () { cce_log (2); }
  virtual int area () const = 0;
};

struct Sq : Shape
{
  int s;
  explicit Sq (int x) : s (x) { cce_log (3); }
  ~Sq () override { cce_log (4); }
  int area () const override
  {
    cce_log (5);
    return s * s;
  }
  static void *operator new (std::size_t n)
  {
    cce_log (6);
    return std::malloc (n);
  }
  static void operator delete (void *p)
  {
    cce_log (7);
    std::free (p);
  }
};

struct Circle : Shape
{
  int r;
  explicit Circle (int x) : r (x) { cce_log (8); }
  int area () const override
  {
    cce_log (9);
    return 3 * r * r;
  }
};

/* Two bases: a call through the second one goes through a thunk that
   adjusts the pointer (no frame of the source).  */
struct Named
{
  virtual ~Named () {}
  virtual int name () const = 0;
};

struct Both : Sq, Named
{
  explicit Both (int x) : Sq (x) {}
  int name () const override
  {
    cce_log (17);
    return s;
  }
};

__attribute__ ((noinline)) static int
ask (const Named *n)
{
  return n->name ();
}

/* The program's own global operator new and delete, logging while
   counting is on.  */
static bool counting;
static int *volatile kept;

void *
operator new (std::size_t n)
{
  if (counting)
    cce_log (18);
  void *p = std::malloc (n ? n : 1);
  if (!p)
    throw std::bad_alloc ();
  return p;
}

void
operator delete (void *p) noexcept
{
  if (counting)
    cce_log (19);
  std::free (p);
}

void
operator delete (void *p, std::size_t) noexcept
{
  if (counting)
    cce_log (19);
  std::free (p);
}

template <typename T>
__attribute__ ((noinline)) T
twice (T x)
{
  cce_log (10);
  return x + x;
}

struct Global
{
  int n;
  Global () : n (1) { cce_log (11); }
  ~Global () { cce_log (12); }
};

Global global_object;

static int
init_value ()
{
  cce_log (13);
  return 42;
}

int initialized = init_value ();

__attribute__ ((noinline)) static int
total (const std::vector<Shape *> &v)
{
  int t = 0;
  for (Shape *s : v)
    t += s->area ();
  return t;
}

extern "C" int
cb (int x)
{
  cce_log (14);
  return x + c_side (x);
}

int
main ()
{
  std::vector<int> v { 3, 1, 2, 5, 4 };
  std::sort (v.begin (), v.end (), [] (int a, int b) {
    cce_log (15);
    return a < b;
  });

  std::vector<Shape *> shapes;
  shapes.push_back (new Sq (2));
  shapes.push_back (new Circle (1));
  sink = total (shapes);
  for (Shape *s : shapes)
    delete s;
  {
    Sq local (3);
    sink = local.area ();
  }

  {
    Both both (5);
    sink = ask (&both);
  }
  counting = true;
  kept = new int (7);
  sink = *kept;
  delete kept;
  counting = false;

  sink = twice (1);
  sink = (int) twice (2.5);

  std::function<int (int)> f = [] (int x) {
    cce_log (16);
    return x * 2;
  };
  sink = f (3);

  Box<int> b (4);
  sink = b.get () + shared_inline (1) + in_b (2);
  sink = c_apply (cb, 5);
  return 0;
}
