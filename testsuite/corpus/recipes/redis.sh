# recipes/redis.sh -- redis in the corpus, sourced by run-corpus.sh (which
# describes the recipe_* functions) and used by validate-recipes.sh
# (the vrecipe_* ones).
#
# redis 7.0: its own Makefiles, with the bundled dependencies in deps/
# (jemalloc, Lua, hiredis, linenoise, hdr_histogram) built as static
# archives with the same flags, so that they are part of the LTO unit.
# What the build needs:
#  - USE_SYSTEMD=no: no libsystemd;
#  - JEMALLOC_CONFIGURE_OPTS=--with-jemalloc-prefix= (an empty prefix):
#    Debian's patch 0004 (USE_SYSTEM_JEMALLOC) makes the server call
#    jemalloc's functions by their unprefixed names (mallctl, mallocx),
#    and the bundled jemalloc, built with its default prefix je_, then
#    leaves them undefined.  Unprefixed, jemalloc defines malloc and free
#    itself: the program replaces the C library's allocator;
#  - AR=gcc-ar RANLIB=gcc-ranlib, so that the archives keep LTO objects;
#  - deps/Makefile puts -O2 after CFLAGS for Lua; the recipe moves it
#    before them, so that the variant's -O level wins (the -O0 build of
#    the validation then has an -O0 Lua too; the other builds are -O2
#    either way).
# The redis-server binary is also redis-check-rdb (a copy; main() picks
# the mode by its name).
# Tests: `./runtest --clients 1` (one unit at a time, in a fixed order)
# on the units of the data types, scripting (Lua, functions), SORT,
# keyspace commands and bit operations; each unit starts its own servers
# from src/.
# Workload: redis-check-rdb (the RDB loader: LZF, listpacks, quicklists,
# skiplists, hash tables, streams, and freeing every object again) on an
# RDB file that the server of the build writes once per work dir
# (redis_rdb), 5 times.
recipe_redis_pkg () { echo redis; }
recipe_redis_deps () { echo tcl pkg-config; }
recipe_redis_prepare () {
  unpack_deb redis "$1" &&
  sed -i 's/^\tLUA_CFLAGS+= -O2 $/\tLUA_CFLAGS:= -O2 $(LUA_CFLAGS)/' "$1/deps/Makefile" &&
  grep -q 'LUA_CFLAGS:= -O2 $(LUA_CFLAGS)' "$1/deps/Makefile"
}
recipe_redis_build () {
  make -C "$2" -j"$JOBS" CC="$CC_V" OPTIMIZATION=-O2 CFLAGS="$CFLAGS_V" \
    LDFLAGS="$LDFLAGS_V" AR=gcc-ar RANLIB=gcc-ranlib USE_SYSTEMD=no \
    JEMALLOC_CONFIGURE_OPTS=--with-jemalloc-prefix=
}
recipe_redis_bin () { echo "$1/src/redis-server"; }
redis_units="unit/type/list unit/type/list-2 unit/type/hash unit/type/set
  unit/type/zset unit/type/incr unit/type/string unit/type/stream
  unit/type/stream-cgroups unit/scripting unit/functions unit/sort
  unit/keyspace unit/bitops"
recipe_redis_test () {
  cd "$2" || return 1
  set --
  for u in $redis_units; do set -- "$@" --single "$u"; done
  # TERM: no colours in the output.
  TERM=dumb ./runtest --clients 1 "$@"
}
recipe_redis_summary () {
  # "[ok]: NAME (N ms)", "[err]: NAME in FILE", "[exception]: ..."; the
  # list of failures at the end repeats them after "*** ".
  awk '/^\[ok\]: / { p++; t++ } /^\[(err|exception)\]: / { t++ }
       END { printf "%d %d\n", p, t }' "$1"
}
recipe_redis_normalize () {
  # Times, ports and process ids.
  sed -E -e 's/ \([0-9]+ ms\)$//' -e 's/ \([0-9]+ seconds\)$//' \
      -e 's/^  [0-9]+ seconds - /  N seconds - /' \
      -e 's/^(Starting test server at port) [0-9]+$/\1 PORT/' \
      -e 's/^\[ready\]: [0-9]+$/[ready]: PID/'
}
recipe_redis_about () { echo '`redis-check-rdb` (the RDB loader: LZF strings, listpacks, quicklists, skiplists, hash tables, streams, then freeing every object) on a generated 34 MB RDB file (416,200 keys), 5 times.'; }

