/* log.c -- libcce's event log: cce_log and the file it writes.

   Each cce_log call writes one record (cce-format.h, part 2): the tag, the
   log site, the id and a copy of the ccStack.  A record is in the file the
   moment cce_log returns, whatever kills the process afterwards (a crash,
   abort, _exit, SIGKILL, exec): every thread writes its records straight
   into a window of the log file mapped shared, so the bytes belong to the
   kernel's page cache as soon as they are stored, and no write or flush
   is needed on any path.  A record becomes valid with one final store of
   its mark; a record the process died in the middle of stays without its
   mark, and the decoder skips it with a count.

   Windows.  The file is a header and then chunks of one page.  A thread's
   window is a span of chunks that it alone writes: its first span is one
   chunk, each next one twice the last, up to CCE_SPAN_MAX_CHUNKS (a
   record larger than that gets a span its size).  A new span takes the
   next chunks of the file (one counter, under cce_lock), makes them
   allocated on disk (fallocate), so that the disk cannot turn out to be
   full when the mapping is written to, and maps them.  A full disk is
   found there: one line on standard error, and later records are dropped
   while the program runs on.

   The fast path of cce_log takes no lock and makes no call: it writes the
   record into the thread's window and moves the window on.  Only a new
   window (the slow path) takes cce_lock, with signals blocked.

   Signals.  A signal handler that interrupts cce_log and logs itself
   writes to a window of its own, one level up: each thread has a window
   per nesting level (CCE_LOG_LEVELS), so a window is only ever written by
   one cce_log call at a time and needs no atomic operation.

   The file is opened at the first record, so a process that logs nothing
   leaves no file.  It is $CCE_LOG, or cce-PID.log in the working
   directory; the path is made absolute then, so a later chdir does not
   move it.  A log named /dev/null discards records at the cost of writing
   them to memory; a log that is not a regular file (a pipe, a terminal),
   or whose file system cannot map it shared, gets each record with one
   write(2), which is crash-safe too but costs a system call per
   record.

   fork.  The child logs to a file of its own, $CCE_LOG.PID or
   cce-PID.log: it lets go of the windows it inherited (they are the
   parent's), and opens its file at its first record.  exec needs nothing:
   the records are in the file.  */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cce.h"
#include "rt-internal.h"
#include "spacesaving.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* The largest span a thread's windows grow to, in chunks (1 MiB with 4 KiB
   pages).  */
#define CCE_SPAN_MAX_CHUNKS 256

/* The scratch window of a level when the log is /dev/null.  */
#define CCE_DISCARD_BYTES (64 * 1024)

/* Where records go.  */
enum cce_sink
{
  CCE_SINK_CLOSED,      /* no record yet: open the file at the first */
  CCE_SINK_FILE,        /* a regular file: spans mapped shared */
  CCE_SINK_DISCARD,     /* /dev/null: scratch windows, reused */
  CCE_SINK_STREAM,      /* anything else: one write per record */
  CCE_SINK_FAILED       /* cannot be written: records are dropped */
};

/* Serialises the slow path: the file state below, new spans, and the
   records of CCE_SINK_STREAM.  Taken with signals blocked, so that a
   handler never waits for its own thread.  */
static pthread_mutex_t cce_lock = PTHREAD_MUTEX_INITIALIZER;
static enum cce_sink cce_sink;
static int cce_fd = -1;
static dev_t cce_fd_dev;        /* identity of the file cce_fd names */
static ino_t cce_fd_ino;
static uint64_t cce_file_end;   /* offset of the first chunk not given out */
static uint64_t cce_header_size; /* offset of the first chunk */
static size_t cce_chunk;        /* bytes of a chunk: the page size */
static int cce_forked;          /* this process is a fork child */
static char cce_path[PATH_MAX + 32];
static int cce_level_warned;    /* said that handlers nest too deep */

/* Thread numbers, 1 first.  */
static uint32_t cce_next_number = 1;

/* ------------------------------------------------------------------------
   The log file.  All of this runs under cce_lock.
   ------------------------------------------------------------------------ */

/* The stamp of the program's dictionary, 0 if it has none or if its
   header line is not "cce-dict VERSION STAMP".  */
uint64_t
cce_dict_stamp (void)
{
  const char *p = __cce_dict;
  if (!p)
    return 0;
  size_t n = sizeof CCE_DICT_MAGIC - 1;
  if (strncmp (p, CCE_DICT_MAGIC, n) != 0 || p[n] != ' ')
    return 0;
  p += n + 1;
  if (*p < '0' || *p > '9')
    return 0;
  while (*p >= '0' && *p <= '9')
    p++;
  if (*p++ != ' ')
    return 0;
  uint64_t stamp = 0;
  for (int i = 0; i < 16; i++, p++)
    {
      unsigned v;
      if (*p >= '0' && *p <= '9')
        v = (unsigned) (*p - '0');
      else if (*p >= 'a' && *p <= 'f')
        v = (unsigned) (*p - 'a' + 10);
      else
        return 0;
      stamp = stamp << 4 | v;
    }
  return *p == '\n' ? stamp : 0;
}

/* Build the log file's name in cce_path: $CCE_LOG (with ".PID" appended
   in a fork child, or where OWN asks for a file of the process's own,
   if it is a regular file) or cce-PID.log, made absolute.  Return 0 if
   it does not fit.  */
static int
cce_path_make (int own)
{
  const char *env = cce_getenv ("CCE_LOG");
  char *p = cce_path, *end = cce_path + sizeof cce_path - 1;
  unsigned long pid = (unsigned long) getpid ();
  if (!env || !*env || env[0] != '/')
    {
      if (!getcwd (cce_path, PATH_MAX))
        cce_path[0] = '\0';     /* relative to wherever we are, then */
      else
        {
          p = cce_path + strlen (cce_path);
          if (p > cce_path + 1)
            cce_str_cat (&p, end, "/");
        }
    }
  struct stat st;
  if (env && *env)
    {
      cce_str_cat (&p, end, env);
      /* A fork child's own file, unless the log is not a regular file
         (/dev/null, a pipe): that one the child shares.  */
      if ((cce_forked || own)
          && !(stat (env, &st) == 0 && !S_ISREG (st.st_mode)))
        {
          cce_str_cat (&p, end, ".");
          cce_str_num (&p, end, pid);
        }
    }
  else
    {
      cce_str_cat (&p, end, "cce-");
      cce_str_num (&p, end, pid);
      cce_str_cat (&p, end, ".log");
    }
  *p = '\0';
  return p < end;
}

