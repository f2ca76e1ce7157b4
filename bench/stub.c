/* stub.c -- an empty cce_log for the plain builds of the benchmarks,
   compiled without -flto so that the rare log call stays a real call, as
   in the instrumented build.  */
void cce_log (unsigned tag);
void
cce_log (unsigned tag)
{
  (void) tag;
  __asm__ volatile ("" ::: "memory");
}
