/* test-log.c -- cmocka unit tests of the libcce runtime (rt/runtime.c):
   the ccStack, the log records, and when and where the log gets written.

   The runtime writes its log when a process exits, so every test forks a
   child that does the logging and ends in exit (); the parent then reads
   the child's log with the small reader below, which knows the format only
   from cce-format.h.  The parent itself never logs: a log of the test
   process would be left in the current directory.

   A forked child logs to "$CCE_LOG.PID" (or to cce-PID.log without
   CCE_LOG): see cce(3).  The tests rely on that naming.

   The ccStack frames the tests push follow a pattern (frame I is
   (I * 3 + 1, I * 7 + 2)) and the id (__cce_tls[CCE_TLS_ID]) is kept at
   ID_BASE + depth, so the reader can check every frame and id of every
   record.  What a child finds out about the ccStack itself (where it is,
   how much address space it takes) it leaves in a shared mapping for the
   parent to check.  */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>
#include <cmocka.h>

#define CCE_RUNTIME             /* the ABI declarations of cce-abi.h */
#include "cce-abi.h"
#include "cce-format.h"
#include "cce.h"

/* A dictionary, so that the log header carries its stamp.  */
const char __cce_dict[] = "cce-dict 1 00000000deadbeef\ns x\n";
#define DICT_STAMP UINT64_C (0x00000000deadbeef)

#define ID_BASE UINT64_C (5000000)
#define SITE_OF(TAG) (UINT64_C (1000) + (TAG))

/* ------------------------------------------------------------------ */
/* Instrumented-code stand-ins.                                       */

static __thread unsigned depth;

/* Set the calling thread's context to ID_BASE + depth, as the tests keep
   it.  */
static void
context_start (void)
{
  __cce_tls[CCE_TLS_ID] = ID_BASE + depth;
}

/* A ccStack call: push the pattern frame for the current depth.  */
static void
push (void)
{
  unsigned d = depth++;
  __cce_push_v6 (d * UINT64_C (3) + 1, d * UINT64_C (7) + 2, ID_BASE + d + 1);
}

/* Return from a ccStack call.  */
static void
pop (void)
{
  unsigned d = --depth;
  __cce_pop_v6 (ID_BASE + d);
}

/* cce_log (TAG) at an instrumented site whose number derives from TAG.  */
static void
log_at (unsigned tag)
{
  __cce_log_at_v6 (tag, SITE_OF (tag));
}

/* ------------------------------------------------------------------ */
/* Reading a log.                                                     */

struct rec
{
  struct cce_log_record r;
  const struct cce_log_frame *frames;
  uint32_t level;             /* of its span; 0 without chunks */
};

struct log
{
  char *data;
  size_t size;
  struct cce_log_header h;
  struct rec *recs;           /* in the order of the file */
  size_t n, cap;
  size_t spans, unused;       /* spans, chunks of 0 */
};

/* Note the record at OFF (its mark already checked), which must end by
   END; returns its end.  */
static size_t
log_record (struct log *l, size_t off, size_t end, uint32_t level)
{
  if (l->n == l->cap)
    {
      l->cap = l->cap ? l->cap * 2 : 1024;
      l->recs = realloc (l->recs, l->cap * sizeof *l->recs);
      assert_non_null (l->recs);
    }
  struct rec *x = &l->recs[l->n++];
  assert_true (end - off >= sizeof x->r);
  memcpy (&x->r, l->data + off, sizeof x->r);
  assert_int_equal (x->r.mark, CCE_LOG_RECORD_MARK);
  off += sizeof x->r;
  size_t fbytes = (size_t) x->r.nstack * sizeof *x->frames;
  if (end - off < fbytes)
    fail_msg ("record %zu: truncated ccStack", l->n - 1);
  x->frames = (const struct cce_log_frame *) (l->data + off);
  x->level = level;
  assert_true (x->r.thread >= 1);
  return off + fbytes;
}

/* Read and parse the log file PATH into L; fail the test if it is not
   a well-formed log of a process that ended normally: no torn record.  */
