# bash-validate.sh -- the run on which testsuite/corpus/validate.sh checks
# bash's decoded contexts: builtins only (no fork, so one process and one
# log), recursive shell functions, expansions, arrays, arithmetic.
fib () {
  local n=$1
  if (( n < 2 )); then r=$n; return; fi
  fib $((n - 1)); local a=$r
  fib $((n - 2)); r=$((a + r))
}
walk () {
  local d=$1 w
  (( d == 0 )) && return
  for w in alpha beta gamma; do
    words+=("${w^^}-$d")
  done
  walk $((d - 1))
}
declare -A count
words=()
walk 6
for w in "${words[@]}"; do
  key=${w%%-*}
  count[$key]=$(( ${count[$key]:-0} + 1 ))
done
fib 9
s=""
for i in 1 2 3 4 5 6 7 8; do
  s+="${i}:${s:0:3};"
done
printf '%s %s %s %s\n' "$r" "${#words[@]}" "${count[ALPHA]}" "${#s}"
