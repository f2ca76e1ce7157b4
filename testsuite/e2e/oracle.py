# oracle.py -- the independent oracle of the end-to-end tests.
#
# A gdb Python script:
#
#   CCE_ORACLE_OUT=FILE gdb -q -batch -nx -x oracle.py --args ./prog.O0 ARGS
#
# runs PROG (an -O0 -g build of a test program, without the plugin, linked
# against libcce so that cce_log exists), stops at every call of cce_log,
# and writes for each one the calling context gdb sees, in the records
# format of "cce-decode --format=records":
#
#   THREAD<TAB>TAG<TAB>PATH
#
# PATH is the source functions root first joined by ';', the last one the
# caller of cce_log.  Inlined frames (always_inline at -O0) are frames.
# A frame is named by its function's symbol, as c++filt -p prints it: a C
# function's name, a C++ function's symbol demangled without parameters
# (Sq::area, twice<int>, main::{lambda(int, int)#1}::operator()), every
# variant of a constructor or destructor the one source name (Sq::Sq), a
# C++20 coroutine's actor and destroyer the coroutine (gen<int>);
# GCC's functions that run a C++ unit's static initialization
# (_GLOBAL__sub_I_..., __static_initialization_and_destruction_0) are no
# frames.
# Frames of code outside the program (libc, ld.so, the signal trampoline)
# are external: the external frames at the outer end (_start,
# __libc_start_main, start_thread, clone3, ...) are dropped, and every run
# of consecutive external frames between two frames of the program becomes
# one frame named by the library function the program called (found from
# the program's call instruction, e.g. "call qsort@plt").  Where a frame of
# the program called a library function and the next frame is the
# program's again, that library function tail-called into the program
# and left no frame: it is a frame all the same.  Shared libraries
# named in $CCE_ORACLE_PROGRAM_LIBS are part of the program.  THREAD numbers
# threads 1, 2, ... in the order of their first cce_log.
#
# With CCE_ORACLE_TRACE="F G ...", it also stops at the entry of each
# function F (gdb's breakpoint after its prologue, in every copy) and
# writes a record with F as the tag and F's own frame last: what
# -fplugin-arg-cce-trace records.  "F:S" records only F's entries 1,
# 1 + S, 1 + 2S, ... (a sample of a hot function).  CCE_ORACLE_MAX=N stops
# recording after N records (the program still runs to its end).
#
# Nothing here knows anything about cce beyond the name and signature of
# cce_log.  Records go to $CCE_ORACLE_OUT (default: stdout).  gdb exits
# with status 0 if the program ran to completion with exit status 0, else
# non-zero.

import os
import re
import subprocess
import sys

import gdb

out_path = os.environ.get("CCE_ORACLE_OUT")
out = open(out_path, "w") if out_path else sys.stdout

thread_numbers = {}     # gdb global thread number -> 1, 2, ...
records = 0
max_depth = 0
exit_code = None
failure = None

INTERNAL_TYPES = (gdb.NORMAL_FRAME, gdb.INLINE_FRAME)

# Shared libraries that are part of the program (built with -g, like it):
# their frames are the program's.  Space-separated file names.
PROGRAM_LIBS = set(os.environ.get("CCE_ORACLE_PROGRAM_LIBS", "").split())


def is_internal(frame):
    """Is FRAME code of the program itself (compiled with -g)?"""
    if frame.type() not in INTERNAL_TYPES:
        return False
    solib = gdb.solib_name(frame.pc())
    if solib is not None and os.path.basename(solib) not in PROGRAM_LIBS:
        return False
    fn = frame.function()
    return fn is not None


_demangled = {}


def demangle(name):
    """NAME as c++filt -p prints it: a C++ symbol demangled without its
    parameter list (Sq::area, twice<int>); any other name as it is."""
    if not name.startswith("_Z"):
        return name
    if name not in _demangled:
        try:
            res = subprocess.run(["c++filt", "-p", name], check=True,
                                 stdout=subprocess.PIPE,
                                 universal_newlines=True)
            _demangled[name] = res.stdout.strip() or name
        except (OSError, subprocess.CalledProcessError):
            _demangled[name] = name
    return _demangled[name]