static void
log_read (const char *path, struct log *l)
{
  memset (l, 0, sizeof *l);
  FILE *f = fopen (path, "rb");
  if (!f)
    fail_msg ("cannot open %s: %s", path, strerror (errno));
  struct stat st;
  assert_int_equal (fstat (fileno (f), &st), 0);
  l->size = (size_t) st.st_size;
  l->data = malloc (l->size + 1);
  assert_non_null (l->data);
  assert_int_equal (fread (l->data, 1, l->size, f), l->size);
  fclose (f);

  assert_true (l->size >= sizeof l->h);
  memcpy (&l->h, l->data, sizeof l->h);
  assert_memory_equal (l->h.magic, CCE_LOG_MAGIC, sizeof l->h.magic);
  assert_int_equal (l->h.version, CCE_LOG_VERSION);
  /* The module table: the shared objects loaded (libcce among them), each
     an absolute path.  Then NULs up to the header's size, a multiple of
     the chunk size.  */
  uint32_t chunk = l->h.chunk_size;
  assert_true (l->h.header_size >= sizeof l->h);
  assert_true (l->h.header_size <= l->size);
  if (chunk)
    {
      assert_true (chunk >= 4096 && (chunk & (chunk - 1)) == 0);
      assert_int_equal (l->h.header_size % chunk, 0);
      assert_int_equal (l->size % chunk, 0);
    }
  size_t off = sizeof l->h;
  int saw_libcce = 0;
  for (uint32_t i = 0; i < l->h.nmodules; i++)
    {
      struct cce_log_module m;
      assert_true (l->h.header_size - off >= sizeof m);
      memcpy (&m, l->data + off, sizeof m);
      off += sizeof m;
      assert_true (m.pathlen > 0);
      assert_true (l->h.header_size - off >= ((m.pathlen + 7u) & ~7u));
      assert_int_equal (l->data[off], '/');
      if (memmem (l->data + off, m.pathlen, "libcce", 6))
        saw_libcce = 1;
      off += (m.pathlen + 7u) & ~7u;
    }
  assert_true (saw_libcce);
  if (!chunk)
    assert_int_equal (off, l->h.header_size);
  for (; off < l->h.header_size; off++)
    assert_int_equal (l->data[off], 0);

  if (!chunk)
    {
      /* Records back to back.  */
      while (off < l->size)
        off = log_record (l, off, l->size, 0);
      return;
    }
  /* Spans, and chunks of 0.  */
  while (off < l->size)
    {
      struct cce_log_span s;
      memcpy (&s, l->data + off, sizeof s);
      if (s.mark == 0)
        {
          for (size_t i = 0; i < chunk; i++)
            assert_int_equal (l->data[off + i], 0);
          l->unused++;
          off += chunk;
          continue;
        }
      assert_int_equal (s.mark, CCE_LOG_SPAN_MARK);
      assert_true (s.thread >= 1 && s.chunks >= 1);
      assert_true ((l->size - off) / chunk >= s.chunks);
      size_t end = off + (size_t) s.chunks * chunk;
      size_t p = off + sizeof s;
      l->spans++;
      while (p < end)
        {
          uint32_t mark;
          memcpy (&mark, l->data + p, sizeof mark);
          if (mark == 0)
            {
              /* The end of the span's records: no torn one.  */
              for (; p < end; p++)
                if (l->data[p])
                  fail_msg ("torn record in the span at offset %zu", off);
              break;
            }
          size_t first = l->n;
          p = log_record (l, p, end, s.level);
          assert_int_equal (l->recs[first].r.thread, s.thread);
        }
      off = end;
    }
}

/* Free what log_read allocated in L.  */
static void
log_free (struct log *l)
{
  free (l->data);
  free (l->recs);
}

/* Fail unless record X has the context the stand-ins give: id
   ID_BASE + (its own ccStack entries) and pattern frames.  A thread made
   by pthread_create starts with its creator's ccStack and a
   CCE_SITE_THREAD entry (thread.c); its own entries are those above.  */
static void
check_context (const struct rec *x)
{
  uint32_t own = 0;
  for (uint32_t i = 0; i < x->r.nstack; i++)
    {
      struct cce_log_frame fr;
      memcpy (&fr, &x->frames[i], sizeof fr);
      if (fr.site == CCE_SITE_THREAD)
        own = i + 1;
    }
  if (x->r.id != ID_BASE + (x->r.nstack - own))
    fail_msg ("tag %u: id %llu with %u frames", x->r.tag,
              (unsigned long long) x->r.id, x->r.nstack - own);
  for (uint32_t i = own; i < x->r.nstack; i++)
    {
      /* Frames are unaligned in the buffer: copy.  */
      struct cce_log_frame fr;
      memcpy (&fr, &x->frames[i], sizeof fr);
      if (fr.id != (i - own) * UINT64_C (3) + 1
          || fr.site != (i - own) * UINT64_C (7) + 2)
        fail_msg ("tag %u: frame %u is (%llu, %llu)", x->r.tag, i,
                  (unsigned long long) fr.id, (unsigned long long) fr.site);
    }
}

/* ------------------------------------------------------------------ */
/* Children.                                                          */

static char tmpdir[64];
static char log_env[128];     /* CCE_LOG given to children */
static int in_child;          /* set in a child: destructors may log */

/* Per test: a fresh directory for the children's logs.  */
static int
setup_dir (void **state)
{
  (void) state;
  strcpy (tmpdir, "/tmp/cce-test-log.XXXXXX");
  if (!mkdtemp (tmpdir))
    return -1;
  snprintf (log_env, sizeof log_env, "%s/log", tmpdir);
  return 0;
}

