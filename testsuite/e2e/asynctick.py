# asynctick.py -- the oracle of the contexts of CPU-time ticks.
#
# A gdb Python script:
#
#   CCE_TICK_OUT=EXPECTED CCE_TICK_MAIN=MAIN CCE_SAMPLE=HZ CCE_LOG=LOG \
#     gdb -q -batch -nx -x asynctick.py --args ./prog ARGS
#
# runs PROG (built with cce and -g) with libcce's sampler on, SIGPROF
# passed to it without a stop, and a breakpoint on libcce's cce_log_pc
# (rt/log.c: the sampler's handler calls it once for each sample record
# it makes) whose stop method never stops.  At each hit it walks from
# the newest frame (cce_log_pc) out to the frame of the signal trampoline
# (gdb.SIGTRAMP_FRAME) and takes the frame below it, the instruction the
# tick interrupted, and writes to EXPECTED
#
#   GDBTHREAD<TAB>sample<TAB>PATH<TAB>ADDR
#
# GDBTHREAD being gdb's number of the thread, PATH its context there as
# oracle.py makes it from gdb's backtrace (call frame information and
# inlined frames, root first), ADDR the interrupted instruction's
# link-time address in the executable (hex), or for an instruction
# outside it (the C library, the vDSO, libcce) "-:" and the return
# address in the executable of the call into such code that the
# innermost frame of the executable made ("-" if none did), "-k:" when
# that code is one of libcce's register-keeping entry points, which the
# program reaches from inline asm around a call (a push, a pop or a grow
# of the ccStack), not by a call of a function.  The lines of one thread
# are in the order that thread made its records.  MAIN is main's
# link-time address (nm), which gives the executable's load bias.
# Nothing here decodes anything or reads libcce's data: only where the
# records are made, and what gdb sees there.

import os
import re
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (its path rules; main() does not run)

state = {"bias": None, "ticks": 0, "failure": None, "exit": None}
out = None


def link_address(frame):
    """FRAME's pc as a link-time address in the executable (hex); outside
    the executable "-:" and the return address of the call into code
    outside that the first frame of the executable made (its pc), or "-"
    if there is none."""
    if state["bias"] is None:
        state["bias"] = (int(gdb.parse_and_eval("(unsigned long) &main"))
                         - int(os.environ["CCE_TICK_MAIN"], 0))

    def in_exe(pc):
        addr = pc - state["bias"]
        if gdb.solib_name(pc) is None and 0 <= addr < 0x40000000:
            return addr
        return None

    addr = in_exe(frame.pc())
    if addr is not None:
        return "%x" % addr
    younger, f = frame, frame.older()
    while f is not None:
        addr = in_exe(f.pc())
        if addr is not None:
            # Reached from one of libcce's register-keeping entry points,
            # which the program enters by a jump from inline asm (a
            # push, a pop or a grow of the ccStack): "-k:".
            keep = re.match(r"__cce_\w+_keep_v\d+$", younger.name() or "")
            return "%s:%x" % ("-k" if keep else "-", addr)
        younger, f = f, f.older()
    return "-"


class TickBreakpoint(gdb.Breakpoint):
    def stop(self):
        try:
            f = gdb.newest_frame()
            while f is not None and f.type() != gdb.SIGTRAMP_FRAME:
                f = f.older()
            if f is None or f.older() is None:
                raise RuntimeError("no signal frame below cce_log_pc")
            below = f.older()
            path, _ = oracle.context(below)
            out.write("%d\tsample\t%s\t%s\n"
                      % (gdb.selected_thread().global_num, ";".join(path),
                         link_address(below)))
            state["ticks"] += 1
        except Exception as e:      # report, never stop silently
            state["failure"] = "asynctick: error at a tick: %r" % (e,)
            return True
        return False


def main():
    global out
    for cmd in ("set pagination off", "set confirm off",
                "set print thread-events off",
                "set print inferior-events off",
                "set debuginfod enabled off",
                "set backtrace past-main off",
                "set backtrace limit unlimited",
                "set startup-with-shell off",
                "set breakpoint pending on",
                "handle SIGPROF nostop noprint pass",
                "unset environment CCE_TICK_OUT",
                "unset environment CCE_TICK_MAIN"):
        gdb.execute(cmd, to_string=True)
    gdb.events.exited.connect(
        lambda ev: state.__setitem__("exit", getattr(ev, "exit_code", -1)))
    out = open(os.environ["CCE_TICK_OUT"], "w")
    # Pending until libcce is loaded, before its constructor starts the
    # main thread's timer.  A hidden function: its symbol is in the
    # build tree's libcce.so.
    TickBreakpoint("cce_log_pc", internal=True)
    gdb.execute("run", to_string=True)
    out.close()
    if state["failure"] is not None:
        sys.stderr.write(state["failure"] + "\n")
        gdb.execute("kill", to_string=True)
        gdb.execute("quit 2")
    if state["exit"] is None:
        sys.stderr.write("asynctick: the program did not exit normally\n")
        gdb.execute("quit 2")
    sys.stderr.write("asynctick: %d ticks, exit %d\n"
                     % (state["ticks"], state["exit"]))
    gdb.execute("quit %d" % (0 if state["exit"] == 0 else 1))


try:
    main()
except Exception as e:     # report, never stop silently
    sys.stderr.write("asynctick: %r\n" % (e,))
    gdb.execute("quit 2")
