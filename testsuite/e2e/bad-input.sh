#!/bin/sh
# bad-input.sh -- cce-decode and the plugin on bad input.
#
# Each bad input must give a non-zero exit status and exactly one error
# line on standard error that names the offending file (or option value):
#   - a program that is not ELF;
#   - an ELF program without a cce dictionary (a copy of /bin/true);
#   - a log cut short at its end (the complete records before the cut are
#     still printed) and a log cut in the middle of its header;
#   - a log written by another build of the program (same program after a
#     trivial source change);
#   - a log that does not exist;
#   - an unknown --format.
# A log with a torn record is no bad input: exit status 0 and one line
# on standard error that says so.
# A shared object whose source defines main must build and work.
# The plugin on a compile without -flto must fail with a diagnostic naming
# -flto.  And the plugin given an unknown argument (-fplugin-arg-cce-bogus=1),
# or a bad value (-fplugin-arg-cce-fold=99), must fail the compilation with
# a diagnostic naming the argument, without an internal compiler error.
#
# Environment: see run-e2e.sh.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

[ -f "$CCE_PLUGIN" ] || { echo "ERROR: no plugin $CCE_PLUGIN"; exit 1; }
[ -x "$CCE_DECODE" ] || { echo "ERROR: no decoder $CCE_DECODE"; exit 1; }
[ -f /bin/true ] || { echo "SKIP: no /bin/true"; exit 77; }

e2e_tmpdir bad || exit 1


failed=0
ok () { echo "ok:   $*"; }
bad () { echo "FAIL: $*"; failed=$((failed + 1)); }

# decode_error WHAT NEEDLE ARGS...: cce-decode ARGS must exit non-zero with
# exactly one line on stderr, containing NEEDLE.
decode_error () {
  what=$1 needle=$2
  shift 2
  "$CCE_DECODE" "$@" >"$tmp/out" 2>"$tmp/err"
  st=$?
  nl=$(awk 'END { print NR }' "$tmp/err")
  if [ "$st" -eq 0 ]; then
    bad "$what: exit status 0"
  elif [ "$st" -ge 126 ]; then
    bad "$what: exit status $st (crash?)"
  elif [ "$nl" -ne 1 ]; then
    bad "$what: $nl lines on stderr, want 1:"
    head -n 10 "$tmp/err" | sed 's/^/    /'
  elif ! grep -F -q -e "$needle" "$tmp/err"; then
    bad "$what: the error does not name '$needle': $(cat "$tmp/err")"
  else
    ok "$what: $(cat "$tmp/err")"
  fi
}

# ---- a real program and log -------------------------------------------------
cat >"$tmp/prog.c" <<'EOF'
#include <cce.h>
static volatile int sink;
__attribute__ ((noinline)) static void leaf (unsigned t) { cce_log (t); }
__attribute__ ((noinline)) static void mid (unsigned t) { leaf (t); sink++; }
int
main (void)
{
  for (unsigned i = 0; i < 5; i++)
    mid (i);
  leaf (10);
  cce_log (11);
  return 0;
}
EOF
# The same program after a trivial change: one more call.
awk '{ print } /cce_log \(11\);/ { print "  leaf (12);" }' "$tmp/prog.c" \
  >"$tmp/prog2.c"
cmp -s "$tmp/prog.c" "$tmp/prog2.c" && { echo "ERROR: sed failed"; exit 1; }

if ! cce_cc -O2 "$tmp/prog.c" -o "$tmp/prog" >"$tmp/cc.log" 2>&1 \
   || ! cce_cc -O2 "$tmp/prog2.c" -o "$tmp/prog2" >>"$tmp/cc.log" 2>&1; then
  head -n 40 "$tmp/cc.log"
  echo "FAIL: cannot build the test program"
  exit 1
fi
if ! CCE_LOG="$tmp/good.log" "$tmp/prog" || [ ! -s "$tmp/good.log" ]; then
  echo "FAIL: the test program did not write a log"
  exit 1
fi
if ! "$CCE_DECODE" --format=records "$tmp/prog" "$tmp/good.log" \
     >"$tmp/full.txt" 2>"$tmp/full.err" || [ -s "$tmp/full.err" ]; then
  cat "$tmp/full.err"
  echo "FAIL: cce-decode fails on a good log"
  exit 1
fi
nrec=$(wc -l <"$tmp/full.txt")
[ "$nrec" -eq 7 ] || bad "good log: $nrec records decoded, want 7"

