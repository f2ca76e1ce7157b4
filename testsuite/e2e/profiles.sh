#!/bin/sh
# profiles.sh -- the profile outputs of cce-decode (--format=pprof,
# --format=speedscope) and --depth, on the log of e2e/profiles.c built
# with cce at -O2: cce_log calls under inlined chains, a recursion and
# calls through a pointer on four threads, a SIGALRM handler that logs
# (paths through [signal]) and CPU-time samples (CCE_SAMPLE=1000, paths
# that are incomplete where the context is not known).  e2e/profiles.py
# checks, all against the folded, records and text formats of the same
# log:
#   - --depth=1, 2, 3 of folded, records and text: each path cut to its
#     innermost K frames as profiles.py cuts it on its own; the counts
#     sum to the events; cut to K-1, the contexts of K are those of K-1,
#     none counting more than its parent (Ausiello et al.'s k-CCF);
#   - pprof -traces of the pprof output (and of --depth=2) gives folded's
#     paths and counts; pprof -raw gives, per thread and tag label, the
#     text format's frames with their inlined ones as Lines of one
#     Location; pprof -top's total is the number of events; protoc
#     --decode parses it;
#   - the speedscope output (and --depth=1) validates against the
#     file-format-schema.json of the npm package speedscope, and its
#     profiles give folded's paths and counts, and each thread its
#     records.
# The real pprof is built from Debian's golang-github-google-pprof-dev
# with no network and kept in tools/pprof of the build tree, the schema
# in tools/speedscope; as root, missing packages are installed with
# apt-get.  What cannot be had is skipped with a line that says why.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: profiles: no python3"; exit 77; }
e2e_tmpdir profiles || exit 1

tools=${builddir:-$CCE_BUILDDIR/testsuite}/tools
mkdir -p "$tools" || exit 1
proto_dir=/usr/share/gocode/src/github.com/google/pprof/proto

# apt_install PACKAGE...: install the packages that are missing, as root.
apt_install () {
  _missing=
  for _p in "$@"; do
    dpkg-query -W -f='${Status}' "$_p" 2>/dev/null | grep -q " ok installed" \
      || _missing="$_missing $_p"
  done
  [ -z "$_missing" ] && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "profiles: not root, or no apt-get: cannot install$_missing"
    return 1
  fi
  echo "profiles: apt-get install$_missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q $_missing >"$tmp/apt.log" 2>&1 \
    || { apt-get update -q >>"$tmp/apt.log" 2>&1 &&
         apt-get install -y -q $_missing >>"$tmp/apt.log" 2>&1; } \
    || { tail -n 3 "$tmp/apt.log"; return 1; }
}

# The real pprof, built once from Debian's sources (no network).
pprof=$tools/pprof
if ! "$pprof" -h >/dev/null 2>&1; then
  pprof=
  if apt_install golang-go golang-github-google-pprof-dev; then
    echo "profiles: building pprof into $tools"
    if (cd "$tools" && GO111MODULE=off GOPATH=/usr/share/gocode GOPROXY=off \
        GOFLAGS= GOCACHE="$tools/gocache" HOME="${HOME:-$tools}" \
        go build -o pprof.new github.com/google/pprof) >"$tmp/go.log" 2>&1 &&
       mv "$tools/pprof.new" "$tools/pprof"; then
      pprof=$tools/pprof
    else
      tail -n 5 "$tmp/go.log"; echo "profiles: go build of pprof failed"
    fi
  fi
fi
protoc=$(command -v protoc)
if [ -z "$protoc" ] || [ ! -f "$proto_dir/profile.proto" ]; then
  protoc=
  apt_install protobuf-compiler golang-github-google-pprof-dev &&
    [ -f "$proto_dir/profile.proto" ] && protoc=$(command -v protoc)
fi
python3 -c 'import jsonschema' 2>/dev/null || apt_install python3-jsonschema
# speedscope's schema, from its npm package.
schema=$tools/speedscope/node_modules/speedscope/dist/release/file-format-schema.json
if [ ! -f "$schema" ]; then
  command -v npm >/dev/null 2>&1 || apt_install npm
  if command -v npm >/dev/null 2>&1; then
    echo "profiles: npm install speedscope into $tools/speedscope"
    mkdir -p "$tools/speedscope"
    (cd "$tools/speedscope" && HOME="${HOME:-$tools}" \
      npm_config_cache="$tools/npm-cache" timeout 300 npm install \
      --no-audit --no-fund --ignore-scripts --prefix . speedscope) \
      >"$tmp/npm.log" 2>&1 || tail -n 5 "$tmp/npm.log"
  fi
  [ -f "$schema" ] || { echo "profiles: no speedscope schema"; schema=; }
fi
[ -n "$pprof" ] || echo "profiles: no pprof: its checks are skipped"
[ -n "$protoc" ] || echo "profiles: no protoc: its check is skipped"

exe=$tmp/profiles
if ! cce_cc -O2 "$here/profiles.c" -o "$exe" -pthread >"$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"; echo "FAIL: profiles: compilation failed"; exit 1
fi
if ! CCE_SAMPLE=1000 CCE_LOG="$tmp/log" "$exe" 150 >"$tmp/out" 2>&1; then
  cat "$tmp/out"; echo "FAIL: profiles: the program failed"; exit 1
fi

# dec NAME ARGS...: cce-decode ARGS into $tmp/NAME.
dec () {
  _name=$1; shift
  if ! "$CCE_DECODE" "$@" -o "$tmp/$_name" "$exe" "$tmp/log" 2>"$tmp/dec.err"; then
    cat "$tmp/dec.err"; echo "FAIL: profiles: cce-decode $* failed"; exit 1
  fi
}
for f in folded records text; do
  dec $f -f $f
  for k in 1 2 3; do
    dec $f.$k -f $f --depth=$k
  done
done
dec prof.pb.gz -f pprof
dec prof.2.pb.gz -f pprof --depth=2
dec ss.json -f speedscope
dec ss.1.json -f speedscope -d 1

python3 "$here/profiles.py" "$tmp" "$pprof" "$protoc" "$proto_dir" "$schema"
