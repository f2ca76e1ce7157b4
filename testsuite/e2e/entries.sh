#!/bin/sh
# End-to-end test: the entries program against the gdb oracle (see run-e2e.sh).
exec sh "$(dirname "$0")/run-e2e.sh" entries
