/* cce-decode -- print the calling contexts of a cce event log.
   A thin command line over libccedecode (decode.h).  */

#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
                             (section cce_dict) decodes the contexts, and\n\
                             its PC map (section cce_pcmap) places the\n\
                             instructions of crash and sample records\n\
  LOG                        the log file (CCE_LOG or cce-PID.log)\n\
\n\
 Output format:\n\
  -f, --format=FORMAT        FORMAT is one of:\n\
                               text     a backtrace per record, innermost\n\
                                        frame first (default)\n\
                               records  THREAD<TAB>TAG<TAB>PATH per record\n\
                                        (then <TAB>count=N for an entry\n\
                                        of N events of a table, and\n\
                                        <TAB>value=V for cce_count's)\n\
                               folded   PATH COUNT per distinct path\n\
                                        (input of flamegraph.pl)\n\
                               pprof    a gzip-compressed profile.proto\n\
                                        (pprof -http=: FILE): a sample per\n\
                                        thread, tag and path\n\
                               speedscope  a speedscope JSON file: a\n\
                                        profile per thread\n\
                             PATH lists the functions root first, joined\n\
                             by ';'; the frame [signal] joins a signal\n\
                             handler (right) to what it interrupted (left)\n\
                             A thread that died of a signal has a record\n\
                             whose TAG is the signal's name (SIGSEGV...), a\n\
                             CPU-time sample one whose TAG is 'sample':\n\
                             its path ends at the interrupted instruction\n\
  -o, --output=FILE          write to FILE instead of standard output\n\
  -d, --depth=K              keep the innermost K frames of each path (1: a\n\
                             flat profile, 2: caller-callee pairs); inlined\n\
                             frames count, [signal] and [thread] do not,\n\
                             and a path cut to K exact frames is complete\n\
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
Exit status: 0 on success (incomplete contexts are not errors, nor the\n\
torn records of a process that died while logging, which are skipped\n\
with a warning, nor counts of a table that became a Space-Saving\n\
summary, whose bound is printed on standard error), 1 on misuse or if the output cannot be written, 2 if\n\
PROGRAM or LOG cannot be used (the records read before a truncation or\n\
damage are still printed).\n",
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

/* Say on one line what the reader of LOG (named NAME) skipped of what a
   process that died while logging leaves behind: torn records, and
   chunks that start with 0 but are not empty (a span header it did not
   finish).  Nothing if it skipped none.  */
static void
skipped_line (const struct cced_log *log, const char *name)
{
  struct cced_log_stats st;
  char msg[256];
  int n = 0;

  cced_log_stats (log, &st);
  if (!st.torn && !st.skipped_chunks)
    return;
  if (st.torn)
    n += snprintf (msg + n, sizeof msg - n, "%" PRIu64 " torn record%s",
                   st.torn, st.torn == 1 ? "" : "s");
  if (st.skipped_chunks)
    n += snprintf (msg + n, sizeof msg - n,
                   "%s%" PRIu64 " unfinished span header%s",
                   st.torn ? " and " : "", st.skipped_chunks,
                   st.skipped_chunks == 1 ? "" : "s");
  snprintf (msg + n, sizeof msg - n,
            " skipped (the process died while writing %s)",
            st.torn + st.skipped_chunks == 1 ? "it" : "them");
  error_line (name, msg);
}

/* Say on one line, when a table of LOG (named NAME) became a
   Space-Saving summary, how far its counts may be over.  */
static void
summary_line (const struct cced_log *log, const char *name)
{
  struct cced_log_stats st;
  char msg[256];

  cced_log_stats (log, &st);
  if (!st.max_error)
    return;
  snprintf (msg, sizeof msg, "space-saving: %" PRIu32 " counters per"
            " thread, counts may be over by at most %" PRIu64,
            st.counters, st.max_error);
  error_line (name, msg);
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

/* What the command line asks for.  */
struct args
{
  enum cced_format fmt;
  const char *output;           /* NULL or "-": standard output */
  size_t depth;                 /* frames kept; 0: all */
  int thread_origin;
  const char **modules;         /* --module, in order */
  size_t nmodules;
  const char *progname, *logname;
};

/* Parse the command line into A.  Returns -1 to go on, or the exit
   status to end with (after --help, --version or an error).  */
static int
parse_args (int argc, char **argv, struct args *a)
{
  static const struct option longopts[] = {
    { "format", required_argument, NULL, 'f' },
    { "output", required_argument, NULL, 'o' },
    { "depth", required_argument, NULL, 'd' },
    { "thread-origin", no_argument, NULL, 't' },
    { "module", required_argument, NULL, 'm' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, 'V' },
    { NULL, 0, NULL, 0 }
  };
  int c;

  memset (a, 0, sizeof *a);
  a->fmt = CCED_FORMAT_TEXT;
  opterr = 0;
  while ((c = getopt_long (argc, argv, ":f:o:d:m:thV", longopts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        if (cced_format_parse (optarg, &a->fmt) < 0)
          {
            fprintf (stderr,
                     PROG ": unknown format '%s' (expected text, records, "
                     "folded, pprof or speedscope)\n", optarg);
            return EXIT_USAGE;
          }
        break;
      case 'd':
        {
          char *end;
          unsigned long long k;
          errno = 0;
          k = strtoull (optarg, &end, 10);
          if (optarg[0] < '0' || optarg[0] > '9' || *end || errno
              || k == 0 || k > SIZE_MAX)
            {
              fprintf (stderr,
                       PROG ": invalid depth '%s' (expected a positive "
                       "number of frames)\n", optarg);
              return EXIT_USAGE;
            }
          a->depth = (size_t) k;
        }
        break;
      case 'o':
        a->output = optarg;
        break;
      case 't':
        a->thread_origin = 1;
        break;
      case 'm':
        {
          const char **m = realloc (a->modules,
                                    (a->nmodules + 1) * sizeof *m);
          if (!m)
            {
              fprintf (stderr, PROG ": %s\n", strerror (ENOMEM));
              return EXIT_USAGE;
            }
          a->modules = m;
          a->modules[a->nmodules++] = optarg;
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
  a->progname = argv[optind];
  a->logname = optind + 1 < argc ? argv[optind + 1] : "-";
  return -1;
}

/* The exit status for a failure to use input, by ERR.  */
static int
input_status (const struct cced_error *err)
{
  return err->code == CCED_E_NOMEM ? EXIT_USAGE : EXIT_BADINPUT;
}

/* Open the program, the log and the shared libraries built with cce of
   A into *PROG and *LOG.  Returns -1 to go on, or the exit status to end
   with (nothing left open).  */
static int
open_inputs (struct args *a, struct cced_program **prog,
             struct cced_log **log)
{
  struct cced_error err;

  *prog = cced_program_open (a->progname, &err);
  if (!*prog)
    {
      error_line (a->progname, err.msg);
      return input_status (&err);
    }

  if (strcmp (a->logname, "-") == 0)
    {
      a->logname = "<stdin>";
      *log = cced_log_fopen (stdin, a->logname, *prog, &err);
    }
  else
    *log = cced_log_open (a->logname, *prog, &err);
  if (!*log)
    {
      error_line (a->logname, err.msg);
      cced_program_close (*prog);
      return input_status (&err);
    }

  /* The shared libraries built with cce: those named with --module must
     be usable; of those the process had loaded (the log's module table),
     the ones built with cce are added, the others skipped.  */
  for (size_t i = 0; i < a->nmodules; i++)
    if (cced_program_add_module (*prog, a->modules[i], &err) < 0)
      {
        error_line (a->modules[i], err.msg);
        cced_log_close (*log);
        cced_program_close (*prog);
        return input_status (&err);
      }
  for (size_t i = 0; i < cced_log_nmodules (*log); i++)
    if (cced_program_add_module (*prog, cced_log_module (*log, i), &err) < 0
        && (err.code == CCED_E_BAD_DICT || err.code == CCED_E_BAD_PCMAP
            || err.code == CCED_E_NOMEM))
      {
        error_line (cced_log_module (*log, i), err.msg);
        cced_log_close (*log);
        cced_program_close (*prog);
        return input_status (&err);
      }
  return -1;
}

/* Decode every record of LOG to OUT, writing to OUTPUT (its name).
   Returns what cced_log_next last returned (< 0: LOG's error, in
   *LOGERR; > 0: the output failed); sets *WERR to the errno of a write
   error and *STATUS to EXIT_USAGE on another failure of the output.  */
static int
decode_records (struct cced_log *log, struct cced_output *out,
                const char *output, struct cced_error *logerr, int *werr,
                int *status)
{
  struct cced_error err;
  struct cced_record rec;
  int r;

  logerr->code = CCED_OK;
  while ((r = cced_log_next (log, &rec, logerr)) > 0)
    if (cced_output_record (out, &rec, &err) < 0)
      break;
  if (r > 0)
    {
      /* The output failed.  */
      *werr = err.code == CCED_E_WRITE ? err.errnum : 0;
      if (err.code != CCED_E_WRITE)
        {
          error_line (output, err.msg);
          *status = EXIT_USAGE;
        }
    }
  else
    {
      /* What was decoded is printed before the log's error.  */
      if (cced_output_finish (out, &err) < 0)
        {
          if (err.code == CCED_E_WRITE)
            *werr = err.errnum;
          else
            {
              error_line (output, err.msg);
              *status = EXIT_USAGE;
            }
        }
    }
  return r;
}

/* Close OF (standard output is only flushed); returns WERR, or the
   errno of a failure if WERR is 0.  */
static int
close_stream (FILE *of, int werr)
{
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
  return werr;
}

int
main (int argc, char **argv)
{
  struct args a;
  struct cced_program *prog;
  struct cced_log *log;
  struct cced_output *out;
  struct cced_error err, logerr;
  const char *output;
  FILE *of;
  int r, status = EXIT_OK, werr = 0;

  r = parse_args (argc, argv, &a);
  if (r < 0)
    r = open_inputs (&a, &prog, &log);
  free (a.modules);
  if (r >= 0)
    return r;

  /* Open the output only once the input is known to be good.  */
  of = stdout;
  output = a.output;
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

  out = cced_output_new (prog, a.fmt, of, &err);
  if (!out)
    {
      error_line (output, err.msg);
      if (of != stdout)
        fclose (of);
      cced_log_close (log);
      cced_program_close (prog);
      return EXIT_USAGE;
    }
  cced_output_set_thread_origin (out, a.thread_origin);
  cced_output_set_depth (out, a.depth);

  r = decode_records (log, out, output, &logerr, &werr, &status);
  cced_output_free (out);

  werr = close_stream (of, werr);
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
      error_line (a.logname, logerr.msg);
      if (status == EXIT_OK)
        status = input_status (&logerr);
    }
  else if (r < 0 && status == EXIT_OK)
    status = EXIT_BADINPUT;
  else if (r == 0 && !werr)
    skipped_line (log, a.logname);
  if (!werr)
    summary_line (log, a.logname);

  cced_log_close (log);
  cced_program_close (prog);
  /* stdout is closed by exit; its errors were checked above.  */
  return status;
}
