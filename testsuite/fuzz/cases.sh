#!/bin/sh
# fuzz/cases.sh -- the programs the differential tester found wrong
# contexts, crashes or compiler errors in, shrunk and saved in
# fuzz/cases/ (one directory each: the sources, model.json and the
# variant that failed), run again under that variant and the default
# options at -O1, -O2 and -O3.
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
exec python3 "$here/cce-fuzz" check "$here"/cases/*/
