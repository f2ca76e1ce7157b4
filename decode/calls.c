/* calls.c -- what a call instruction of a module calls, by name: for the
   records of threads stopped in code outside the program, which the
   runtime places by the call that led there (cce-format.h, PC words
   with CCE_PC_CALLER).  The call is read from the module's code, as a
   disassembler would: on x86-64 a "call rel32" to an entry of the
   procedure linkage table, or a "call *slot(%rip)" through the global
   offset table (-fno-plt); the slot's dynamic relocation names the
   function.  A call of a function of the module itself is told apart
   (cced_calls_callee).  Anything else is not named.  */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>
#include <libelf.h>
#include "decode-internal.h"

struct code
{
  uint64_t addr;
  size_t len;
  unsigned char *bytes;
  int plt;              /* a section of procedure linkage table entries */
};

struct named
{
  uint64_t addr;
  char *name;
};

struct cced_calls
{
  struct code *code;
  size_t ncode;
  struct named *slots;  /* GOT slot -> function, by address */
  size_t nslots;
  struct named *plt;    /* PLT entry -> function, by address */
  size_t nplt;
};

void
cced_calls_free (struct cced_calls *c)
{
  size_t i;

  if (!c)
    return;
  for (i = 0; i < c->ncode; i++)
    free (c->code[i].bytes);
  for (i = 0; i < c->nslots; i++)
    free (c->slots[i].name);
  for (i = 0; i < c->nplt; i++)
    free (c->plt[i].name);
  free (c->code);
  free (c->slots);
  free (c->plt);
  free (c);
}

static int
named_cmp (const void *pa, const void *pb)
{
  const struct named *a = pa, *b = pb;
  return (a->addr > b->addr) - (a->addr < b->addr);
}

static const struct named *
named_find (const struct named *v, size_t n, uint64_t addr)
{
  struct named key = { addr, NULL };
  return n ? bsearch (&key, v, n, sizeof *v, named_cmp) : NULL;
}

static int
add_named (struct named **v, size_t *n, size_t *alloc, uint64_t addr,
           const char *name)
{
  struct named *nv = grow_array (*v, alloc, *n + 1, sizeof **v);
  char *copy = strdup (name);
  if (!nv || !copy)
    {
      if (nv)
        *v = nv;
      free (copy);
      return -1;
    }
  *v = nv;
  nv[*n].addr = addr;
  nv[*n].name = copy;
  (*n)++;
  return 0;
}

/* The bytes of code at [ADDR, ADDR + LEN) in C, or NULL.  */
static const unsigned char *
code_at (const struct cced_calls *c, uint64_t addr, size_t len,
         const struct code **in)
{
  size_t i;
  for (i = 0; i < c->ncode; i++)
    if (addr >= c->code[i].addr && addr - c->code[i].addr <= c->code[i].len
        && c->code[i].len - (addr - c->code[i].addr) >= len)
      {
        if (in)
          *in = &c->code[i];
        return c->code[i].bytes + (addr - c->code[i].addr);
      }
  return NULL;
}

static int32_t
rel32 (const unsigned char *p)
{
  uint32_t v = (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16
               | (uint32_t) p[3] << 24;
  return (int32_t) v;
}

/* The GOT slots that the dynamic relocations of ELF name (function
   slots and data slots of functions).  */
static int
read_slots (Elf *elf, struct cced_calls *c)
{
  Elf_Scn *scn = NULL;
  size_t alloc = 0;

  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr sh, symsh;
      Elf_Scn *symscn;
      Elf_Data *rd, *sd;
      size_t i, n;

      if (!gelf_getshdr (scn, &sh) || sh.sh_type != SHT_RELA
          || !sh.sh_entsize)
        continue;
      symscn = elf_getscn (elf, sh.sh_link);
      if (!symscn || !gelf_getshdr (symscn, &symsh)
          || symsh.sh_type != SHT_DYNSYM)
        continue;
      rd = elf_getdata (scn, NULL);
      sd = elf_getdata (symscn, NULL);
      if (!rd || !sd)
        continue;
      n = sh.sh_size / sh.sh_entsize;
      for (i = 0; i < n; i++)
        {
          GElf_Rela r;
          GElf_Sym sym;
          const char *name;
          unsigned type;
          if (!gelf_getrela (rd, (int) i, &r))
            break;
          type = GELF_R_TYPE (r.r_info);
          if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT)
            continue;
          if (!gelf_getsym (sd, (int) GELF_R_SYM (r.r_info), &sym))
            continue;
          name = elf_strptr (elf, symsh.sh_link, sym.st_name);
          if (!name || !*name)
            continue;
          if (add_named (&c->slots, &c->nslots, &alloc, r.r_offset, name) < 0)
            return -1;
        }
    }
  if (c->nslots)
    qsort (c->slots, c->nslots, sizeof *c->slots, named_cmp);
  return 0;
}

