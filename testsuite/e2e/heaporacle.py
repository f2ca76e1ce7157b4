# heaporacle.py -- the oracle of e2e/heap.sh: the heap profile gdb sees.
#
#   CCE_ORACLE_OUT=FILE gdb -q -batch -nx -x heaporacle.py --args ./prog.O0
#
# runs PROG (an -O0 -g build of the test program without the plugin,
# linked with libcce, whose allocator functions then only call the C
# library's) from its start with a breakpoint on each allocator entry
# point of the C library (malloc, calloc, realloc, reallocarray, free,
# memalign, aligned_alloc, posix_memalign, valloc, pvalloc).  At each call
# it takes the calling context as oracle.py does (the external frames
# between the program and the allocator are one frame named after the
# library function the program called: malloc, strdup, getline...), and
# at its return the block's address; a call made while the thread is in
# one of these (realloc calling malloc inside the C library, or two
# names of one function) is part of that one.  realloc is
# the free of the old block and an allocation of the new size; a free of
# a block it never saw (made before it started) is ignored.  At the exit
# it writes per context
#
#   alloc<TAB>PATH<TAB>BLOCKS<TAB>BYTES
#   inuse<TAB>PATH<TAB>BLOCKS<TAB>BYTES     (live at the exit, if any)
#
# PATH root first joined by ';' (empty: no frame of the program).

import os
import re
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (its functions; its main does not run)

out_path = os.environ.get("CCE_ORACLE_OUT")
out = open(out_path, "w") if out_path else sys.stdout

ALLOCATORS = ("malloc", "calloc", "realloc", "reallocarray", "free",
              "memalign", "aligned_alloc", "posix_memalign", "valloc",
              "pvalloc")

blocks = {}         # address -> (path, size)
busy = set()        # threads in an allocator call being followed
                    # (between its entry and its return)
entries = {}        # pc -> whether it is the entry of the C library's
allocs = {}         # path -> [blocks, bytes]
failure = None
exit_code = None
calls = 0


def arg(frame, i):
    return int(frame.read_register(("rdi", "rsi", "rdx")[i])) & (2**64 - 1)


def libc_entry(pc):
    """Is PC the first instruction of a function of the C library (not a
    location of an inlined malloc in ld.so, which gdb also finds)?"""
    if pc not in entries:
        lib = gdb.solib_name(pc) or ""
        sym = gdb.execute("info symbol %d" % pc, to_string=True)
        entries[pc] = ("libc.so" in os.path.basename(lib)
                       and " + " not in sym)
    return entries[pc]


def thread_key():
    return gdb.selected_thread().global_num


def count_alloc(path, addr, size):
    if not addr:
        return
    blocks[addr] = (path, size)
    a = allocs.setdefault(path, [0, 0])
    a[0] += 1
    a[1] += size


def count_free(addr):
    blocks.pop(addr, None)


pending = {}        # thread -> (kind, path, args, stack pointer at return)
returns = {}        # return address -> its Return breakpoint


def returned(kind, path, a):
    """The call KIND (its arguments A) with the calling context PATH has
    returned: its result is in rax."""
    rax = int(gdb.newest_frame().read_register("rax")) & (2**64 - 1)
    if kind in ("malloc", "valloc", "pvalloc"):
        count_alloc(path, rax, a[0])
    elif kind == "calloc":
        count_alloc(path, rax, a[0] * a[1])
    elif kind in ("memalign", "aligned_alloc"):
        count_alloc(path, rax, a[1])
    elif kind == "posix_memalign":
        if rax & 0xffffffff == 0:
            p = int(gdb.parse_and_eval("*(unsigned long *) %d" % a[0]))
            count_alloc(path, p, a[2])
    elif kind in ("realloc", "reallocarray"):
        old = a[0]
        size = a[1] if kind == "realloc" else a[1] * a[2]
        if old == 0:
            count_alloc(path, rax, size)
        elif size == 0:
            count_free(old)
        elif rax:
            count_free(old)
            count_alloc(path, rax, size)


class Return(gdb.Breakpoint):
    """A breakpoint at a return address of an allocator call: the call
    returned when the thread has one pending whose stack pointer is
    this one (not a recursive call of the same code)."""

    def stop(self):
        global failure
        try:
            t = thread_key()
            p = pending.get(t)
            if p is None:
                return False
            sp = int(gdb.newest_frame().read_register("rsp"))
            if sp != p[3]:
                return False
            del pending[t]
            busy.discard(t)
            returned(p[0], p[1], p[2])
        except Exception as e:
            failure = "heaporacle: error at a return: %r" % (e,)
            return True
        return False


class Entry(gdb.Breakpoint):
    def __init__(self, name):
        gdb.Breakpoint.__init__(self, name, internal=True)
        self.kind = name

    def stop(self):
        global failure, calls
        try:
            frame = gdb.newest_frame()
            # One call of the program: not the C library's own calls
            # (realloc's of malloc, even as a tail call), nor a second
            # breakpoint at the same address (memalign, aligned_alloc).
            if thread_key() in busy or not libc_entry(frame.pc()):
                return False
            args = [arg(frame, i) for i in range(3)]
            if self.kind == "free":
                if args[0]:
                    count_free(args[0])
                return False
            calls += 1
            busy.add(thread_key())
            path, _ = oracle.context(frame)
            sp = int(frame.read_register("rsp"))
            ret = int(gdb.parse_and_eval("*(unsigned long *) %d" % sp))
            pending[thread_key()] = (self.kind, ";".join(path), args,
                                     sp + 8)
            if ret not in returns:
                returns[ret] = Return("*%#x" % ret, internal=True)
        except Exception as e:
            failure = "heaporacle: error at %s: %r" % (self.kind, e)
            return True
        return False


def on_exit(event):
    global exit_code
    exit_code = getattr(event, "exit_code", None)


def main():
    for cmd in oracle.GDB_SETTINGS + (
            "set breakpoint pending on",
            "set startup-with-shell off",
            "unset environment LINES",
            "unset environment COLUMNS",
            "unset environment CCE_ORACLE_OUT"):
        try:
            gdb.execute(cmd, to_string=True)
        except gdb.error:
            pass
    gdb.events.exited.connect(on_exit)
    for name in ALLOCATORS:
        Entry(name)
    gdb.execute("run", to_string=True)
    if failure is not None:
        oracle.fail(failure)
    if exit_code is None:
        oracle.fail("the program did not exit normally")
    live = {}
    for path, size in blocks.values():
        v = live.setdefault(path, [0, 0])
        v[0] += 1
        v[1] += size
    for path in sorted(allocs):
        out.write("alloc\t%s\t%d\t%d\n" % (path, allocs[path][0],
                                           allocs[path][1]))
    for path in sorted(live):
        out.write("inuse\t%s\t%d\t%d\n" % (path, live[path][0],
                                           live[path][1]))
    out.flush()
    sys.stderr.write("heaporacle: %d allocations, exit %d\n"
                     % (calls, exit_code))
    gdb.execute("quit %d" % (0 if exit_code == 0 else 1))


main()