# ---- cce-decode on bad input ----------------------------------------------------
printf 'this is not an ELF file\n' >"$tmp/not-elf"
decode_error "program is not ELF" "$tmp/not-elf" \
  --format=records "$tmp/not-elf" "$tmp/good.log"

cp /bin/true "$tmp/true-copy"
decode_error "ELF program without a dictionary" "$tmp/true-copy" \
  --format=records "$tmp/true-copy" "$tmp/good.log"

decode_error "log that does not exist" "$tmp/no-such.log" \
  --format=records "$tmp/prog" "$tmp/no-such.log"

size=$(wc -c <"$tmp/good.log")
head -c $((size - 5)) "$tmp/good.log" >"$tmp/cut.log"
decode_error "log cut short" "$tmp/cut.log" \
  --format=records "$tmp/prog" "$tmp/cut.log"
ncut=$(wc -l <"$tmp/out")
head -n "$ncut" "$tmp/full.txt" >"$tmp/cut.want"
if cmp -s "$tmp/cut.want" "$tmp/out"; then
  ok "log cut short: the $ncut complete records before the cut are printed"
else
  bad "log cut short: not the complete records:"
  diff -u "$tmp/cut.want" "$tmp/out" | head -n 20 | sed 's/^/    /'
fi

head -c 10 "$tmp/good.log" >"$tmp/cut-header.log"
decode_error "log cut in its header" "$tmp/cut-header.log" \
  --format=records "$tmp/prog" "$tmp/cut-header.log"
[ -s "$tmp/out" ] && bad "log cut in its header: records printed"

# The log of prog decoded with prog2: the error may name either file.
"$CCE_DECODE" --format=records "$tmp/prog2" "$tmp/good.log" \
  >"$tmp/out" 2>"$tmp/err"
st=$?
if [ "$st" -eq 0 ] || [ "$st" -ge 126 ]; then
  bad "log of another build: exit status $st"
elif [ "$(awk 'END { print NR }' "$tmp/err")" -ne 1 ]; then
  bad "log of another build: $(awk 'END { print NR }' "$tmp/err") lines on stderr, want 1"
  head -n 10 "$tmp/err" | sed 's/^/    /'
elif ! grep -F -q -e "$tmp/good.log" -e "$tmp/prog2" "$tmp/err"; then
  bad "log of another build: the error names neither file: $(cat "$tmp/err")"
else
  ok "log of another build: $(cat "$tmp/err")"
fi
[ -s "$tmp/out" ] && bad "log of another build: records printed"

# A torn record is no error: the first record of the first span without
# its mark (the process died while writing it) is skipped with one line,
# exit status 0.  The records after it in its span go with it.
hsize=$(od -An -tu4 -j12 -N4 "$tmp/good.log" | tr -d ' ')
cp "$tmp/good.log" "$tmp/torn.log"
printf '\0\0\0\0' | dd of="$tmp/torn.log" bs=1 seek=$((hsize + 16)) \
  conv=notrunc 2>/dev/null
"$CCE_DECODE" --format=records "$tmp/prog" "$tmp/torn.log" \
  >"$tmp/out" 2>"$tmp/err"
st=$?
if [ "$st" -ne 0 ]; then
  bad "torn record: exit status $st: $(cat "$tmp/err")"
elif [ "$(cat "$tmp/err")" != "cce-decode: $tmp/torn.log: 1 torn record skipped (the process died while writing it)" ]; then
  bad "torn record: not the one line expected: $(cat "$tmp/err")"
else
  ok "torn record: exit status 0, $(cat "$tmp/err")"
fi

decode_error "unknown --format" "bogus" \
  --format=bogus "$tmp/prog" "$tmp/good.log"

# ---- the plugin on bad arguments, and without -flto ---------------------------------
# compile_error WHAT WORD COMMAND...: COMMAND, a compilation, fails with
# one error line, which says WORD, and without an internal compiler error.
compile_error () {
  what=$1 word=$2
  shift 2
  "$@" >"$tmp/cerr.log" 2>&1
  st=$?
  if grep -q "internal compiler error" "$tmp/cerr.log"; then
    bad "$what: internal compiler error"
    head -n 20 "$tmp/cerr.log" | sed 's/^/    /'
  elif [ "$st" -eq 0 ]; then
    bad "$what: the compilation succeeded"
  elif ! grep -q -- "$word" "$tmp/cerr.log"; then
    bad "$what: no diagnostic says '$word':"
    head -n 20 "$tmp/cerr.log" | sed 's/^/    /'
  elif [ "$(grep -c 'error' "$tmp/cerr.log")" -ne 1 ]; then
    bad "$what: $(grep -c 'error' "$tmp/cerr.log") error lines, want 1:"
    head -n 20 "$tmp/cerr.log" | sed 's/^/    /'
  else
    ok "$what: $(grep -- "$word" "$tmp/cerr.log" | head -n 1)"
  fi
}
for arg in bogus=1 fold=99 fold keep=2 keep clobber=yes clobber guess=9 guess=x guess \
           async=2 async=yes layout=2 layout; do
  compile_error "plugin argument '$arg'" "${arg%%=*}" \
    cce_cc -O2 "-fplugin-arg-cce-$arg" "$tmp/prog.c" -o "$tmp/prog-badarg"