def symbol_name(frame):
    """The symbol of FRAME's function: for a frame of its own, the
    minimal symbol at the start of its function (the mangled name of a
    C++ function, the variant C1, C2, D0... it is); for an inlined one,
    its linkage name; None if none is known."""
    fn = frame.function()
    if fn is None:
        return None
    if frame.type() == gdb.NORMAL_FRAME:
        try:
            b = frame.block()
            while b is not None and b.function is None:
                b = b.superblock
            if b is not None:
                out = gdb.execute("info symbol %#x" % b.start,
                                  to_string=True)
                m = re.match(r"(\S+) in section ", out)
                if m:
                    return m.group(1)
        except (gdb.error, RuntimeError):
            pass
    return fn.linkage_name or fn.name


def coroutine_ramp(name):
    """The symbol of the C++20 coroutine whose actor or destroyer NAME is,
    or None.  GCC gives coroutine F (symbol _Z1Fv) two functions of its
    own besides the ramp that keeps F's symbol: F(F()::_Z1Fv.Frame*) with
    the suffix .actor (the body, resumed) or .destroy, whose symbol holds
    F's as the name of the frame type, "_Z1FPZ1FvE9_Z1Fv.Frame.actor".
    Both are F at the source level.  (c++filt -p names them F without
    F's template arguments.)"""
    for m in re.finditer(r"(\d+)(_Z[^.]*)\.Frame\.", name):
        if int(m.group(1)) == len(m.group(2)) + len(".Frame"):
            return m.group(2)
    return None


def frame_name(frame):
    """FRAME's function as the records name it: a C++ function's symbol
    demangled without parameters (c++filt -p), a coroutine's actor and
    destroyer as the coroutine, a C function's name as gdb has it (a GNU
    C nested function's symbol is inner.0, its name inner)."""
    name = symbol_name(frame)
    if name is not None and name.startswith("_Z"):
        return demangle(coroutine_ramp(name) or name)
    fn = frame.function()
    if fn is not None:
        # A function of C++ that is not mangled (main, extern "C"): gdb
        # adds its parameters to the name, the symbol has none.
        if name is not None and "(" in fn.name:
            return name
        return fn.name
    name = frame.name()
    return name if name else "??"


def hidden_frame(frame):
    """Is FRAME one of GCC's functions that run a C++ unit's static
    initialization (_GLOBAL__sub_I_..., __static_initialization_and_
    destruction_0): no function of the source."""
    name = frame_name(frame)
    return (name.startswith("_GLOBAL__sub_I_")
            or name.startswith("__static_initialization_and_destruction"))


def program_function(name):
    """Is NAME a function of the program (the executable or a library
    of PROGRAM_LIBS, compiled with -g)?"""
    try:
        sym = gdb.lookup_global_symbol(name)
        if sym is None:
            sym = gdb.lookup_static_symbol(name)
    except gdb.error:
        return False
    if sym is None or sym.symtab is None:
        return False
    objfile = sym.symtab.objfile.filename
    prog = gdb.current_progspace().filename
    return (objfile == prog
            or os.path.basename(objfile) in PROGRAM_LIBS)


