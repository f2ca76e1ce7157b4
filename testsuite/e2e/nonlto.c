/* nonlto.c -- a program linked with an object compiled without LTO
   (nonlto_ext.c: see there).  The non-LTO functions call back into the
   program through pointers and by name, sometimes re-entering the
   non-LTO code from a callback.  Each call into the non-LTO object is one
   external frame on the path, e.g. main;drive;ext_walk;visit.  */
#include <cce.h>

#define NOINLINE __attribute__ ((noinline))

void ext_walk (void (*cb) (int), int n);
void ext_named (int k);
void ext_twice (void (*cb) (int), int k);

static volatile int sink;

NOINLINE static void
leaf (unsigned tag)
{
  cce_log (tag);
  sink++;
}

static void
visit (int x)
{
  cce_log (100 + x);
  if (x == 1)
    leaf (150);
}

static void
visit_nested (int x)
{
  cce_log (200 + x);
  if (x == 0)
    ext_named (7);
}

/* Called by name from nonlto_ext.c.  */
void
prog_hook (int k)
{
  cce_log (300 + k);
  leaf (350 + k);
}

void
prog_reenter (int k)
{
  cce_log (400 + k);
  ext_walk (visit, k);
}

NOINLINE static void
drive (void)
{
  ext_walk (visit, 2);
  sink++;
}

NOINLINE static void
deeper (int k)
{
  ext_named (k);
  sink++;
  ext_walk (visit_nested, 1);
  sink++;
}

NOINLINE static void
deep2 (int k)
{
  deeper (k);
  sink++;
}

int
main (void)
{
  cce_log (1);
  drive ();
  ext_named (5);
  deep2 (1);
  ext_twice (visit, 3);
  prog_hook (9);
  leaf (2);
  return 0;
}