/* Per test: remove the directory and what the children left in it.  */
static int
teardown_dir (void **state)
{
  (void) state;
  DIR *d = opendir (tmpdir);
  if (d)
    {
      struct dirent *e;
      char path[512];
      while ((e = readdir (d)))
        if (e->d_name[0] != '.')
          {
            snprintf (path, sizeof path, "%s/%s", tmpdir, e->d_name);
            unlink (path);
          }
      closedir (d);
    }
  rmdir (tmpdir);
  return 0;
}

/* Run SCENARIO in a child whose CCE_LOG is ENV (unset if NULL), whose
   working directory is the test directory and whose standard error goes to
   the file "stderr" there; it ends in exit (0).  Return its pid once it
   ended, its wait status in *STATUS.  */
static pid_t
run_child_status (void (*scenario) (void), const char *env, int *status)
{
  fflush (stdout);
  fflush (stderr);
  pid_t pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      char path[512];
      snprintf (path, sizeof path, "%s/stderr", tmpdir);
      int fd = open (path, O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd < 0 || dup2 (fd, 2) < 0 || chdir (tmpdir) != 0)
        _exit (99);
      close (fd);
      if (env)
        setenv ("CCE_LOG", env, 1);
      else
        unsetenv ("CCE_LOG");
      in_child = 1;
      context_start ();
      scenario ();
      exit (0);
    }
  assert_int_equal (waitpid (pid, status, 0), pid);
  return pid;
}

/* run_child_status (SCENARIO, ENV), which must exit with status 0.  */
static pid_t
run_child (void (*scenario) (void), const char *env)
{
  int status;
  pid_t pid = run_child_status (scenario, env, &status);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  return pid;
}

/* The log of child PID that was given CCE_LOG: "$CCE_LOG.PID".  */
static char *
child_log (pid_t pid)
{
  static char path[256];
  snprintf (path, sizeof path, "%s.%d", log_env, (int) pid);
  return path;
}

/* Whether PATH exists.  */
static int
exists (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0;
}

/* Number of entries of the test directory besides "." and "..", and
   "stderr" if it is empty.  */
static int
dir_entries (void)
{
  int n = 0;
  DIR *d = opendir (tmpdir);
  assert_non_null (d);
  struct dirent *e;
  while ((e = readdir (d)))
    {
      if (!strcmp (e->d_name, ".") || !strcmp (e->d_name, ".."))
        continue;
      if (!strcmp (e->d_name, "stderr"))
        {
          char path[512];
          snprintf (path, sizeof path, "%s/stderr", tmpdir);
          struct stat st;
          if (stat (path, &st) == 0 && st.st_size == 0)
            continue;
        }
      n++;
    }
  closedir (d);
  return n;
}

/* ------------------------------------------------------------------ */
/* Scenario: many records, exit from deep down, then atexit and
   destructor records.                                                */

#define MANY 100000           /* records: several buffers full */
#define EXIT_DEPTH 50
#define AT_EXIT_RECORDS 10
#define DTOR_RECORDS 10

static unsigned next_tag;
static int dtor_logs;

static void
at_exit_logs (void)
{
  for (int i = 0; i < AT_EXIT_RECORDS; i++)
    log_at (next_tag++);
}

/* A destructor of the program: runs after main's exit, before the
   runtime's final flush.  Logs through plain cce_log (no site).  */
static void __attribute__ ((destructor))
destructor_logs (void)
{
  if (in_child && dtor_logs)
    for (int i = 0; i < DTOR_RECORDS; i++)
      cce_log (next_tag++);
}

/* exit, called through a pointer GCC cannot see through (so that it
   does not call exit_deep_down an infinite recursion).  */
static void (*volatile exit_fn) (int) = exit;

static void
exit_deep_down (int n)
{
  if (n == 0)
    {
      exit_fn (0);
      return;
    }
  push ();
  exit_deep_down (n - 1);
  pop ();
}

static void
scenario_many_then_exit (void)
{
  atexit (at_exit_logs);
  dtor_logs = 1;
  for (unsigned i = 0; i < MANY; i++)
    {
      unsigned k = i % 17;
      for (unsigned j = 0; j < k; j++)
        push ();
      log_at (next_tag++);
      for (unsigned j = 0; j < k; j++)
        pop ();
    }
  exit_deep_down (EXIT_DEPTH);
}

