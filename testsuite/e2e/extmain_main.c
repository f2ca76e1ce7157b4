/* extmain_main.c -- the main of the extmain program, compiled WITHOUT
   -flto and without the plugin (run-e2e.sh's xsrcs): code outside the
   program that calls into it.  */
int run_all (int n);

int
main (void)
{
  return run_all (2) < 0;
}
