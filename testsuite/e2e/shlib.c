/* shlib.c -- an executable and a shared library, both built with cce,
   calling into each other directly, through function pointers passed
   across the boundary, by name (exe_hook), and through a library built
   without cce (libccemid.so) in the middle.  */
#include "cce.h"
#include "shlib.h"

int
exe_hook (int x)
{
  cce_log (200);
  return lib_work (1) + x;
}

static int
exe_cb (int x)
{
  cce_log (210);
  return x * 2;
}

static int __attribute__ ((noinline))
exe_mid (int x)
{
  cce_log (220);
  return mid_call (lib_cb, x) + mid_call (exe_cb, x);
}

int
main (void)
{
  int v[5] = { 3, 1, 4, 0, 2 };
  int s = 0;
  s += lib_work (2);
  s += lib_apply (exe_cb, 3);
  lib_register (exe_cb);
  s += lib_fire (5);
  s += lib_call_exe (1);
  s += exe_mid (4);
  lib_sort (v, 5);
  s += lib_rec (4);
  s += lib_pub (1);
  s += lib_uses_pub (2);
  cce_log (230);
  return s == 0;
}