/* Give up on the log: say why (ERR) once, and drop every later record.  */
static void
cce_fail (const char *what, int err)
{
  cce_complain (what, cce_path, err);
  if (cce_fd >= 0)
    close (cce_fd);
  cce_fd = -1;
  cce_sink = CCE_SINK_FAILED;
}

/* Write the IOVCNT buffers at IOV to cce_fd entirely, across short writes
   and EINTR; at offset OFFSET with pwritev if OFFSET >= 0.  IOV is
   modified.  Return 0 or the error.  */
static int
cce_write_all (struct iovec *iov, int iovcnt, off_t offset)
{
  while (iovcnt > 0)
    {
      ssize_t r = offset >= 0 ? pwritev (cce_fd, iov, iovcnt, offset)
                              : writev (cce_fd, iov, iovcnt);
      if (r < 0)
        {
          if (errno == EINTR)
            continue;
          return errno;
        }
      if (offset >= 0)
        offset += r;
      size_t done = (size_t) r;
      while (iovcnt > 0 && done >= iov->iov_len)
        {
          done -= iov->iov_len;
          iov++;
          iovcnt--;
        }
      if (iovcnt > 0)
        {
          iov->iov_base = (char *) iov->iov_base + done;
          iov->iov_len -= done;
        }
    }
  return 0;
}

/* The log header: struct cce_log_header and the module table
   (cce-format.h).  */
static _Alignas (8) char cce_header_buf[16384];

/* dl_iterate_phdr callback: add the shared object INFO to the module
   table of the header in cce_header_buf, whose length is *DATA.  The
   decoder finds the dictionaries of shared libraries built with cce in
   these files; the executable (no name) and the vDSO (no file) are left
   out.  A name found through a relative LD_LIBRARY_PATH is made absolute
   with the working directory (not realpath, which may allocate).  */
static int
cce_add_module (struct dl_phdr_info *info, size_t size, void *data)
{
  size_t *len = data;
  struct cce_log_header *h = (struct cce_log_header *) cce_header_buf;
  struct cce_log_module m;
  char abs[PATH_MAX];
  const char *path = info->dlpi_name;
  (void) size;
  if (!path || !*path)
    return 0;
  if (path[0] != '/')
    {
      if (!strchr (path, '/') || !getcwd (abs, sizeof abs))
        return 0;
      char *p = abs + strlen (abs), *end = abs + sizeof abs - 1;
      cce_str_cat (&p, end, "/");
      cce_str_cat (&p, end, path);
      if (p == end)
        return 0;
      *p = '\0';
      path = abs;
    }
  size_t n = strlen (path), padded = (n + 7) & ~(size_t) 7;
  if (*len + sizeof m + padded > sizeof cce_header_buf)
    return 0;
  m.pathlen = (uint32_t) n;
  m.reserved = 0;
  memcpy (cce_header_buf + *len, &m, sizeof m);
  memcpy (cce_header_buf + *len + sizeof m, path, n);
  *len += sizeof m + padded;
  h->nmodules++;
  return 0;
}

/* Write the log header to cce_fd: with chunks of CHUNK bytes, at offset
   0, its size rounded up to a chunk; with CHUNK 0, as a stream.  Return
   the header's size, or 0 on error (having given up).  */
static size_t
cce_header_write (size_t chunk)
{
  struct cce_log_header *h = (struct cce_log_header *) cce_header_buf;
  size_t len = sizeof *h;
  memset (cce_header_buf, 0, sizeof cce_header_buf);
  memcpy (h->magic, CCE_LOG_MAGIC, sizeof h->magic);
  h->version = CCE_LOG_VERSION;
  h->stamp = cce_dict_stamp ();
  h->pid = (uint64_t) getpid ();
  dl_iterate_phdr (cce_add_module, &len);
  size_t size = chunk ? (len + chunk - 1) / chunk * chunk : len;
  h->header_size = (uint32_t) size;
  h->chunk_size = (uint32_t) chunk;
  /* The rest of the first chunks is a hole of the new file: zeros.  */
  struct iovec iov = { cce_header_buf, len };
  int err = cce_write_all (&iov, 1, chunk ? 0 : -1);
  if (err)
    {
      cce_fail ("cannot write log", err);
      return 0;
    }
  return size;
}

/* Whether the file cce_fd is /dev/null.  */
static int
cce_is_dev_null (const struct stat *st)
{
  return S_ISCHR (st->st_mode) && major (st->st_rdev) == 1
         && minor (st->st_rdev) == 3;
}

/* Open the log file named cce_path (OWN: as cce_path_make).  A regular
   file is locked for as long as the process has it open, and emptied
   once locked: another process that logs to the same file has it
   locked, and this one takes $CCE_LOG.PID instead (emptying a file
   another process has mapped would kill that one with SIGBUS).
   Returns the descriptor, or -1 with errno set.  */
static int
cce_file_open_path (int own)
{
  if (!cce_path_make (own))
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  int fd = open (cce_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && (errno == EACCES || errno == EPERM))
    fd = open (cce_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode))
    {
      if (flock (fd, LOCK_EX | LOCK_NB) != 0)
        {
          int err = errno;
          close (fd);
          if (err == EWOULDBLOCK && !own)
            return cce_file_open_path (1);
          errno = err;
          return -1;
        }
      if (ftruncate (fd, 0) != 0)
        {
          int err = errno;
          close (fd);
          errno = err;
          return -1;
        }
    }
  return fd;
}

