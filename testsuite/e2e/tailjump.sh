#!/bin/sh
# End-to-end test: self tail calls that GCC makes loops, with a log on
# every level (and ack's entries traced, -fplugin-arg-cce-trace, which
# keeps its calls calls), against gdb at -O0 (see run-e2e.sh); pcstep.sh
# checks the same program at every instruction.
exec sh "$(dirname "$0")/run-e2e.sh" tailjump
