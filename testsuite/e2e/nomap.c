/* nomap.c -- an LD_PRELOAD shim for nomap.sh: mmap of a file shared
   fails with ENODEV, as on a file system that cannot map files.  */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sys/mman.h>
void *mmap (void *a, size_t n, int prot, int flags, int fd, off_t off)
{
  static void *(*real) (void *, size_t, int, int, int, off_t);
  if ((flags & MAP_SHARED) && fd >= 0) { errno = ENODEV; return MAP_FAILED; }
  if (!real) real = dlsym (RTLD_NEXT, "mmap");
  return real (a, n, prot, flags, fd, off);
}