/* Open the log file at the first record and choose the sink.  */
static void
cce_file_open (void)
{
  int fd = cce_file_open_path (0);
  if (fd < 0)
    {
      cce_fail ("cannot open log", errno);
      return;
    }
  /* Keep out of 0, 1 and 2, should the program have closed them: its
     next open of standard output must not get our file.  */
  if (fd <= STDERR_FILENO)
    {
      int high = fcntl (fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
      int err = errno;
      close (fd);
      if (high < 0)
        {
          cce_fail ("cannot open log", err);
          return;
        }
      fd = high;
    }
  cce_fd = fd;
  struct stat st;
  if (fstat (fd, &st) != 0)
    {
      cce_fail ("cannot open log", errno);
      return;
    }
  cce_fd_dev = st.st_dev;
  cce_fd_ino = st.st_ino;
  if (cce_is_dev_null (&st))
    {
      close (cce_fd);
      cce_fd = -1;
      cce_sink = CCE_SINK_DISCARD;
      return;
    }
  int accmode = fcntl (fd, F_GETFL) & O_ACCMODE;
  if (S_ISREG (st.st_mode) && accmode == O_RDWR)
    {
      cce_chunk = (size_t) getauxval (AT_PAGESZ);
      if (cce_chunk < 4096)
        cce_chunk = 4096;
      cce_file_end = cce_header_size = cce_header_write (cce_chunk);
      if (cce_file_end)
        cce_sink = CCE_SINK_FILE;
      return;
    }
  if (cce_header_write (0))
    cce_sink = CCE_SINK_STREAM;
}

/* Make sure cce_fd is still the log: the program may have closed it (and
   perhaps reused its number for a file of its own).  Open it again then,
   if it is still the same file.  Return 0 (having given up) if not.  */
static int
cce_file_check (void)
{
  struct stat st;
  if (fstat (cce_fd, &st) == 0 && st.st_dev == cce_fd_dev
      && st.st_ino == cce_fd_ino)
    return 1;
  cce_fd = -1;                  /* not ours any more: do not close it */
  int fd = open (cce_path, O_RDWR | O_CLOEXEC);
  if (fd >= 0 && fd <= STDERR_FILENO)
    {
      int high = fcntl (fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
      close (fd);
      fd = high;
    }
  if (fd < 0)
    {
      cce_fail ("cannot open log", errno);
      return 0;
    }
  cce_fd = fd;
  if (fstat (fd, &st) != 0 || st.st_dev != cce_fd_dev
      || st.st_ino != cce_fd_ino)
    {
      cce_fail ("cannot write log (replaced by another file)", 0);
      return 0;
    }
  return 1;
}

/* Give the file BYTES more bytes at OFFSET, allocated on disk if the file
   system can (then *ALLOCATED is 1).  Return 0 or the error.  Where the
   file system cannot allocate ahead, extend the file: the populate of the
   mapping then finds a full disk.  */
static int
cce_file_extend (off_t offset, size_t bytes, int *allocated)
{
  int r;
  do
    r = fallocate (cce_fd, 0, offset, (off_t) bytes);
  while (r != 0 && errno == EINTR);
  *allocated = r == 0;
  if (r == 0)
    return 0;
  if (errno != EOPNOTSUPP && errno != ENOSYS)
    return errno;
  struct stat st;
  if (fstat (cce_fd, &st) == 0 && st.st_size >= offset + (off_t) bytes)
    return 0;
  return ftruncate (cce_fd, offset + (off_t) bytes) == 0 ? 0 : errno;
}

/* The file system of the log cannot map it shared (the first span could
   not be mapped): write it as a stream instead, one write per record,
   from a header without chunks.  Return 0 (having given up) on error.  */
static int
cce_stream_instead (void)
{
  if (ftruncate (cce_fd, 0) != 0 || lseek (cce_fd, 0, SEEK_SET) != 0)
    return 0;
  if (!cce_header_write (0))
    return 0;
  cce_sink = CCE_SINK_STREAM;
  return 1;
}

/* ------------------------------------------------------------------------
   Windows.
   ------------------------------------------------------------------------ */

/* Unmap window W.  */
static void
cce_window_drop (struct cce_window *w)
{
  if (w->base)
    munmap (w->base, w->bytes);
  w->base = NULL;
  w->bytes = 0;
  w->next = NULL;
  w->limit = NULL;
}

/* A new span of the file for thread T, of CHUNKS chunks or more, with
   room for SIZE bytes after its header, whose MARK and LEVEL words are
   MARK and WORD: map it at *BASE, *BYTES long.  Return 0 if there is
   none (the log has failed).  */
static int
cce_span_new (struct cce_thread *t, size_t chunks, size_t size,
              uint32_t mark, uint32_t word, char **base, size_t *bytes_out)
{
  size_t need = (sizeof (struct cce_log_span) + size + cce_chunk - 1)
                / cce_chunk;
  if (chunks < need)
    chunks = need;
  size_t bytes = chunks * cce_chunk;
  if (!cce_file_check ())
    return 0;
  off_t offset = (off_t) cce_file_end;
  int allocated;
  int err = cce_file_extend (offset, bytes, &allocated);
  if (err)
    {
      cce_fail ("cannot write log", err);
      return 0;
    }
  cce_file_end += bytes;
  char *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, cce_fd,
                  offset);
  if (m == MAP_FAILED)
    {
      int e = errno;
      if (offset == (off_t) cce_header_size && cce_stream_instead ())
        return 0;
      cce_fail ("cannot map log", e);
      return 0;
    }
  /* Make the pages now, in one call rather than a fault each.  This is
     also where a file system that could not allocate ahead says that it
     is full (EFAULT: writing would raise SIGBUS); once the blocks are
     allocated, a failure here (ENOMEM, or EINVAL from a kernel that
     cannot populate) only leaves the pages to be made at first write.  */
  if (madvise (m, bytes, MADV_POPULATE_WRITE) != 0 && !allocated
      && errno != EINVAL)
    {
      int e = errno == EFAULT ? ENOSPC : errno;
      munmap (m, bytes);
      cce_fail ("cannot write log", e);
      return 0;
    }
  struct cce_log_span *s = (struct cce_log_span *) m;
  s->thread = t->number;
  s->chunks = (uint32_t) chunks;
  s->level = word;
  atomic_store_explicit ((_Atomic uint32_t *) &s->mark, mark,
                         memory_order_release);
  *base = m;
  *bytes_out = bytes;
  return 1;
}

/* Give thread T's window at LEVEL a new span of the file with room for a
   record of SIZE bytes.  Return 0 if there is none (the log has failed).  */
static int
cce_window_span (struct cce_thread *t, unsigned level, size_t size)
{
  struct cce_window *w = &t->win[level];
  size_t chunks = w->chunks ? w->chunks * 2 : 1;
  if (chunks > CCE_SPAN_MAX_CHUNKS)
    chunks = CCE_SPAN_MAX_CHUNKS;
  char *m;
  size_t bytes;
  if (!cce_span_new (t, chunks, size, CCE_LOG_SPAN_MARK, level, &m, &bytes))
    return 0;
  cce_window_drop (w);
  w->base = m;
  w->bytes = bytes;
  w->chunks = bytes / cce_chunk;
  w->next = m + sizeof (struct cce_log_span);
  w->limit = m + bytes;
  return 1;
}

/* Give thread T's window at LEVEL room for a record of SIZE bytes when the
   log is /dev/null: a scratch mapping, written over from its start.  */
static int
cce_window_scratch (struct cce_thread *t, unsigned level, size_t size)
{
  struct cce_window *w = &t->win[level];
  size_t bytes = CCE_DISCARD_BYTES;
  while (bytes < size)
    bytes *= 2;
  if (!w->base || w->bytes < bytes)
    {
      char *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED)
        return 0;
      cce_window_drop (w);
      w->base = m;
      w->bytes = bytes;
    }
  w->next = w->base;
  w->limit = w->base + w->bytes;
  return 1;
}

