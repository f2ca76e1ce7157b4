# Deterministic workload for the bash corpus entry's run-time ratio
# (run-corpus.sh: ./bash bash-workload.sh).  Its output is compared between
# the plain and the instrumented build.  It exercises the parser and
# expansion code, recursion of shell functions, arithmetic, arrays,
# pattern substitution, traps, subshells and pipelines.
fib () { if (( $1 < 2 )); then echo "$1"; else echo $(( $(fib $(( $1 - 1 ))) + $(fib $(( $1 - 2 ))) )); fi; }
depth () { if (( $1 > 0 )); then depth $(( $1 - 1 )); else echo bottom; fi; }
declare -A count
s=0 words=()
for (( i = 0; i < 40000; i++ )); do
  w=$(( (i * 7919) % 1009 ))
  words+=("w$w")
  count[w$w]=$(( ${count[w$w]:-0} + 1 ))
  s=$(( (s + i * i) % 1000003 ))
done
echo "sum $s words ${#words[@]} distinct ${#count[@]}"
str=${words[*]}
str=${str//w1/W1}
echo "len ${#str} upper ${str:0:20} ${str^^}" | cut -c1-60
sorted=$(printf '%s\n' "${!count[@]}" | sort | head -3 | tr '\n' ' ')
echo "sorted $sorted"
echo "fib $(fib 16)"
echo "depth $(depth 2000)"
trap 'echo trapped' USR1
kill -USR1 $$
n=0
while read -r a b; do n=$(( n + a * b )); done < <(for (( i = 0; i < 5000; i++ )); do echo "$i $(( i % 7 ))"; done)
echo "read $n"
case "x${str:100:50}" in x*W1*) echo "case hit" ;; *) echo "case miss" ;; esac
