/* runtime.c -- "bench-run FILE CMD [ARG...]": run CMD and write one line to
   FILE: "CPU WALL MAXRSS STATUS", CPU the user+system seconds CMD and the
   children it waited for used (from wait4's rusage: microsecond values,
   whose sum the kernel keeps exact), WALL the elapsed seconds
   (CLOCK_MONOTONIC), MAXRSS the peak resident set in KiB, STATUS the exit
   status (128+N for a signal N).  CMD's standard streams are left as
   they are.  Exits with CMD's status.  */

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: bench-run FILE CMD [ARG...]\n");
      return 2;
    }
  struct timespec t0, t1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  pid_t pid = fork ();
  if (pid < 0)
    {
      perror ("bench-run: fork");
      return 2;
    }
  if (pid == 0)
    {
      execvp (argv[2], argv + 2);
      perror (argv[2]);
      _exit (127);
    }
  int st;
  struct rusage ru;
  if (wait4 (pid, &st, 0, &ru) < 0)
    {
      perror ("bench-run: wait4");
      return 2;
    }
  clock_gettime (CLOCK_MONOTONIC, &t1);
  double cpu = (double) ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6
               + (double) ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
  double wall = (double) (t1.tv_sec - t0.tv_sec)
                + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
  int status = WIFEXITED (st) ? WEXITSTATUS (st) : 128 + WTERMSIG (st);
  FILE *f = fopen (argv[1], "w");
  if (!f)
    {
      perror (argv[1]);
      return 2;
    }
  fprintf (f, "%.6f %.6f %ld %d\n", cpu, wall, ru.ru_maxrss, status);
  fclose (f);
  return status;
}