/* ------------------------------------------------------------------------
   Logging.
   ------------------------------------------------------------------------ */

/* Write record R (its mark aside) and its R->nstack FRAMES at P, then set
   its mark: the one store that makes it valid.  The frames are copied
   with a loop rather than memcpy, so that the fast path of cce_log makes
   no call (ccStacks are short: most of the depth is in the id).  */
static inline void
cce_record_put (char *p, const struct cce_log_record *r,
                const struct cce_log_frame *frames, int has_value,
                uint64_t value)
{
  struct cce_log_record *d = (struct cce_log_record *) p;
  d->tag = r->tag;
  d->site = r->site;
  d->id = r->id;
  d->nstack = r->nstack;
  d->thread = r->thread;
  struct cce_log_frame *f = (struct cce_log_frame *) (d + 1);
  if (has_value)
    {
      *(uint64_t *) f = value;
      f = (struct cce_log_frame *) ((uint64_t *) f + 1);
    }
  for (uint32_t i = 0; i < r->nstack; i++)
    f[i] = frames[i];
  atomic_store_explicit ((_Atomic uint32_t *) &d->mark,
                         has_value ? CCE_LOG_VALUE_MARK : CCE_LOG_RECORD_MARK,
                         memory_order_release);
}

/* Bytes of a record of NSTACK frames, with a value or not.  */
static inline size_t
cce_record_size (uint32_t nstack, int has_value)
{
  return sizeof (struct cce_log_record) + (has_value ? sizeof (uint64_t) : 0)
         + (size_t) nstack * sizeof (struct cce_log_frame);
}

/* Say once that signal handlers nest too deep in cce_log for a window.  */
static void __attribute__ ((noinline, cold))
cce_level_overflow (void)
{
  if (!cce_level_warned)
    {
      cce_level_warned = 1;
      cce_complain ("signal handlers nested too deep in cce_log;"
                    " their records are dropped", NULL, 0);
    }
}

/* The slow path of cce_log on thread T at LEVEL: the record of TAG, SITE,
   ID, the NSTACK entries at FRAMES and the value VALUE if HAS_VALUE did
   not fit in the window.  Open the log, number the thread, give the
   window a new span, or write the record through, as the sink asks; then
   leave the level.  */
static void __attribute__ ((noinline, cold))
cce_log_slow (struct cce_thread *t, unsigned level, unsigned tag,
              uint64_t site, uint64_t id, uint32_t nstack,
              const struct cce_log_frame *frames, int has_value,
              uint64_t value)
{
  struct cce_log_record rec = { 0, tag, site, id, nstack, 0 }, *r = &rec;
  if (level >= CCE_LOG_LEVELS)
    {
      cce_level_overflow ();
      cce_barrier ();
      t->level = level;
      return;
    }
  size_t size = cce_record_size (nstack, has_value);
  /* Signals blocked: a handler of this thread must not wait for the lock
     it holds.  Cancellation off: open, write and fallocate are
     cancellation points, and a thread cancelled here would leave with
     the lock.  */
  sigset_t all, saved;
  int cancel;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  pthread_setcancelstate (PTHREAD_CANCEL_DISABLE, &cancel);
  t->locked = 1;
  /* What the C library allocates under the lock is not profiled (the
     heap profile's lock comes before this one).  */
  int heap_busy = t->heap_busy;
  t->heap_busy = 1;
  cce_barrier ();
  pthread_mutex_lock (&cce_lock);
  if (cce_sink == CCE_SINK_CLOSED)
    cce_file_open ();
  if (!t->number)
    t->number = cce_next_number++;
  r->thread = t->number;
  struct cce_window *w = &t->win[level];
  int put = 0;
  if (cce_sink == CCE_SINK_FILE)
    put = cce_window_span (t, level, size);
  else if (cce_sink == CCE_SINK_DISCARD)
    put = cce_window_scratch (t, level, size);
  if (put)
    {
      cce_thread_register (t);
      cce_record_put (w->next, r, frames, has_value, value);
      w->next += size;
    }
  else if (cce_sink == CCE_SINK_STREAM)
    {
      r->mark = has_value ? CCE_LOG_VALUE_MARK : CCE_LOG_RECORD_MARK;
      struct iovec iov[3] = {
        { r, sizeof *r },
        { &value, has_value ? sizeof value : 0 },
        { (void *) frames, (size_t) r->nstack * sizeof *frames },
      };
      int err = cce_write_all (iov, 3, -1);
      if (err)
        cce_fail ("cannot write log", err);
    }
  pthread_mutex_unlock (&cce_lock);
  cce_barrier ();
  t->heap_busy = heap_busy;
  t->locked = 0;
  pthread_setcancelstate (cancel, NULL);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  cce_barrier ();
  t->level = level;
}

/* ------------------------------------------------------------------------
   Tables (CCE_MODE=aggregate).

   A thread that aggregates keeps, instead of a record per event, one
   entry per distinct context (tag, site, id, ccStack, with a value or
   not) in table spans of the log file (cce-format.h), mapped shared like
   the windows: an event adds 1 to its entry's count and its value to the
   entry's sum, in place, so the table is in the file whatever kills the
   process, as records are.  The entries of a thread's table never move:
   its spans stay mapped until the thread exits, and a new span (twice
   the last, with no limit) comes when the last is full.

   Finding an entry: a hash table in memory of the thread's own (one
   anonymous mapping per thread, made at its first event, never touched
   by anyone else), open addressing with linear probing, of 2N words
   (hash << 32 | slot + 1) for N = CCE_MAX_CONTEXTS counters; and the
   counters themselves, Space-Saving (spacesaving.h): past N distinct
   contexts, a new one takes the entry of the least count.  An entry
   whose new context does not fit is left dead, and the context gets a
   new entry with twice the room (so the file a table takes stays within
   four times the room of its largest contexts).

   Signals.  Only level 0 (the thread's own events) aggregates: a handler
   that interrupts an event of its thread, and so possibly the table in
   the middle of a change, logs a record at its level, as in log mode.
   The table's own slow path (its first event, a new span) takes cce_lock
   with signals blocked, as cce_log_slow.  A log that is not a regular
   file cannot hold tables: events are records then.
   ------------------------------------------------------------------------ */