static void
test_exit_writes_every_record_in_order_including_atexit_and_destructors
  (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_many_then_exit, log_env);
  struct log l;
  log_read (child_log (pid), &l);
  assert_int_equal (l.h.pid, (uint64_t) pid);
  assert_int_equal (l.n, MANY + AT_EXIT_RECORDS + DTOR_RECORDS);
  for (size_t i = 0; i < l.n; i++)
    {
      const struct rec *x = &l.recs[i];
      assert_int_equal (x->r.thread, 1);
      assert_int_equal (x->r.tag, i);
      check_context (x);
      if (i < MANY)
        {
          assert_int_equal (x->r.site, SITE_OF (i));
          assert_int_equal (x->r.nstack, i % 17);
        }
      else if (i < MANY + AT_EXIT_RECORDS)
        {
          /* atexit handlers run inside exit (): its ccStack is there.  */
          assert_int_equal (x->r.site, SITE_OF (i));
          assert_int_equal (x->r.nstack, EXIT_DEPTH);
        }
      else
        assert_int_equal (x->r.site, CCE_SITE_NONE);
    }
  log_free (&l);
}

/* ------------------------------------------------------------------ */
/* Scenario: a 200000-deep ccStack.                                   */

#define DEEP 200000

static void
scenario_deep_stack (void)
{
  log_at (0);
  for (int i = 0; i < DEEP; i++)
    push ();
  log_at (1);
  for (int i = 0; i < DEEP; i++)
    pop ();
  log_at (2);
}

static void
test_ccstack_200000_deep_is_recorded_whole_and_pops_back_to_empty
  (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_deep_stack, log_env);
  struct log l;
  log_read (child_log (pid), &l);
  assert_int_equal (l.n, 3);
  assert_int_equal (l.recs[0].r.nstack, 0);
  assert_int_equal (l.recs[1].r.nstack, DEEP);
  assert_int_equal (l.recs[2].r.nstack, 0);
  for (int i = 0; i < 3; i++)
    {
      assert_int_equal (l.recs[i].r.tag, i);
      check_context (&l.recs[i]);
    }
  log_free (&l);
}

/* ------------------------------------------------------------------ */
/* Scenarios: where the ccStack is as it grows.                       */

/* What a child found out, in memory it shares with the parent.  */
struct findings
{
  int ok;                      /* the scenario got to its end */
  uint64_t limit0, base0;      /* LIMIT and BASE before the first push */
  uint64_t base;               /* BASE after the first push */
  unsigned long moves;         /* times BASE changed while pushing */
  unsigned long bad_room;      /* pushes whose entry ends past LIMIT */
  unsigned long bad_top;       /* pushes after which TOP is not BASE + n */
  unsigned long long vm_before, vm_after;   /* VmSize, KiB */
};

static struct findings *found;

/* Per test: a fresh directory and fresh findings.  */
static int
setup_findings (void **state)
{
  if (!found)
    {
      void *p = mmap (NULL, sizeof *found, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED)
        return -1;
      found = p;
    }
  memset (found, 0, sizeof *found);
  return setup_dir (state);
}

/* The entries in use, from TOP and BASE (cce-abi.h).  */
static uint64_t
entries_in_use (void)
{
  return cce_tls_depth (__cce_tls[CCE_TLS_TOP], __cce_tls[CCE_TLS_BASE]);
}

/* Push N frames, noting in FOUND whether the ccStack moves and whether
   the entries in use stay within the room (below LIMIT).  */
static void
push_watching (unsigned n)
{
  found->limit0 = __cce_tls[CCE_TLS_LIMIT];
  found->base0 = __cce_tls[CCE_TLS_BASE];
  uint64_t base = 0, before = entries_in_use ();
  for (unsigned i = 0; i < n; i++)
    {
      push ();
      if (i == 0)
        found->base = base = __cce_tls[CCE_TLS_BASE];
      else if (__cce_tls[CCE_TLS_BASE] != base)
        {
          found->moves++;
          base = __cce_tls[CCE_TLS_BASE];
        }
      if (__cce_tls[CCE_TLS_TOP] > __cce_tls[CCE_TLS_LIMIT])
        found->bad_room++;
      if (entries_in_use () != before + i + 1)
        found->bad_top++;
    }
}

/* Push N frames watching, log, pop them all, log.  */
static void
deep_and_back (unsigned n)
{
  log_at (0);
  push_watching (n);
  if (entries_in_use () != n)
    _exit (91);
  log_at (1);
  for (unsigned i = 0; i < n; i++)
    pop ();
  log_at (2);
  found->ok = 1;
}

/* Check the three records of deep_and_back (N): 0, N and 0 frames, and
   their contexts.  */
static void
check_deep_and_back (pid_t pid, unsigned n)
{
  assert_true (found->ok);
  assert_int_equal (found->bad_room, 0);
  assert_int_equal (found->bad_top, 0);
  struct log l;
  log_read (child_log (pid), &l);
  assert_int_equal (l.n, 3);
  assert_int_equal (l.recs[0].r.nstack, 0);
  assert_int_equal (l.recs[1].r.nstack, n);
  assert_int_equal (l.recs[2].r.nstack, 0);
  for (int i = 0; i < 3; i++)
    {
      assert_int_equal (l.recs[i].r.tag, i);
      check_context (&l.recs[i]);
    }
  log_free (&l);
}

