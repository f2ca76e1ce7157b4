# torn.py -- gdb script of torn.sh: stop in the last cce_log call of
# torn.c (the N+1st), step to the store that makes its record valid, and
# kill the process there, with the record written but for its mark.
import os
import gdb

n = int(os.environ["TORN_N"])
gdb.execute("set pagination off")
gdb.execute("set breakpoint pending on")
gdb.execute("break __cce_log_at_v6")
gdb.execute("run", to_string=True)
gdb.execute("ignore 1 %d" % (n - 1), to_string=True)
gdb.execute("continue", to_string=True)
for _ in range(500):
    insn = gdb.execute("x/i $pc", to_string=True)
    # The mark, CCE_LOG_RECORD_MARK ("CCER"), stored as an immediate.
    if "0x52454343" in insn:
        print("torn.py: killed at:", insn.strip())
        gdb.execute("kill")
        break
    gdb.execute("stepi", to_string=True)
else:
    print("torn.py: no store of the mark within 500 instructions")
