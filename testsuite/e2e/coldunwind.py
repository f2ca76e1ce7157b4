# coldunwind.py -- gdb script of coldunwind.sh: unwinding through the
# cold calls of the ccStack (cce-abi.h, __cce_*_keep), at every
# instruction.
#
#   gdb -nx -q -batch -x coldunwind.py PROGRAM
#
# PROGRAM is coldunwind.c built with cce and -g.  The script finds in its
# code (objdump -d) every call sequence of a keep entry point: the
# instructions that set up the call (those that write r10 or r11, or
# move rsp by 128), the transfer (a call or jmp through the GOT), and
# the instructions after the return address that undo the setup.  Then
# it runs PROGRAM and
#
#   1. at the first instruction of each entry point, the first time that
#      each of these is reached, compares gdb's backtrace (the function
#      of every frame, innermost first) with the source-level call chain,
#      its recursion counted by fold_frames and ind_frames:
#        push       __cce_push_keep fold_rec... fold_run main
#        pop        __cce_pop_entry_keep fold_rec... fold_run main
#        grow       __cce_grow_keep ind_rec... ind_run main
#        push-grow  __cce_grow_keep __cce_push_keep fold_rec... fold_thread
#                   start_thread
#      (the last in the thread without a ccStack: its first push grows);
#   2. the first time each kind of sequence runs in the main thread, and
#      the first time the push runs in the other one, steps through it
#      an instruction at a time (stepi; nexti over the call from the
#      grow into libcce's C code), from its first instruction to the
#      first one after it in the caller, and at every step requires the
#      backtrace to reach the outermost frame (main, or start_thread) with
#      the same frames below the entry points as at the start.
#
# Prints "ok:" and "FAIL:" lines, and at the end "coldunwind: N failed"
# and "coldunwind: done".

import re
import subprocess

import gdb

KEEP = re.compile(r"__cce_\w+_keep_v\d+$")
OUTERMOST = ("main", "start_thread")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def keep_name(kind):
    """The entry point whose name has KIND (push, pop_entry, grow)."""
    for name in entry_addr:
        if re.match(r"__cce_%s_keep_v\d+$" % kind, name):
            return name
    return None


# ---- the call sequences, from objdump -------------------------------------
exe = gdb.current_progspace().filename
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe],
                     stdout=subprocess.PIPE, universal_newlines=True,
                     check=True).stdout
insns = []          # (address, function, text)
func = None
static_main = None
for line in dis.splitlines():
    m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
    if m:
        func = m.group(2)
        if func == "main":
            static_main = int(m.group(1), 16)
        continue
    m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
    if m and func:
        insns.append((int(m.group(1), 16), func, m.group(2).strip()))

SETUP = re.compile(r"%r1[01]\b|\$0xffffffffffffff80,%rsp")
UNDO = re.compile(r"^sub\s+\$0xffffffffffffff80,%rsp")
TRANSFER = re.compile(r"^(call|jmp)\s+\*0x[0-9a-f]+\(%rip\)\s+# [0-9a-f]+ "
                      r"<(__cce_\w+_keep_v\d+)@")
seqs = []           # dicts: start, ret, end, entry, func (static addresses)
for i, (addr, fn, text) in enumerate(insns):
    m = TRANSFER.match(text)
    if not m:
        continue
    j = i
    while (j > 0 and insns[j - 1][1] == fn
           and SETUP.search(insns[j - 1][2])):
        j -= 1
    k = i + 1
    while k < len(insns) and insns[k][1] == fn and UNDO.match(insns[k][2]):
        k += 1
    if k >= len(insns) or insns[k][1] != fn:
        fail("%s: no instruction after the call of %s at %#x"
             % (fn, m.group(2), addr))
        continue
    seqs.append(dict(start=insns[j][0], ret=insns[i + 1][0],
                     end=insns[k][0], entry=m.group(2), func=fn))
print("call sequences of keep entry points: %d (%s)"
      % (len(seqs), ", ".join(sorted(set("%s in %s" % (s["entry"], s["func"])
                                         for s in seqs)))))
if not seqs or static_main is None:
    fail("no call sequence of a keep entry point in %s" % exe)

# ---- run to main, then set the breakpoints --------------------------------
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set print thread-events off")
gdb.execute("break main", to_string=True)
gdb.execute("run", to_string=True)
gdb.execute("delete", to_string=True)
bias = int(gdb.parse_and_eval("(unsigned long) &main")) - static_main
for s in seqs:
    for key in ("start", "ret", "end"):
        s[key] += bias
by_start = {}
for s in seqs:
    by_start[s["start"]] = s
    gdb.Breakpoint("*%#x" % s["start"], internal=True)
entry_addr = {}
for s in seqs:
    entry_addr[s["entry"]] = None
for name in list(entry_addr):
    entry_addr[name] = int(gdb.parse_and_eval("(unsigned long) &'%s'"
                                              % name))
    gdb.Breakpoint("*%#x" % entry_addr[name], internal=True)
addr_entry = dict((a, n) for n, a in entry_addr.items())