/* CCE_MODE=aggregate: set at load time; cleared (under cce_lock) when
   the log turns out not to be able to hold tables.  */
static int cce_aggregate;

/* CCE_MAX_CONTEXTS: the counters of a thread's table.  65536 by default:
   counts are exact for a thread with at most that many distinct contexts
   (many times what the programs we know log), and past it off by at most
   1/65536 of the thread's events; a full table of contexts with short
   ccStacks takes some 5 MiB of the file.  */
#define CCE_MAX_CONTEXTS_DEFAULT 65536
#define CCE_MAX_CONTEXTS_LIMIT (1 << 22)
static uint32_t cce_max_contexts = CCE_MAX_CONTEXTS_DEFAULT;

/* The most spans a table takes (each twice the last).  */
#define CCE_TABLE_SPANS 40

/* A thread's table, in the thread's own anonymous mapping.  */
struct cce_table
{
  size_t bytes;                 /* of the mapping */
  uint32_t mask;                /* hash table words - 1 */
  uint64_t *index;              /* (hash << 32) | (slot + 1); 0: free */
  uint64_t *hash;               /* per slot: its context's hash */
  struct cce_log_entry **entry; /* per slot: its entry in the file */
  struct cce_ss ss;
  size_t nspans;
  struct { char *base; size_t bytes; } spans[CCE_TABLE_SPANS];
};

/* Said that a table could not be made.  */
static int cce_table_warned;

/* The hash of a context.  */
static inline uint64_t
cce_context_hash (unsigned tag, uint64_t site, uint64_t id, uint32_t nstack,
                  const struct cce_log_frame *frames, uint32_t flags)
{
  const uint64_t k = UINT64_C (0x9e3779b97f4a7c15);
  uint64_t h = ((uint64_t) tag << 32 | flags) * k;
  h = (h ^ site) * k;
  h = (h ^ id) * k;
  for (uint32_t i = 0; i < nstack; i++)
    {
      h = (h ^ frames[i].id) * k;
      h = (h ^ frames[i].site) * k;
    }
  return h ^ (h >> 29);
}

/* Whether entry E holds the context.  */
static inline int
cce_entry_is (const struct cce_log_entry *e, unsigned tag, uint64_t site,
              uint64_t id, uint32_t nstack,
              const struct cce_log_frame *frames, uint32_t flags)
{
  if (e->site != site || e->id != id || e->tag != tag
      || e->nstack != nstack || e->flags != flags)
    return 0;
  const struct cce_log_frame *f = (const struct cce_log_frame *) (e + 1);
  for (uint32_t i = 0; i < nstack; i++)
    if (f[i].id != frames[i].id || f[i].site != frames[i].site)
      return 0;
  return 1;
}

/* The frames an entry has room for.  */
static inline uint32_t
cce_entry_room (const struct cce_log_entry *e)
{
  return (uint32_t) ((e->size - sizeof *e) / sizeof (struct cce_log_frame));
}

void
cce_entry_put (struct cce_log_entry *e, unsigned tag, uint64_t site,
               uint64_t id, uint32_t nstack,
               const struct cce_log_frame *frames, uint32_t flags,
               uint64_t count, uint64_t value, uint64_t error,
               uint32_t thread)
{
  e->tag = tag;
  e->site = site;
  e->id = id;
  e->nstack = nstack;
  e->flags = flags;
  e->thread = thread;
  e->count = count;
  e->value = value;
  e->error = error;
  struct cce_log_frame *f = (struct cce_log_frame *) (e + 1);
  for (uint32_t i = 0; i < nstack; i++)
    f[i] = frames[i];
  atomic_store_explicit ((_Atomic uint32_t *) &e->mark, CCE_LOG_ENTRY_MARK,
                         memory_order_release);
}

/* A new table for the calling thread, or NULL.  */
static struct cce_table *
cce_table_new (void)
{
  uint32_t n = cce_max_contexts;
  size_t words = 2;
  while (words < 2 * (size_t) n)
    words *= 2;
  size_t bytes = sizeof (struct cce_table) + words * sizeof (uint64_t)
                 + (size_t) n * (sizeof (uint64_t) + sizeof (void *))
                 + cce_ss_bytes (n);
  char *m = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return NULL;
  struct cce_table *tb = (struct cce_table *) m;
  char *p = m + sizeof *tb;
  tb->bytes = bytes;
  tb->mask = (uint32_t) (words - 1);
  tb->index = (uint64_t *) p;
  p += words * sizeof (uint64_t);
  tb->hash = (uint64_t *) p;
  p += (size_t) n * sizeof (uint64_t);
  tb->entry = (struct cce_log_entry **) p;
  p += (size_t) n * sizeof (void *);
  cce_ss_init (&tb->ss, n, p);
  return tb;
}

/* Thread T's table and its spans go: unmapped with UNMAP, or else left
   where they are (a fork child: an event its fork interrupted may still
   be using them; the spans are made private copies, so that nothing
   more reaches the parent's file).  */