static void
scenario_deep_stack_in_place (void)
{
  deep_and_back (DEEP);
}

static void
test_ccstack_entries_never_move_while_it_grows_to_200000 (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_deep_stack_in_place, log_env);
  /* The main thread's ccStack is there from load time (so that
     instrumented code never loads a TOP of 0), and stays where it is.  */
  assert_true (found->base0 != 0);
  assert_true (found->limit0 > found->base0);
  assert_int_equal (found->base, found->base0);
  assert_int_equal (found->moves, 0);
  check_deep_and_back (pid, DEEP);
}

#define HUGE (1U << 21)

static void
scenario_huge_stack (void)
{
  deep_and_back (HUGE);
}

static void
test_ccstack_of_2_to_the_21_entries_works (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_huge_stack, log_env);
  assert_int_equal (found->moves, 0);
  check_deep_and_back (pid, HUGE);
}

/* The VmSize of the calling process, in KiB.  */
static unsigned long long
vm_size (void)
{
  FILE *f = fopen ("/proc/self/status", "r");
  char line[256];
  unsigned long long kib = 0;
  if (!f)
    _exit (92);
  while (fgets (line, sizeof line, f))
    if (sscanf (line, "VmSize: %llu kB", &kib) == 1)
      break;
  fclose (f);
  return kib;
}

/* Set RLIMIT_AS to the current VmSize plus KIB KiB.  */
static void
limit_address_space (unsigned long long kib)
{
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = (vm_size () + kib) * 1024;
  if (setrlimit (RLIMIT_AS, &rl) != 0)
    _exit (93);
}

/* Run SCENARIO (ARG) on a new thread, with a stack of STACK bytes, after
   setting RLIMIT_AS to the VmSize plus STACK plus KIB KiB; with
   RLIMIT_CORE 0 (the abort is expected).  The thread's first push (of
   its creator's ccStack) makes its reservation under that limit.  */
static void
on_a_thread (void *(*scenario) (void *), const void *arg, size_t stack,
             unsigned long long kib)
{
  struct rlimit rl = { 0, 0 };
  setrlimit (RLIMIT_CORE, &rl);
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  pthread_attr_setstacksize (&attr, stack);
  limit_address_space (stack / 1024 + kib);
  pthread_t th;
  if (pthread_create (&th, &attr, scenario, (void *) arg) != 0)
    _exit (94);
  pthread_join (th, NULL);
}

/* The first line the child of the last run wrote to stderr.  */
static void
child_stderr (char *text, size_t size)
{
  char path[512];
  snprintf (path, sizeof path, "%s/stderr", tmpdir);
  FILE *f = fopen (path, "r");
  assert_non_null (f);
  size_t n = fread (text, 1, size - 1, f);
  fclose (f);
  text[n] = '\0';
}

/* A thread that logs and then pushes *ARG frames, watching.  */
static void *
thread_pushing (void *arg)
{
  log_at (0);
  push_watching (*(const unsigned *) arg);
  found->ok = 1;
  return NULL;
}

/* Run SCENARIO in a child, which must abort (SIGABRT) before its end;
   the first TEXTSIZE - 1 bytes of its stderr go to TEXT.  */
static void
run_to_abort (void (*scenario) (void), char *text, size_t textsize)
{
  int status;
  run_child_status (scenario, log_env, &status);
  assert_false (found->ok);
  assert_true (WIFSIGNALED (status));
  assert_int_equal (WTERMSIG (status), SIGABRT);
  child_stderr (text, textsize);
}

/* With RLIMIT_AS set, a new thread reserves a small part of it (cce(3)):
   entries never move, so a ccStack deeper than that says so and aborts.  */
static void
scenario_beyond_the_reservation (void)
{
  static const unsigned frames = HUGE;
  on_a_thread (thread_pushing, &frames, 1024 * 1024, 1024 * 1024);
}

static void
test_ccstack_deeper_than_its_reservation_says_so_and_aborts (void **state)
{
  (void) state;
  char text[1024];
  run_to_abort (scenario_beyond_the_reservation, text, sizeof text);
  assert_int_equal (found->moves, 0);
  assert_int_equal (found->bad_room, 0);
  assert_int_equal (found->bad_top, 0);
  const char *want = "cce: ccStack deeper than its reservation of ";
  assert_memory_equal (text, want, strlen (want));
  unsigned long entries = strtoul (text + strlen (want), NULL, 10);
  assert_true (entries >= 4096 && entries < HUGE);
  assert_string_equal (strchr (text + strlen (want), ' '), " entries\n");
}

/* Without the address space for a ccStack, the runtime says so and
   aborts.  */
static void
scenario_out_of_memory (void)
{
  static const unsigned frames = 1U << 24;
  on_a_thread (thread_pushing, &frames, 256 * 1024, 32);
}

