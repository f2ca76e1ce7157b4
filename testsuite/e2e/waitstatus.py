#!/usr/bin/env python3
# waitstatus.py -- run a command and say how it ended, as its parent sees
# it (waitpid): "status N", or "signal NAME" followed by " core" when it
# dumped core.  The command's own output goes where this script's does.
#
#   waitstatus.py COMMAND [ARG...]

import os
import signal
import subprocess
import sys

p = subprocess.Popen(sys.argv[1:])
_, st = os.waitpid(p.pid, 0)
if os.WIFSIGNALED(st):
    print("signal %s%s" % (signal.Signals(os.WTERMSIG(st)).name,
                           " core" if os.WCOREDUMP(st) else ""))
else:
    print("status %d" % os.WEXITSTATUS(st))