# ---- backtraces --------------------------------------------------------------
def chain():
    """The functions of the frames, innermost first, up to the outermost
    expected one."""
    names = []
    f = gdb.newest_frame()
    while f is not None and len(names) < 100000:
        name = f.name() or "?? %#x" % f.pc()
        names.append(name)
        if name in OUTERMOST:
            break
        try:
            f = f.older()
        except gdb.error as e:
            names.append("<unwind error: %s>" % e)
            break
    return names


def show(names):
    """NAMES, repeats counted."""
    out = []
    for n in names:
        if out and out[-1][0] == n:
            out[-1][1] += 1
        else:
            out.append([n, 1])
    return " ".join(n if c == 1 else "%s*%d" % (n, c) for n, c in out)


def counter(name):
    return int(gdb.parse_and_eval(name))


def in_main_thread():
    return gdb.selected_thread().num == 1


# 1. The backtrace at the first instruction of an entry point.
checked = set()


def check_entry(names):
    if len(names) < 2:
        return
    entry, caller = names[0], names[1]
    push, grow = keep_name("push"), keep_name("grow")
    if entry == grow and caller == push:
        what = "push-grow"
        want = ([grow, push] + ["fold_rec"] * counter("fold_frames")
                + ["fold_thread", "start_thread"])
    elif caller == "fold_rec":
        what = "push" if entry == push else "pop"
        tail = (["fold_run", "main"] if in_main_thread()
                else ["fold_thread", "start_thread"])
        want = [entry] + ["fold_rec"] * counter("fold_frames") + tail
        if not in_main_thread():
            what += " (thread)"
    elif caller == "ind_rec":
        what = "grow"
        want = [entry] + ["ind_rec"] * counter("ind_frames") + [
            "ind_run", "main"]
    elif caller == "main" and entry in (push, keep_name("pop_entry")):
        # main runs once: GCC optimizes its blocks that run less often
        # than its entry for size, and the push of its call through
        # the pointer to pthread_create there goes out of line
        # (compact_push_p).
        what = "%s in main" % ("push" if entry == push else "pop")
        want = [entry, "main"]
    else:
        what = "%s from %s" % (entry, caller)
        want = None
    if what in checked:
        return
    checked.add(what)
    if want is None:
        fail("unexpected caller: %s" % show(names))
    elif names == want:
        print("ok:   backtrace at %s: %s" % (what, show(names)))
    else:
        fail("backtrace at %s:\n  got:  %s\n  want: %s"
             % (what, show(names), show(want)))


# 2. Every instruction of a call sequence and of the entry points it
# reaches.
traced = set()


def trace(s):
    outer = chain()
    if outer[-1] not in OUTERMOST:
        fail("at the start of the %s sequence in %s: %s"
             % (s["entry"], s["func"], show(outer)))
        return
    arch = gdb.newest_frame().architecture()
    steps = 0
    bad = 0
    seen = set()
    while True:
        frame = gdb.newest_frame()
        pc = frame.pc()
        names = chain()
        if pc in addr_entry:
            check_entry(names)
            seen.add(addr_entry[pc])
        inner = []
        while len(inner) < len(names) and KEEP.match(names[len(inner)]):
            inner.append(names[len(inner)])
        ok = names[len(inner):] == outer and len(inner) <= 2
        if not ok:
            bad += 1
            if bad <= 3:
                insn = arch.disassemble(pc)[0]["asm"]
                fail("%s sequence in %s, step %d, at %#x (%s): %s"
                     % (s["entry"], s["func"], steps, pc, insn, show(names)))
        if pc == s["end"] and not inner:
            break
        if steps > 2000:
            fail("%s sequence in %s: no way back after %d steps"
                 % (s["entry"], s["func"], steps))
            break
        insn = arch.disassemble(pc)[0]["asm"]
        if inner and insn.startswith("call") and "keep" not in insn:
            gdb.execute("nexti", to_string=True)
        else:
            gdb.execute("stepi", to_string=True)
        steps += 1
    if not bad:
        print("ok:   %d steps through the %s sequence in %s (%s), "
              "%d frames each: %s"
              % (steps, s["entry"], s["func"],
                 "main thread" if in_main_thread() else "thread",
                 len(outer), ", ".join(sorted(seen))))


gdb.execute("set scheduler-locking step")
while True:
    try:
        gdb.execute("continue", to_string=True)
    except gdb.error:
        break
    if gdb.selected_thread() is None:
        break
    pc = gdb.newest_frame().pc()
    if pc in by_start:
        s = by_start[pc]
        key = (s["entry"], in_main_thread())
        if key not in traced and (in_main_thread()
                                  or s["entry"] == keep_name("push")):
            traced.add(key)
            trace(s)
    elif pc in addr_entry:
        check_entry(chain())

for what in ("push", "pop", "grow", "push-grow"):
    if what not in checked:
        fail("no backtrace at %s: the program did not get there" % what)
for kind, main in (("push", True), ("pop_entry", True), ("grow", True),
                   ("push", False)):
    if (keep_name(kind), main) not in traced:
        fail("the %s sequence never ran in the %s"
             % (kind, "main thread" if main else "thread"))
print("coldunwind: %d failed" % len(failures))
print("coldunwind: done")
