/* rtalloc.c -- libcce never calls the program's allocator.  The program
   replaces malloc, calloc, realloc and free (as redis does with jemalloc),
   counts the calls made from inside libcce's code, and makes threads at
   some depth of the ccStack, logging in each.  */

#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cce.h>

extern void *__libc_malloc (size_t);
extern void *__libc_calloc (size_t, size_t);
extern void *__libc_realloc (void *, size_t);
extern void __libc_free (void *);

/* The executable segments of libcce, found before the first thread.  */
static uintptr_t lo[4], hi[4];
static int nseg;
static int from_cce;

static int
find_libcce (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  (void) data;
  if (!info->dlpi_name || !strstr (info->dlpi_name, "libcce"))
    return 0;
  for (int i = 0; i < info->dlpi_phnum && nseg < 4; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD
        && (info->dlpi_phdr[i].p_flags & PF_X))
      {
        lo[nseg] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        hi[nseg] = lo[nseg] + info->dlpi_phdr[i].p_memsz;
        nseg++;
      }
  return 1;
}

static void
note (void *ra)
{
  for (int i = 0; i < nseg; i++)
    if ((uintptr_t) ra >= lo[i] && (uintptr_t) ra < hi[i])
      __atomic_add_fetch (&from_cce, 1, __ATOMIC_RELAXED);
}

void *
malloc (size_t n)
{
  note (__builtin_return_address (0));
  return __libc_malloc (n);
}

void *
calloc (size_t n, size_t m)
{
  note (__builtin_return_address (0));
  return __libc_calloc (n, m);
}

void *
realloc (void *p, size_t n)
{
  note (__builtin_return_address (0));
  return __libc_realloc (p, n);
}

void
free (void *p)
{
  note (__builtin_return_address (0));
  __libc_free (p);
}

static void *
worker (void *arg)
{
  cce_log ((unsigned) (uintptr_t) arg);
  return NULL;
}

static void __attribute__ ((noinline))
spawn (int depth)
{
  if (depth > 0)
    {
      spawn (depth - 1);
      __asm__ volatile ("" ::: "memory");
      return;
    }
  for (int i = 0; i < 8; i++)
    {
      pthread_t t;
      if (pthread_create (&t, NULL, worker, (void *) (uintptr_t) (i + 1)))
        {
          puts ("pthread_create failed");
          return;
        }
      pthread_join (t, NULL);
    }
}

int
main (void)
{
  dl_iterate_phdr (find_libcce, NULL);
  if (nseg == 0)
    {
      puts ("libcce is not a shared object of this program");
      return 2;
    }
  cce_log (100);
  spawn (20);
  printf ("calls of the allocator from libcce: %d\n", from_cce);
  return from_cce != 0;
}