static void
test_ccstack_out_of_memory_says_so_once_and_aborts (void **state)
{
  (void) state;
  char text[1024];
  run_to_abort (scenario_out_of_memory, text, sizeof text);
  assert_string_equal (text, "cce: out of memory for the ccStack\n");
}

/* Threads that use the ccStack (and do not log) give its address space
   back when they exit.  */
#define STACK_THREADS 64

static void *
thread_grows (void *arg)
{
  (void) arg;
  for (int i = 0; i < 10000; i++)
    push ();
  for (int i = 0; i < 10000; i++)
    pop ();
  return NULL;
}

static void
scenario_threads_unmap (void)
{
  pthread_t th;
  /* One thread first: what glibc keeps of an exited thread (its stack,
     cached for reuse) is in the first count.  */
  if (pthread_create (&th, NULL, thread_grows, NULL))
    _exit (98);
  pthread_join (th, NULL);
  found->vm_before = vm_size ();
  for (int i = 0; i < STACK_THREADS; i++)
    {
      if (pthread_create (&th, NULL, thread_grows, NULL))
        _exit (98);
      pthread_join (th, NULL);
    }
  found->vm_after = vm_size ();
  found->ok = 1;
}

static void
test_thread_exit_gives_the_ccstack_address_space_back (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_threads_unmap, log_env);
  assert_true (found->ok);
  /* Without the unmapping, each thread would leave a reservation (up to
     4 GiB) behind.  */
  if (found->vm_after > found->vm_before + 16 * 1024)
    fail_msg ("VmSize grew from %llu kB to %llu kB",
              found->vm_before, found->vm_after);
  assert_false (exists (child_log (pid)));
}

/* A thread that libcce's pthread_create did not start (C11's
   thrd_create calls glibc's own): its code may restore a TOP of 0 after
   its ccStack exists, as a function does that loaded TOP before the first
   push.  Its pushes all grow (LIMIT stays 0), and each lands where its
   TOP says, BASE for 0.  */
static int
thread_restores_empty_top (void *arg)
{
  (void) arg;
  if (__cce_tls[CCE_TLS_TOP] != 0 || __cce_tls[CCE_TLS_LIMIT] != 0)
    return 1;
  for (int round = 0; round < 3; round++)
    {
      for (int i = 0; i < 1000; i++)
        push ();
      if (__cce_tls[CCE_TLS_LIMIT] != 0 || entries_in_use () != 1000)
        return 2;
      const struct cce_log_frame *b
        = (const struct cce_log_frame *) (uintptr_t) __cce_tls[CCE_TLS_BASE];
      if (b[999].id != 999 * UINT64_C (3) + 1)
        return 3;
      for (int i = 0; i < 1000; i++)
        pop ();
      __cce_tls[CCE_TLS_TOP] = 0;     /* a restore of a TOP loaded at 0 */
    }
  return 0;
}

static void
scenario_thread_not_started_by_libcce (void)
{
  /* The main thread has its ccStack and room from load time.  */
  if (__cce_tls[CCE_TLS_LIMIT] <= __cce_tls[CCE_TLS_BASE]
      || __cce_tls[CCE_TLS_BASE] == 0)
    _exit (97);
  thrd_t th;
  int r;
  if (thrd_create (&th, thread_restores_empty_top, NULL) != thrd_success)
    _exit (98);
  if (thrd_join (th, &r) != thrd_success || r != 0)
    _exit (90 + r);
  found->ok = 1;
}

static void
test_thread_libcce_did_not_start_grows_at_every_push (void **state)
{
  (void) state;
  run_child (scenario_thread_not_started_by_libcce, log_env);
  assert_true (found->ok);
}

/* ------------------------------------------------------------------ */
/* Scenario: threads.                                                 */

#define THREADS 8
#define THREAD_RECORDS 20000

static void *
thread_logs (void *arg)
{
  unsigned t = (unsigned) (uintptr_t) arg;
  context_start ();
  for (unsigned i = 0; i < THREAD_RECORDS; i++)
    {
      unsigned k = i % 5;
      for (unsigned j = 0; j < k; j++)
        push ();
      log_at (t << 20 | i);
      for (unsigned j = 0; j < k; j++)
        pop ();
    }
  return NULL;
}

static void
scenario_threads (void)
{
  pthread_t th[THREADS];
  log_at (0);
  for (unsigned t = 0; t < THREADS; t++)
    if (pthread_create (&th[t], NULL, thread_logs, (void *) (uintptr_t) (t + 1)))
      _exit (98);
  for (unsigned t = 0; t < THREADS; t++)
    pthread_join (th[t], NULL);
}

