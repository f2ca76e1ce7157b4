#!/bin/sh
# End-to-end test: -fplugin-arg-cce-trace against gdb breakpoints (see run-e2e.sh).
exec sh "$(dirname "$0")/run-e2e.sh" trace