static void
cce_table_drop (struct cce_thread *t, int unmap)
{
  struct cce_table *tb = t->table;
  if (!tb)
    return;
  t->table = NULL;
  for (size_t i = 0; i < tb->nspans; i++)
    {
      char *b = tb->spans[i].base;
      size_t n = tb->spans[i].bytes;
      if (unmap)
        munmap (b, n);
      else if (mmap (b, n, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
               == MAP_FAILED)
        munmap (b, n);
    }
  if (unmap)
    munmap (tb, tb->bytes);
  t->tabwin.next = t->tabwin.limit = t->tabwin.base = NULL;
  t->tabwin.bytes = t->tabwin.chunks = 0;
}

/* The slow path of a table: thread T (at level 0) needs its table, and
   NEED bytes of room for an entry.  Open the log, number the thread, make
   the table, give it a new span.  Return 0 if the event cannot be
   aggregated (then it is logged as a record).  */
static int __attribute__ ((noinline, cold))
cce_table_slow (struct cce_thread *t, size_t need)
{
  sigset_t all, saved;
  int cancel, ok = 0;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  pthread_setcancelstate (PTHREAD_CANCEL_DISABLE, &cancel);
  t->locked = 1;
  int heap_busy = t->heap_busy;
  t->heap_busy = 1;             /* as in cce_log_slow */
  cce_barrier ();
  pthread_mutex_lock (&cce_lock);
  if (cce_sink == CCE_SINK_CLOSED)
    cce_file_open ();
  if (cce_sink != CCE_SINK_FILE)
    {
      cce_aggregate = 0;        /* records, as in log mode */
      goto out;
    }
  if (!t->number)
    t->number = cce_next_number++;
  if (!t->table && !(t->table = cce_table_new ()))
    {
      if (!cce_table_warned)
        {
          cce_table_warned = 1;
          cce_complain ("no memory for a table of CCE_MODE=aggregate;"
                        " events are logged one by one", NULL, errno);
        }
      goto out;
    }
  struct cce_table *tb = t->table;
  struct cce_window *w = &t->tabwin;
  if ((size_t) (w->limit - w->next) < need)
    {
      if (tb->nspans == CCE_TABLE_SPANS)
        goto out;
      size_t chunks = w->chunks ? w->chunks * 2 : 1;
      char *m;
      size_t bytes;
      if (!cce_span_new (t, chunks, need, CCE_LOG_TABLE_MARK,
                         cce_max_contexts, &m, &bytes))
        goto out;
      tb->spans[tb->nspans].base = m;
      tb->spans[tb->nspans].bytes = bytes;
      tb->nspans++;
      w->base = m;
      w->bytes = bytes;
      w->chunks = bytes / cce_chunk;
      w->next = m + sizeof (struct cce_log_span);
      w->limit = m + bytes;
    }
  cce_thread_register (t);
  ok = 1;
 out:
  pthread_mutex_unlock (&cce_lock);
  cce_barrier ();
  t->heap_busy = heap_busy;
  t->locked = 0;
  pthread_setcancelstate (cancel, NULL);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  return ok;
}

/* A span of the heap profile (heap.c) for thread T, at level 0: CHUNKS
   chunks or more, with room for NEED bytes of entries, whose LEVEL word
   is WORD (the sampling interval).  Opens the log and numbers the thread
   if need be.  Return 0 if the log cannot hold it (not a regular file,
   or failed).  */
int
cce_log_heap_span (struct cce_thread *t, size_t chunks, size_t need,
                   uint32_t word, char **base, size_t *bytes)
{
  sigset_t all, saved;
  int cancel, ok = 0;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &saved);
  pthread_setcancelstate (PTHREAD_CANCEL_DISABLE, &cancel);
  t->locked = 1;
  cce_barrier ();
  pthread_mutex_lock (&cce_lock);
  if (cce_sink == CCE_SINK_CLOSED)
    cce_file_open ();
  if (cce_sink == CCE_SINK_FILE)
    {
      if (!t->number)
        t->number = cce_next_number++;
      ok = cce_span_new (t, chunks, need, CCE_LOG_HEAP_MARK, word, base,
                         bytes);
    }
  if (ok)
    cce_thread_register (t);
  pthread_mutex_unlock (&cce_lock);
  cce_barrier ();
  t->locked = 0;
  pthread_setcancelstate (cancel, NULL);
  pthread_sigmask (SIG_SETMASK, &saved, NULL);
  return ok;
}

/* Put SLOT with hash H into the hash table of TB.  */
static inline void
cce_index_put (struct cce_table *tb, uint32_t slot, uint64_t h)
{
  uint32_t i = (uint32_t) h & tb->mask;
  while (tb->index[i])
    i = (i + 1) & tb->mask;
  tb->index[i] = (h >> 32) << 32 | (uint64_t) (slot + 1);
  tb->hash[slot] = h;
}

/* Take SLOT out of the hash table of TB (backward-shift deletion, so
   that every probe sequence stays unbroken).  */
static void
cce_index_remove (struct cce_table *tb, uint32_t slot)
{
  uint32_t mask = tb->mask;
  uint32_t i = (uint32_t) tb->hash[slot] & mask;
  while ((uint32_t) tb->index[i] != slot + 1)
    i = (i + 1) & mask;
  for (;;)
    {
      uint32_t j = i;
      tb->index[i] = 0;
      for (;;)
        {
          j = (j + 1) & mask;
          uint64_t w = tb->index[j];
          if (!w)
            return;
          uint32_t home = (uint32_t) tb->hash[(uint32_t) w - 1] & mask;
          /* W may move to I if its home is not in (I, J].  */
          if (((j - home) & mask) >= ((j - i) & mask))
            {
              tb->index[i] = w;
              i = j;
              break;
            }
        }
    }
}

/* The event's context has no entry in thread T's table: give it one, a
   new one or, past N contexts, the one of the least count.  H is the
   context's hash.  Return 0 if the event cannot be aggregated.  */
static int __attribute__ ((noinline))
cce_table_insert (struct cce_thread *t, unsigned tag, uint64_t site,
                  uint64_t id, uint32_t nstack,
                  const struct cce_log_frame *frames, uint32_t flags,
                  uint64_t value, uint64_t h)
{
  struct cce_table *tb;
  size_t size = sizeof (struct cce_log_entry)
                + (size_t) nstack * sizeof (struct cce_log_frame);
  if (nstack > (UINT32_MAX / 4 - sizeof (struct cce_log_entry))
               / sizeof (struct cce_log_frame))
    return 0;                   /* an entry's size is 32 bits */
  for (;;)
    {
      tb = t->table;
      if (!tb)
        {
          if (!cce_table_slow (t, size))
            return 0;
          continue;
        }
      struct cce_log_entry *old = NULL;
      size_t need = size;
      if (tb->ss.used == tb->ss.cap)
        {
          old = tb->entry[cce_ss_peek (&tb->ss)];
          uint32_t room = cce_entry_room (old);
          if (room >= nstack)
            need = 0;
          else
            need = sizeof (struct cce_log_entry)
                   + (size_t) (nstack > 2 * room ? nstack : 2 * room)
                     * sizeof (struct cce_log_frame);
        }
      if ((size_t) (t->tabwin.limit - t->tabwin.next) < need)
        {
          if (!cce_table_slow (t, need))
            return 0;
          continue;
        }
      int replaced;
      uint32_t slot = cce_ss_take (&tb->ss, &replaced);
      struct cce_log_entry *e;
      if (replaced)
        {
          cce_index_remove (tb, slot);
          e = old;
          /* Invalid first: a death from here on leaves a torn entry,
             never a mix of two contexts.  */
          if (need)
            {
              atomic_store_explicit ((_Atomic uint32_t *) &e->mark,
                                     CCE_LOG_DEAD_MARK, memory_order_release);
              e = NULL;
            }
          else
            {
              atomic_store_explicit ((_Atomic uint32_t *) &e->mark, 0,
                                     memory_order_release);
              cce_barrier ();
            }
        }
      else
        e = NULL;
      if (!e)
        {
          e = (struct cce_log_entry *) t->tabwin.next;
          t->tabwin.next += need;
          e->size = (uint32_t) need;
          cce_barrier ();
        }
      cce_entry_put (e, tag, site, id, nstack, frames, flags,
                     tb->ss.count[slot], value, tb->ss.error[slot],
                     t->number);
      tb->entry[slot] = e;
      cce_index_put (tb, slot, h);
      return 1;
    }
}

