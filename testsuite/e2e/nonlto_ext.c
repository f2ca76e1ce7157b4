/* nonlto_ext.c -- the part of the nonlto program compiled WITHOUT -flto
   and without the plugin: run-e2e.sh builds it with plain "$CC -O2 -c"
   (no -g) and links the same object into the oracle's build and into the
   instrumented ones.  Without debug info, gdb counts its frames as
   external, as cce does for code outside the LTO unit: both show each
   call into it as one frame named by the function the program called
   (ext_walk, ext_named, ext_twice), even where it calls its own helpers.
   It calls back into the program through a pointer it receives and calls
   the program's exported functions by name.  The volatile stores after
   the calls keep GCC from making them tail calls (a tail call would
   take the external frame off the stack, and off gdb's path).  */

void prog_hook (int k);         /* in nonlto.c */
void prog_reenter (int k);      /* in nonlto.c */

volatile int ext_sink;

__attribute__ ((noinline)) static void
ext_inner (void (*cb) (int), int k)
{
  cb (k);
  ext_sink++;
}

/* (a) calls back through the pointer it gets, directly and from a helper
   of its own.  */
void
ext_walk (void (*cb) (int), int n)
{
  for (int i = 0; i < n; i++)
    {
      cb (i);
      ext_sink++;
    }
  ext_inner (cb, 100 + n);
  ext_sink++;
}

/* (b) calls functions of the program by name.  */
void
ext_named (int k)
{
  prog_hook (k);
  ext_sink++;
  if (k < 3)
    prog_reenter (k);
  ext_sink++;
}

/* Both: by pointer, then by name.  */
void
ext_twice (void (*cb) (int), int k)
{
  cb (k);
  ext_sink++;
  prog_hook (k + 50);
  ext_sink++;
}
