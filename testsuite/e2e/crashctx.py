# crashctx.py -- the oracle of the context of a crash record.
#
# A gdb Python script:
#
#   CCE_CRASHCTX_OUT=EXPECTED CCE_CRASHCTX_MAIN=MAIN CCE_LOG=LOG \
#     gdb -q -batch -nx -x crashctx.py --args ./prog WAY
#
# runs PROG (built with cce and -g) until the kernel is about to deliver
# the first fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
# SIGTRAP or SIGSYS): gdb stops there, before any handler runs.  It
# writes to EXPECTED one line
#
#   SIGNAL<TAB>PATH<TAB>ADDR
#
# SIGNAL the signal's name, PATH the context of the thread that got it as
# oracle.py makes it from gdb's backtrace (call frame information and
# inlined frames, root first), ADDR the link-time address in the
# executable of the instruction it stopped at (hex), or for an
# instruction outside the executable (the C library's abort) "-:" and
# the return address in the executable of the call into such code that
# the innermost frame of the executable made ("-" if none did).  Then it lets the program go on
# with the signal, so that libcce's handler logs the crash record and the
# process dies of it (a handler that returns makes the signal come again:
# gdb passes it each time).  MAIN is main's link-time address (nm), which
# gives the executable's load bias.  Nothing here knows the log.

import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (its path rules; main() does not run)

FATAL = ("SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT", "SIGTRAP",
         "SIGSYS")


def main():
    for cmd in ("set pagination off", "set confirm off",
                "set print thread-events off",
                "set print inferior-events off",
                "set debuginfod enabled off",
                "set backtrace past-main off",
                "set backtrace limit unlimited",
                "set startup-with-shell off",
                # Not SIGTRAP: gdb's own (breakpoints, exec).
                "handle %s stop print pass"
                % " ".join(s for s in FATAL if s != "SIGTRAP"),
                "unset environment CCE_CRASHCTX_OUT",
                "unset environment CCE_CRASHCTX_MAIN"):
        gdb.execute(cmd, to_string=True)
    ended = []
    signals = []
    gdb.events.exited.connect(lambda ev: ended.append(ev))
    gdb.events.stop.connect(
        lambda ev: signals.append(getattr(ev, "stop_signal", None)))
    gdb.execute("run", to_string=True)
    if ended or not signals or signals[0] not in FATAL:
        raise SystemExit("crashctx: the program did not stop at a fatal"
                         " signal (%s)" % (signals[:1] or "exited"))
    frame = gdb.newest_frame()
    path, depth = oracle.context(frame)
    bias = (int(gdb.parse_and_eval("(unsigned long) &main"))
            - int(os.environ["CCE_CRASHCTX_MAIN"], 0))

    def in_exe(pc):
        addr = pc - bias
        if gdb.solib_name(pc) is None and 0 <= addr < 0x40000000:
            return addr
        return None

    addr = in_exe(frame.pc())
    where = "-" if addr is None else "%x" % addr
    f = frame
    while addr is None and f.older() is not None:
        f = f.older()
        addr = in_exe(f.pc())
        if addr is not None:
            where = "-:%x" % addr
    with open(os.environ["CCE_CRASHCTX_OUT"], "w") as out:
        out.write("%s\t%s\t%s\n" % (signals[0], ";".join(path), where))
    sys.stderr.write("crashctx: %s at %s, %d frames\n"
                     % (signals[0], where, depth))
    # On with the signal, as many times as it comes back.
    for _ in range(10):
        gdb.execute("continue", to_string=True)
        if ended:
            break
    if not ended:
        raise SystemExit("crashctx: the program did not die")
    gdb.execute("quit 0")


try:
    main()
except BaseException as e:     # report, never stop silently
    sys.stderr.write("crashctx: %s\n" % (e,))
    gdb.execute("quit 2")
