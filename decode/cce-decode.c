/* cce-decode -- print the calling contexts of a cce event log.
   A thin command line over libccedecode (decode.h).  */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif
#ifndef PACKAGE_BUGREPORT
#define PACKAGE_BUGREPORT ""
#endif

#define PROG "cce-decode"

/* Exit status.  */
#define EXIT_OK 0
#define EXIT_USAGE 1        /* misuse, or the output cannot be written */
#define EXIT_BADINPUT 2     /* PROGRAM or LOG cannot be used */

static void usage_error (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2), noreturn));

static void
usage_error (const char *fmt, ...)
{
  va_list ap;
  fputs (PROG ": ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputs ("\nTry '" PROG " --help' for more information.\n", stderr);
  exit (EXIT_USAGE);
}

static void
help (void)
{
  fputs ("\
Usage: " PROG " [OPTION...] PROGRAM [LOG]\n\
Print the calling contexts recorded in LOG, an event log written by\n\
PROGRAM (a program built with cce).  With no LOG, or when LOG is -,\n\
read standard input.\n\
\n\
 Input:\n\
  PROGRAM                    the program that wrote LOG; its dictionary\n\
                             (section cce_dict) decodes the contexts\n\
  LOG                        the log file (CCE_LOG or cce-PID.log)\n\
\n\
 Output format:\n\
  -f, --format=FORMAT        FORMAT is one of:\n\
                               text     a backtrace per record, innermost\n\
                                        frame first (default)\n\
                               records  THREAD<TAB>TAG<TAB>PATH per record\n\
                               folded   PATH COUNT per distinct path\n\
                                        (input of flamegraph.pl)\n\
                             PATH lists the functions root first, joined\n\
                             by ';'\n\
  -o, --output=FILE          write to FILE instead of standard output\n\
  -t, --thread-origin        start a thread's path where it was created:\n\
                             the creating thread's context, the frame\n\
                             [thread], then the start routine (default:\n\
                             start at the start routine)\n\
  -m, --module=LIB           LIB is a shared library built with cce that\n\
                             PROGRAM used; needed only when LIB is not where\n\
                             the process loaded it from (the log lists the\n\
                             libraries loaded when it was opened, and those\n\
                             built with cce are read from there)\n\
\n\
  -h, --help                 give this help list\n\
  -V, --version              print program version\n\
\n\
Exit status: 0 on success (incomplete contexts are not errors), 1 on\n\
misuse or if the output cannot be written, 2 if PROGRAM or LOG cannot be\n\
used (the records read before a truncation are still printed).\n",
         stdout);
  if (PACKAGE_BUGREPORT[0])
    printf ("\nReport bugs to <%s>.\n", PACKAGE_BUGREPORT);
}

/* Print "cce-decode: FILE: MESSAGE".  */
static void
error_line (const char *file, const char *msg)
{
  fflush (stdout);
  fprintf (stderr, PROG ": %s: %s\n", file, msg);
}

/* Close the output; returns 0, or the errno of a failure.  */
static int
close_output (FILE *f)
{
  int bad = ferror (f);
  errno = 0;
  if (fclose (f) != 0 || bad)
    return errno ? errno : EIO;
  return 0;
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "format", required_argument, NULL, 'f' },
    { "output", required_argument, NULL, 'o' },
    { "thread-origin", no_argument, NULL, 't' },
    { "module", required_argument, NULL, 'm' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 }
  };
  enum cced_format fmt = CCED_FORMAT_TEXT;
  const char *output = NULL;
  const char *progname, *logname;
  struct cced_program *prog;
  struct cced_log *log;
  struct cced_output *out;
  struct cced_error err, logerr;
  struct cced_record rec;
  FILE *of;
  int c, r, status = EXIT_OK, werr = 0, thread_origin = 0;
  const char **modules = NULL;
  size_t nmodules = 0;

  opterr = 0;
  while ((c = getopt_long (argc, argv, ":f:o:m:thV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        if (cced_format_parse (optarg, &fmt) < 0)
          {
            fprintf (stderr,
                     PROG ": unknown format '%s' (expected text, records "
                     "or folded)\n", optarg);
            return EXIT_USAGE;
          }
        break;
      case 'o':
        output = optarg;
        break;
      case 't':
        thread_origin = 1;
        break;
      case 'm':
        {
          const char **m = realloc (modules, (nmodules + 1) * sizeof *m);
          if (!m)
            {
              fprintf (stderr, PROG ": %s\n", strerror (ENOMEM));
              return EXIT_USAGE;
            }
          modules = m;
          modules[nmodules++] = optarg;
        }
        break;
      case 'h':
        help ();
        return fflush (stdout) == 0 && !ferror (stdout) ? EXIT_OK
                                                        : EXIT_USAGE;
      case 'V':
        printf (PROG " (cce) %s\n", PACKAGE_VERSION);
        return fflush (stdout) == 0 && !ferror (stdout) ? EXIT_OK
                                                        : EXIT_USAGE;
      case ':':
        if (optopt && argv[optind - 1][1] != '-')
          usage_error ("option requires an argument -- '%c'", optopt);
        usage_error ("option '%s' requires an argument", argv[optind - 1]);
      default:
        if (optopt)
          usage_error ("invalid option -- '%c'", optopt);
        usage_error ("unrecognized option '%s'", argv[optind - 1]);
      }

  if (optind >= argc)
    usage_error ("missing PROGRAM operand");
  if (argc - optind > 2)
    usage_error ("extra operand '%s'", argv[optind + 2]);
  progname = argv[optind];
  logname = optind + 1 < argc ? argv[optind + 1] : "-";

  prog = cced_program_open (progname, &err);
  if (!prog)
    {
      error_line (progname, err.msg);
      return err.code == CCED_E_NOMEM ? EXIT_USAGE : EXIT_BADINPUT;
    }

  if (strcmp (logname, "-") == 0)
    {
      logname = "<stdin>";
      log = cced_log_fopen (stdin, logname, prog, &err);
    }
  else
    log = cced_log_open (logname, prog, &err);
  if (!log)
    {
      error_line (logname, err.msg);
      cced_program_close (prog);
      return err.code == CCED_E_NOMEM ? EXIT_USAGE : EXIT_BADINPUT;
    }

  /* The shared libraries built with cce: those named with --module must
     be usable; of those the process had loaded (the log's module table),
     the ones built with cce are added, the others skipped.  */
  for (size_t i = 0; i < nmodules; i++)
    if (cced_program_add_module (prog, modules[i], &err) < 0)
      {
        error_line (modules[i], err.msg);
        cced_log_close (log);
        cced_program_close (prog);
        free (modules);
        return err.code == CCED_E_NOMEM ? EXIT_USAGE : EXIT_BADINPUT;
      }
  free (modules);
  for (size_t i = 0; i < cced_log_nmodules (log); i++)
    if (cced_program_add_module (prog, cced_log_module (log, i), &err) < 0
        && (err.code == CCED_E_BAD_DICT || err.code == CCED_E_NOMEM))
      {
        error_line (cced_log_module (log, i), err.msg);
        cced_log_close (log);
        cced_program_close (prog);
        return err.code == CCED_E_NOMEM ? EXIT_USAGE : EXIT_BADINPUT;
      }

  /* Open the output only once the input is known to be good.  */
  of = stdout;
  if (output && strcmp (output, "-") != 0)
    {
      of = fopen (output, "w");
      if (!of)
        {
          error_line (output, strerror (errno));
          cced_log_close (log);
          cced_program_close (prog);
          return EXIT_USAGE;
        }
    }
  else
    output = "<stdout>";

  out = cced_output_new (prog, fmt, of, &err);
  if (out)
    cced_output_set_thread_origin (out, thread_origin);
  if (!out)
    {
      error_line (output, err.msg);
      if (of != stdout)
        fclose (of);
      cced_log_close (log);
      cced_program_close (prog);
      return EXIT_USAGE;
    }

  logerr.code = CCED_OK;
  while ((r = cced_log_next (log, &rec, &logerr)) > 0)
    if (cced_output_record (out, &rec, &err) < 0)
      break;
  if (r > 0)
    {
      /* The output failed.  */
      werr = err.code == CCED_E_WRITE ? err.errnum : 0;
      if (err.code != CCED_E_WRITE)
        {
          error_line (output, err.msg);
          status = EXIT_USAGE;
        }
    }
  else
    {
      /* What was decoded is printed before the log's error.  */
      if (cced_output_finish (out, &err) < 0)
        {
          if (err.code == CCED_E_WRITE)
            werr = err.errnum;
          else
            {
              error_line (output, err.msg);
              status = EXIT_USAGE;
            }
        }
    }
  cced_output_free (out);

  if (of != stdout)
    {
      int e = close_output (of);
      if (e && !werr)
        werr = e;
    }
  else if (fflush (stdout) != 0 || ferror (stdout))
    {
      if (!werr)
        werr = errno ? errno : EIO;
    }
  if (werr)
    {
      /* A closed pipe is the reader's choice, not an error to report.  */
      if (werr != EPIPE)
        {
          char msg[256];
          snprintf (msg, sizeof msg, "write error: %s", strerror (werr));
          error_line (output, msg);
        }
      status = EXIT_USAGE;
    }

  if (r < 0 && !werr)
    {
      error_line (logname, logerr.msg);
      if (status == EXIT_OK)
        status = logerr.code == CCED_E_NOMEM ? EXIT_USAGE : EXIT_BADINPUT;
    }
  else if (r < 0 && status == EXIT_OK)
    status = EXIT_BADINPUT;

  cced_log_close (log);
  cced_program_close (prog);
  /* stdout is closed by exit; its errors were checked above.  */
  return status;
}
