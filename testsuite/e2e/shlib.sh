#!/bin/sh
# End-to-end test: an executable and a shared library built with cce (see run-e2e.sh).
exec sh "$(dirname "$0")/run-e2e.sh" shlib
