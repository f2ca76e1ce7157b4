/* wordfreq.c -- the example of heap profiles (make -C examples heap):
   counts the words of a generated text in a hash table and prints the
   most frequent one.  It has a leak: free_table frees the entries but
   not the words they hold.

   Usage: wordfreq [LINES]  */

#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry
{
  struct entry *next;
  char *word;
  unsigned long count;
};

#define BUCKETS 1024
static struct entry *table[BUCKETS];

static unsigned
hash (const char *s)
{
  unsigned h = 5381;
  while (*s)
    h = h * 33 + (unsigned char) *s++;
  return h % BUCKETS;
}

static void
count_word (const char *w)
{
  struct entry **b = &table[hash (w)], *e;
  for (e = *b; e; e = e->next)
    if (strcmp (e->word, w) == 0)
      {
        e->count++;
        return;
      }
  e = malloc (sizeof *e);
  e->word = strdup (w);
  e->count = 1;
  e->next = *b;
  *b = e;
}

/* LINES lines of words, in memory.  */
static char *
make_text (int lines, size_t *len)
{
  char *text = NULL;
  FILE *f = open_memstream (&text, len);
  for (int i = 0; i < lines; i++)
    fprintf (f, "w%d w%d the w%d\n", i % 97, i % 13, i % 1009);
  fclose (f);
  return text;
}

static void
count_text (const char *text, size_t len)
{
  FILE *f = fmemopen ((void *) text, len, "r");
  char *line = NULL;
  size_t cap = 0;
  while (getline (&line, &cap, f) > 0)
    for (char *save, *w = strtok_r (line, " \n", &save); w;
         w = strtok_r (NULL, " \n", &save))
      count_word (w);
  free (line);
  fclose (f);
}

static void
free_table (void)
{
  for (int i = 0; i < BUCKETS; i++)
    while (table[i])
      {
        struct entry *e = table[i];
        table[i] = e->next;
        free (e);               /* the leak: e->word is not freed */
      }
}

int
main (int argc, char **argv)
{
  int lines = argc > 1 ? atoi (argv[1]) : 100000;
  size_t len;
  char *text = make_text (lines, &len);
  count_text (text, len);
  free (text);
  struct entry *best = NULL;
  for (int i = 0; i < BUCKETS; i++)
    for (struct entry *e = table[i]; e; e = e->next)
      if (!best || e->count > best->count)
        best = e;
  if (best)
    printf ("%s %lu\n", best->word, best->count);
  free_table ();
  return 0;
}
