/* heap.c -- allocations of every kind from many contexts, for e2e/heap.sh:
   malloc, calloc, realloc chains, reallocarray, the aligned allocators,
   strdup and getline (the C library allocates), blocks allocated in one
   thread and freed in another, a leak, a block a constructor allocated
   that main frees, and a peak of 2 MiB.  The same allocations in every run; no
   allocator call is a tail call, so that the program's call is where the
   allocator returns.

   Usage: heap [ROUNDS]  */

#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__ ((noinline, noclone))

static volatile unsigned long sink;
static void *early;
static void *kept[64];

static void
use (void *p)
{
  sink += (unsigned long) (p != NULL);
}

/* Before main.  */
__attribute__ ((constructor)) static void
make_early (void)
{
  early = malloc (40);
  use (early);
}

NOINLINE static void *
leaf_alloc (size_t n)
{
  void *p = malloc (n);
  use (p);
  return p;
}

NOINLINE static void *
zeroed (size_t n)
{
  void *p = calloc (n, 4);
  use (p);
  return p;
}

/* An allocator call in tail position: a jump there but under async,
   which keeps it a call, so that the block counts here.  */
NOINLINE static void *
tail_alloc (size_t n)
{
  return malloc (n);
}

NOINLINE static void
chain (int rounds)
{
  char *p = NULL;
  for (int i = 1; i <= rounds; i++)
    {
      p = realloc (p, (size_t) i * 24);
      use (p);
    }
  p = reallocarray (p, 3, 100);
  use (p);
  free (p);
}

NOINLINE static void
aligned (void)
{
  void *a = memalign (64, 100);
  use (a);
  void *b = aligned_alloc (256, 512);
  use (b);
  void *c = NULL;
  if (posix_memalign (&c, 32, 72) == 0)
    use (c);
  void *d = valloc (10);
  use (d);
  /* realloc of an aligned block.  */
  a = realloc (a, 300);
  use (a);
  sink += malloc_usable_size (b) >= 512;
  free (a);
  free (b);
  free (c);
  free (d);
}

NOINLINE static void
strings (void)
{
  char *s = strdup ("a string the C library copies");
  use (s);
  char *t = strndup (s, 5);
  use (t);
  free (s);
  free (t);
  FILE *f = fmemopen ((void *) "one\ntwo\nthree\n", 14, "r");
  if (f)
    {
      char *line = NULL;
      size_t cap = 0;
      while (getline (&line, &cap, f) > 0)
        sink++;
      free (line);
      fclose (f);
    }
}

NOINLINE static void
depth (int d, size_t n)
{
  if (d > 0)
    {
      depth (d - 1, n);
      sink++;
      return;
    }
  void *p = leaf_alloc (n);
  free (p);
}

/* The heap's peak: 2 MiB at once, then freed.  */
NOINLINE static void
grow (void)
{
  void *big[32];
  for (int i = 0; i < 32; i++)
    {
      big[i] = malloc (64 * 1024);
      use (big[i]);
    }
  for (int i = 0; i < 32; i++)
    free (big[i]);
}

/* A leak: never freed.  */
NOINLINE static void
leak (int i)
{
  kept[i % 64] = leaf_alloc (100 + (size_t) i);
}

struct handoff
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  void *blocks[16];
  int n, done;
};

static struct handoff ho = { PTHREAD_MUTEX_INITIALIZER,
                             PTHREAD_COND_INITIALIZER, { 0 }, 0, 0 };

NOINLINE static void *
producer (void *arg)
{
  (void) arg;
  for (int i = 0; i < 16; i++)
    {
      void *p = zeroed ((size_t) i + 1);
      pthread_mutex_lock (&ho.lock);
      ho.blocks[ho.n++] = p;
      pthread_cond_signal (&ho.cond);
      pthread_mutex_unlock (&ho.lock);
    }
  void *mine = leaf_alloc (77);
  free (mine);
  return NULL;
}

NOINLINE static void *
consumer (void *arg)
{
  (void) arg;
  int got = 0;
  while (got < 16)
    {
      pthread_mutex_lock (&ho.lock);
      while (ho.n == got)
        pthread_cond_wait (&ho.cond, &ho.lock);
      int n = ho.n;
      pthread_mutex_unlock (&ho.lock);
      for (; got < n; got++)
        if (got % 4)            /* every fourth one stays: live at exit */
          free (ho.blocks[got]);
    }
  return NULL;
}

int
main (int argc, char **argv)
{
  int rounds = argc > 1 ? atoi (argv[1]) : 3;
  free (early);
  for (int r = 0; r < rounds; r++)
    {
      chain (5 + r);
      aligned ();
      strings ();
      depth (3, 50);
      depth (7, 60);
      leak (r);
    }
  grow ();
  pthread_t a, b;
  pthread_create (&b, NULL, consumer, NULL);
  pthread_create (&a, NULL, producer, NULL);
  pthread_join (a, NULL);
  pthread_join (b, NULL);
  free (zeroed (0));
  free (tail_alloc (48));
  free (NULL);
  return 0;
}
