# Deterministic workload for the gawk corpus entry's run-time ratio
# (run-corpus.sh: gawk -f gawk-workload.awk DATA, DATA the generated text
# of run-corpus.sh).  Its output is compared between the plain and the
# instrumented build.  It exercises field splitting, regular expressions,
# associative arrays, user-defined functions with recursion, and sorting
# with a user-defined comparison function (qsort calling back into the
# interpreter).
function by_count(i1, v1, i2, v2) {
  if (v1 != v2) return v2 - v1
  return i1 < i2 ? -1 : i1 > i2
}
function depth(n) { return n == 0 ? 0 : 1 + depth(n - 1) }
{
  for (i = 1; i <= NF; i++) {
    w = $i
    if (w ~ /^[0-9]+$/) { nums++; numsum += w; continue }
    sub(/,$/, "", w)
    count[w]++
    len[length(w)]++
  }
  if ($0 ~ /(ea|oe)[a-z]*t /) matched++
  line = $0
  n = gsub(/[aeiou]/, "", line)
  vowels += n
  if (NR % 1000 == 0) d += depth(50 + NR % 100)
}
END {
  n = asorti(count, top, "by_count")
  printf "lines %d words %d numbers %d sum %d matched %d vowels %d depth %d\n",
    NR, n, nums, numsum, matched, vowels, d
  for (i = 1; i <= 10; i++) printf "%s %d\n", top[i], count[top[i]]
  for (l in len) total += len[l] * l
  printf "letters %d\n", total
  s = ""
  for (i = 1; i <= 2000; i++) s = s sprintf("%x", i * 7919)
  printf "hexlen %d %s\n", length(s), toupper(substr(s, 100, 16))
}