static void
test_threads_get_distinct_numbers_and_keep_their_order (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_threads, log_env);
  struct log l;
  log_read (child_log (pid), &l);
  assert_int_equal (l.n, 1 + THREADS * THREAD_RECORDS);
  uint32_t number[THREADS + 1] = { 0 };    /* by the program's index */
  unsigned next[THREADS + 1] = { 0 };
  for (size_t i = 0; i < l.n; i++)
    {
      const struct rec *x = &l.recs[i];
      unsigned t = x->r.tag >> 20, seq = x->r.tag & 0xfffff;
      assert_true (t <= THREADS);
      if (!number[t])
        number[t] = x->r.thread;
      assert_int_equal (x->r.thread, number[t]);
      assert_int_equal (seq, next[t]);
      next[t]++;
      check_context (x);
      /* Threads the program made carry where they were made: their
         ccStack starts with a CCE_SITE_THREAD entry; main's does not.  */
      int has_origin = 0;
      for (uint32_t k = 0; k < x->r.nstack; k++)
        {
          struct cce_log_frame fr;
          memcpy (&fr, &x->frames[k], sizeof fr);
          has_origin |= fr.site == CCE_SITE_THREAD;
        }
      assert_int_equal (has_origin, t != 0);
    }
  /* The main thread logged first: number 1.  All numbers distinct and
     from 1 up.  */
  assert_int_equal (number[0], 1);
  for (unsigned a = 0; a <= THREADS; a++)
    {
      assert_true (number[a] >= 1 && number[a] <= THREADS + 1);
      for (unsigned b = a + 1; b <= THREADS; b++)
        assert_int_not_equal (number[a], number[b]);
    }
  log_free (&l);
}

/* ------------------------------------------------------------------ */
/* Scenario: a thread still running (blocked) when the process exits.  */

static pthread_mutex_t block = PTHREAD_MUTEX_INITIALIZER;
static sem_t logged;

static void *
thread_logs_then_blocks (void *arg)
{
  (void) arg;
  context_start ();
  for (unsigned i = 0; i < 10; i++)
    log_at (1000 + i);
  sem_post (&logged);
  pthread_mutex_lock (&block);      /* held by the main thread: forever */
  return NULL;
}

static void
scenario_running_thread (void)
{
  pthread_t th;
  log_at (0);
  sem_init (&logged, 0, 0);
  pthread_mutex_lock (&block);
  if (pthread_create (&th, NULL, thread_logs_then_blocks, NULL))
    _exit (98);
  while (sem_wait (&logged) != 0)
    ;
  log_at (1);
}

static void
test_exit_writes_records_of_threads_still_running (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_running_thread, log_env);
  struct log l;
  log_read (child_log (pid), &l);
  assert_int_equal (l.n, 12);
  unsigned main_next = 0, other_next = 1000;
  for (size_t i = 0; i < l.n; i++)
    {
      const struct rec *x = &l.recs[i];
      if (x->r.tag < 1000)
        {
          assert_int_equal (x->r.thread, 1);
          assert_int_equal (x->r.tag, main_next++);
        }
      else
        {
          assert_int_equal (x->r.thread, 2);
          assert_int_equal (x->r.tag, other_next++);
        }
    }
  log_free (&l);
}

/* ------------------------------------------------------------------ */
/* Scenario: no record.                                               */

static void *
thread_pushes (void *arg)
{
  (void) arg;
  for (int i = 0; i < 1000; i++)
    push ();
  for (int i = 0; i < 1000; i++)
    pop ();
  return NULL;
}

static void
scenario_no_records (void)
{
  pthread_t th;
  thread_pushes (NULL);
  if (pthread_create (&th, NULL, thread_pushes, NULL))
    _exit (98);
  pthread_join (th, NULL);
}

static void
test_no_file_is_created_when_nothing_was_logged (void **state)
{
  (void) state;
  /* Without CCE_LOG (the child's cwd is the test directory), and with.  */
  run_child (scenario_no_records, NULL);
  assert_int_equal (dir_entries (), 0);
  pid_t pid = run_child (scenario_no_records, log_env);
  assert_false (exists (child_log (pid)));
  assert_int_equal (dir_entries (), 0);
}

/* ------------------------------------------------------------------ */
/* Scenario: the default name, the header.                            */

static void
scenario_one_record (void)
{
  cce_log (7);
}

static void
test_log_goes_to_cce_pid_log_without_cce_log_and_has_the_dict_stamp
  (void **state)
{
  (void) state;
  pid_t pid = run_child (scenario_one_record, NULL);
  char path[512];
  snprintf (path, sizeof path, "%s/cce-%d.log", tmpdir, (int) pid);
  struct log l;
  log_read (path, &l);
  assert_int_equal (l.h.stamp, DICT_STAMP);
  assert_int_equal (l.h.pid, (uint64_t) pid);
  assert_int_equal (l.n, 1);
  assert_int_equal (l.recs[0].r.tag, 7);
  assert_int_equal (l.recs[0].r.site, CCE_SITE_NONE);
  assert_int_equal (l.recs[0].r.nstack, 0);
  log_free (&l);
  assert_int_equal (dir_entries (), 1);
}