/* The frames of a record with an empty ccStack (whose base may be
   NULL).  */
static const struct cce_log_frame cce_no_frames[1];

/* The record of an event of thread T at LEVEL (its level already raised)
   at log site SITE with the context ID, NSTACK entries at FRAMES: TAG, and
   VALUE if HAS_VALUE.  Then leave the level.  */
static inline __attribute__ ((always_inline)) void
cce_record_at (struct cce_thread *t, unsigned level, unsigned tag,
               uint64_t site, uint64_t id, uint32_t nstack,
               const struct cce_log_frame *frames, int has_value,
               uint64_t value)
{
  size_t size = cce_record_size (nstack, has_value);
  struct cce_window *w = &t->win[level < CCE_LOG_LEVELS ? level : 0];
  char *p = w->next;
  if (unlikely (level >= CCE_LOG_LEVELS
                || (uintptr_t) p + size > (uintptr_t) w->limit))
    {
      cce_log_slow (t, level, tag, site, id, nstack, frames, has_value,
                    value);
      return;
    }
  struct cce_log_record r = { 0, tag, site, id, nstack, t->number };
  cce_record_put (p, &r, frames, has_value, value);
  w->next = p + size;
  cce_barrier ();
  t->level = level;
}

/* Aggregate mode, an event at level 0 of the calling thread: the
   functions below take the event's tag, site and id, its ccStack FRAMES,
   and NF, its number of frames with the entry flags (CCE_ENTRY_VALUE:
   VALUE is the event's value) in the high half; six arguments, so that
   each can hand the event on with a tail call, and the lookup that
   finds the entry saves no register.  Each leaves the level.  */
#define CCE_NF(nstack, flags) ((uint64_t) (nstack) | (uint64_t) (flags) << 32)

/* The event's context has no entry yet, or the table is not made: give
   it one, or log a record if it cannot be aggregated.  */
static void __attribute__ ((noinline))
cce_aggregate_miss (unsigned tag, uint64_t site, uint64_t id,
                    const struct cce_log_frame *frames, uint64_t nf,
                    uint64_t value)
{
  struct cce_thread *t = &cce_self;
  uint32_t nstack = (uint32_t) nf, flags = (uint32_t) (nf >> 32);
  uint64_t h = cce_context_hash (tag, site, id, nstack, frames, flags);
  if (cce_table_insert (t, tag, site, id, nstack, frames, flags, value, h))
    {
      cce_barrier ();
      t->level = 0;
      return;
    }
  cce_record_at (t, 0, tag, site, id, nstack, frames,
                 (flags & CCE_ENTRY_VALUE) != 0, value);
}

/* One more event of SLOT, whose entry is E, in a table that is a
   Space-Saving summary.  */
static void __attribute__ ((noinline))
cce_aggregate_summary_hit (struct cce_table *tb, uint32_t slot,
                           struct cce_log_entry *e, int has_value,
                           uint64_t value)
{
  cce_ss_hit_summary (&tb->ss, slot);
  e->count = tb->ss.count[slot];
  if (has_value)
    e->value += value;
  cce_barrier ();
  cce_self.level = 0;
}

/* One more event of the entry of the event's context.  */
static void __attribute__ ((noinline))
cce_aggregate_at (unsigned tag, uint64_t site, uint64_t id,
                  const struct cce_log_frame *frames, uint64_t nf,
                  uint64_t value)
{
  struct cce_thread *t = &cce_self;
  uint32_t nstack = (uint32_t) nf, flags = (uint32_t) (nf >> 32);
  uint64_t h = cce_context_hash (tag, site, id, nstack, frames, flags);
  struct cce_table *tb = t->table;
  if (likely (tb != NULL))
    {
      uint32_t i = (uint32_t) h & tb->mask;
      uint64_t w;
      while ((w = tb->index[i]) != 0)
        {
          if ((w >> 32) == (h >> 32))
            {
              uint32_t slot = (uint32_t) w - 1;
              struct cce_log_entry *e = tb->entry[slot];
              if (likely (cce_entry_is (e, tag, site, id, nstack, frames,
                                        flags)))
                {
                  if (unlikely (tb->ss.summary))
                    {
                      cce_aggregate_summary_hit (tb, slot, e,
                                                 flags & CCE_ENTRY_VALUE,
                                                 value);
                      return;
                    }
                  e->count = ++tb->ss.count[slot];
                  if (flags & CCE_ENTRY_VALUE)
                    e->value += value;
                  cce_barrier ();
                  t->level = 0;
                  return;
                }
            }
          i = (i + 1) & tb->mask;
        }
    }
  cce_aggregate_miss (tag, site, id, frames, nf, value);
}

/* An event at log site SITE with the calling thread's context: a record
   of TAG (and of VALUE if HAS_VALUE), or in aggregate mode one more
   event of its entry.  A signal handler that interrupts this leaves the
   id and the entries below the top as they were, and logs at the next
   level.  The fast path of a record makes no call, so it saves no
   register.  HAS_ID: the id is ID (code that keeps it in a register),
   not the TLS word.  */
static inline __attribute__ ((always_inline)) void
cce_event_at (unsigned tag, uint64_t site, int has_value, uint64_t value,
              int has_id, uint64_t id_given)
{
  struct cce_thread *t = &cce_self;
  unsigned level = t->level;
  t->level = level + 1;
  cce_barrier ();
  uint64_t id = has_id ? id_given : __cce_tls[CCE_TLS_ID];
  uint32_t nstack;
  const struct cce_log_frame *frames = cce_tls_stack (&nstack);
  if (!nstack)
    frames = cce_no_frames;
  if (cce_aggregate && level == 0)
    {
      cce_aggregate_at (tag, site, id, frames,
                        CCE_NF (nstack, has_value ? CCE_ENTRY_VALUE : 0),
                        value);
      return;
    }
  cce_record_at (t, level, tag, site, id, nstack, frames, has_value, value);
}

/* cce_log (TAG) at the instrumented log site SITE.  */
CCE_EXPORT void
__cce_log_at_v6 (unsigned tag, uint64_t site)
{
  cce_event_at (tag, site, 0, 0, 0, 0);
}