/* The PLT entries of the PLT sections of C: each jumps through its slot
   ("jmp *slot(%rip)", ff 25, after an endbr64 and a bnd prefix where
   there are).  */
static int
read_plt (struct cced_calls *c)
{
  size_t alloc = 0, i, off;

  for (i = 0; i < c->ncode; i++)
    {
      const struct code *k = &c->code[i];
      if (!k->plt)
        continue;
      for (off = 0; off + 16 <= k->len; off += 16)
        {
          size_t j;
          for (j = 0; j + 6 <= 16; j++)
            if (k->bytes[off + j] == 0xff && k->bytes[off + j + 1] == 0x25)
              {
                uint64_t slot = k->addr + off + j + 6
                                + (int64_t) rel32 (k->bytes + off + j + 2);
                const struct named *s = named_find (c->slots, c->nslots,
                                                    slot);
                if (s && add_named (&c->plt, &c->nplt, &alloc,
                                    k->addr + off, s->name) < 0)
                  return -1;
                break;
              }
        }
    }
  if (c->nplt)
    qsort (c->plt, c->nplt, sizeof *c->plt, named_cmp);
  return 0;
}

struct cced_calls *
cced_calls_read (Elf *elf, size_t shstrndx)
{
  struct cced_calls *c = calloc (1, sizeof *c);
  Elf_Scn *scn = NULL;
  size_t alloc = 0;
  GElf_Ehdr eh;

  if (!c)
    return NULL;
  if (!gelf_getehdr (elf, &eh) || eh.e_machine != EM_X86_64)
    return c;                   /* no call is named */
  while ((scn = elf_nextscn (elf, scn)) != NULL)
    {
      GElf_Shdr sh;
      Elf_Data *d;
      const char *name;
      struct code *k;
      if (!gelf_getshdr (scn, &sh) || sh.sh_type != SHT_PROGBITS
          || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
        continue;
      d = elf_getdata (scn, NULL);
      if (!d || !d->d_buf || d->d_size != sh.sh_size)
        continue;
      name = elf_strptr (elf, shstrndx, sh.sh_name);
      k = grow_array (c->code, &alloc, c->ncode + 1, sizeof *c->code);
      if (!k)
        goto fail;
      c->code = k;
      k = &c->code[c->ncode];
      if (!(k->bytes = malloc (sh.sh_size)))
        goto fail;
      memcpy (k->bytes, d->d_buf, sh.sh_size);
      k->addr = sh.sh_addr;
      k->len = sh.sh_size;
      k->plt = name && strncmp (name, ".plt", 4) == 0;
      c->ncode++;
    }
  if (read_slots (elf, c) < 0 || read_plt (c) < 0)
    goto fail;
  return c;

fail:
  cced_calls_free (c);
  return NULL;
}

const char *
cced_calls_callee (const struct cced_calls *c, uint64_t ret)
{
  const unsigned char *p;
  const struct named *n;

  if (!c)
    return NULL;
  /* call rel32: e8 and 4 bytes.  */
  if (ret >= 5 && (p = code_at (c, ret - 5, 5, NULL)) && p[0] == 0xe8)
    {
      uint64_t target = ret + (int64_t) rel32 (p + 1);
      const struct code *in;
      if ((n = named_find (c->plt, c->nplt, target)))
        return n->name;
      /* A function of the module itself: the thread is outside the
         module only if that function left it by a tail call (a jump),
         and its frame is gone.  */
      if (code_at (c, target, 1, &in) && !in->plt)
        return "";
    }
  /* call *slot(%rip): ff 15 and 4 bytes.  */
  if (ret >= 6 && (p = code_at (c, ret - 6, 6, NULL)) && p[0] == 0xff
      && p[1] == 0x15)
    {
      uint64_t slot = ret + (int64_t) rel32 (p + 2);
      if ((n = named_find (c->slots, c->nslots, slot)))
        return n->name;
    }
  return NULL;
}