def called_function(caller):
    """Name of the function that CALLER (a frame of the program) called at
    the call whose return address is CALLER.pc(), from the call
    instruction; None if it cannot be determined."""
    arch = caller.architecture()
    pc = caller.pc()
    # x86-64: call rel32 (5), call *disp32(%rip) (6), call *%reg (2/3).
    # aarch64: bl (4).
    for length in (5, 4, 6, 2, 3, 7):
        try:
            insn = arch.disassemble(pc - length, count=1)[0]
        except gdb.error:
            continue
        if insn["length"] != length:
            continue
        asm = insn["asm"]
        if not (asm.startswith("call") or asm.startswith("bl")):
            continue
        # "call 0x1139 <name>" or "<name@plt>": a C name, the whole of
        # what is between the brackets that end the line.
        m = re.search(r"\s<([^<>+@ (]+)(@plt)?(\+\d+)?>$", asm)
        if m and not m.group(3):
            return m.group(1)
        # gdb's disassembly demangles C++ names, and their '<' '>' and
        # '+' defeat the pattern: the symbol at the call's target.
        m = re.match(r"(?:call|bl)\w*\s+(0x[0-9a-f]+)\b", asm)
        if m:
            try:
                out = gdb.execute("info symbol %s" % m.group(1),
                                  to_string=True)
            except gdb.error:
                return None
            m = re.match(r"([^\s@]+)(@plt)? in section ", out)
            return m.group(1) if m else None
    return None


def external_name(run, caller):
    """RUN: consecutive external frames, innermost first; CALLER: the frame
    of the program that called into the outermost of them."""
    name = called_function(caller) if caller is not None else None
    if name:
        return demangle(name)
    # Fall back on gdb's name of the outermost external frame.
    name = frame_name(run[-1])
    name = re.sub(r"^__GI_+", "", name)
    return name


def cce_stub(frame):
    """Is FRAME in a second entry point that cce made for a function of
    the program (cce-abi.h, CCE_STUB_SECTION): cce's own code, which
    calls the function's body, and no frame of the source."""
    try:
        out = gdb.execute("info symbol %#x" % frame.pc(), to_string=True)
    except gdb.error:
        return False
    return re.search(r" in section cce_stubs( of .*)?$", out.rstrip()) \
        is not None


def walk(start):
    """Frames from START outward, as (frame, internal) pairs."""
    frames = []
    f = start
    while f is not None:
        frames.append((f, is_internal(f)))
        f = f.older()
    return frames


def context(start):
    frames = walk(start)
    # Drop external frames at the outer end.
    while frames and not frames[-1][1]:
        frames.pop()
    path = []          # innermost first
    i = 0
    n = len(frames)
    while i < n:
        f, internal = frames[i]
        if internal:
            if not hidden_frame(f):
                path.append(frame_name(f))
            i += 1
            # A call out of the program straight into a frame of the
            # program: the external function tail-called it (or jumped),
            # and left no frame of its own.
            if (i < n and frames[i][1] and f.type() == gdb.NORMAL_FRAME):
                called = called_function(frames[i][0])
                if (called and called != symbol_name(f)
                        and demangle(called) != frame_name(f)
                        and not program_function(called)):
                    path.append(demangle(called))
            continue
        j = i
        while j < n and not frames[j][1]:
            j += 1
        run = [fr for fr, _ in frames[i:j]]
        caller = frames[j][0] if j < n else None
        # libcce's register-keeping push, pop and grow of the ccStack
        # (and what the grow calls) are cce's own code around a call of
        # the program, which jumps there from inline asm: no source
        # frame.
        # A function's second entry point (cce_stub) calls its body.
        if not (re.match(r"__cce_\w+_keep_v\d+$", run[-1].name() or "")
                or all(cce_stub(fr) for fr in run)):
            path.append(external_name(run, caller))
        i = j
    path.reverse()
    return path, len(frames)


def read_tag(frame):
    arch = frame.architecture().name()
    if "x86-64" in arch:
        return int(frame.read_register("rdi")) & 0xffffffff
    if "aarch64" in arch:
        return int(frame.read_register("x0")) & 0xffffffff
    return int(frame.read_var("tag")) & 0xffffffff


class LogBreakpoint(gdb.Breakpoint):
    def stop(self):
        global failure
        try:
            frame = gdb.newest_frame()
            record("%u" % read_tag(frame), frame.older())
        except Exception as e:      # report, never stop silently
            failure = "oracle: error at a cce_log stop: %r" % (e,)
            return True
        return False


