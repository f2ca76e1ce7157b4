# check.sh -- sourced by the self-tests of testsuite/lib: count checks and
# report them.
#
#   check NAME GOT EXPECTED   one check: GOT must equal EXPECTED
#   check_summary             print the counts; its status is 0 if every
#                             check passed

pass=0 fail=0

check () {
  if test "$2" = "$3"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $1: got '$2', expected '$3'"
  fi
}

check_summary () {
  echo "$pass passed, $fail failed"
  test "$fail" = 0
}