/* cce_log (TAG) at the instrumented log site SITE of code that keeps
   the id in a register: ID.  */
CCE_EXPORT void
__cce_log_id_v6 (unsigned tag, uint64_t site, uint64_t id)
{
  cce_event_at (tag, site, 0, 0, 1, id);
}

/* cce_count (TAG, VALUE) at the instrumented log site SITE, with id
   ID.  */
CCE_EXPORT void
__cce_count_id_v6 (unsigned tag, uint64_t value, uint64_t site, uint64_t id)
{
  cce_event_at (tag, site, 1, value, 1, id);
}

/* cce_log (TAG) from code the plugin did not rewrite: no site.  */
CCE_EXPORT void
cce_log (unsigned tag)
{
  cce_event_at (tag, CCE_SITE_NONE, 0, 0, 0, 0);
}

/* cce_count (TAG, VALUE) at the instrumented log site SITE.  */
CCE_EXPORT void
__cce_count_at_v6 (unsigned tag, uint64_t value, uint64_t site)
{
  cce_event_at (tag, site, 1, value, 0, 0);
}

/* cce_count (TAG, VALUE) from code the plugin did not rewrite.  */
CCE_EXPORT void
cce_count (unsigned tag, uint64_t value)
{
  cce_event_at (tag, CCE_SITE_NONE, 1, value, 0, 0);
}

/* The record of an interrupted instruction (cce-format.h): TAG is
   CCE_TAG_SIGNAL + a signal number or CCE_TAG_SAMPLE, WORD the PC word of
   the instruction, ID the id that goes with it (cce_context_word).
   Called by a signal handler before it pushes anything, so that the
   ccStack is the interrupted code's.  */
void
cce_log_pc (unsigned tag, uint64_t word, uint64_t id)
{
  cce_event_at (tag, word, 0, 0, 1, id);
}

/* Print "cce: NAME=VALUE MSG" for a bad value of the environment
   variable NAME.  */
static void
cce_bad_env (const char *name, const char *env, const char *msg)
{
  char what[256];
  char *q = what, *end = what + sizeof what - 1;
  const char *p;
  cce_str_cat (&q, end, name);
  cce_str_cat (&q, end, "=");
  for (p = env; *p && q < end - 120; p++)
    *q++ = *p;
  if (*p)
    cce_str_cat (&q, end, "...");
  cce_str_cat (&q, end, msg);
  *q = '\0';
  cce_complain (what, NULL, 0);
}

/* CCE_MODE (log or aggregate) and CCE_MAX_CONTEXTS, at load time.  */
void
cce_log_init (void)
{
  const char *env = cce_getenv ("CCE_MODE");
  if (env && *env)
    {
      if (strcmp (env, "aggregate") == 0)
        cce_aggregate = 1;
      else if (strcmp (env, "log") != 0)
        cce_bad_env ("CCE_MODE", env,
                     " is not a mode (log or aggregate); mode is log");
    }
  env = cce_getenv ("CCE_MAX_CONTEXTS");
  if (env && *env)
    {
      unsigned long n = 0;
      const char *p;
      for (p = env; *p >= '0' && *p <= '9' && n <= CCE_MAX_CONTEXTS_LIMIT;
           p++)
        n = n * 10 + (unsigned long) (*p - '0');
      if (*p || n < 1 || n > CCE_MAX_CONTEXTS_LIMIT)
        cce_bad_env ("CCE_MAX_CONTEXTS", env,
                     " is not a number of contexts (1 to 4194304);"
                     " it is 65536");
      else
        cce_max_contexts = (uint32_t) n;
    }
}

/* ------------------------------------------------------------------------
   Thread exit and fork.
   ------------------------------------------------------------------------ */

/* Thread T exits (its signals are blocked): unmap its windows and its
   table (the entries are in the file).  What it logs later (other key
   destructors) goes to new ones.  */
void
cce_log_thread_exit (struct cce_thread *t)
{
  for (unsigned i = 0; i < CCE_LOG_LEVELS; i++)
    {
      cce_window_drop (&t->win[i]);
      t->win[i].chunks = 0;
    }
  cce_table_drop (t, 1);
}

/* Signals blocked across fork by cce_log_fork_prepare.  */
static __thread sigset_t cce_fork_saved CCE_TLS;

/* fork: hold cce_lock across it, so that the child's copy of the file
   state is consistent.  */
void
cce_log_fork_prepare (void)
{
  sigset_t all;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &cce_fork_saved);
  cce_self.locked = 1;
  cce_barrier ();
  pthread_mutex_lock (&cce_lock);
}

/* fork, in the parent: let go.  */
void
cce_log_fork_parent (void)
{
  pthread_mutex_unlock (&cce_lock);
  cce_barrier ();
  cce_self.locked = 0;
  pthread_sigmask (SIG_SETMASK, &cce_fork_saved, NULL);
}

/* fork, in the child: let go of the parent's file and of the windows into
   it; the child's records go to a file of its own.  (A log that is not a
   regular file is shared: the child's records go to the same stream, or
   to nowhere for /dev/null, with thread numbers of their own.)  A window becomes
   private scratch memory where it was, so that a cce_log the fork
   interrupted (fork from a signal handler) finishes harmlessly; the next
   record starts a span of the child's file.  Thread numbers go on from
   the parent's.  The windows of the parent's other threads stay mapped
   in the child, unused.  */
void
cce_log_fork_child (void)
{
  struct cce_thread *t = &cce_self;
  pthread_mutex_init (&cce_lock, NULL);
  t->locked = 0;
  cce_forked = 1;
  if (cce_sink != CCE_SINK_FILE)
    {
      pthread_sigmask (SIG_SETMASK, &cce_fork_saved, NULL);
      return;
    }
  for (unsigned i = 0; i < CCE_LOG_LEVELS; i++)
    {
      struct cce_window *w = &t->win[i];
      if (w->base
          && mmap (w->base, w->bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
             == MAP_FAILED)
        {
          /* Cannot detach: drop the window (an interrupted cce_log would
             fault, but it cannot write into the parent's file).  */
          munmap (w->base, w->bytes);
          w->base = NULL;
        }
      w->limit = NULL;
      w->chunks = 0;
    }
  cce_table_drop (t, 0);
  if (cce_fd >= 0)
    close (cce_fd);
  cce_fd = -1;
  cce_sink = CCE_SINK_CLOSED;
  cce_file_end = 0;
  pthread_sigmask (SIG_SETMASK, &cce_fork_saved, NULL);
}
