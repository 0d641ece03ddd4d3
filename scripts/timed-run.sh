#!/usr/bin/env bash
# Cargo's runner for test binaries in scripts/test.sh: runs the binary and
# appends "<seconds> <binary> <args>" to $BASALT_TEST_TIMES, so each CI log ends
# with the slowest test binaries (what to look at when the run grows).
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
if [ -n "${BASALT_TEST_TIMES:-}" ]; then
    awk -v s="$start" -v e="$end" -v b="$(basename "$1" | sed 's/-[0-9a-f]*$//')" -v a="${*:2}" \
        'BEGIN { printf "%.1f %s %s\n", e - s, b, a }' >>"$BASALT_TEST_TIMES"
fi
exit "$rc"