/* ------------------------------------------------------------------ */
/* Scenario: fork inside a logging process.                           */

static int fork_pipe[2];

#define FORK_DEPTH 3            /* ccStack entries at the fork */
#define CHILD_PUSHES 10000      /* the child grows its copy */

static void
scenario_fork (void)
{
  log_at (0);
  for (int i = 0; i < FORK_DEPTH; i++)
    push ();
  log_at (1);                   /* unwritten at the fork */
  pid_t g = fork ();
  if (g < 0)
    _exit (97);
  if (g == 0)
    {
      /* The child goes on with its parent's ccStack.  */
      log_at (100);
      for (int i = 0; i < CHILD_PUSHES; i++)
        push ();
      log_at (101);
      exit (0);
    }
  waitpid (g, NULL, 0);
  if (write (fork_pipe[1], &g, sizeof g) != sizeof g)
    _exit (96);
  for (int i = 0; i < FORK_DEPTH; i++)
    pop ();
  log_at (2);
}

static void
test_fork_child_logs_only_its_own_records_to_its_own_file (void **state)
{
  (void) state;
  assert_int_equal (pipe (fork_pipe), 0);
  pid_t pid = run_child (scenario_fork, log_env);
  pid_t g;
  assert_int_equal (read (fork_pipe[0], &g, sizeof g), sizeof g);
  close (fork_pipe[0]);
  close (fork_pipe[1]);

  struct log l;
  log_read (child_log (pid), &l);
  assert_int_equal (l.n, 3);
  for (unsigned i = 0; i < 3; i++)
    {
      assert_int_equal (l.recs[i].r.tag, i);
      assert_int_equal (l.recs[i].r.nstack, i == 1 ? FORK_DEPTH : 0);
      check_context (&l.recs[i]);
    }
  log_free (&l);

  /* The grandchild's file is named after the grandchild, even though
     CCE_LOG already named its parent's: $CCE_LOG.GRANDCHILDPID.  */
  log_read (child_log (g), &l);
  assert_int_equal (l.h.pid, (uint64_t) g);
  assert_int_equal (l.n, 2);
  assert_int_equal (l.recs[0].r.tag, 100);
  assert_int_equal (l.recs[1].r.tag, 101);
  assert_int_equal (l.recs[0].r.thread, 1);   /* numbers carry over */
  assert_int_equal (l.recs[0].r.nstack, FORK_DEPTH);
  assert_int_equal (l.recs[1].r.nstack, FORK_DEPTH + CHILD_PUSHES);
  check_context (&l.recs[0]);
  check_context (&l.recs[1]);
  log_free (&l);
}

/* ------------------------------------------------------------------ */
/* Scenario: the log cannot be opened.                                */

static void
scenario_unopenable_log (void)
{
  for (int i = 0; i < 100000; i++)
    log_at (i);
}

static void
test_unopenable_log_says_so_once_and_drops_records (void **state)
{
  (void) state;
  char env[256];
  snprintf (env, sizeof env, "%s/no-such-dir/log", tmpdir);
  run_child (scenario_unopenable_log, env);
  char path[512], text[1024];
  snprintf (path, sizeof path, "%s/stderr", tmpdir);
  FILE *f = fopen (path, "r");
  assert_non_null (f);
  size_t n = fread (text, 1, sizeof text - 1, f);
  fclose (f);
  text[n] = '\0';
  assert_non_null (strstr (text, "cce: cannot open log "));
  char *nl = strchr (text, '\n');
  assert_non_null (nl);
  assert_int_equal (nl[1], '\0');             /* one line only */
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown
      (test_exit_writes_every_record_in_order_including_atexit_and_destructors,
       setup_dir, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_ccstack_200000_deep_is_recorded_whole_and_pops_back_to_empty,
       setup_dir, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_ccstack_entries_never_move_while_it_grows_to_200000,
       setup_findings, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_ccstack_of_2_to_the_21_entries_works,
       setup_findings, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_ccstack_deeper_than_its_reservation_says_so_and_aborts,
       setup_findings, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_ccstack_out_of_memory_says_so_once_and_aborts,
       setup_findings, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_thread_exit_gives_the_ccstack_address_space_back,
       setup_findings, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_thread_libcce_did_not_start_grows_at_every_push,
       setup_findings, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_threads_get_distinct_numbers_and_keep_their_order,
       setup_dir, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_exit_writes_records_of_threads_still_running,
       setup_dir, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_no_file_is_created_when_nothing_was_logged,
       setup_dir, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_log_goes_to_cce_pid_log_without_cce_log_and_has_the_dict_stamp,
       setup_dir, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_fork_child_logs_only_its_own_records_to_its_own_file,
       setup_dir, teardown_dir),
    cmocka_unit_test_setup_teardown
      (test_unopenable_log_says_so_once_and_drops_records,
       setup_dir, teardown_dir),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
