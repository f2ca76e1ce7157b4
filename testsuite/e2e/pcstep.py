# pcstep.py -- the oracle of contexts at any instruction.
#
# A gdb Python script:
#
#   CCE_PCSTEP_LOG=LOG CCE_PCSTEP_OUT=EXPECTED CCE_PCSTEP_MAIN=ADDR \
#     gdb -q -batch -nx -x pcstep.py --args ./prog ARGS
#
# runs PROG (built with cce and -g) one instruction at a time from main to
# its exit.  At every instruction of the executable that gdb places in a
# function of the program, it writes
#   - to LOG, a record of an interrupted instruction, as libcce's sampler
#     would make it there: tag CCE_TAG_SAMPLE, the PC word of the
#     instruction, the id and the ccStack read from __cce_tls, the id
#     from r15 in a program that keeps it there (a stream log,
#     cce-format.h);
#   - to EXPECTED, the context gdb sees there: "1<TAB>sample<TAB>PATH",
#     PATH made as oracle.py makes it from gdb's backtrace (CFI and
#     inlined frames), and to EXPECTED.addr the instruction's link-time
#     address.
# Outside the executable it steps over calls into libcce and steps into
# the C library (which may call the program back).  ADDR is main's
# link-time address (nm), which gives the executable's load bias.
# CCE_PCSTEP_MAX bounds the records (default 200000).  Nothing here
# decodes anything: cce-decode must turn LOG into EXPECTED.

import os
import re
import struct
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402  (its path rules; main() does not run)
from pcrecords import PC_FLAG, RECORD_MARK, module_key  # noqa: E402

TAG_SAMPLE = 0xffe00100


def u64(expr):
    return int(gdb.parse_and_eval(expr)) & 0xffffffffffffffff


def main():
    for cmd in oracle.GDB_SETTINGS + (
                "set startup-with-shell off",
                "set environment LD_BIND_NOW=1",
                "unset environment CCE_PCSTEP_LOG",
                "unset environment CCE_PCSTEP_OUT",
                "unset environment CCE_PCSTEP_MAIN",
                "unset environment CCE_PCSTEP_MAX"):
        gdb.execute(cmd, to_string=True)
    exited = []
    gdb.events.exited.connect(lambda ev: exited.append(
        getattr(ev, "exit_code", None)))
    gdb.execute("tbreak main", to_string=True)
    gdb.execute("run", to_string=True)
    if exited:
        raise SystemExit("pcstep: the program exited before main")

    bias = u64("&main") - int(os.environ["CCE_PCSTEP_MAIN"], 0)
    dict_head = gdb.execute("x/s &__cce_dict", to_string=True)
    m = re.search(r'"cce-dict \d+ ([0-9a-f]{16})', dict_head)
    if not m:
        raise SystemExit("pcstep: no dictionary in the program")
    stamp = int(m.group(1), 16)
    key = module_key(stamp)
    prog = gdb.current_progspace().filename
    inferior = gdb.selected_inferior()

    log = open(os.environ["CCE_PCSTEP_LOG"], "wb")
    log.write(b"CCE-LOG\0" + struct.pack("<IIQQII", 3, 40, stamp,
                                         inferior.pid, 0, 0))
    out = open(os.environ["CCE_PCSTEP_OUT"], "w")
    addrs = open(os.environ["CCE_PCSTEP_OUT"] + ".addr", "w")
    limit = int(os.environ.get("CCE_PCSTEP_MAX", "200000"))
    records = steps = 0
    tls = u64("(unsigned long) &__cce_tls")
    # A program that keeps the id in r15 (cce-abi.h, CCE_IDREG): the
    # sampler reads it from the interrupted context, as here.
    try:
        idreg = u64("(unsigned long) &__cce_id_in_register") != 0
    except gdb.error:
        idreg = False
    while not exited and records < limit:
        frame = gdb.newest_frame()
        pc = frame.pc()
        solib = gdb.solib_name(pc)
        if solib is None and oracle.is_internal(frame):
            words = struct.unpack(
                "<4Q", bytes(inferior.read_memory(tls, 32)))
            ident, top, base = words[0], words[1], words[3]
            if idreg:
                ident = u64("$r15")
            n = (top - base) // 16 if top else 0
            stack = bytes(inferior.read_memory(base, 16 * n)) if n else b""
            addr = pc - bias
            log.write(struct.pack("<IIQQII", RECORD_MARK, TAG_SAMPLE,
                                  (key << 32) | PC_FLAG | addr, ident, n, 1)
                      + stack)
            path, _ = oracle.context(frame)
            out.write("1\tsample\t%s\n" % ";".join(path))
            addrs.write("%x\n" % addr)
            records += 1
        # Step over libcce (its cold entry points return by a jump, and
        # nothing in it calls the program); step into everything else.
        if solib is not None and "libcce" in os.path.basename(solib):
            gdb.execute("nexti", to_string=True)
        else:
            gdb.execute("stepi", to_string=True)
        steps += 1
    log.close()
    out.close()
    addrs.close()
    sys.stderr.write("pcstep: %d records in %d steps\n" % (records, steps))
    if not exited:
        gdb.execute("kill", to_string=True)
    gdb.execute("quit 0")


try:
    main()
except Exception as e:     # report, never stop silently
    sys.stderr.write("pcstep: %r\n" % (e,))
    gdb.execute("quit 2")