def record(tag, start):
    global records, max_depth
    path, depth = context(start)
    thr = gdb.selected_thread().global_num
    if thr not in thread_numbers:
        thread_numbers[thr] = len(thread_numbers) + 1
    out.write("%d\t%s\t%s\n" % (thread_numbers[thr], tag, ";".join(path)))
    records += 1
    max_depth = max(max_depth, depth)
    if records == MAX_RECORDS:
        for b in gdb.breakpoints() or ():
            b.enabled = False
        for b in ALL_BREAKPOINTS:
            b.enabled = False


class TraceBreakpoint(gdb.Breakpoint):
    def __init__(self, name, stride):
        gdb.Breakpoint.__init__(self, name, internal=True)
        self.traced = name
        self.stride = stride
        self.hits = 0

    def stop(self):
        global failure
        self.hits += 1
        if (self.hits - 1) % self.stride:
            return False
        try:
            record(self.traced, gdb.newest_frame())
        except Exception as e:      # report, never stop silently
            failure = "oracle: error at a stop in %s: %r" % (self.traced, e)
            return True
        return False


MAX_RECORDS = int(os.environ.get("CCE_ORACLE_MAX", "0") or 0)
ALL_BREAKPOINTS = []


def on_exit(event):
    global exit_code
    exit_code = getattr(event, "exit_code", None)


def fail(msg):
    sys.stderr.write("oracle: %s\n" % msg)
    sys.stderr.flush()
    gdb.execute("kill", to_string=True)
    gdb.execute("quit 2")


# The settings of every run under gdb for an oracle.
GDB_SETTINGS = ("set pagination off", "set confirm off",
                "set print thread-events off",
                "set print inferior-events off",
                "set debuginfod enabled off",
                "set backtrace past-main off",
                "set backtrace limit unlimited")


def main():
    for cmd in GDB_SETTINGS + (
                # Signals the test programs use on purpose go straight to
                # the program; others (SIGSEGV...) stop it, and then it
                # does not exit normally: a failure.
                "handle SIGUSR1 SIGUSR2 SIGALRM SIGCHLD SIGPIPE"
                " nostop noprint pass",
                # The program gets the environment it would get without
                # gdb: not gdb's LINES and COLUMNS, not our own settings
                # (a program that walks its environment, like a shell,
                # must do the same work in both runs).
                "set startup-with-shell off",
                # Symbols as the program's code has them (info symbol
                # gives the mangled names of C++ functions).
                "set print demangle off",
                "unset environment LINES",
                "unset environment COLUMNS",
                "unset environment CCE_ORACLE_OUT",
                "unset environment CCE_ORACLE_TRACE",
                "unset environment CCE_ORACLE_MAX",
                "unset environment CCE_ORACLE_PROGRAM_LIBS"):
        try:
            gdb.execute(cmd, to_string=True)
        except gdb.error:
            pass
    gdb.events.exited.connect(on_exit)

    # Run to main so that libcce is loaded, then stop on the first
    # instruction of the real cce_log (not a PLT stub), where the tag is
    # still in the first argument register.
    gdb.execute("tbreak main", to_string=True)
    gdb.execute("run", to_string=True)
    if exit_code is not None:
        fail("the program exited before main")
    traced = os.environ.get("CCE_ORACLE_TRACE", "").split()
    try:
        addr = int(gdb.parse_and_eval("&cce_log"))
        ALL_BREAKPOINTS.append(LogBreakpoint("*%#x" % addr, internal=True))
    except gdb.error as e:
        # A program that only traces functions need not log.
        if not traced:
            fail("cce_log not found: %s" % e)
    for spec in traced:
        name, _, stride = spec.partition(":")
        ALL_BREAKPOINTS.append(TraceBreakpoint(name, int(stride or 1)))
    gdb.execute("continue")
    if failure is not None:
        fail(failure)
    if exit_code is None:
        fail("the program did not exit normally")
    out.flush()
    sys.stderr.write("oracle: %d records, deepest stack %d frames, exit %d\n"
                     % (records, max_depth, exit_code))
    sys.stderr.flush()
    gdb.execute("quit %d" % (0 if exit_code == 0 else 1))


if __name__ == "__main__":
    main()
