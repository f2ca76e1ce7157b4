# oracle-early.py -- make oracle.py see cce_log calls made before main.
#
#   gdb -q -batch -nx -x oracle-early.py -x oracle.py --args ./prog.O0
#
# oracle.py runs the program to a temporary breakpoint on main and only
# then puts its breakpoint on cce_log, so it misses the calls made by
# constructors.  Sourced first, this script makes oracle.py's "run" stop
# instead as soon as libcce is loaded, before any constructor of the
# program has run: it catches the load of libcce, and at that stop deletes
# the catchpoint and oracle.py's temporary breakpoint on main.  oracle.py
# then finds cce_log, sets its breakpoint and runs the program to its end
# as usual.  Used by run-e2e.sh for the programs marked "early".

import gdb


def on_stop(event):
    if not isinstance(event, gdb.BreakpointEvent):
        return
    hit = event.breakpoints
    if not any(b.type == gdb.BP_CATCHPOINT for b in hit):
        return
    gdb.events.stop.disconnect(on_stop)
    for b in gdb.breakpoints():
        if b.type == gdb.BP_CATCHPOINT or (b.temporary and b.location == "main"):
            b.delete()


gdb.execute("catch load libcce", to_string=True)
gdb.events.stop.connect(on_stop)
