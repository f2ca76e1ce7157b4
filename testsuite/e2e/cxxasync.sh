#!/bin/sh
# End-to-end test: the cxxasync program against the gdb oracle (see run-e2e.sh).
exec sh "$(dirname "$0")/run-e2e.sh" cxxasync
