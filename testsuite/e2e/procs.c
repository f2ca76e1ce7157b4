/* procs.c -- processes around a program built with cce.

   procs vfork: a vfork child resets the SIGINT handler to SIG_DFL before
   it execs, as CPython's subprocess does; the parent's handler must
   still run (libcce's tables of handlers are the parent's).
   procs log N DIR: log N records, then make DIR/ready.PID and wait for
   DIR/go before exiting, so that several processes started with the
   same CCE_LOG all have it open at once.  */

#include <cce.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;

static void
on_int (int sig)
{
  got = sig;
}

static int
vfork_case (void)
{
  signal (SIGINT, on_int);
  pid_t pid = vfork ();
  if (pid == 0)
    {
      struct sigaction dfl;
      memset (&dfl, 0, sizeof dfl);
      dfl.sa_handler = SIG_DFL;
      sigaction (SIGINT, &dfl, NULL);
      execl ("/bin/true", "true", (char *) 0);
      _exit (127);
    }
  waitpid (pid, NULL, 0);
  raise (SIGINT);
  printf ("handler %s\n", got ? "ran" : "did not run");
  return !got;
}

__attribute__ ((noinline)) static void
record (int i)
{
  cce_log ((unsigned) i % 7);
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "vfork") == 0)
    return vfork_case ();
  if (argc > 3 && strcmp (argv[1], "log") == 0)
    {
      int n = atoi (argv[2]);
      char path[4096];
      for (int i = 0; i < n; i++)
        record (i);
      snprintf (path, sizeof path, "%s/ready.%ld", argv[3], (long) getpid ());
      FILE *f = fopen (path, "w");
      if (!f)
        return 3;
      fclose (f);
      snprintf (path, sizeof path, "%s/go", argv[3]);
      for (int t = 0; access (path, F_OK) != 0; t++)
        {
          if (t > 60000)
            return 4;
          usleep (1000);
        }
      return 0;
    }
  fprintf (stderr, "usage: procs vfork | procs log N DIR\n");
  return 2;
}
