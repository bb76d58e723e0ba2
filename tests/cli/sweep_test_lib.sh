# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the sweep tests (sourced): counters, and sweep.csv without its wall-time column.
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

# results FILE: sweep.csv without the "seconds" column (wall time differs between machines and
# runs; every other column must not).
results() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seconds") skip = i }
           { out = ""; for (i = 1; i <= NF; i++) if (i != skip) out = out (out == "" ? "" : ",") $i
             print out }' "$1"
}

# same_rows A B WHAT: the two sweep.csv files agree row for row (except wall time).
same_rows() {
  if [ ! -s "$1" ] || [ ! -s "$2" ]; then
    fail "$3: missing $1 or $2"
  elif diff <(results "$1") <(results "$2") >/dev/null; then
    ok "$3: $(($(wc -l <"$1") - 1)) rows equal"
  else
    fail "$3: rows differ"
    diff <(results "$1") <(results "$2") | head -n 10
  fi
}

# expect_fail PATTERN ARGS...: the CLI exits 1 and says PATTERN on stderr.
expect_fail() {
  local pattern=$1
  shift
  "$cli" "$@" >"$work/out" 2>"$work/err"
  local code=$?
  local message
  message=$(grep -a "error" "$work/err" | tail -n 1)
  if [ "$code" = 1 ] && grep -qE -- "$pattern" "$work/err"; then
    ok "refused: $message"
  else
    fail "rsalab-cli $* -> exit $code (want 1 and /$pattern/): $message"
  fi
}