done
# A flag given a value is refused too.
compile_error "plugin argument 'stats=1'" stats \
  cce_cc -O2 -fplugin-arg-cce-stats=1 "$tmp/prog.c" -o "$tmp/prog-badarg"

# The plugin's help (cc1 --help) describes every option that the
# unknown-argument error names.
cc1=$($CC -print-prog-name=cc1)
"$cc1" -fplugin="$CCE_PLUGIN" --help </dev/null >"$tmp/help" 2>&1
known=$(cce_cc -O2 -fplugin-arg-cce-bogus "$tmp/prog.c" -o "$tmp/prog-badarg" \
          2>&1 | sed -n 's/.*known: //p' | head -n 1)
if [ -z "$known" ]; then
  bad "the unknown-argument error lists no options"
else
  missing=
  for k in $(echo "$known" | sed 's/, / /g'); do
    grep -q -F -- "  $k " "$tmp/help" || missing="$missing $k"
  done
  if [ -n "$missing" ]; then
    bad "the plugin's help lacks:$missing"
  else
    ok "the plugin's help describes every option: $known"
  fi
fi

# The id in a register is for executables.  Known only at the link: lto-wrapper and the linker add their own lines
# after the plugin's one.  The same for a shared object whose source defines a public main, which the
# plugin must not take for an executable (its default build links, and works: below).
printf '#include <cce.h>\nvoid lib_f (void) { cce_log (1); }\n' >"$tmp/lib.c"
printf '#include <cce.h>\nvoid lib_f (void) { cce_log (1); }\nint main (void) { lib_f (); return 0; }\n' \
  >"$tmp/libmain.c"
for lib in lib libmain; do
  cce_cc -O2 -fPIC -shared -fplugin-arg-cce-idreg "$tmp/$lib.c" \
    -o "$tmp/$lib-badarg.so" >"$tmp/cerr.log" 2>&1
  st=$?
  if [ "$st" -ne 0 ] && ! grep -q "internal compiler error" "$tmp/cerr.log" &&
     [ "$(grep -c 'cce:' "$tmp/cerr.log")" -eq 1 ] &&
     grep 'cce:' "$tmp/cerr.log" | grep -q 'idreg.*shared'; then
    ok "idreg in a shared object ($lib.c): $(grep 'cce:' "$tmp/cerr.log")"
  else
    bad "idreg in a shared object ($lib.c): exit status $st:"
    head -n 20 "$tmp/cerr.log" | sed 's/^/    /'
  fi
done

# A shared object that defines main, built by default, and a program that calls it.
printf 'void lib_f (void);\nint main (void) { lib_f (); return 0; }\n' >"$tmp/uselib.c"
if cce_cc -O2 -fPIC -shared "$tmp/libmain.c" -o "$tmp/libmain.so" >"$tmp/cerr.log" 2>&1 &&
   cce_cc -O2 "$tmp/uselib.c" "$tmp/libmain.so" -Wl,-rpath,"$tmp" -o "$tmp/uselib" \
     >>"$tmp/cerr.log" 2>&1 &&
   CCE_LOG="$tmp/uselib.log" "$tmp/uselib" >>"$tmp/cerr.log" 2>&1 &&
   "$CCE_DECODE" --format=records "$tmp/uselib" "$tmp/uselib.log" >"$tmp/uselib.txt" \
     2>>"$tmp/cerr.log" && grep -q 'lib_f' "$tmp/uselib.txt"; then
  ok "a shared object that defines main: $(head -n 1 "$tmp/uselib.txt")"
else
  bad "a shared object that defines main:"
  cat "$tmp/uselib.txt" "$tmp/cerr.log" 2>/dev/null | head -n 20 | sed 's/^/    /'
fi

compile_error "plugin without -flto" -flto \
  $CC -O2 -I"$CCE_INCDIR" -fplugin="$CCE_PLUGIN" -c "$tmp/prog.c" \
  -o "$tmp/prog-nolto.o"

[ "$failed" -eq 0 ]