# redis_rdb SERVER KEYS: the name of an RDB file made once per work dir by
# the redis-server SERVER (path) from a deterministic Lua script: 2 KEYS
# strings (text compressed with LZF, integers; some with an expiry time
# in 2100) and KEYS/50 each of lists, hashes, sets and sorted sets,
# alternately small (listpack, intset) and large (quicklist, hash table,
# skiplist), and KEYS/1000 streams.
redis_rdb () {
  rfile=$workdir/data/redis-$2.rdb
  if ! test -s "$rfile"; then
    rdir=$workdir/data/redis-gen-$2
    rm -rf "$rdir" && mkdir -p "$rdir" || return 1
    cli=$(dirname "$1")/redis-cli
    "$1" --port 0 --unixsocket "$rdir/sock" --dir "$rdir" --save '' \
      --appendonly no --logfile "$rdir/log" > /dev/null 2>&1 &
    rpid=$!
    i=0
    until "$cli" -s "$rdir/sock" ping > /dev/null 2>&1; do
      i=$((i + 1)); test $i -le 100 || break; sleep 0.1
    done
    # shellcheck disable=SC2016
    "$cli" -s "$rdir/sock" eval '
      local n = tonumber(ARGV[1])
      local s = 42
      local function rnd () s = s * 16807 % 2147483647 return s end
      for i = 1, n do
        redis.call("SET", "str:" .. i, "value:" .. rnd () % 100000 .. ":" ..
                   string.rep("abc", i % 40))
        redis.call("SET", "int:" .. i, rnd () % 1000000)
        if i % 10 == 0 then redis.call("PEXPIREAT", "str:" .. i, 4102444800000) end
      end
      for i = 1, n / 50 do
        local len = (i % 2 == 0) and 10 or 300
        for j = 1, len do
          redis.call("RPUSH", "list:" .. i, "item" .. rnd () % 1000)
          redis.call("HSET", "hash:" .. i, "field" .. j, rnd () % 100000)
          if i % 4 < 2 then
            redis.call("SADD", "set:" .. i, rnd () % 100000)
          else
            redis.call("SADD", "set:" .. i, "m" .. rnd () % 100000)
          end
          redis.call("ZADD", "zset:" .. i, j + (rnd () % 1000) / 1000, "member" .. j)
        end
      end
      for i = 1, n / 1000 do
        for j = 1, 200 do
          redis.call("XADD", "stream:" .. i, i .. "-" .. j, "field", rnd () % 1000,
                     "text", "entry " .. j)
        end
      end
      return "ok"' 0 "$2" > "$rdir/eval.out" 2>&1 &&
    "$cli" -s "$rdir/sock" save > /dev/null 2>&1
    rc=$?
    "$cli" -s "$rdir/sock" shutdown nosave > /dev/null 2>&1
    wait $rpid
    test $rc = 0 && grep -qx ok "$rdir/eval.out" && test -s "$rdir/dump.rdb" &&
      mv "$rdir/dump.rdb" "$rfile" && rm -rf "$rdir" || return 1
  fi
  echo "$rfile"
}
recipe_redis_workload () {
  rdb=$(redis_rdb "$PWD/src/redis-server" 200000) || return 1
  i=0
  while test $i -lt 5; do
    ./src/redis-check-rdb "$rdb" || return 1
    i=$((i + 1))
  done
}

# The loader's functions on a small RDB file (made by the -O0 build's
# server): each object read (rdbLoadObject) and its strings, the
# skiplists, the radix trees (the command table's at start-up, the
# streams'), the checks of listpacks, the frees, and the allocator
# and the strings and dicts of everything from start-up on.  Nothing
# traced is called from what the random hash seed or skiplist levels
# decide (the rehashing of dicts, comparisons).
vrecipe_redis_funcs () {
  echo rdbLoadObject rdbGenericLoadStringObject zslInsert raxInsert \
    raxTryInsert lpValidateIntegrity decrRefCount zmalloc _sdsnewlen dictAdd
}
vrecipe_redis_run () {
  v_bin=src/redis-check-rdb v_stdin=/dev/null
  v_args=$(redis_rdb "$workdir/redis/o0/src/redis-server" 2000)
}
